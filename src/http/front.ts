// The uWebSockets.js front end: reads what a request needs synchronously (uWS request objects die
// when the handler returns), enforces size limits, hands a Task to the worker pool and writes the
// reply corked. It never parses JSON or touches the database. What every response carries is decided
// here, on the main thread: X-Request-Id, Strapi's security headers, CORS, the access line and metrics.
import uWS from 'uWebSockets.js';
import { performance } from 'node:perf_hooks';
import type { Task } from '../task.ts';
import type { Reply } from '../rest/reply.ts';
import type { CorsConfig } from '../../config.ts';
import { envelope, ApiError, serviceUnavailable } from '../../compiler/errors.ts';
import { log, logEnabled } from '../log.ts';
import { serveUpload, uploadBodyLimit } from '../upload/static.ts';
import { Cors, saneOrigin } from './cors.ts';
import { SECURITY_BLOCK, SECURITY_BLOCK_WITH_CSP, hasCsp } from './security.ts';
import { TrustedProxies, normalizeIp, type ProxySetting } from './proxy.ts';
import { requestId } from './request-id.ts';
import { statusLine } from './status.ts';
import { Metrics, routeKind, type Gauge, type RouteKind } from './metrics.ts';
import type { Exchange } from './exchange.ts';

export interface FrontOptions {
  /** Every request header in Task.headers (a project's code reads any: ctx.get), not only EXTRA_HEADERS. */
  allHeaders?: boolean;
  host: string; port: number; maxBodySize: number; maxQueryStringLength: number;
  /** The upload plugin's folder (served at /uploads/*) and file size limit (the body limit of /api/upload). */
  upload?: { folder: string; maxFileSize: number };
  cors?: CorsConfig;
  security?: boolean;
  proxy?: ProxySetting;
  accessLog?: boolean;
  etag?: boolean;
  graphqlEndpoint?: string;
  /** Prometheus /metrics: on when given; `gauges` adds what only the server knows (pools, plan caches). */
  metrics?: { token: string; gauges(): Gauge[] } | null;
}
export interface Front {
  port: number;
  /** Requests begun and not yet answered. */
  inflight(): number;
  /** Requests begun since the start (with inflight(), how the render cache's refresh knows the node is quiet). */
  began(): number;
  stopListening(): void;
  close(): void;
}


const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
/** Headers passed on to plugins in Task.headers (GraphQL: CSRF preflight, playground; content negotiation). */
const EXTRA_HEADERS = ['accept', 'apollo-require-preflight', 'x-apollo-operation-name', 'strapi-response-format', 'cache-control', 'pragma', 'accept-encoding', 'if-none-match'];

/** One request as the main thread sees it, from its first byte to its last. */

const errorBody = (status: number, name: string, message: string) => envelope(new ApiError(status, name, message, {}));

/**
 * Task.ip as an own enumerable accessor reading the exchange's address when asked: copies of the task
 * (`{ ...task }`) and the worker pool's structured clone read it while the response is open. One shared
 * getter, not a closure per request.
 */
const EXCHANGE = Symbol('exchange');
function exchangeIp(this: { [EXCHANGE]: Exchange }): string { return this[EXCHANGE].ip; }
const LAZY_IP: PropertyDescriptor = { get: exchangeIp, enumerable: true, configurable: true };

/** The peer address of the request's socket, as text (IPv4-mapped IPv6 unwrapped). */
const socketIp = (res: uWS.HttpResponse): string => normalizeIp(Buffer.from(res.getRemoteAddressAsText()).toString());

/** Seconds a client should wait before retrying a 503 (database unreachable, worker died, shutting down). */
const RETRY_AFTER = '1';

