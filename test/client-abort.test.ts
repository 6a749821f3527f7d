// Clients that go away mid-request (a browser navigating off, a load balancer's timeout) must not disturb
// anyone else. With more concurrent reads than pool connections postgres.js pipelines statements on a
// connection; cancelling a gone client's statement there (a PostgreSQL cancel request is per backend)
// once made other requests get wrong rows and 503s. Here half the clients hang up at random moments
// while the other half check every answer they get is theirs; and a statement whose client has gone is
// cancelled in PostgreSQL.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startTestServer, serverEnv, TOKEN, prng, type TestServer } from './helpers.ts';
import { loadConfig } from '../config.ts';
import { createPool } from '../src/pool.ts';
import { connect, readStatement } from '../src/db/connect.ts';

let s: TestServer;
const tags: Array<{ documentId: string; name: string }> = [];

before(async () => {
  s = await startTestServer({ env: { DB_POOL_SIZE: '2', WORKERS: '1' } });
  for (let i = 0; i < 12; i++) {
    const r = await s.fetchJson('POST', '/api/tags', { data: { name: `tag ${i}` } }, TOKEN);
    assert.equal(r.status, 201, r.text);
    tags.push({ documentId: r.body.data.documentId, name: r.body.data.name });
  }
});
after(async () => { await s?.stop(); });

/** A GET whose client hangs up after `ms` (the request may or may not have been answered by then). */
function hangUp(path: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const req = http.get(`${s.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` }, agent: false }, (res) => { res.resume(); res.on('end', resolve); res.on('error', () => resolve()); });
    req.on('error', () => resolve());
    setTimeout(() => { req.destroy(); resolve(); }, ms);
  });
}

