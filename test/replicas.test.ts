// Read replicas (issue 16) against a real streaming replica (pg_basebackup): reads are served by the
// replica, a client always reads what it wrote (a replica that has not replayed the write is skipped),
// and a replica that fails is taken out.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import postgres from 'postgres';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';
import { startPrimary, startReplica, type Cluster } from './pg-cluster.ts';
import { WrittenPosition } from '../src/db/replicas.ts';
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';

let primary: Cluster;
let replica: Cluster;
let s: TestServer;
let tag: string;
const onReplica = () => postgres(replica.url('app'), { max: 1, onnotice: () => {} });

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const t0 = Date.now();
  while (!(await check().catch(() => false))) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

before(async () => {
  primary = await startPrimary();
  const admin = postgres(primary.url(), { max: 1, onnotice: () => {} });
  await admin`create database app`;
  await admin.end();
  replica = await startReplica(primary);
  s = await startTestServer({
    db: { url: primary.url('app'), dataDir: primary.dir, drop: async () => {} },
    env: { DATABASE_URL: primary.url('app'), DATABASE_READ_URL: replica.url('app'), DB_REPLICA_CHECK_INTERVAL: '50', RESPONSE_CACHE: 'false', WORKERS: '2', PERMISSIONS_CACHE_TTL: '60000' },
  });
  const r = await s.fetchJson('POST', '/api/tags', { data: { name: 'first' } }, TOKEN);
  assert.equal(r.status, 201, r.text);
  tag = r.body.data.documentId;
  const sql = onReplica();
  await until(async () => (await sql`select 1 from tags where document_id = ${tag}`).length > 0);
  await sql.end();
});
after(async () => { await s?.stop(); replica?.stop('immediate'); primary?.stop('immediate'); replica?.remove(); primary?.remove(); });

test('reads are served by the replica: they go on while the primary is down', async () => {
  // Warm the permission and token caches, then take the primary away.
  assert.equal((await s.fetchJson('GET', '/api/tags', undefined, TOKEN)).status, 200);
  primary.stop('fast');
  try {
    // The next health check (50 ms) sees the replica has every write; from then on reads are answered.
    await until(async () => (await s.fetchJson('GET', `/api/tags/${tag}?fields[0]=name`, undefined, TOKEN)).status === 200, 3000);
    for (let i = 0; i < 5; i++) {
      const r = await s.fetchJson('GET', `/api/tags/${tag}?fields[0]=name`, undefined, TOKEN);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.data.name, 'first');
    }
  } finally { primary.start(); }
  await until(async () => (await s.fetchJson('POST', '/api/tags', { data: { name: 'after restart' } }, TOKEN)).status === 201);
});

test('a client reads what it wrote: a replica that has not replayed the write is skipped', async () => {
  const sql = onReplica();
  try {
    await sql`select pg_wal_replay_pause()`;
    const put = await s.fetchJson('PUT', `/api/tags/${tag}`, { data: { name: 'written' } }, TOKEN);
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.data.name, 'written', 'the write\'s own answer');
    // Two worker threads: reads land on the one that answered the write and on the other (the write
    // position is shared by the node's threads, not learnt from its notification).
    const reads = await Promise.all(Array.from({ length: 8 }, () => s.fetchJson('GET', `/api/tags/${tag}?fields[0]=name`, undefined, TOKEN)));
    for (const read of reads) assert.equal(read.body?.data?.name, 'written', `a read right after it: ${read.text}`);
    const [{ name }] = await sql<{ name: string }[]>`select name from tags where document_id = ${tag}`;
    assert.equal(name, 'first', 'the paused replica has not replayed the write');
  } finally {
    await sql`select pg_wal_replay_resume()`;
    await sql.end();
  }
});

test('a failed replica is taken out; reads go to the primary meanwhile', async () => {
  replica.stop('immediate');
  try {
    await until(async () => (await s.fetchJson('GET', `/api/tags/${tag}?fields[0]=name`, undefined, TOKEN)).status === 200, 5000);
    for (let i = 0; i < 5; i++) assert.equal((await s.fetchJson('GET', '/api/tags', undefined, TOKEN)).status, 200);
  } finally { replica.start(); }
});

test('the write position is one for all the node\'s threads: a write another thread answered is required at once', async () => {
  // Without it a read on another thread could go to a replica before the write's notification arrives.
  const pos = new WrittenPosition();
  pos.raise(100n);
  const w = new Worker(`const { workerData, parentPort } = require('node:worker_threads');
    const cell = new BigInt64Array(workerData);
    Atomics.compareExchange(cell, 0, Atomics.load(cell, 0), 5000n);
    parentPort.postMessage('raised');`, { eval: true, workerData: pos.buffer });
  await once(w, 'message');
  assert.equal(pos.get(), 5000n);
  pos.raise(10n); // never lowered
  assert.equal(pos.get(), 5000n);
  await w.terminate();
});