export function startFront(opts: FrontOptions, run: (t: Task) => Promise<Reply>, abort: (t: Task) => void = () => {}): Promise<Front> {
  let inflight = 0;
  let began = 0;
  let closing = false;
  let listenSocket: uWS.us_listen_socket | null = null;
  const app = uWS.App();
  const cors = opts.cors?.enabled ? new Cors(opts.cors) : null;
  const security = opts.security !== false;
  const proxies = new TrustedProxies(opts.proxy ?? false);
  const accessLog = opts.accessLog !== false;
  const endpoint = opts.graphqlEndpoint ?? '/graphql';
  const metrics = opts.metrics ? new Metrics() : null;

  /**
   * One request's exchange. A class, not an object of closures: tsx keeps function names by defining
   * `name` on every arrow function made, which per request cost as much as the response cache's lookup.
   */
  class LiveExchange implements Exchange {
    aborted = false;
    finished = false;
    cors: Exchange['cors'] = null;
    cancel?: () => void;
    constructor(readonly res: uWS.HttpResponse, readonly id: string, readonly start: number, readonly method: string, readonly path: string,
      private peer: string | undefined, readonly proto: 'http' | 'https', readonly kind: RouteKind) {}

    /**
     * The client's address, read from the socket when first asked (the access line, a rate limit, the
     * project's ctx.ip): uWS hands it over as a new ArrayBuffer, which cost a fifth of a cached answer's
     * throughput when read for every request. Empty once the response is over (nothing asks then).
     */
    get ip(): string {
      if (this.peer === undefined) {
        if (this.aborted || this.finished) return '';
        this.peer = socketIp(this.res);
      }
      return this.peer;
    }

    writeCommon(ownCsp = false): void {
      const res = this.res;
      res.writeHeader('X-Request-Id', this.id);
      // uWebSockets.js closes a connection idle for 10 s; clients that keep connections alive (Node's agent,
      // undici) drop theirs before the time announced here instead of reusing one it just closed (a "socket
      // hang up" for the next request). Strapi's Node server announces 5 s.
      res.writeHeader('Keep-Alive', 'timeout=5');
      if (security) {
        const [k, v] = ownCsp ? SECURITY_BLOCK : SECURITY_BLOCK_WITH_CSP;
        res.writeHeader(k, v);
      }
      if (cors) {
        // koa-cors varies every answer on Origin: a cache must not serve one origin's answer to another.
        res.writeHeader('Vary', 'Origin');
        if (Array.isArray(this.cors)) for (const [k, v] of this.cors) res.writeHeader(k, v);
      }
    }

    done(status: number, bytes: number): void {
      if (this.finished) return;
      this.finished = true;
      inflight--;
      const seconds = (performance.now() - this.start) / 1000;
      metrics?.record(this.kind, this.method, status, seconds);
      if (accessLog && logEnabled('http')) {
        const ms = Math.round(seconds * 10000) / 10;
        log.http(`${this.method} ${this.path} (${ms} ms) ${status}`, { method: this.method, path: this.path, status, ms, bytes, requestId: this.id, ip: this.ip, proto: this.proto });
      }
    }
  }

  function begin(res: uWS.HttpResponse, req: uWS.HttpRequest): Exchange {
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const path = req.getUrl();
    // Read now when the proxy headers decide it (the request's headers die with this call) or when the
    // access line will want it (a client gone before its answer is logged with its address too).
    const peer = proxies.enabled
      ? proxies.resolve(socketIp(res), req.getHeader('x-forwarded-for'), req.getHeader('x-forwarded-proto'))
      : { ip: accessLog && logEnabled('http') ? socketIp(res) : undefined, proto: 'http' as const };
    const origin = cors ? req.getHeader('origin') : '';
    const ex = new LiveExchange(res, requestId(req.getHeader('x-request-id')), performance.now(), method, path, peer.ip, peer.proto,
      metrics ? routeKind(path, endpoint) : 'other');
    // In flight from its first byte (a body still arriving counts): shutdown waits for it.
    inflight++;
    began++;
    res.onAborted(() => {
      ex.aborted = true;
      // The client went away before its answer: logged as nginx does (499), its statements cancelled.
      ex.done(499, 0);
      ex.cancel?.();
    });
    if (cors && origin) {
      const allowed = cors.allowOrigin(origin, { method, path });
      ex.cors = allowed instanceof Promise
        ? allowed.then((a) => (a ? cors.responseHeaders(a) : []), () => [])
        : allowed ? cors.responseHeaders(allowed) : null;
    }
    return ex;
  }

  const send = (ex: Exchange, reply: Reply, closeConnection = false): void => {
    if (ex.aborted) return;
    if (ex.cors instanceof Promise) {
      ex.cors.then((h) => { ex.cors = h; send(ex, reply, closeConnection); }, () => { ex.cors = null; send(ex, reply, closeConnection); });
      return;
    }
    const res = ex.res;
    const noBody = reply.status === 204 || reply.status === 304;
    let bytes = 0;
    res.cork(() => {
      res.writeStatus(statusLine(reply.status));
      if (!noBody) res.writeHeader('Content-Type', reply.contentType ?? 'application/json; charset=utf-8');
      ex.writeCommon(hasCsp(reply.headers));
      if (reply.headers) for (const [k, v] of reply.headers) res.writeHeader(k, v);
      if (reply.status === 503 && !reply.headers?.some(([k]) => k.toLowerCase() === 'retry-after')) res.writeHeader('Retry-After', RETRY_AFTER);
      if (noBody) res.endWithoutBody();
      else {
        bytes = typeof reply.body === 'string' ? Buffer.byteLength(reply.body) : reply.body.byteLength;
        res.end(reply.body, closeConnection);
      }
    });
    ex.done(reply.status, bytes);
  };
  const fail = (ex: Exchange, e: ApiError, closeConnection = false) => send(ex, { status: e.status, body: envelope(e) }, closeConnection);
  /** Requests that arrive on kept-alive connections while shutting down: refused, and the connection closed. */
  const refuseClosing = (ex: Exchange) => send(ex, {
    status: 503, body: errorBody(503, 'ServiceUnavailableError', 'Server is shutting down'), headers: [['Connection', 'close']],
  }, true);

  /** Runs a route handler with the exchange, answering 503 while closing and 500 if the handler throws. */
  const route = (handler: (ex: Exchange, req: uWS.HttpRequest) => void) => (res: uWS.HttpResponse, req: uWS.HttpRequest) => {
    const ex = begin(res, req);
    if (closing) return refuseClosing(ex);
    try { handler(ex, req); } catch (e) {
      log.error('request failed', { error: String((e as Error)?.stack ?? e), requestId: ex.id });
      fail(ex, new ApiError(500, 'InternalServerError', 'Internal Server Error', {}));
    }
  };

  // Strapi's health check: 204 with its header, for load balancers and container HEALTHCHECKs.
  const health = route((ex) => send(ex, { status: 204, body: '', headers: [['strapi', 'You are so French!']] }));
  app.get('/_health', health);
  app.head('/_health', health);
  // Readiness: a worker (or the main thread) runs `select 1`, so a node whose database is gone leaves the pool.
  app.get('/_ready', route((ex) => {
    run({ method: 'GET', path: '/_ready', query: '', body: null, internal: true, requestId: ex.id })
      .then((reply) => send(ex, reply), () => fail(ex, serviceUnavailable()));
  }));
  if (opts.metrics && metrics) {
    const { token, gauges } = opts.metrics;
    app.get('/metrics', route((ex, req) => {
      if (token && req.getHeader('authorization') !== `Bearer ${token}`) {
        return fail(ex, new ApiError(401, 'UnauthorizedError', 'Missing or invalid credentials', {}));
      }
      send(ex, { status: 200, body: metrics.render(gauges()), contentType: 'text/plain; version=0.0.4; charset=utf-8' });
    }));
  }

  if (opts.upload) {
    const folder = opts.upload.folder;
    const etag = opts.etag !== false;
    app.get('/uploads/*', route((ex, req) => serveUpload(ex, req, folder, false, etag)));
    app.head('/uploads/*', route((ex, req) => serveUpload(ex, req, folder, true, etag)));
  }
  const uploadLimit = opts.upload ? uploadBodyLimit(opts.upload.maxFileSize) : opts.maxBodySize;

  /** Hands a request to the pool (or this thread's app) and sends its reply. */
  function dispatch(ex: Exchange, task: Task): void {
    ex.cancel = () => abort(task);
    run(task).then((reply) => send(ex, reply), (e) => {
      log.error('worker failed', { error: String((e as Error)?.stack ?? e), requestId: ex.id });
      send(ex, { status: 500, body: errorBody(500, 'InternalServerError', 'Internal Server Error') });
    });
  }
  function tooLarge(ex: Exchange): void { fail(ex, new ApiError(413, 'PayloadTooLargeError', 'request entity too large', {})); }

  app.any('/*', route((ex, req) => {
    const task: Task = {
      method: ex.method,
      path: ex.path,
      query: req.getQuery() ?? '',
      authorization: req.getHeader('authorization') || undefined,
      contentType: req.getHeader('content-type') || undefined,
      body: null,
      requestId: ex.id,
    };
    (task as Task & { [EXCHANGE]?: Exchange })[EXCHANGE] = ex;
    Object.defineProperty(task, 'ip', LAZY_IP);
    if (cors && task.method === 'OPTIONS') {
      const origin = req.getHeader('origin');
      const wanted = req.getHeader('access-control-request-method');
      if (origin && wanted) return preflight(ex, origin, req.getHeader('access-control-request-headers'));
    }
    if (opts.allHeaders) {
      const headers: Record<string, string> = {};
      req.forEach((k, v) => { headers[k] = v; });
      task.headers = headers;
    } else {
      for (const h of EXTRA_HEADERS) {
        const v = req.getHeader(h);
        if (v) (task.headers ??= {})[h] = v;
      }
    }
    // Koa has no URL limit (Node's 16 KiB header limit answers 431 before Strapi sees the request); this
    // server's own limit answers 414 in Strapi's envelope (http-errors' name for 414).
    if (task.query.length > opts.maxQueryStringLength || task.path.length > opts.maxQueryStringLength) {
      return fail(ex, new ApiError(414, 'URITooLongError', `URL longer than ${opts.maxQueryStringLength} characters (limit http.maxQueryStringLength)`, {}));
    }
    if (!BODY_METHODS.has(task.method)) return dispatch(ex, task);
    const declared = Number(req.getHeader('content-length') || 0);
    const maxBodySize = task.path === '/api/upload' || task.path === '/api/upload/' ? uploadLimit : opts.maxBodySize;
    if (declared > maxBodySize) return tooLarge(ex);
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    ex.res.onData((ab, isLast) => {
      if (refused) return;
      size += ab.byteLength;
      if (size > maxBodySize) { refused = true; tooLarge(ex); return; }
      // uWS reuses the chunk's memory after this callback: copy it.
      chunks.push(Buffer.from(ab.slice(0)));
      if (isLast) {
        const buf = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
        task.body = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
        dispatch(ex, task);
      }
    });
  }));

  /** A CORS preflight: 204 with the Allow-* headers for an allowed origin; a refused one gets none. */
  const preflight = (ex: Exchange, origin: string, requestHeaders: string) => {
    const c = cors!;
    const allowed = c.allowOrigin(origin, { method: ex.method, path: ex.path });
    const answer = (a: string | null) => {
      ex.cors = a ? c.preflight(a, requestHeaders) : null;
      if (!a && !saneOrigin(origin)) return fail(ex, new ApiError(400, 'BadRequestError', 'Invalid Origin header', {}));
      send(ex, { status: 204, body: '' });
    };
    if (allowed instanceof Promise) allowed.then(answer, () => answer(null));
    else answer(allowed);
  };

  return new Promise((resolve, reject) => {
    app.listen(opts.host, opts.port, (sock) => {
      if (!sock) return reject(new Error(`cannot listen on ${opts.host}:${opts.port} (port in use?)`));
      listenSocket = sock;
      resolve({
        port: uWS.us_socket_local_port(sock),
        inflight: () => inflight,
        began: () => began,
        stopListening: () => { closing = true; if (listenSocket) { uWS.us_listen_socket_close(listenSocket); listenSocket = null; } },
        close: () => { closing = true; if (listenSocket) uWS.us_listen_socket_close(listenSocket); listenSocket = null; metrics?.close(); },
      });
    });
  });
}