test('clients hanging up, their statements cancelled, never change what the others get', { timeout: 120_000 }, async (t) => {
  const r = prng(7);
  // The answers the checkers must get, byte for byte: single documents and lists (a list that lost its
  // row to another client's cancel answered 500, a findOne a wrong 404).
  const paths = [
    ...tags.map((t) => `/api/tags/${t.documentId}?fields[0]=name&populate[articles][fields][0]=title`),
    '/api/tags?filters[name][$startsWith]=tag&sort=name&pagination[pageSize]=100', '/api/tags?filters[name][$startsWith]=tag&sort=name&pagination[pageSize]=5&pagination[page]=2',
  ];
  const sql = s.sql();
  // Enough rows that a search takes milliseconds: cancels then land anywhere in a statement's life,
  // also just as it ends, when its connection's next statement starts.
  await sql`insert into tags (document_id, name, created_at, updated_at, published_at)
    select md5(g::text), 'bulk ' || md5(g::text), now(), now(), now() from generate_series(1, 5000) g`;
  const expected = new Map<string, string>();
  for (const p of paths) {
    const res = await s.fetchJson('GET', p, undefined, TOKEN);
    assert.equal(res.status, 200, res.text);
    expected.set(p, res.text);
  }
  const wrong: string[] = [];
  let answered = 0;
  const deadlineAt = Date.now() + RUN_MS;
  // Reads of authors wait on this lock half the time, running: a client leaving then gets its statement
  // cancelled, on connections the checkers' reads use as well.
  const locking = (async () => {
    const locker = await sql.reserve();
    try {
      while (Date.now() < deadlineAt) {
        await locker`begin`;
        await locker`lock table authors in access exclusive mode`;
        await new Promise((res) => setTimeout(res, 20 + r() * 20));
        await locker`rollback`;
        await new Promise((res) => setTimeout(res, 20 + r() * 20));
      }
    } finally { locker.release(); }
  })();
  const checker = async () => {
    while (Date.now() < deadlineAt) {
      const p = paths[Math.floor(r() * paths.length)];
      const res = await s.fetchJson('GET', p, undefined, TOKEN);
      answered++;
      if (res.text !== expected.get(p)) wrong.push(`${res.status} ${p}: ${res.text.slice(0, 160)}`);
    }
  };
  const leaver = async () => {
    while (Date.now() < deadlineAt) {
      const p = r() < 0.3 ? `/api/authors?pagination[pageSize]=10&x=${Math.floor(r() * 1e9)}` : `/api/tags?sort=name:desc&pagination[pageSize]=100&pagination[page]=${1 + Math.floor(r() * 50)}`;
      await hangUp(p, Math.floor(r() * 30));
    }
  };
  const before = await cancelsSeen();
  await Promise.all([...Array.from({ length: 8 }, checker), ...Array.from({ length: 16 }, leaver), locking]);
  let cancelled = 0;
  for (const until = Date.now() + 10_000; cancelled === 0 && Date.now() < until;) {
    await new Promise((res) => setTimeout(res, 250));
    cancelled = (await cancelsSeen()) - before;
  }
  t.diagnostic(`${answered} answers compared, ${wrong.length} wrong, ${cancelled} reads cancelled`);
  assert.ok(answered > 100, `answered ${answered}`);
  assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} wrong answers of ${answered}`);
  assert.ok(cancelled > 0, 'no statement was cancelled: the test did not test cancellation');
  // The node still answers normally.
  const list = await s.fetchJson('GET', '/api/tags?filters[name][$startsWith]=tag&pagination[pageSize]=100', undefined, TOKEN);
  assert.equal(list.body.data.length, tags.length);
});

/** How long the hang-up test runs (issue 30 asks 30 s; CLIENT_ABORT_MS shortens it when iterating). */
const RUN_MS = Number(process.env.CLIENT_ABORT_MS ?? 30_000);

/** Read statements the node has cancelled so far (its metrics; a worker thread reports them every few seconds). */
async function cancelsSeen(): Promise<number> {
  const m = await s.fetchJson('GET', '/metrics');
  return Number(/^fastrapi_db_cancelled_reads (\d+)$/m.exec(m.text)?.[1] ?? NaN);
}

test('a client that goes away has its running statement cancelled', { timeout: 60_000 }, async () => {
  await s.server.renderCacheReady();
  const sql = s.sql();
  // Reads waiting on the lock below (the render cache's refresh of the tags rows, an insert, may wait too).
  const waiting = async () => (await sql`select count(*)::int as n from pg_stat_activity
    where datname = current_database() and application_name = 'fastrapi' and state = 'active' and wait_event_type = 'Lock' and query like 'select %'`)[0].n;
  // A transaction holding an exclusive lock on the tags table: a read of it waits, running, until released.
  const locker = await sql.reserve();
  try {
    await locker`begin`;
    await locker`lock table tags in access exclusive mode`;
    const req = http.get(`${s.url}/api/tags?pagination[pageSize]=3`, { headers: { authorization: `Bearer ${TOKEN}` }, agent: false });
    req.on('error', () => {});
    const until = Date.now() + 10_000;
    while (await waiting() === 0) {
      assert.ok(Date.now() < until, 'the read never reached the database');
      await new Promise((r) => setTimeout(r, 20));
    }
    req.destroy();
    const gone = Date.now() + 3000;
    while (await waiting() > 0) {
      assert.ok(Date.now() < gone, 'the statement still runs after its client went away');
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await locker`rollback`;
    locker.release();
  }
  const list = await s.fetchJson('GET', '/api/tags?filters[name][$startsWith]=tag&pagination[pageSize]=100', undefined, TOKEN);
  assert.equal(list.body.data.length, tags.length);
});

test('a client gone before its worker thread takes the task: no statement runs for it', { timeout: 60_000 }, async () => {
  // A worker thread still starting hears no abort message (a BroadcastChannel delivers only to threads
  // already listening): the task must learn it when it starts.
  const config = loadConfig(serverEnv(s.db, s.server.config.modelsDir, { WORKERS: '1' }), []);
  const pool = createPool(config, s.server.databaseUrl);
  try {
    const task = { method: 'GET', path: '/api/tags', query: '', authorization: `Bearer ${TOKEN}`, body: null };
    const reply = pool.run(task);
    pool.abort(task);
    const r = await reply;
    assert.equal(r.status, 503);
    assert.deepEqual(r.headers?.find(([k]) => k === 'x-sql-statements'), ['x-sql-statements', '0']);
    // The thread then serves normally.
    const ok = await pool.run({ ...task });
    assert.equal(ok.status, 200);
  } finally {
    await pool.close();
  }
});

test('a statement stopped by an error after sending rows leaves the next one on its connection whole', async () => {
  // postgres.js 3.4.9 kept such a statement's row count on the connection: the next statement's rows
  // then started at that index (rows[0] undefined), which is how cancelled reads once broke others' answers.
  const db = connect(s.server.databaseUrl, 1, { readsOnly: true });
  try {
    await assert.rejects(readStatement(db, 'select x, 1 / (x - 3) as y from generate_series(1, $1::int) x', [5], undefined, false),
      (e: { code?: string }) => e.code === '22012');
    const rows = await readStatement(db, 'select $1::int as n', [7], undefined, false) as Array<{ n: number }>;
    assert.equal(rows.length, 1);
    assert.deepEqual({ ...rows[0] }, { n: 7 });
  } finally {
    await db.end({ timeout: 5 });
  }
});
