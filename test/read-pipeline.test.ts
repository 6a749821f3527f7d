// Light reads are sent behind one another on a busy read connection (src/db/connect.ts, "Pipelining
// light reads"); a statement not known to be light is the last on its connection. What must hold: every
// statement gets its own answer or its own error, nothing waits behind a long statement, and a client
// going away cancels nothing but its own statement.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers.ts';
import { connect, readStatement, isLightStatement, pipelinedReads, cancelledReads, addLightPool, lightPoolReads, endPool, type Db } from '../src/db/connect.ts';
import { ClientSignal } from '../src/task.ts';

let s: TestServer;
before(async () => { s = await startTestServer(); });
after(async () => { await s?.stop(); });

const LIGHT = 'select $1::int as n, 100 / ($1::int % 7) as q';
const SLOW = 'select $1::int as n, (select 1 from pg_sleep($2::float8)) as slept';

/** Runs a statement `n` times one after another, so its pace is known (the first run on a connection is described first and not timed; the first timed runs may be slow ones). */
async function warm(db: Db, text: string, params: unknown[], key: object, n = 20): Promise<void> {
  for (let i = 0; i < n; i++) await readStatement(db, text, params, undefined, false, true, key);
}

/**
 * Runs a statement until it counts as light. On a loaded machine (the suite's files run side by side)
 * one run of a 0.1 ms statement may take over 20 ms and keep it heavy for a while: what these tests
 * check is what follows once it is light, not how fast the machine is.
 */
async function warmUntilLight(db: Db, text: string, params: unknown[], key: object): Promise<void> {
  for (let i = 0; i < 500 && !isLightStatement(key); i++) await readStatement(db, text, params, undefined, false, true, key);
  assert.ok(isLightStatement(key), 'the statement never ran light in 500 runs');
}

test('light reads pipelined on one connection each get their own rows or their own error', async () => {
  const db = connect(s.server.databaseUrl, 1, { readsOnly: true });
  try {
    const key = {};
    await warm(db, LIGHT, [1], key);
    await warmUntilLight(db, LIGHT, [1], key);
    const before = pipelinedReads();
    const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => readStatement(db, LIGHT, [i], undefined, false, true, key)));
    assert.ok(pipelinedReads() - before >= 20, `only ${pipelinedReads() - before} of 40 reads were sent behind another`);
    results.forEach((r, i) => {
      if (i % 7 === 0) {
        // Division by zero: its own error, and the statements behind it unaffected.
        assert.equal(r.status, 'rejected', `read ${i}`);
        assert.equal((r as PromiseRejectedResult).reason.code, '22012');
      } else {
        assert.equal(r.status, 'fulfilled', `read ${i}: ${String((r as PromiseRejectedResult).reason)}`);
        const rows = (r as PromiseFulfilledResult<unknown[]>).value as Array<{ n: number; q: number }>;
        assert.deepEqual({ ...rows[0] }, { n: i, q: Math.trunc(100 / (i % 7)) });
      }
    });
  } finally {
    await db.end({ timeout: 5 });
  }
});

