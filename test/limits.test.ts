// Bounded work per request (issue 15): GraphQL operations are costed before they run, REST populate is
// limited in breadth, and no response grows past the size limit — each refused with a 400 naming the limit.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';
import { connect } from '../src/db/connect.ts';
import { planRow } from '../src/rest/read.ts';
import { ApiError } from '../compiler/errors.ts';

let s: TestServer;
before(async () => {
  // GraphQL lists priced by page sizes (the data is written after the server read what its tables hold:
  // test/graphql-limits.test.ts prices by the data).
  s = await startTestServer({ env: { MAX_RESPONSE_SIZE: '8192', REST_MAX_POPULATE: '6', GRAPHQL_MAX_COST: '3000', GRAPHQL_COST_STATS_INTERVAL: '0', GRAPHQL_SHAPE: 'v5' } });
  const tag = (await s.fetchJson('POST', '/api/tags', { data: { name: 'limits' } }, TOKEN)).body.data.documentId;
  for (let i = 0; i < 40; i++) {
    const r = await s.fetchJson('POST', '/api/articles', { data: { title: `Limits article ${i} ${'x'.repeat(200)}`, slug: `limits-${i}`, tags: [tag] } }, TOKEN);
    assert.equal(r.status, 201, r.text);
  }
});
after(async () => { await s?.stop(); });

const nested = 'articles { documentId title slug tags { name articles { title } } }';

test('GraphQL: an operation costlier than GRAPHQL_MAX_COST is refused before any statement runs', async () => {
  const one = await s.fetchJson('POST', '/graphql', { query: `{ ${nested.replace('articles {', 'articles(pagination: { limit: 2 }) {')} }` }, TOKEN);
  assert.equal(one.status, 200, one.text);
  // 100 aliases of the same nested list: what a response would hold grows with each.
  const aliases = Array.from({ length: 100 }, (_, i) => `a${i}: ${nested}`).join('\n');
  const r = await s.fetchJson('POST', '/graphql', { query: `{ ${aliases} }` }, TOKEN);
  assert.equal(r.status, 400, r.text.slice(0, 300));
  assert.match(r.body.errors[0].message, /Query cost \d+ exceeds the limit of 3000 \(graphql\.maxCost\)/);
  assert.equal(r.headers['x-sql-statements'], '0', 'refused before the database did any work');
  // A large page asked through a variable counts at its size.
  const big = await s.fetchJson('POST', '/graphql', { query: 'query($n: Int) { articles(pagination: { limit: $n }) { title tags { name articles { title } } } }', variables: { n: 100 } }, TOKEN);
  assert.equal(big.status, 400, big.text.slice(0, 300));
});

test('REST: populate asking for more than REST_MAX_POPULATE attributes is refused naming the limit', async () => {
  const ok = await s.fetchJson('GET', '/api/articles?populate[tags][fields][0]=name&populate[author]=true&pagination[pageSize]=1', undefined, TOKEN);
  assert.equal(ok.status, 200, ok.text.slice(0, 300));
  const r = await s.fetchJson('GET', '/api/articles?populate[tags][populate][articles][populate]=*&populate[author][populate]=*&populate[category][populate]=*', undefined, TOKEN);
  assert.equal(r.status, 400, r.text.slice(0, 300));
  assert.match(r.body.error.message, /more than the limit of 6 \(api\.rest\.maxPopulate\)/);
  assert.equal(r.headers['x-sql-statements'], '0');
});

test('a read whose JSON outgrows PostgreSQL\'s 1 GB text limit is refused as too large (400), not a 500', async () => {
  // The size check runs on the finished text; a text past 1 GB fails while it is built (SQLSTATE 53200,
  // "Cannot enlarge string buffer": a deeply populated GraphQL operation at 100k articles did so).
  const db = connect(s.server.databaseUrl, 1, { readsOnly: true });
  try {
    const sql = { text: `select string_agg(repeat('x', 1000000), '') as data from generate_series(1, 1100)`, withTotal: false, sizeChecked: false, maxBytes: 8192, tables: [], prepare: false };
    const ctx = { db, reader: () => db, primaryReads: db, count: () => {}, compiler: null as never };
    await assert.rejects(planRow(ctx, { sql, params: [], pagination: null as never, shape: 'list' }), (e: unknown) =>
      e instanceof ApiError && e.status === 400 && /larger than 8192 bytes \(limit http\.maxResponseSize\)/.test(e.message));
    // Other failures stay what they are.
    await assert.rejects(planRow(ctx, { sql: { ...sql, text: 'select 1/0 as data' }, params: [], pagination: null as never, shape: 'list' }), (e: { code?: string }) => e.code === '22012');
  } finally { await db.end({ timeout: 5 }); }
});

test('a response larger than MAX_RESPONSE_SIZE is a 400 naming the limit (REST and GraphQL), smaller ones pass', async () => {
  const small = await s.fetchJson('GET', '/api/articles?pagination[pageSize]=5&fields[0]=slug', undefined, TOKEN);
  assert.equal(small.status, 200);
  const r = await s.fetchJson('GET', '/api/articles?pagination[pageSize]=100&populate=tags', undefined, TOKEN);
  assert.equal(r.status, 400, r.text.slice(0, 300));
  assert.match(r.body.error.message, /larger than 8192 bytes \(limit http\.maxResponseSize\)/);
  const g = await s.fetchJson('POST', '/graphql', { query: '{ articles(pagination: { limit: 40 }) { title slug } }' }, TOKEN);
  assert.match(JSON.stringify(g.body.errors ?? []), /http\.maxResponseSize/, g.text.slice(0, 300));
  // Two root fields under the limit each, over it together.
  const two = await s.fetchJson('POST', '/graphql', { query: '{ a: articles(pagination: { limit: 20 }) { title } b: articles(pagination: { limit: 20 }) { title } }' }, TOKEN);
  assert.equal(two.status, 400, two.text.slice(0, 300));
});
