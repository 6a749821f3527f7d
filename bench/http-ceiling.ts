// The HTTP ceiling of a scenario: a uWebSockets.js server that answers every request with a fixed
// body of the same size and content type, no routing, no worker, no database. It is what this
// machine, this load generator and uWS can do at that response size; req/s ÷ ceiling is the share of
// it the real server reaches.
import uWS from 'uWebSockets.js';

export interface StaticServer { url: string; close(): void }

export function startStaticServer(body: string, contentType: string): Promise<StaticServer> {
  const app = uWS.App();
  // One Buffer for all replies: the ceiling must not pay for re-encoding the string each time.
  const bytes = Buffer.from(body);
  app.any('/*', (res) => {
    res.cork(() => {
      res.writeStatus('200 OK');
      res.writeHeader('Content-Type', contentType);
      res.end(bytes);
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
