// Issue 15, faults: an external PostgreSQL 15 cluster started here (its own data folder and port, run
// as the `postgres` OS user when the tests run as root) is stopped, restarted and killed under load
// while `node src/main.ts` serves it. Also: the connection deadline and cancellation helpers of
// src/db/connect.ts on their own, and worker threads that die (FASTRAPI_TEST_CRASH_PATH, test-only).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile, execFileSync, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, chmodSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import { connect, readStatement, setConnectionDeadline, queryTap, strayCancelRetries } from '../src/db/connect.ts';
import { ClientSignal } from '../src/task.ts';
import { freePort } from './helpers.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const BIN = '/usr/lib/postgresql/15/bin';
const DEADLINE = 1000;
const CRASH_PATH = '/__test/crash';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A PostgreSQL 15 cluster of its own, controlled with pg_ctl. */
class Cluster {
  readonly dir = mkdtempSync(join(tmpdir(), 'fastrapi-faults-'));
  readonly data = join(this.dir, 'data');
  // Below Linux's ephemeral range (32768-60999), where the suite's own outgoing connections take ports.
  port = 10000 + Math.floor(Math.random() * 10000);
  /** Runs a command as `postgres` without blocking the event loop (the load goes on meanwhile). */
  private async run(cmd: string, args: string[]): Promise<void> {
    const root = process.getuid?.() === 0;
    await promisify(execFile)(root ? 'runuser' : cmd, root ? ['-u', 'postgres', '--', cmd, ...args] : args);
  }
  private asPostgres(cmd: string, args: string[], allowFail = false): string {
    const root = process.getuid?.() === 0;
    try {
      return execFileSync(root ? 'runuser' : cmd, root ? ['-u', 'postgres', '--', cmd, ...args] : args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      if (allowFail) return String((e as { stderr?: string }).stderr ?? e);
      throw e;
    }
  }
  init(): void {
    chmodSync(this.dir, 0o777);
    if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', this.dir]);
    this.asPostgres(`${BIN}/initdb`, ['-D', this.data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  }
  private get options(): string { return `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c max_connections=60`; }
  start(): Promise<void> { return this.run(`${BIN}/pg_ctl`, ['-D', this.data, '-l', join(this.dir, 'log'), '-w', '-t', '30', '-o', this.options, 'start']); }
  /** The first start: another port when the chosen one is taken. */
  async startFirst(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try { await this.start(); return; } catch (e) {
        const log = existsSync(join(this.dir, 'log')) ? readFileSync(join(this.dir, 'log'), 'utf8') : '';
        if (attempt >= 4 || !/could not bind|already in use/i.test(log)) throw new Error(`${String(e)}\n${log.slice(-2000)}`);
        this.port = 10000 + Math.floor(Math.random() * 10000);
      }
    }
  }
  /** Starts again after a kill -9: orphaned backends may hold the shared memory for a moment. */
  async startAfterCrash(): Promise<void> {
    const end = Date.now() + 15_000;
    for (;;) {
      try { await this.start(); return; } catch (e) {
        if (Date.now() > end) throw e;
        await sleep(100);
      }
    }
  }
  stop(): Promise<void> { return this.run(`${BIN}/pg_ctl`, ['-D', this.data, '-m', 'fast', '-w', 'stop']); }
  restart(): Promise<void> { return this.run(`${BIN}/pg_ctl`, ['-D', this.data, '-m', 'fast', '-w', '-l', join(this.dir, 'log'), '-o', this.options, 'restart']); }
  kill9(): void {
    const pid = Number(readFileSync(join(this.data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 'SIGKILL');
  }
  url(db = 'postgres'): string { return `postgres://postgres@127.0.0.1:${this.port}/${db}`; }
  destroy(): void {
    if (existsSync(join(this.data, 'postmaster.pid'))) this.asPostgres(`${BIN}/pg_ctl`, ['-D', this.data, '-m', 'immediate', '-w', 'stop'], true);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `node src/main.ts` as a child process, its stderr kept. */
class Node {
  readonly url: string;
  out = '';
  child: ChildProcess;
  /** `port`: free now (freePort()). */
  constructor(env: Record<string, string>, readonly port: number) {
    this.url = `http://127.0.0.1:${port}`;
    this.child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: root,
      env: { ...process.env, PORT: String(this.port), HOST: '127.0.0.1', PUBLIC_ACCESS: 'true', MODELS_DIR: '', LOG_LEVEL: 'info', RESPONSE_CACHE: 'false', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (d) => { this.out += d; });
    this.child.stderr!.on('data', (d) => { this.out += d; });
  }
  async listening(): Promise<void> {
    const end = Date.now() + 90_000;
    while (!/listening on/.test(this.out)) {
      if (this.child.exitCode !== null || Date.now() > end) throw new Error(`the server did not start:\n${this.out.slice(-3000)}`);
      await sleep(50);
    }
  }
  alive(): boolean { return this.child.exitCode === null && this.child.signalCode === null; }
  /** The JSON log lines (every stderr line must be one). */
  lines(): Array<Record<string, unknown>> {
    return this.out.split('\n').filter((l) => l.trim()).map((l) => { try { return JSON.parse(l); } catch { return { notJson: l }; } });
  }
  async stop(): Promise<void> {
    if (!this.alive()) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await Promise.race([exited, sleep(15_000)]);
    if (this.alive()) this.child.kill('SIGKILL');
  }
}

interface Sample { start: number; end: number; status: number; write: boolean; error?: string; retryAfter?: string | null; name?: string }

async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; headers: Headers; json: any }> {
  const r = await fetch(base + path, {
    method, body: body === undefined ? undefined : JSON.stringify(body),
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    signal: AbortSignal.timeout(15_000),
  });
  const text = await r.text();
  let json: unknown = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = text; }
  return { status: r.status, headers: r.headers, json };
}

describe('database faults under load (external PostgreSQL 15)', { timeout: 240_000 }, () => {
  const cluster = new Cluster();
  let node: Node;
  before(async () => {
    cluster.init();
    await cluster.startFirst();
    const admin = postgres(cluster.url(), { max: 1, onnotice: () => {} });
    try { await admin`create database fastrapi`; } finally { await admin.end({ timeout: 5 }); }
    node = new Node({ DATABASE_URL: cluster.url('fastrapi'), WORKERS: '0', DB_CONNECTION_DEADLINE: String(DEADLINE), DB_POOL_SIZE: '4', GRAPHQL_SHAPE: 'v5', FASTRAPI_TEST_CRASH_PATH: CRASH_PATH }, await freePort());
    await node.listening();
  });
  after(async () => { await node?.stop(); cluster.destroy(); });

  test('stop 5 s, restart, kill -9: bounded waits, only 503 (with Retry-After), no acknowledged write lost, fast recovery', async () => {
    const samples: Sample[] = [];
    const ready: Array<{ t: number; status: number }> = [];
    let running = true;
    let seq = 0;
    const client = async (n: number) => {
      while (running) {
        const write = (seq++ + n) % 2 === 0;
        const name = `w-${n}-${seq}`;
        const s: Sample = { start: performance.now(), end: 0, status: 0, write, name };
        try {
          const graphql = !write && n % 4 === 3;
          const r = write ? await call(node.url, 'POST', '/api/tags', { data: { name } })
            : graphql ? await call(node.url, 'POST', '/graphql', { query: '{ tags(sort: "id:desc", pagination: { limit: 5 }) { documentId name } }' })
            : await call(node.url, 'GET', n % 4 === 1 ? '/api/articles?populate=*' : '/api/tags?pagination[pageSize]=5&sort=id:desc');
          s.status = r.status;
          s.retryAfter = r.headers.get('retry-after');
          // GraphQL: a field the database could not answer makes the whole response 503, never a 200 with errors.
          if (graphql && r.status === 200 && r.json?.errors) s.error = `GraphQL 200 with errors: ${JSON.stringify(r.json.errors).slice(0, 300)}`;
          if (graphql && r.status === 503) assert.equal(r.json?.errors?.[0]?.extensions?.error?.name, 'ServiceUnavailableError');
          else if (r.status === 503) assert.equal(r.json?.error?.name, 'ServiceUnavailableError');
        } catch (e) { s.error = String(e); }
        s.end = performance.now();
        samples.push(s);
        // A client that got 503 waits a little, as Retry-After asks (shortened: the test measures recovery).
        if (s.status === 503) await sleep(20);
      }
    };
    const prober = async () => {
      while (running) {
        const t = performance.now();
        try { ready.push({ t, status: (await call(node.url, 'GET', '/_ready')).status }); } catch { ready.push({ t, status: 0 }); }
        await sleep(50);
      }
    };
    const clients = Array.from({ length: 20 }, (_, i) => client(i));
    const probing = prober();
    const events: Array<{ what: string; down: number; up: number }> = [];
    await sleep(2000);

    // (a) stopped for 5 s.
    let down = performance.now();
    await cluster.stop();
    await sleep(5000);
    await cluster.start();
    events.push({ what: 'stop 5 s', down, up: performance.now() });
    await sleep(3000);

    // (b) restarted.
    down = performance.now();
    await cluster.restart();
    events.push({ what: 'restart', down, up: performance.now() });
    await sleep(3000);

    // (c) postmaster killed with SIGKILL, then started again (crash recovery).
    down = performance.now();
    cluster.kill9();
    await sleep(1000);
    await cluster.startAfterCrash();
    events.push({ what: 'kill -9', down, up: performance.now() });
    await sleep(3000);
    running = false;
    await Promise.all([...clients, probing]);

    // Every request was answered (no socket error, no client timeout), within the deadline plus a margin.
    const errors = samples.filter((s) => s.error);
    assert.deepEqual(errors.map((s) => s.error).slice(0, 5), [], 'requests without an answer');
    const waits = samples.map((s) => s.end - s.start);
    const maxWait = Math.max(...waits);
    const unavailable = samples.filter((s) => s.status === 503);
    const other5xx = samples.filter((s) => s.status >= 500 && s.status !== 503);
    const maxWait503 = Math.max(0, ...unavailable.map((s) => s.end - s.start));
    assert.equal(other5xx.length, 0, `5xx other than 503: ${JSON.stringify(other5xx.slice(0, 3))}`);
    assert.ok(unavailable.length > 0, 'the outages were seen');
    assert.ok(unavailable.every((s) => s.retryAfter === '1'), '503 carries Retry-After');
    assert.ok(samples.every((s) => s.status < 500 || s.status === 503) && samples.every((s) => [200, 201, 503].includes(s.status)), `statuses: ${[...new Set(samples.map((s) => s.status))]}`);

    // Recovery: the first 2xx after the database is back, and /_ready's answers around each outage.
    const figures = events.map((ev) => {
      const firstOk = samples.filter((s) => s.status < 300 && s.start >= ev.up).sort((a, b) => a.end - b.end)[0];
      const firstReady503 = ready.find((r) => r.t >= ev.down && r.status === 503);
      const readyBack = ready.find((r) => r.t >= ev.up && r.status === 204);
      return {
        what: ev.what, outageMs: Math.round(ev.up - ev.down),
        recoveryMs: firstOk ? Math.round(firstOk.end - ev.up) : -1,
        readyDownMs: firstReady503 ? Math.round(firstReady503.t - ev.down) : -1,
        readyBackMs: readyBack ? Math.round(readyBack.t - ev.up) : -1,
        unavailable: unavailable.filter((s) => s.start >= ev.down && s.start < ev.up + 1000).length,
      };
    });
    const writesOk = samples.filter((s) => s.write && s.status === 201);
    const report = { requests: samples.length, writesAcknowledged: writesOk.length, unavailable: unavailable.length, maxWaitMs: Math.round(maxWait), maxWait503Ms: Math.round(maxWait503), events: figures };
    console.log('faults:', JSON.stringify(report));
    // A node reconnects at once when the database is back (src/db/connect.ts: no backoff), answering well
    // within a second on a quiet machine; 3 s leaves room for one loaded by other work (1.1 s was seen).
    for (const f of figures) {
      assert.ok(f.recoveryMs >= 0 && f.recoveryMs < 3000, `${f.what}: a request succeeded ${f.recoveryMs} ms after the database was back`);
      assert.ok(f.readyBackMs >= 0 && f.readyBackMs < 3000, `${f.what}: /_ready back after ${f.readyBackMs} ms`);
    }
    assert.ok(figures[0].readyDownMs >= 0 && figures[0].readyDownMs < 1000 + DEADLINE, `stop: /_ready answered 503 after ${figures[0].readyDownMs} ms`);
    assert.ok(maxWait < DEADLINE + 1500, `longest request ${Math.round(maxWait)} ms (deadline ${DEADLINE} ms)`);

    // Nothing acknowledged was lost.
    const db = postgres(cluster.url('fastrapi'), { max: 1, onnotice: () => {} });
    try {
      const names = writesOk.map((s) => s.name!);
      const found = await db<{ name: string }[]>`select distinct name from tags where name = any(${names})`;
      assert.equal(found.length, names.length, `acknowledged writes missing: ${names.filter((n) => !found.some((f) => f.name === n)).slice(0, 5)}`);
    } finally { await db.end({ timeout: 5 }); }

    assert.ok(node.alive(), 'the server process is alive');
    assert.equal((await call(node.url, 'GET', '/api/tags')).status, 200);
    const notJson = node.lines().filter((l) => 'notJson' in l);
    assert.deepEqual(notJson.slice(0, 3), [], 'every log line is JSON');
  });

  test('main thread (WORKERS=0): an uncaught exception and an unhandled rejection are logged as JSON, the node keeps serving', async () => {
    assert.equal((await call(node.url, 'GET', `${CRASH_PATH}?mode=throw`)).status, 204);
    assert.equal((await call(node.url, 'GET', `${CRASH_PATH}?mode=reject`)).status, 204);
    await sleep(100);
    assert.ok(node.alive());
    assert.equal((await call(node.url, 'GET', '/api/tags')).status, 200);
    const lines = node.lines();
    assert.ok(lines.some((l) => l.level === 'error' && l.msg === 'uncaught exception' && l.thread === 'main' && String(l.error).includes('test crash')));
    assert.ok(lines.some((l) => l.level === 'error' && l.msg === 'unhandled rejection' && l.thread === 'main' && String(l.error).includes('test crash')));
  });

  test('URL over http.maxQueryStringLength: 414 in Strapi\'s envelope', async () => {
    const r = await call(node.url, 'GET', `/api/tags?filters[name][$eq]=${'x'.repeat(17_000)}`);
    assert.equal(r.status, 414);
    assert.equal(r.json.error.name, 'URITooLongError');
    assert.equal(r.json.error.status, 414);
  });

  test('connect.ts: a statement waiting for a busy pool past the deadline is abandoned (the pool survives); a gone client\'s statement is not issued', async () => {
    setConnectionDeadline(300);
    const db = connect(cluster.url('fastrapi'), 1);
    try {
      const long = db`select pg_sleep(1.2)`.execute();
      await sleep(50);
      const t0 = performance.now();
      await assert.rejects(db`select 1`, (e: { code?: string }) => e.code === 'CONNECTION_DEADLINE');
      const waited = performance.now() - t0;
      assert.ok(waited >= 280 && waited < 600, `gave up after ${Math.round(waited)} ms`);
      // A transaction queued behind it too: its BEGIN is abandoned without stranding the connection.
      await assert.rejects(db.begin((sql) => sql`select 1`), (e: { code?: string }) => e.code === 'CONNECTION_DEADLINE');
      await long;
      // The one connection still serves (postgres.js strands a connection whose queued statement is merely cancelled).
      for (let i = 0; i < 3; i++) assert.equal((await db`select 2 as x`)[0].x, 2);
      assert.equal((await db.begin((sql) => sql`select 3 as x`))[0].x, 3);
    } finally {
      await db.end({ timeout: 5 });
      setConnectionDeadline(2000);
    }
  });

  test('connect.ts readStatement: a gone client\'s statement is not issued, a running one is cancelled, other requests\' statements never', async () => {
    // One connection: every statement issued while another runs is pipelined behind it.
    setConnectionDeadline(30_000);
    const db = connect(cluster.url('fastrapi'), 1, { readsOnly: true });
    const watch = postgres(cluster.url('fastrapi'), { max: 1, onnotice: () => {} });
    const sleeping = async () => (await watch`select count(*)::int as n from pg_stat_activity where application_name = 'fastrapi' and state = 'active' and query like '%pg_sleep%'`)[0].n;
    const x = (rows: unknown[]) => (rows[0] as { x: number }).x;
    try {
      // Gone before: nothing is sent.
      const gone = new ClientSignal();
      gone.abort();
      const sent: string[] = [];
      queryTap.fn = (text) => sent.push(text);
      try {
        await assert.rejects(readStatement(db, 'select $1::int as x', [1], gone, false), (e: { code?: string }) => e.code === 'CLIENT_GONE');
        assert.equal(x(await readStatement(db, 'select $1::int as x', [2], new ClientSignal(), false)), 2);
      } finally { queryTap.fn = null; }
      assert.deepEqual(sent.filter((t) => !t.includes('pg_catalog')), ['select $1::int as x']);

      // Gone while running: the statement stops within moments and its connection serves the next one.
      const leaving = new ClientSignal();
      const t0 = performance.now();
      const running = readStatement(db, 'select pg_sleep(20) as x', [], leaving, false);
      while (await sleeping() === 0) await sleep(20);
      leaving.abort();
      await assert.rejects(running, (e: { code?: string }) => e.code === 'CLIENT_GONE');
      assert.ok(performance.now() - t0 < 5000);
      assert.equal(await sleeping(), 0);
      for (let i = 0; i < 4; i++) assert.equal(x(await readStatement(db, 'select $1::int as x', [i], new ClientSignal(), false)), i);

      // Gone while another request's statement runs on the only connection: a read is never pipelined
      // behind it, so this one waits for the connection and is dropped at once; the other completes.
      const ahead = readStatement(db, 'select pg_sleep(0.4), 7 as x', [], new ClientSignal(), false);
      const behind = new ClientSignal();
      const t1 = performance.now();
      const queued = readStatement(db, 'select pg_sleep(20), 9 as x', [], behind, false).then(() => null, (e: { code?: string }) => e);
      await sleep(100);
      behind.abort();
      assert.equal((await queued)?.code, 'CLIENT_GONE');
      assert.equal(x(await ahead), 7);
      assert.ok(performance.now() - t1 < 5000, `the queued statement ran ${Math.round(performance.now() - t1)} ms`);
      assert.equal(await sleeping(), 0);

      // Gone while waiting for a connection (a transaction holds the only one): dropped at once, and the
      // connection serves afterwards.
      const holding = db.begin(async (tx) => { await tx`select pg_sleep(0.5)`; });
      await sleep(50);
      const waiter = new ClientSignal();
      const waits = readStatement(db, 'select 10 as x', [], waiter, false);
      await sleep(50);
      const t2 = performance.now();
      waiter.abort();
      await assert.rejects(waits, (e: { code?: string }) => e.code === 'CLIENT_GONE');
      assert.ok(performance.now() - t2 < 100, `dropped after ${Math.round(performance.now() - t2)} ms`);
      await holding;
      assert.equal(x(await readStatement(db, 'select 11 as x', [], new ClientSignal(), false)), 11);

      // A read cancelled by someone else (an operator's pg_cancel_backend) is not run again.
      const mine = readStatement(db, 'select pg_sleep(20) as x', [], new ClientSignal(), false).then(() => null, (e: { code?: string }) => e);
      while (await sleeping() === 0) await sleep(20);
      await watch`select pg_cancel_backend(pid) from pg_stat_activity where application_name = 'fastrapi' and query like '%pg_sleep(20)%'`;
      assert.equal((await mine)?.code, '57014');

      // Many more reads than connections (2 ms to 30 ms each), a third of them abandoned at random
      // moments: every other read gets its own row, the abandoned ones their row or CLIENT_GONE (a
      // cancel that hits the statement pipelined behind is run again, see readStatement).
      let seed = 11;
      const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
      const wrong: string[] = [];
      let cancelled = 0;
      await Promise.all(Array.from({ length: 150 }, async (_, i) => {
        const signal = new ClientSignal();
        const leaves = i % 3 === 0;
        if (leaves) setTimeout(() => signal.abort(), rand() * 1500);
        try {
          const got = x(await readStatement(db, 'select $1::int as x, pg_sleep($2) as s', [i, 0.002 + rand() * 0.028], signal, false));
          if (got !== i) wrong.push(`${i} got ${got}`);
        } catch (e) {
          if (leaves && (e as { code?: string }).code === 'CLIENT_GONE') cancelled++;
          else wrong.push(`${i}: ${String(e)}`);
        }
      }));
      assert.deepEqual(wrong, []);
      assert.ok(cancelled > 0);
      // Not one cancel reached another read: the connection waited for each to be processed.
      assert.equal(strayCancelRetries(), 0);
      assert.equal(await sleeping(), 0);
      assert.equal(x(await readStatement(db, 'select 8 as x', [], undefined, false)), 8);
    } finally {
      await watch.end({ timeout: 5 });
      await db.end({ timeout: 5 });
      setConnectionDeadline(2000);
    }
  });

  test('connect.ts: a database that does not exist at all (closed port) fails at once; one that comes back is used at once', async () => {
    const db = connect(`postgres://postgres@127.0.0.1:${cluster.port}/fastrapi`, 2);
    try {
      await cluster.stop();
      for (let i = 0; i < 8; i++) {
        const t = performance.now();
        await assert.rejects(db`select 1`);
        assert.ok(performance.now() - t < 500);
      }
      await cluster.start();
      const t = performance.now();
      assert.equal((await db`select 5 as x`)[0].x, 5);
      assert.ok(performance.now() - t < 500, `first statement after the restart took ${Math.round(performance.now() - t)} ms (postgres.js's backoff would wait seconds)`);
    } finally { await db.end({ timeout: 5 }); }
  });

  test('worker threads (WORKERS=1): a thread that throws outside a request or exits answers 503 and is replaced; rejections are logged', async () => {
    const w = new Node({ DATABASE_URL: cluster.url('fastrapi'), WORKERS: '1', DB_POOL_SIZE: '2', FASTRAPI_TEST_CRASH_PATH: CRASH_PATH }, await freePort());
    try {
      await w.listening();
      assert.equal((await call(w.url, 'GET', '/api/tags')).status, 200);
      for (const mode of ['throw', 'exit']) {
        const r = await call(w.url, 'GET', `${CRASH_PATH}?mode=${mode}`);
        assert.equal(r.status, 503, `mode=${mode}`);
        assert.equal(r.headers.get('retry-after'), '1');
        assert.equal(r.json.error.name, 'ServiceUnavailableError');
        // Piscina starts another worker: requests succeed again.
        const end = Date.now() + 30_000;
        let status = 0;
        while (Date.now() < end && (status = (await call(w.url, 'GET', '/api/tags')).status) !== 200) await sleep(100);
        assert.equal(status, 200, `after mode=${mode}`);
      }
      assert.equal((await call(w.url, 'GET', `${CRASH_PATH}?mode=reject`)).status, 204);
      await sleep(100);
      assert.ok(w.alive());
      const lines = w.lines();
      assert.ok(lines.some((l) => l.level === 'error' && String(l.msg).startsWith('uncaught exception') && l.thread === 'worker'));
      assert.ok(lines.some((l) => l.level === 'error' && l.msg === 'unhandled rejection' && l.thread === 'worker'));
      assert.ok(lines.some((l) => l.level === 'error' && String(l.msg).startsWith('worker thread died')));
    } finally { await w.stop(); }
  });
});
