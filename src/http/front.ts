// The uWebSockets.js front end: reads what a request needs synchronously (uWS request objects die
// when the handler returns), enforces size limits, hands a Task to the worker pool and writes the
// reply corked. It never parses JSON or touches the database.
import uWS from 'uWebSockets.js';
import type { Task } from '../task.ts';
import type { Reply } from '../rest/reply.ts';
import { envelope, ApiError } from '../../compiler/errors.ts';
import { log } from '../log.ts';
import { serveUpload, uploadBodyLimit } from '../upload/static.ts';

export interface FrontOptions {
  host: string; port: number; maxBodySize: number; maxQueryStringLength: number;
  /** The upload plugin's folder (served at /uploads/*) and file size limit (the body limit of /api/upload). */
  upload?: { folder: string; maxFileSize: number };
}
export interface Front { port: number; inflight(): number; stopListening(): void; close(): void }

const STATUS: Record<number, string> = {
  200: '200 OK', 201: '201 Created', 204: '204 No Content', 400: '400 Bad Request', 401: '401 Unauthorized',
  403: '403 Forbidden', 404: '404 Not Found', 405: '405 Method Not Allowed', 413: '413 Payload Too Large',
  429: '429 Too Many Requests', 500: '500 Internal Server Error', 503: '503 Service Unavailable',
};
const statusLine = (s: number) => STATUS[s] ?? String(s);

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
/** Headers passed on to plugins in Task.headers (GraphQL: CSRF preflight, playground). */
const EXTRA_HEADERS = ['accept', 'apollo-require-preflight', 'x-apollo-operation-name'];

export function startFront(opts: FrontOptions, run: (t: Task) => Promise<Reply>): Promise<Front> {
  let inflight = 0;
  let closing = false;
  let listenSocket: uWS.us_listen_socket | null = null;
  const app = uWS.App();

  const send = (res: uWS.HttpResponse, state: { aborted: boolean }, reply: Reply) => {
    if (state.aborted) return;
    res.cork(() => {
      res.writeStatus(statusLine(reply.status));
      if (reply.status !== 204) res.writeHeader('Content-Type', reply.contentType ?? 'application/json; charset=utf-8');
      if (reply.headers) for (const [k, v] of reply.headers) res.writeHeader(k, v);
      if (reply.status === 204) res.endWithoutBody();
      else res.end(reply.body);
    });
  };
  const fail = (res: uWS.HttpResponse, state: { aborted: boolean }, e: ApiError) => send(res, state, { status: e.status, body: envelope(e) });

  if (opts.upload) {
    const folder = opts.upload.folder;
    app.get('/uploads/*', (res, req) => serveUpload(res, req, folder, false));
    app.head('/uploads/*', (res, req) => serveUpload(res, req, folder, true));
  }
  const uploadLimit = opts.upload ? uploadBodyLimit(opts.upload.maxFileSize) : opts.maxBodySize;

  app.any('/*', (res, req) => {
    const state = { aborted: false };
    res.onAborted(() => { state.aborted = true; });
    // Shutting down: requests that arrive on kept-alive connections are refused, and the connection closed.
    if (closing) {
      return send(res, state, { status: 503, body: envelope(new ApiError(503, 'ServiceUnavailableError', 'Server is shutting down', {})), headers: [['Connection', 'close']] });
    }
    const task: Task = {
      method: req.getCaseSensitiveMethod().toUpperCase(),
      path: req.getUrl(),
      query: req.getQuery() ?? '',
      authorization: req.getHeader('authorization') || undefined,
      contentType: req.getHeader('content-type') || undefined,
      body: null,
      ip: Buffer.from(res.getRemoteAddressAsText()).toString(),
    };
    for (const h of EXTRA_HEADERS) {
      const v = req.getHeader(h);
      if (v) (task.headers ??= {})[h] = v;
    }
    if (task.query.length > opts.maxQueryStringLength) {
      return fail(res, state, new ApiError(400, 'ValidationError', `Query string longer than ${opts.maxQueryStringLength} characters`, { source: 'query' }));
    }
    const dispatch = () => {
      inflight++;
      run(task).then((reply) => send(res, state, reply), (e) => {
        log.error('worker failed', { error: String((e as Error)?.stack ?? e) });
        send(res, state, { status: 500, body: envelope(new ApiError(500, 'InternalServerError', 'Internal Server Error', {})) });
      }).finally(() => { inflight--; });
    };
    if (!BODY_METHODS.has(task.method)) return dispatch();
    const declared = Number(req.getHeader('content-length') || 0);
    const maxBodySize = task.path === '/api/upload' || task.path === '/api/upload/' ? uploadLimit : opts.maxBodySize;
    const tooLarge = () => fail(res, state, new ApiError(413, 'PayloadTooLargeError', 'request entity too large', {}));
    if (declared > maxBodySize) return tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    res.onData((ab, isLast) => {
      if (refused) return;
      size += ab.byteLength;
      if (size > maxBodySize) { refused = true; tooLarge(); return; }
      // uWS reuses the chunk's memory after this callback: copy it.
      chunks.push(Buffer.from(ab.slice(0)));
      if (isLast) {
        const buf = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
        task.body = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
        dispatch();
      }
    });
  });

  return new Promise((resolve, reject) => {
    app.listen(opts.host, opts.port, (sock) => {
      if (!sock) return reject(new Error(`cannot listen on ${opts.host}:${opts.port} (port in use?)`));
      listenSocket = sock;
      resolve({
        port: uWS.us_socket_local_port(sock),
        inflight: () => inflight,
        stopListening: () => { closing = true; if (listenSocket) { uWS.us_listen_socket_close(listenSocket); listenSocket = null; } },
        close: () => { if (listenSocket) uWS.us_listen_socket_close(listenSocket); listenSocket = null; },
      });
    });
  });
}
