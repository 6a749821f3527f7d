// The HTTP ceiling of a scenario: a uWebSockets.js server that answers every request with the server's
// own answer — its body and its headers (Strapi's security set among them: ≈ 700 of the ≈ 900 bytes of a
// small GraphQL answer, which the load generator parses too) —, no routing, no worker, no database. It is
// what this machine, this load generator and uWS can do at that response; req/s ÷ ceiling is the share
// of it the real server reaches.
import uWS from 'uWebSockets.js';

export interface StaticServer { url: string; close(): void }

/**
 * The probe's headers not copied: those uWS writes itself on every answer, Content-Type (written from its
 * argument), and the probe's encoding (its body comes decoded; the load generator asks for none).
 */
const NOT_COPIED = new Set(['date', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'uwebsockets', 'content-type', 'content-encoding']);

export function startStaticServer(body: string, contentType: string, headers: Array<[string, string]> = []): Promise<StaticServer> {
  const extra = headers.filter(([k]) => !NOT_COPIED.has(k.toLowerCase()));
  const app = uWS.App();
  // One Buffer for all replies: the ceiling must not pay for re-encoding the string each time.
  const bytes = Buffer.from(body);
  const answer = (res: uWS.HttpResponse): void => {
    res.cork(() => {
      res.writeStatus('200 OK');
      res.writeHeader('Content-Type', contentType);
      for (const [k, v] of extra) res.writeHeader(k, v);
      res.end(bytes);
    });
  };
  app.any('/*', (res, req) => {
    if (req.getMethod() === 'get') { answer(res); return; }
    // A request with a body (a GraphQL POST) is answered once its body is in, copied as any server must
    // before it can read it: a ceiling answering before its body arrives measures a request no server
    // can serve (wrk: ≈ 20% more req/s for the GraphQL scenarios' 170-byte bodies).
    let aborted = false;
    res.onAborted(() => { aborted = true; });
    const chunks: Buffer[] = [];
    res.onData((ab, isLast) => {
      chunks.push(Buffer.from(ab.slice(0)));
      if (isLast && !aborted) answer(res);
    });
  });
  return new Promise((resolve, reject) => {
    app.listen('127.0.0.1', 0, (sock) => {
      if (!sock) return reject(new Error('HTTP ceiling server could not listen'));
      resolve({
        url: `http://127.0.0.1:${uWS.us_socket_local_port(sock)}`,
        // autocannon closes its keep-alive sockets when a run ends; closing the listen socket is enough.
        close: () => uWS.us_listen_socket_close(sock),
      });
    });
  });
}
