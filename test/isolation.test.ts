// Issue 30, isolation: a light read never waits behind another request's long statement for longer than
// the connection deadline. Reads run alone on their connection (never pipelined behind a statement that
// may run for seconds), so a light read either finds a free connection at once or waits for one, and
// only up to the deadline. Long statements here are reads waiting on a lock the test holds: every
// assertion is made while they still run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';

const POOL = 12;
let s: TestServer;

before(async () => {
  s = await startTestServer({ env: { DB_POOL_SIZE: String(POOL), DB_CONNECTION_DEADLINE: '1000' } });
  for (const name of ['a', 'b']) assert.equal((await s.fetchJson('POST', '/api/authors', { data: { name } }, TOKEN)).status, 201);
  assert.equal((await s.fetchJson('POST', '/api/tags', { data: { name: 'light' } }, TOKEN)).status, 201);
  await s.server.renderCacheReady();
});
after(async () => { await s?.stop(); });

interface Pending { done: Promise<number> }
/** A GET answered later (its status then). */
function pending(path: string): Pending {
  return {
    done: new Promise((resolve, reject) => {
      const req = http.get(`${s.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` }, agent: false }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode ?? 0)); });
      req.on('error', reject);
    }),
  };
}

/** Reads of `authors` waiting on the lock in PostgreSQL. */
async function waitingOnLock(): Promise<number> {
  const [row] = await s.sql()`select count(*)::int as n from pg_stat_activity
    where datname = current_database() and application_name = 'fastrapi' and wait_event_type = 'Lock' and query like 'select %'`;
  return row.n as number;
}

/** Runs `fn` while `count` long reads of authors run (waiting on a lock), then lets them finish; returns their statuses. */
async function withLongReads(count: number, running: number, fn: () => Promise<void>): Promise<number[]> {
  const sql = s.sql();
  const locker = await sql.reserve();
  let long: Pending[] = [];
  try {
    await locker`begin`;
    await locker`lock table authors in access exclusive mode`;
    long = Array.from({ length: count }, (_, i) => pending(`/api/authors?pagination[pageSize]=${i + 1}`));
    const until = Date.now() + 10_000;
    while (await waitingOnLock() < running) {
      assert.ok(Date.now() < until, 'the long reads never reached the database');
      await new Promise((r) => setTimeout(r, 20));
    }
    await fn();
    assert.equal(await waitingOnLock(), running, 'the long reads still run');
  } finally {
    await locker`rollback`;
    locker.release();
  }
  return Promise.all(long.map((p) => p.done));
}

test('10 long statements running: a light read is answered at once, before any of them ends', { timeout: 60_000 }, async () => {
  const statuses = await withLongReads(10, 10, async () => {
    for (let i = 0; i < 3; i++) {
      const r = await s.fetchJson('GET', '/api/tags', undefined, TOKEN);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.data[0].name, 'light');
    }
  });
  assert.deepEqual(statuses, Array(10).fill(200));
});

test('more long statements than connections: a read without a history gets 503 at the deadline, not after them; a light one is answered on the light pool', { timeout: 60_000 }, async () => {
  for (let i = 0; i < 5; i++) assert.equal((await s.fetchJson('GET', '/api/tags', undefined, TOKEN)).status, 200);
  const statuses = await withLongReads(POOL + 2, POOL, async () => {
    // A statement never run before (no pace: not light) waits for one of the main pool's connections.
    const r = await s.fetchJson('GET', '/api/tags?fields[0]=name&sort=name', undefined, TOKEN);
    assert.equal(r.status, 503, r.text);
    assert.equal(r.headers['retry-after'], '1');
    // The tags list has run light before: it goes to the light pool (DB_LIGHT_POOL_SIZE), which no long statement holds.
    const light = await s.fetchJson('GET', '/api/tags', undefined, TOKEN);
    assert.equal(light.status, 200, light.text);
    assert.equal(light.body.data[0].name, 'light');
  });
  // The reads that had a connection finish once the lock goes; the two without one were refused.
  assert.equal(statuses.filter((x) => x === 200).length, POOL);
  assert.equal(statuses.filter((x) => x === 503).length, 2);
});