test('a statement without a history, or lately slow, takes no statement behind it', async () => {
  const db = connect(s.server.databaseUrl, 2, { readsOnly: true });
  try {
    const light = {};
    const slow = {};
    // Both connections open and both statements prepared on each.
    await Promise.all([warm(db, LIGHT, [1], light, 3), warm(db, SLOW, [1, 0], slow, 3)]);
    await Promise.all([warm(db, LIGHT, [1], light, 3), warm(db, SLOW, [1, 0], slow, 3)]);
    // SLOW has run light so far: one slow run must be enough for it to stop taking followers.
    await readStatement(db, SLOW, [1, 0.2], undefined, false, true, slow);
    for (const fresh of [slow, {}]) {
      await warmUntilLight(db, LIGHT, [1], light);
      const order: string[] = [];
      // Failing 1 run in 3 with 0.4 s was not the machine's load: the slow run above, when it was the statement's
      // first on its connection, went unrecorded (fixed; see the test of that below). The margin is kept.
      const long = readStatement(db, SLOW, [2, 1.5], undefined, false, true, fresh).then(() => order.push('long'));
      await new Promise((r) => setImmediate(r));
      const before = pipelinedReads();
      const lights = Array.from({ length: 20 }, (_, i) => readStatement(db, LIGHT, [i * 7 + 1], undefined, false, true, light).then(() => order.push('light')));
      await Promise.all([long, ...lights]);
      // Every light read went to the other connection, behind one another, none behind the long one.
      assert.deepEqual(order.slice(0, 20), Array(20).fill('light'), `order: ${order.join(' ')}`);
      assert.ok(pipelinedReads() - before > 0);
    }
  } finally {
    await db.end({ timeout: 5 });
  }
});

test('a light read whose client goes away is not cancelled, nor is anything behind it; a long one is', async () => {
  const db = connect(s.server.databaseUrl, 1, { readsOnly: true });
  try {
    const key = {};
    await warmUntilLight(db, LIGHT, [1], key);
    const cancels = cancelledReads();
    const signals = Array.from({ length: 30 }, () => new ClientSignal());
    const reads = signals.map((sig, i) => readStatement(db, LIGHT, [i * 7 + 1], sig, false, true, key));
    for (let i = 0; i < signals.length; i += 3) signals[i].abort();
    const results = await Promise.allSettled(reads);
    results.forEach((r, i) => {
      if (r.status === 'rejected') {
        // Only a gone client's read that had not been sent yet is dropped.
        assert.equal(i % 3, 0, `read ${i} failed: ${String(r.reason)}`);
        assert.equal(r.reason.code, 'CLIENT_GONE');
      } else {
        assert.deepEqual({ ...(r.value as Array<{ n: number }>)[0] }, { n: i * 7 + 1, q: 100 });
      }
    });
    assert.equal(cancelledReads(), cancels, 'no cancel request for a light read');

    // A light statement that runs long this once, with reads sent behind it: its client leaving sends
    // no cancel (it could reach the reads behind it); it finishes with its rows.
    const once = {};
    await warmUntilLight(db, SLOW, [1, 0], once);
    const leaving = new ClientSignal();
    const slowOnce = readStatement(db, SLOW, [5, 0.3], leaving, false, true, once);
    const behind = Array.from({ length: 10 }, (_, i) => readStatement(db, LIGHT, [i * 7 + 1], undefined, false, true, key));
    setTimeout(() => leaving.abort(), 100);
    assert.deepEqual({ ...(await slowOnce as Array<{ n: number }>)[0] }, { n: 5, slept: 1 });
    for (const [i, r] of (await Promise.all(behind)).entries()) assert.deepEqual({ ...(r as Array<{ n: number }>)[0] }, { n: i * 7 + 1, q: 100 });
    assert.equal(cancelledReads(), cancels);

    // A statement with no history may be cancelled: it is alone on its connection.
    const gone = new ClientSignal();
    const long = readStatement(db, SLOW, [1, 5], gone, false, true, {});
    setTimeout(() => gone.abort(), 200);
    // Not cancelled, it would have answered its rows after 5 s.
    await assert.rejects(long, (e: { code?: string }) => e.code === 'CLIENT_GONE');
    assert.equal(cancelledReads(), cancels + 1);
    // The connection serves the next statement with its own rows.
    const rows = await readStatement(db, LIGHT, [3], undefined, false, true, key) as Array<{ n: number }>;
    assert.equal(rows[0].n, 3);
  } finally {
    await db.end({ timeout: 5 });
  }
});

