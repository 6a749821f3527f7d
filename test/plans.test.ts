// How read statements are planned (issue 31): PostgreSQL's JIT is off on the server's connections (it
// compiled every populate statement anew once bad estimates passed jit_above_cost), and a page's LIMIT and
// OFFSET are written into the statement's text (integers the compiler computed), the first pages of a
// shape prepared, later ones sent unprepared — every page answered the same either way.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, serverEnv, TOKEN, type TestServer } from './helpers.ts';
import { connect, queryTap } from '../src/db/connect.ts';
import { loadConfig } from '../config.ts';

let s: TestServer;
const NAMES = Array.from({ length: 12 }, (_, i) => `tag-${String(i + 1).padStart(2, '0')}`);

before(async () => {
  // Two prepared pages per shape: most pages below take the unprepared path.
  s = await startTestServer({ env: { GRAPHQL_SHAPE: 'v5', PREPARED_PAGES: '2' } });
  for (const name of [...NAMES].reverse()) {
    const r = await s.fetchJson('POST', '/api/tags', { data: { name } }, TOKEN);
    assert.equal(r.status, 201, r.text);
  }
});
after(async () => { await s?.stop(); });

/** The read statements (they answer a `data` column) the server sent while `fn` ran. */
async function statements(fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  queryTap.fn = (text) => { if (/\bas data\b/.test(text)) seen.push(text); };
  try { await fn(); } finally { queryTap.fn = null; }
  return seen;
}

test('connections made by connect() run without JIT unless db.jit asks for it', async () => {
  const setting = async (jit?: boolean) => {
    const db = connect(s.server.databaseUrl, 1, jit === undefined ? {} : { jit });
    try { return (await db<Array<{ jit: string }>>`select current_setting('jit') as jit`)[0].jit; } finally { await db.end({ timeout: 5 }); }
  };
  assert.equal(await setting(), 'off');
  assert.equal(await setting(false), 'off');
  assert.equal(await setting(true), 'on');
  assert.equal(s.server.config.db.jit, false, 'off by default');
  assert.equal(loadConfig(serverEnv(s.db, s.server.config.modelsDir, { DB_JIT: 'true' }), []).db.jit, true);
  assert.equal(loadConfig(serverEnv(s.db, s.server.config.modelsDir, {}), []).api.rest.preparedPages, 8);
});

test('REST: the page is written into the statement, and every page and size answers its rows', async () => {
  const sent = await statements(() => s.fetchJson('GET', '/api/tags?sort=name&pagination[page]=3&pagination[pageSize]=5'));
  assert.equal(sent.length, 1);
  assert.match(sent[0], / limit 5 offset 10\)/);
  assert.equal((await statements(() => s.fetchJson('GET', '/api/tags?sort=name&pagination[start]=4&pagination[limit]=3')))[0].match(/ limit 3 offset 4\)/)?.length, 1);
  for (let size = 1; size <= 6; size++) {
    for (let page = 1; page <= Math.ceil(NAMES.length / size) + 1; page++) {
      for (const q of [`pagination[page]=${page}&pagination[pageSize]=${size}`, `pagination[start]=${(page - 1) * size}&pagination[limit]=${size}`]) {
        const r = await s.fetchJson('GET', `/api/tags?sort=name&fields[0]=name&${q}`);
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(r.body.data.map((t: { name: string }) => t.name), NAMES.slice((page - 1) * size, page * size), q);
        assert.equal(r.body.meta.pagination.total, NAMES.length, q);
      }
    }
  }
  // A page past the end is empty; one whose offset is no exact integer is refused (as PostgreSQL refused it as a parameter).
  const far = await s.fetchJson('GET', `/api/tags?pagination[start]=${Number.MAX_SAFE_INTEGER}`);
  assert.equal(far.status, 200, far.text);
  assert.deepEqual(far.body.data, []);
  const huge = await s.fetchJson('GET', '/api/tags?pagination[page]=1e300');
  assert.equal(huge.status, 400, huge.text);
  assert.equal(huge.body.error.message, 'A number is out of range');
});

test('GraphQL: the page is written into the statement, and every page answers its rows', async () => {
  const list = (page: number, pageSize: number) => s.fetchJson('POST', '/graphql', {
    query: 'query ($p: Int, $n: Int) { tags(sort: "name", pagination: { page: $p, pageSize: $n }) { name } }', variables: { p: page, n: pageSize },
  });
  const sent = await statements(() => list(2, 4));
  assert.equal(sent.length, 1);
  assert.match(sent[0], / limit 4 offset 4\)/);
  for (let size = 1; size <= 5; size++) {
    for (let page = 1; page <= Math.ceil(NAMES.length / size) + 1; page++) {
      const r = await list(page, size);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.data.tags.map((t: { name: string }) => t.name), NAMES.slice((page - 1) * size, page * size), `page ${page} of ${size}`);
    }
  }
});
