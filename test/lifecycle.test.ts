// Issue 2: configuration validation at start, and `npm start` as an operator runs it — embedded
// PostgreSQL, graceful shutdown on SIGTERM (in-flight requests finish, the database stops), restart.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from 'node:net';
import { loadConfig, ConfigError } from '../config.ts';
import { freePort } from './helpers.ts';

describe('configuration', () => {
  const bad = (env: Record<string, string>) => {
    try { loadConfig(env, []); } catch (e) { assert.ok(e instanceof ConfigError); return (e as Error).message; }
    assert.fail(`accepted ${JSON.stringify(env)}`);
  };

  test('defaults, environment overrides and flags', () => {
    const c = loadConfig({}, []);
    assert.equal(c.port, 1337);
    assert.equal(c.api.rest.defaultLimit, 25);
    assert.equal(c.api.rest.maxLimit, 100);
    const o = loadConfig({ PORT: '4000', LOCALES: 'en,de', DEFAULT_LOCALE: 'de', WORKERS: '3' }, ['--models', '/tmp/m']);
    assert.equal(o.port, 4000);
    assert.deepEqual(o.i18n.locales, ['en', 'de']);
    assert.equal(o.workers, 3);
    assert.equal(o.modelsDir, '/tmp/m');
  });

  test('a bad value stops the start with a message naming the key', () => {
    assert.match(bad({ PORT: 'abc' }), /PORT/);
    assert.match(bad({ PORT: '70000' }), /PORT/);
    assert.match(bad({ WORKERS: '-1' }), /WORKERS/);
    assert.match(bad({ NODE_ENV: 'staging' }), /NODE_ENV/);
    assert.match(bad({ PUBLIC_ACCESS: 'maybe' }), /PUBLIC_ACCESS/);
    assert.match(bad({ DEFAULT_LOCALE: 'de' }), /DEFAULT_LOCALE/);
    assert.match(bad({ REST_DEFAULT_LIMIT: '500' }), /defaultLimit/);
    assert.match(bad({ NODE_ENV: 'production', API_TOKEN_SALT: 'salt-for-production' }), /JWT_SECRET/);
  });
});

const root = fileURLToPath(new URL('..', import.meta.url));

/** `npm start`'s own command line (package.json), run with this Node: its V8 flags are part of what operators run. */
function startArgs(): string[] {
  const script = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const [bin, ...args] = script.split(/\s+/);
  assert.equal(bin, 'node', `npm start runs node directly: ${script}`);
  return args;
}

function start(dataDir: string, port: number): { child: ChildProcess; output: () => string } {
  let out = '';
  const child = spawn(process.execPath, startArgs(), {
    cwd: root,
    env: { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', PUBLIC_ACCESS: 'true', WORKERS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  return { child, output: () => out };
}

async function waitFor(url: string, ms: number): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    try { if ((await fetch(url)).status < 500) return; } catch { /* not up yet */ }
    if (Date.now() > end) throw new Error(`${url} did not answer within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const exited = (c: ChildProcess) => new Promise<number | null>((r) => c.once('exit', (code) => r(code)));

test('npm start: embedded database, SIGTERM drains and stops it, data survives the restart', { timeout: 120_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fastrapi-life-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  try {
    let s = start(dataDir, port);
    await waitFor(`${base}/api/tags`, 60_000);
    const created = await fetch(`${base}/api/tags`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ data: { name: 'kept' } }) });
    assert.equal(created.status, 201);
    const dbUrl = readFileSync(join(dataDir, 'embedded-db.url'), 'utf8');
    // Requests in flight when SIGTERM arrives still get their answer.
    const inflight = Array.from({ length: 20 }, () => fetch(`${base}/api/tags`).then((r) => r.status, () => 0));
    s.child.kill('SIGTERM');
    const statuses = await Promise.all(inflight);
    // Answered (200), refused because they arrived after the signal (503), or never connected (0) — no 500.
    assert.ok(statuses.every((x) => x === 200 || x === 503 || x === 0), statuses.join());
    assert.ok(statuses.filter((x) => x === 200).length > 0, 'in-flight requests were answered');
    assert.equal(await exited(s.child), 0, s.output());
    assert.match(s.output(), /SIGTERM received/);
    assert.ok(!existsSync(join(dataDir, 'embedded-db.url')), 'the embedded database was stopped');
    const port2 = Number(new URL(dbUrl).port);
    const refused = await new Promise<string>((r) => {
      const sock = connect(port2, '127.0.0.1');
      sock.once('connect', () => { sock.destroy(); r('connected'); });
      sock.once('error', (e: NodeJS.ErrnoException) => r(e.code ?? 'error'));
    });
    assert.equal(refused, 'ECONNREFUSED', 'PostgreSQL no longer listens');

    s = start(dataDir, port);
    await waitFor(`${base}/api/tags`, 60_000);
    const list = await (await fetch(`${base}/api/tags`)).json() as { data: Array<{ name: string }> };
    assert.deepEqual(list.data.map((t) => t.name), ['kept']);
    s.child.kill('SIGINT');
    assert.equal(await exited(s.child), 0, s.output());
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a cancelled statement (statement_timeout), a closing database or a write out of retries answers 503, other bugs 500', async () => {
  const { toApiError } = await import('../src/db/errors.ts');
  assert.equal(toApiError({ code: '57014', message: 'canceling statement due to statement timeout' }).status, 503);
  assert.equal(toApiError({ code: 'CONNECTION_CLOSED', message: 'closed' }).status, 503);
  assert.equal(toApiError({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' }).status, 503);
  assert.equal(toApiError({ code: '53300', message: 'too many connections' }).status, 503);
  // A write that met others past its retries: the request was right, it may be sent again.
  for (const code of ['40P01', '40001', '55P03']) assert.equal(toApiError({ code, message: 'contention' }).status, 503, code);
  assert.equal(toApiError({ code: '23505', message: 'duplicate key' }).status, 400);
  assert.equal(toApiError(new TypeError('x is undefined')).status, 500);
});
