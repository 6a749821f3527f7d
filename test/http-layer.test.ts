// Issue 14: the production HTTP layer against a real server — Strapi's security headers, CORS, request
// ids, compression, ETag/304, Range on /uploads, health/readiness/metrics, trusted proxies and the login
// rate limit, configuration hygiene (DATABASE_* variables, .env, production without a database).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { gunzipSync, brotliDecompressSync, crc32 } from 'node:zlib';
import http from 'node:http';
import { loadConfig, ConfigError } from '../config.ts';
import { parseEnvFile, loadEnvFile } from '../src/env-file.ts';
import { TrustedProxies, normalizeIp } from '../src/http/proxy.ts';
import { chooseEncoding } from '../src/http/compress.ts';
import { parseRange } from '../src/upload/static.ts';
import { formatLine } from '../src/log.ts';
import { startTestServer, TOKEN, isErrorEnvelope, type TestServer } from './helpers.ts';

/** A raw request: the body as bytes (not decoded), every header as sent. */
function raw(base: string, method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HTTP layer (default configuration, an origin list)', () => {
  let s: TestServer;
  let big = '';
  before(async () => {
    s = await startTestServer({ env: { CORS_ORIGIN: 'http://allowed.example,https://app.example', AUTH_RATE_LIMIT: '2' } });
    for (let i = 0; i < 30; i++) assert.equal((await s.fetchJson('POST', '/api/tags', { data: { name: `tag number ${i} with a longer name` } }, TOKEN)).status, 201);
    big = (await raw(s.url, 'GET', '/api/tags?pagination[pageSize]=100')).body.toString();
    assert.ok(big.length > 2048, 'a body above the compression threshold');
  });
  after(async () => { await s?.stop(); });

  test('strapi::security headers on every answer; the uWS banner is sent and cannot be turned off', async () => {
    for (const [method, path] of [['GET', '/api/tags'], ['GET', '/api/nothing'], ['POST', '/api/tags/x'], ['GET', '/_health']]) {
      const r = await raw(s.url, method, path);
      assert.equal(r.headers['x-content-type-options'], 'nosniff', path);
      assert.equal(r.headers['x-frame-options'], 'SAMEORIGIN');
      assert.equal(r.headers['referrer-policy'], 'no-referrer');
      assert.equal(r.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
      assert.equal(r.headers['x-dns-prefetch-control'], 'off');
      assert.equal(r.headers['x-download-options'], 'noopen');
      assert.equal(r.headers['x-permitted-cross-domain-policies'], 'none');
      assert.match(String(r.headers['content-security-policy']), /^default-src 'self';/);
      // Strapi's config turns these helmet headers off.
      for (const h of ['cross-origin-opener-policy', 'cross-origin-resource-policy', 'cross-origin-embedder-policy', 'x-xss-protection', 'x-powered-by']) assert.equal(r.headers[h], undefined, h);
      // @trufflesuite/uws-js-unofficial 20.30 writes this header on every response (compiled in; no switch).
      assert.equal(r.headers.uwebsockets, '20');
    }
    // The GraphiQL page brings its own policy: its inline script is allowed by hash, once.
    const page = await raw(s.url, 'GET', '/graphql', { accept: 'text/html' });
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
  });

  test('every answer announces a keep-alive timeout shorter than the idle connections\' (Node\'s agent expires its sockets before it)', async () => {
    for (const [method, path] of [['GET', '/api/tags'], ['GET', '/api/nothing'], ['OPTIONS', '/api/tags'], ['GET', '/_health']] as const) {
      const r = await raw(s.url, method, path);
      assert.equal(r.headers['keep-alive'], 'timeout=5', `${method} ${path}`);
    }
    // A Node keep-alive agent reuses its socket within the timeout.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const ports: number[] = [];
    for (let i = 0; i < 2; i++) {
      await new Promise<void>((resolve, reject) => {
        http.get(`${s.url}/api/tags`, { agent }, (res) => { ports.push(res.socket.localPort ?? 0); res.resume(); res.on('end', resolve); }).on('error', reject);
      });
    }
    agent.destroy();
    assert.equal(ports[0], ports[1]);
  });

  test('X-Request-Id: a sane one is kept, anything else replaced; one on every response', async () => {
    const mine = await raw(s.url, 'GET', '/api/tags', { 'x-request-id': 'lb-1234.abc' });
    assert.equal(mine.headers['x-request-id'], 'lb-1234.abc');
    for (const bad of ['has space', 'x'.repeat(300), '<script>']) {
      const r = await raw(s.url, 'GET', '/api/tags', { 'x-request-id': bad });
      assert.match(String(r.headers['x-request-id']), /^[0-9a-f-]{36}$/, bad);
    }
    const a = await raw(s.url, 'GET', '/api/nothing');
    const b = await raw(s.url, 'GET', '/api/nothing');
    assert.match(String(a.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
  });

  test('CORS: allowed origins are reflected with credentials, others get no Allow-Origin, preflights are 204', async () => {
    const ok = await raw(s.url, 'GET', '/api/tags', { origin: 'https://app.example' });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers['access-control-allow-origin'], 'https://app.example');
    assert.equal(ok.headers['access-control-allow-credentials'], 'true');
    assert.match(String(ok.headers.vary), /Origin/);
    const none = await raw(s.url, 'GET', '/api/tags');
    assert.equal(none.headers['access-control-allow-origin'], undefined);
    const refused = await raw(s.url, 'GET', '/api/tags', { origin: 'http://evil.example' });
    assert.equal(refused.status, 200);
    assert.equal(refused.headers['access-control-allow-origin'], undefined);
    // keepHeaderOnError: error answers carry them too.
    const err = await raw(s.url, 'GET', '/api/nothing', { origin: 'http://allowed.example' });
    assert.equal(err.status, 404);
    assert.equal(err.headers['access-control-allow-origin'], 'http://allowed.example');

    const pre = await raw(s.url, 'OPTIONS', '/api/tags', { origin: 'http://allowed.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers['access-control-allow-origin'], 'http://allowed.example');
    assert.equal(pre.headers['access-control-allow-methods'], 'GET,POST,PUT,PATCH,DELETE,HEAD,OPTIONS');
    assert.equal(pre.headers['access-control-allow-headers'], 'Content-Type,Authorization,Origin,Accept');
    assert.equal(pre.headers['access-control-max-age'], '31536000');
    assert.equal(pre.body.length, 0);
    const preRefused = await raw(s.url, 'OPTIONS', '/api/tags', { origin: 'http://evil.example', 'access-control-request-method': 'GET' });
    assert.equal(preRefused.status, 204);
    assert.equal(preRefused.headers['access-control-allow-origin'], undefined);
    // A malformed Origin: a preflight is a clear 400, an ordinary request is served without CORS headers.
    const badPre = await raw(s.url, 'OPTIONS', '/api/tags', { origin: 'not an origin', 'access-control-request-method': 'GET' });
    assert.equal(badPre.status, 400);
    assert.ok(isErrorEnvelope(JSON.parse(badPre.body.toString()), 400));
    const badGet = await raw(s.url, 'GET', '/api/tags', { origin: 'javascript:alert(1)' });
    assert.equal(badGet.status, 200);
    assert.equal(badGet.headers['access-control-allow-origin'], undefined);
  });

  test('compression: brotli or gzip by Accept-Encoding above the threshold, Vary, identical content', async () => {
    const path = '/api/tags?pagination[pageSize]=100';
    const br = await raw(s.url, 'GET', path, { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.match(String(br.headers.vary), /Accept-Encoding/);
    assert.ok(br.body.length < big.length / 2);
    assert.equal(brotliDecompressSync(br.body).toString(), big);
    const gz = await raw(s.url, 'GET', path, { 'accept-encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gz.body).toString(), big);
    const refused = await raw(s.url, 'GET', path, { 'accept-encoding': 'br;q=0, gzip;q=0' });
    assert.equal(refused.headers['content-encoding'], undefined);
    assert.equal(refused.body.toString(), big);
    const plain = await raw(s.url, 'GET', path);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.match(String(plain.headers.vary), /Accept-Encoding/);
    // Below the threshold (1 KiB): as it is.
    const small = await raw(s.url, 'GET', '/api/tags?pagination[pageSize]=1', { 'accept-encoding': 'br, gzip' });
    assert.equal(small.headers['content-encoding'], undefined);
    JSON.parse(small.body.toString());
    // GraphQL answers too.
    const gql = await new Promise<{ enc: string | undefined; body: Buffer }>((resolve, reject) => {
      const u = new URL(s.url);
      const body = JSON.stringify({ query: '{ tags(pagination: { pageSize: 100 }) { data { id attributes { name } } } }' });
      const req = http.request({ host: u.hostname, port: u.port, method: 'POST', path: '/graphql', agent: false, headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip', authorization: `Bearer ${TOKEN}` } }, (res) => {
        const c: Buffer[] = [];
        res.on('data', (d: Buffer) => c.push(d));
        res.on('end', () => resolve({ enc: res.headers['content-encoding'], body: Buffer.concat(c) }));
      });
      req.on('error', reject);
      req.end(body);
    });
    assert.equal(gql.enc, 'gzip');
    assert.equal(JSON.parse(gunzipSync(gql.body).toString()).data.tags.data.length, 30);
    assert.equal(chooseEncoding('identity'), null);
    assert.equal(chooseEncoding('*'), 'br');
    assert.equal(chooseEncoding('gzip;q=0.5, br;q=0'), 'gzip');
  });

  test('ETag and 304 on REST and GraphQL GET; a changed document changes the tag', async () => {
    const first = await raw(s.url, 'GET', '/api/tags');
    const tag = String(first.headers.etag);
    // The body's length and CRC-32 (src/http/etag.ts).
    assert.equal(tag, `W/"${first.body.length.toString(16)}-${crc32(first.body).toString(16)}"`);
    const again = await raw(s.url, 'GET', '/api/tags', { 'if-none-match': tag });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    assert.equal(again.headers.etag, tag);
    assert.equal(again.headers['x-request-id'] !== undefined, true);
    // The same tag validates the compressed representation (weak comparison).
    const gz = await raw(s.url, 'GET', '/api/tags?pagination[pageSize]=100', { 'accept-encoding': 'gzip' });
    assert.equal((await raw(s.url, 'GET', '/api/tags?pagination[pageSize]=100', { 'accept-encoding': 'br', 'if-none-match': String(gz.headers.etag) })).status, 304);
    assert.equal((await raw(s.url, 'GET', '/api/tags', { 'if-none-match': 'W/"other"' })).status, 200);
    const doc = JSON.parse(first.body.toString()).data[0].documentId as string;
    assert.equal((await s.fetchJson('PUT', `/api/tags/${doc}`, { data: { name: 'renamed' } }, TOKEN)).status, 200);
    const changed = await raw(s.url, 'GET', '/api/tags', { 'if-none-match': tag });
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.etag, tag);
    // Writes get none.
    const post = await s.fetchJson('POST', '/api/tags', { data: { name: 'no etag' } }, TOKEN);
    assert.equal(post.headers.etag, undefined);

    const q = `/graphql?query=${encodeURIComponent('{ tags { data { id } } }')}`;
    const g1 = await raw(s.url, 'GET', q, { 'apollo-require-preflight': 'true' });
    assert.equal(g1.status, 200);
    assert.ok(g1.headers.etag);
    const g2 = await raw(s.url, 'GET', q, { 'apollo-require-preflight': 'true', 'if-none-match': String(g1.headers.etag) });
    assert.equal(g2.status, 304);
  });

  test('/uploads: ETag and Last-Modified (304), byte ranges (206), unsatisfiable ranges (416 in the envelope)', async () => {
    const folder = s.server.config.upload.folder;
    mkdirSync(folder, { recursive: true });
    const content = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
    writeFileSync(join(folder, 'range-test.bin'), content);
    const full = await raw(s.url, 'GET', '/uploads/range-test.bin');
    assert.equal(full.status, 200);
    assert.deepEqual(full.body, content);
    assert.equal(full.headers['accept-ranges'], 'bytes');
    const tag = String(full.headers.etag);
    assert.match(tag, /^W\//);
    assert.equal(full.headers['x-content-type-options'], 'nosniff');
    assert.equal(full.headers['content-security-policy'], "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox");
    const cached = await raw(s.url, 'GET', '/uploads/range-test.bin', { 'if-none-match': tag });
    assert.equal(cached.status, 304);
    assert.equal(cached.body.length, 0);
    const since = await raw(s.url, 'GET', '/uploads/range-test.bin', { 'if-modified-since': String(full.headers['last-modified']) });
    assert.equal(since.status, 304);

    const part = await raw(s.url, 'GET', '/uploads/range-test.bin', { range: 'bytes=10-19' });
    assert.equal(part.status, 206);
    assert.equal(part.headers['content-range'], 'bytes 10-19/1000');
    assert.deepEqual(part.body, content.subarray(10, 20));
    const suffix = await raw(s.url, 'GET', '/uploads/range-test.bin', { range: 'bytes=-5' });
    assert.equal(suffix.status, 206);
    assert.deepEqual(suffix.body, content.subarray(995));
    const open = await raw(s.url, 'GET', '/uploads/range-test.bin', { range: 'bytes=990-' });
    assert.deepEqual(open.body, content.subarray(990));
    const head = await raw(s.url, 'HEAD', '/uploads/range-test.bin', { range: 'bytes=0-99' });
    assert.equal(head.status, 206);
    assert.equal(head.headers['content-length'], '100');
    // If-Range naming another version: the whole file.
    assert.equal((await raw(s.url, 'GET', '/uploads/range-test.bin', { range: 'bytes=0-9', 'if-range': 'W/"old"' })).status, 200);
    for (const bad of ['bytes=1000-', 'bytes=50-10', 'bytes=abc', 'bytes=-0']) {
      const r = await raw(s.url, 'GET', '/uploads/range-test.bin', { range: bad });
      assert.equal(r.status, 416, bad);
      assert.equal(r.headers['content-range'], 'bytes */1000');
      assert.ok(isErrorEnvelope(JSON.parse(r.body.toString()), 416), bad);
    }
    // Several ranges, or another unit: the whole file (RFC 9110 allows ignoring Range).
    assert.equal((await raw(s.url, 'GET', '/uploads/range-test.bin', { range: 'bytes=0-1,5-6' })).status, 200);
    assert.equal((await raw(s.url, 'GET', '/uploads/range-test.bin', { range: 'items=0-1' })).status, 200);
    const missing = await raw(s.url, 'GET', '/uploads/missing.bin');
    assert.equal(missing.status, 404);
    assert.ok(isErrorEnvelope(JSON.parse(missing.body.toString()), 404));
    assert.deepEqual(parseRange('bytes=0-0', 1), { start: 0, end: 0 });
    assert.equal(parseRange('bytes=0-0', 0), 'unsatisfiable');
  });

  test('/_health (Strapi\'s), /_ready (select 1), /metrics (Prometheus text)', async () => {
    const h = await raw(s.url, 'GET', '/_health');
    assert.equal(h.status, 204);
    assert.equal(h.headers.strapi, 'You are so French!');
    assert.equal((await raw(s.url, 'HEAD', '/_health')).status, 204);
    assert.equal((await raw(s.url, 'GET', '/_ready')).status, 204);
    await raw(s.url, 'GET', '/api/tags?sort=name');
    await raw(s.url, 'GET', '/api/tags?sort=name');
    // Counted apart by kind, method and status (each label read back from the counter's key).
    const countOf = async (re: RegExp) => Number(re.exec((await raw(s.url, 'GET', '/metrics')).body.toString())?.[1] ?? 0);
    const HEALTH_HEAD = /^fastrapi_http_requests_total\{kind="health",method="HEAD",status="204"\} (\d+)$/m;
    const headBefore = await countOf(HEALTH_HEAD);
    await raw(s.url, 'HEAD', '/_health');
    await raw(s.url, 'HEAD', '/_health');
    assert.equal(await countOf(HEALTH_HEAD), headBefore + 2);
    const m = await raw(s.url, 'GET', '/metrics');
    assert.equal(m.status, 200);
    assert.equal(m.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    const text = m.body.toString();
    assert.match(text, /^# TYPE fastrapi_http_requests_total counter$/m);
    assert.match(text, /^fastrapi_http_requests_total\{kind="rest",method="GET",status="200"\} \d+$/m);
    assert.match(text, /^fastrapi_http_requests_total\{kind="rest",method="GET",status="404"\} \d+$/m);
    assert.match(text, /^fastrapi_http_requests_total\{kind="upload",method="GET",status="206"\} \d+$/m);
    assert.match(text, /^fastrapi_http_requests_total\{kind="health",method="GET",status="200"\} \d+$/m, 'the /metrics reads above');
    assert.doesNotMatch(text, /kind="undefined"|method="undefined"/);
    assert.match(text, /^fastrapi_http_request_duration_seconds_bucket\{kind="rest",le="\+Inf"\} \d+$/m);
    assert.match(text, /^fastrapi_event_loop_delay_seconds\{quantile="0.99"\} [\d.e-]+$/m);
    assert.match(text, /^fastrapi_db_pool_size \d+$/m);
    // A statement read often enough and fast is light: its reads then run on the light pool.
    const LIGHT_READS = /^fastrapi_db_light_pool_reads (\d+)$/m;
    const lightBefore = await countOf(LIGHT_READS);
    for (let i = 0; i < 6; i++) assert.equal((await raw(s.url, 'GET', '/api/tags?sort=name&fields[0]=name', { 'cache-control': 'no-cache' })).status, 200);
    assert.ok(await countOf(LIGHT_READS) >= lightBefore + 3, 'the later reads ran on the light pool');
    const hits = /^fastrapi_plan_cache_hits\{cache="exact"\} (\d+)$/m.exec(text);
    assert.ok(hits && Number(hits[1]) >= 1, 'the second identical read hit the plan cache');
    // Every sample line is `name{labels} value`.
    for (const line of text.split('\n').filter((l) => l && !l.startsWith('#'))) assert.match(line, /^[a-z_]+(\{[^}]*\})? -?[\d.e+-]+$/, line);
  });

  test('without PROXY, X-Forwarded-For is ignored: the login limit counts the socket address', async () => {
    const login = (xff: string) => s.fetchJson('POST', '/api/auth/local', { identifier: 'nobody@example.com', password: 'wrong-password' }, null, { 'x-forwarded-for': xff });
    const statuses = [];
    for (const ip of ['1.1.1.1', '2.2.2.2', '3.3.3.3']) statuses.push((await login(ip)).status);
    assert.deepEqual(statuses, [400, 400, 429]);
  });

  test('405 stays Strapi\'s text answer; 4xx from the front end are envelopes; odd headers are never a 5xx', async () => {
    const r = await s.fetchJson('POST', '/api/tags/abc', { data: {} }, TOKEN);
    assert.equal(r.status, 405);
    assert.equal(r.text, 'Method Not Allowed');
    const long = await s.fetchJson('GET', `/api/tags?filters[name][$eq]=${'x'.repeat(17000)}`);
    assert.ok(isErrorEnvelope(long.body, 414));
    const auth = await raw(s.url, 'GET', '/api/tags', { authorization: `Bearer ${'x'.repeat(3000)}` });
    assert.equal(auth.status, 401);
    assert.ok(isErrorEnvelope(JSON.parse(auth.body.toString()), 401));
  });

  test('headers past uWS\'s 4 KiB limit arriving in pieces: uWS closes the connection without an answer (documented)', async () => {
    const port = Number(new URL(s.url).port);
    const answer = await new Promise<string>((resolve) => {
      let got = '';
      const sock = connect(port, '127.0.0.1', () => {
        sock.write('GET /api/tags HTTP/1.1\r\nHost: x\r\n');
        setTimeout(() => sock.write(`X-Big: ${'a'.repeat(8000)}\r\n\r\n`), 50);
      });
      sock.on('data', (d) => { got += d; });
      sock.on('error', () => {});
      sock.on('close', () => resolve(got));
      setTimeout(() => sock.destroy(), 5000);
    });
    assert.equal(answer, '', 'no status line: this uWS build has no 431 answer');
    // The server is unharmed.
    assert.equal((await raw(s.url, 'GET', '/_health')).status, 204);
  });
});

describe('HTTP layer behind a proxy, metrics protected', () => {
  let s: TestServer;
  before(async () => { s = await startTestServer({ env: { PROXY: 'true', AUTH_RATE_LIMIT: '2', METRICS_TOKEN: 'scrape-me', CORS_ORIGIN: '*', CORS_CREDENTIALS: 'false' } }); });
  after(async () => { await s?.stop(); });

  test('the login limit counts the client named by X-Forwarded-For', async () => {
    const login = (xff: string) => s.fetchJson('POST', '/api/auth/local', { identifier: 'nobody@example.com', password: 'wrong-password' }, null, { 'x-forwarded-for': xff, 'x-forwarded-proto': 'https' });
    assert.equal((await login('9.9.9.9')).status, 400);
    // PROXY=true trusts every hop (koa's ips[0]): the left-most address is the client.
    assert.equal((await login('9.9.9.9, 10.0.0.1')).status, 400);
    assert.equal((await login('9.9.9.9')).status, 429);
    assert.equal((await login('8.8.8.8')).status, 400, 'another client has its own window');
  });

  test('/metrics needs the bearer token; CORS * without credentials sends *', async () => {
    const no = await raw(s.url, 'GET', '/metrics');
    assert.equal(no.status, 401);
    assert.ok(isErrorEnvelope(JSON.parse(no.body.toString()), 401));
    assert.equal((await raw(s.url, 'GET', '/metrics', { authorization: 'Bearer nope' })).status, 401);
    assert.equal((await raw(s.url, 'GET', '/metrics', { authorization: 'Bearer scrape-me' })).status, 200);
    const c = await raw(s.url, 'GET', '/api/tags', { origin: 'http://anything.example' });
    assert.equal(c.headers['access-control-allow-origin'], '*');
    assert.equal(c.headers['access-control-allow-credentials'], undefined);
  });
});

describe('trusted proxies (unit)', () => {
  test('the right-most untrusted hop is the client', () => {
    assert.deepEqual(new TrustedProxies(false).resolve('10.0.0.2', '1.2.3.4', 'https'), { ip: '10.0.0.2', proto: 'http' });
    assert.deepEqual(new TrustedProxies(true).resolve('10.0.0.2', '1.2.3.4, 10.0.0.1', 'https'), { ip: '1.2.3.4', proto: 'https' });
    // One trusted hop (the load balancer): the address it saw, whatever the client prepended.
    assert.equal(new TrustedProxies(1).resolve('10.0.0.2', 'forged, 5.6.7.8', '').ip, '5.6.7.8');
    assert.equal(new TrustedProxies(2).resolve('10.0.0.2', '1.1.1.1, 5.6.7.8, 10.0.0.1', '').ip, '5.6.7.8');
    const list = new TrustedProxies(['10.0.0.0/8', '::1']);
    assert.equal(list.resolve('10.0.0.2', '1.1.1.1, 7.7.7.7, 10.9.9.9', '').ip, '7.7.7.7');
    assert.equal(list.resolve('192.168.1.1', '7.7.7.7', 'https').ip, '192.168.1.1', 'an untrusted peer: headers ignored');
    assert.equal(list.resolve('10.0.0.2', 'garbage', '').ip, '10.0.0.2');
    assert.equal(normalizeIp('::ffff:127.0.0.1'), '127.0.0.1');
    assert.equal(normalizeIp('0000:0000:0000:0000:0000:0000:0000:0001'), '::1');
  });
});

describe('configuration hygiene', () => {
  const bad = (env: Record<string, string>) => {
    try { loadConfig(env, []); } catch (e) { assert.ok(e instanceof ConfigError); return (e as Error).message; }
    assert.fail(`accepted ${JSON.stringify(env)}`);
  };
  const PROD = { NODE_ENV: 'production', JWT_SECRET: 'production-secret-0123456789', API_TOKEN_SALT: 'salt' };

  test('Strapi\'s DATABASE_* variables make a URL; DATABASE_URL wins; only postgres', () => {
    const c = loadConfig({ DATABASE_CLIENT: 'postgres', DATABASE_HOST: 'db.internal', DATABASE_PORT: '5433', DATABASE_NAME: 'cms', DATABASE_USERNAME: 'app', DATABASE_PASSWORD: 'p@ss:w/rd', DATABASE_SSL: 'true' }, []);
    const u = new URL(c.databaseUrl!);
    assert.equal(u.hostname, 'db.internal');
    assert.equal(u.port, '5433');
    assert.equal(u.pathname, '/cms');
    assert.equal(decodeURIComponent(u.username), 'app');
    assert.equal(decodeURIComponent(u.password), 'p@ss:w/rd');
    assert.equal(u.searchParams.get('sslmode'), 'require');
    assert.equal(loadConfig({ DATABASE_HOST: 'h', DATABASE_URL: 'postgres://x@y/z' }, []).databaseUrl, 'postgres://x@y/z');
    assert.match(bad({ DATABASE_CLIENT: 'mysql' }), /DATABASE_CLIENT/);
    assert.match(bad({ DATABASE_HOST: 'h', DATABASE_PORT: 'x' }), /DATABASE_PORT/);
  });

  test('production refuses to start without a database unless DATABASE_EMBEDDED=true', () => {
    assert.match(bad(PROD), /NODE_ENV=production needs a database.*DATABASE_EMBEDDED=true/);
    assert.equal(loadConfig({ ...PROD, DATABASE_EMBEDDED: 'true' }, []).databaseEmbedded, true);
    assert.equal(loadConfig({ ...PROD, DATABASE_HOST: 'db' }, []).env, 'production');
    assert.match(bad({ DATABASE_EMBEDDED: 'true', DATABASE_URL: 'postgres://a@b/c' }), /choose one/);
    // Metrics: on by default outside production, off in it.
    assert.equal(loadConfig({}, []).metrics.enabled, true);
    assert.equal(loadConfig({ ...PROD, DATABASE_HOST: 'db' }, []).metrics.enabled, false);
  });

  test('new keys from the environment', () => {
    const c = loadConfig({
      CORS_ORIGIN: 'https://a.example, https://b.example', CORS_CREDENTIALS: 'false', CORS_HEADERS: 'X-One,Authorization', CORS_METHODS: 'GET,POST',
      CORS_MAX_AGE: '60', CORS_EXPOSE: 'X-Request-Id', CORS_ENABLED: 'false', PROXY: '2', COMPRESSION_THRESHOLD: '2048', METRICS_ENABLED: 'false', METRICS_TOKEN: 't',
    }, []);
    assert.deepEqual(c.http.cors.origin, ['https://a.example', 'https://b.example']);
    assert.equal(c.http.cors.credentials, false);
    assert.deepEqual(c.http.cors.headers, ['X-One', 'Authorization']);
    assert.deepEqual(c.http.cors.methods, ['GET', 'POST']);
    assert.equal(c.http.cors.maxAge, 60);
    assert.deepEqual(c.http.cors.expose, ['X-Request-Id']);
    assert.equal(c.http.cors.enabled, false);
    assert.equal(c.proxy, 2);
    assert.equal(c.http.compression.threshold, 2048);
    assert.equal(c.metrics.enabled, false);
    assert.equal(loadConfig({ PROXY: 'true' }, []).proxy, true);
    assert.deepEqual(loadConfig({ PROXY_TRUST: '10.0.0.0/8,::1' }, []).proxy, ['10.0.0.0/8', '::1']);
    assert.match(bad({ PROXY_TRUST: '10.0.0.0/99' }), /PROXY_TRUST/);
    assert.match(bad({ PROXY: 'maybe' }), /PROXY/);
    // A function origin (config.ts): kept, and not cloned into worker data.
    const fn = (o: string) => o.endsWith('.example');
    assert.equal(loadConfig({}, [], { http: { cors: { origin: fn } } }).http.cors.origin, fn);
  });

  test('.env: dotenv\'s format, never overriding the environment', () => {
    const parsed = parseEnvFile([
      '# comment', 'export PORT=4000', 'EMPTY=', 'SPACED = value with spaces  # trailing comment', "SINGLE='a # not a comment'",
      'DOUBLE="line1\\nline2"', 'MULTI="first', 'second"', 'URL=postgres://u:p@h:5432/db?sslmode=require', '  INDENTED=yes', 'no equals line',
    ].join('\n'));
    assert.deepEqual(parsed, {
      PORT: '4000', EMPTY: '', SPACED: 'value with spaces', SINGLE: 'a # not a comment', DOUBLE: 'line1\nline2', MULTI: 'first\nsecond',
      URL: 'postgres://u:p@h:5432/db?sslmode=require', INDENTED: 'yes',
    });
    const dir = mkdtempSync(join(tmpdir(), 'fastrapi-env-'));
    try {
      writeFileSync(join(dir, '.env'), 'PORT=4000\nHOST=10.0.0.1\n');
      const env: Record<string, string | undefined> = { PORT: '5000' };
      assert.deepEqual(loadEnvFile(dir, env), ['HOST']);
      assert.deepEqual(env, { PORT: '5000', HOST: '10.0.0.1' });
      assert.deepEqual(loadEnvFile(join(dir, 'none'), env), []);
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

  test('log lines are JSON objects with time, level and msg first', () => {
    const line = formatLine('http', 'GET /api/x (1 ms) 200', { status: 200, requestId: 'abc', level: 'spoofed', error: new Error('boom') });
    assert.ok(line.endsWith('\n'));
    const o = JSON.parse(line);
    assert.deepEqual(Object.keys(o).slice(0, 3), ['time', 'level', 'msg']);
    assert.equal(o.level, 'http');
    assert.equal(o.status, 200);
    assert.equal(o.requestId, 'abc');
    assert.match(o.error, /boom/);
  });
});