test('a slow run counts when it is its statement\'s first on a connection (described first): nothing is then sent behind the statement', async () => {
  const warmPool = connect(s.server.databaseUrl, 1, { readsOnly: true });
  const db = connect(s.server.databaseUrl, 1, { readsOnly: true });
  try {
    const light = {};
    const once = {};
    // SLOW runs light on another pool, LIGHT on this one: SLOW is not prepared on this pool's connection.
    await warmUntilLight(warmPool, SLOW, [1, 0], once);
    await warm(db, LIGHT, [1], light, 5);
    // Its first run here is described before it is executed (postgres.js calls no onexecute then): slow.
    await readStatement(db, SLOW, [1, 0.3], undefined, false, true, once);
    const before = pipelinedReads();
    const order: string[] = [];
    const long = readStatement(db, SLOW, [2, 0.5], undefined, false, true, once).then(() => order.push('long'));
    await new Promise((r) => setImmediate(r));
    const lights = Array.from({ length: 5 }, (_, i) => readStatement(db, LIGHT, [i * 7 + 1], undefined, false, true, light).then(() => order.push('light')));
    await Promise.all([long, ...lights]);
    // One connection: the light reads wait for the long one, but none was sent behind it (they may follow one another).
    assert.equal(order[0], 'long', order.join(' '));
    assert.ok(pipelinedReads() - before <= 4, `${pipelinedReads() - before} reads sent behind another: the long statement took followers`);
  } finally {
    await Promise.all([warmPool.end({ timeout: 5 }), db.end({ timeout: 5 })]);
  }
});

test('light statements go to the light pool; new and slow ones stay on the main pool, and a long one there delays no light read', async () => {
  const db = connect(s.server.databaseUrl, 2, { readsOnly: true });
  const light = connect(s.server.databaseUrl, 1, { readsOnly: true, applicationName: 'fastrapi-light-test' });
  addLightPool(db, light);
  const PID = 'select $1::int as n, pg_backend_pid() as pid';
  const pidOf = async (rows: Promise<unknown[]>) => ((await rows) as Array<{ pid: number }>)[0].pid;
  try {
    const [{ pid: lightPid }] = await light`select pg_backend_pid() as pid`;
    const key = {};
    // Its first runs (no pace yet) are on the main pool.
    for (let i = 0; i < 3; i++) assert.notEqual(await pidOf(readStatement(db, PID, [i], undefined, false, true, key)), lightPid);
    await warmUntilLight(db, PID, [0], key);
    const sent = lightPoolReads();
    const pids = await Promise.all(Array.from({ length: 30 }, (_, i) => pidOf(readStatement(db, PID, [i], undefined, false, true, key))));
    assert.deepEqual([...new Set(pids)], [lightPid], 'every light read ran on the light pool\'s connection');
    assert.equal(lightPoolReads() - sent, 30);
    // A long statement holds a main-pool connection (no history: alone there); light reads are answered meanwhile.
    const order: string[] = [];
    const long = readStatement(db, SLOW, [1, 1], undefined, false, true, {}).then(() => order.push('long'));
    await new Promise((r) => setImmediate(r));
    await Promise.all(Array.from({ length: 20 }, (_, i) => readStatement(db, PID, [i], undefined, false, true, key).then(() => order.push('light'))));
    await long;
    assert.deepEqual(order, [...Array(20).fill('light'), 'long']);
    // A statement turned slow leaves the light pool at once.
    const turns = {};
    await warmUntilLight(db, SLOW, [1, 0], turns);
    assert.equal(await pidOf(readStatement(db, SLOW + ', pg_backend_pid() as pid', [1, 0.1], undefined, false, true, turns)), lightPid, 'light until then');
    assert.notEqual(await pidOf(readStatement(db, SLOW + ', pg_backend_pid() as pid', [1, 0], undefined, false, true, turns)), lightPid);
  } finally {
    await endPool(db);
  }
  // endPool ended the light pool too.
  await assert.rejects(light`select 1`, (e: { code?: string }) => e.code === 'CONNECTION_ENDED');
});
