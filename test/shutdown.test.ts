// Issue 14: graceful shutdown of `node src/main.ts` with DATABASE_URL (the embedded case is in
// lifecycle.test.ts). A request whose body is still arriving when SIGTERM comes is finished; a request on
// a kept-alive connection after the signal gets 503 in Strapi's envelope with Connection: close (not a
// reset); the process exits 0. Its stderr is JSON lines, one access line per request with its id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { freePort, startTestServer } from './helpers.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** A raw HTTP/1.1 connection that collects what the server sends. */
function conn(port: number): Promise<{ sock: Socket; text(): string; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    let text = '';
    const sock = connect(port, '127.0.0.1');
    const closed = new Promise<void>((r) => sock.on('close', () => r()));
    sock.on('data', (d) => { text += d; });
    sock.on('error', () => {});
    sock.once('connect', () => resolve({ sock, text: () => text, closed }));
    sock.once('error', reject);
  });
}

const until = async (cond: () => boolean, ms: number, what: string) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

test('SIGTERM with DATABASE_URL: in-flight request finished, keep-alive request refused with 503 + close, exit 0', { timeout: 180_000 }, async () => {
  // A database for the child: the embedded cluster of an in-process server (its URL is a real DATABASE_URL).
  const host = await startTestServer();
  const port = await freePort();
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: {
      ...process.env, DATABASE_URL: host.server.databaseUrl, PORT: String(port), HOST: '127.0.0.1', WORKERS: '0', PUBLIC_ACCESS: 'true',
      LOG_LEVEL: 'http', SHUTDOWN_TIMEOUT: '30', MODELS_DIR: '', DATA_DIR: host.db.dataDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    // A child that failed to start says why at once rather than after the wait.
    await until(() => /listening on/.test(out) || child.exitCode !== null, 90_000, 'the child to listen');
    assert.match(out, /listening on/, out);

    // A: a POST whose body has only half arrived.
    const body = JSON.stringify({ data: { name: 'sent during shutdown' } });
    const a = await conn(port);
    a.sock.write(`POST /api/tags HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: inflight-1\r\n\r\n${body.slice(0, 10)}`);
    // B: a kept-alive connection with one answered request.
    const b = await conn(port);
    b.sock.write('GET /api/tags HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => /\r\n\r\n\{"data"/.test(b.text()), 10_000, 'the first answer on B');
    const firstLength = b.text().length;

    child.kill('SIGTERM');
    await until(() => /SIGTERM received/.test(out), 10_000, 'the signal to be logged');
    b.sock.write('GET /api/tags HTTP/1.1\r\nHost: x\r\nX-Request-Id: late-1\r\n\r\n');
    await until(() => b.text().length > firstLength, 10_000, 'the answer to the late request');
    await b.closed;
    const late = b.text().slice(firstLength);
    assert.match(late, /^HTTP\/1\.1 503 /);
    assert.match(late, /\r\nConnection: close\r\n/i);
    const lateBody = JSON.parse(late.slice(late.indexOf('\r\n\r\n') + 4));
    assert.deepEqual(lateBody, { data: null, error: { status: 503, name: 'ServiceUnavailableError', message: 'Server is shutting down', details: {} } });

    // The in-flight request completes after the signal.
    a.sock.write(body.slice(10));
    await until(() => /\r\n\r\n\{/.test(a.text()), 10_000, 'the in-flight answer');
    assert.match(a.text(), /^HTTP\/1\.1 201 /);
    assert.equal(await exited, 0, out);
    a.sock.destroy();

    const created = await host.sql()`select count(*)::int as n from tags where name = ${'sent during shutdown'}`;
    assert.ok(created[0].n >= 1, 'the in-flight write was committed');
    // Logs: JSON lines only; an access line per request, with the request ids.
    const lines = out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    const access = lines.filter((l) => l.level === 'http');
    const inflight = access.find((l) => l.requestId === 'inflight-1');
    assert.ok(inflight, out);
    assert.equal(inflight.status, 201);
    assert.equal(inflight.method, 'POST');
    assert.equal(inflight.path, '/api/tags');
    assert.equal(typeof inflight.ms, 'number');
    assert.ok((inflight.bytes as number) > 0);
    assert.equal(access.find((l) => l.requestId === 'late-1')?.status, 503);
    assert.ok(lines.some((l) => l.msg === 'stopped'));
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await host.stop();
  }
});
