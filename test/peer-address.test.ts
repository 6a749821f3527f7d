// The client's address reaches what asks for it (users-permissions' login rate limit, keyed by address) when
// the front end reads it only on demand: with the access log off, on the main thread and through the
// worker pool's copy of the request. Clients connect from different loopback addresses (127.0.0.2, .3).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startTestServer } from './helpers.ts';

/** A failed login sent from `from`: its status. */
function login(url: string, from: string): Promise<number> {
  const body = JSON.stringify({ identifier: 'nobody@example.com', password: 'wrong-password' });
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, path: '/api/auth/local', method: 'POST', localAddress: from, agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

for (const workers of ['0', '1']) {
  test(`WORKERS=${workers}, no access log: the login limit counts each client address apart`, async () => {
    const s = await startTestServer({ env: { WORKERS: workers, LOG_LEVEL: 'warn', AUTH_RATE_LIMIT: '3' } });
    try {
      const first: number[] = [];
      for (let i = 0; i < 4; i++) first.push(await login(s.url, '127.0.0.2'));
      assert.deepEqual(first, [400, 400, 400, 429], 'the fourth attempt from one address is refused');
      // Another address starts with its own allowance: the limit saw two addresses, not one empty one.
      assert.equal(await login(s.url, '127.0.0.3'), 400);
      assert.equal(await login(s.url, '127.0.0.2'), 429);
    } finally {
      await s.stop();
    }
  });
}
