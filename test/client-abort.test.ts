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

test('clients hanging up never change what the others get', { timeout: 120_000 }, async () => {
  const r = prng(7);
  const wrong: string[] = [];
  let answered = 0;
  const deadlineAt = Date.now() + 4000;
  const checker = async () => {
    while (Date.now() < deadlineAt) {
      const t = tags[Math.floor(r() * tags.length)];
      // populate and a filter make the statement slow enough to be pipelined behind others
      const res = await s.fetchJson('GET', `/api/tags/${t.documentId}?fields[0]=name&populate[articles][fields][0]=title`, undefined, TOKEN);
      answered++;
      if (res.status !== 200 || res.body?.data?.name !== t.name) wrong.push(`${res.status} ${t.name}: ${res.text.slice(0, 160)}`);
    }
  };
  const leaver = async () => {
    while (Date.now() < deadlineAt) await hangUp(`/api/tags?populate=*&pagination[pageSize]=100&x=${Math.floor(r() * 1e9)}`, Math.floor(r() * 6));
  };
  await Promise.all([...Array.from({ length: 8 }, checker), ...Array.from({ length: 16 }, leaver)]);
  assert.ok(answered > 100, `answered ${answered}`);
  assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} wrong answers of ${answered}`);
  // The node still answers normally.
  const list = await s.fetchJson('GET', '/api/tags?pagination[pageSize]=100', undefined, TOKEN);
  assert.equal(list.body.data.length, tags.length);
});

test('a client that goes away has its running statement cancelled', { timeout: 60_000 }, async () => {
  await s.server.renderCacheReady();
  const sql = s.sql();
  // Reads waiting on the lock below (the render cache's refresh of the tags rows, an insert, may wait too).
  const waiting = async () => (await sql`select count(*)::int as n from pg_stat_activity
    where application_name = 'fastrapi' and state = 'active' and wait_event_type = 'Lock' and query like 'select %'`)[0].n;
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
  const list = await s.fetchJson('GET', '/api/tags?pagination[pageSize]=100', undefined, TOKEN);
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
