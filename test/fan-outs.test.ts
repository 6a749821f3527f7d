// What GraphQL's cost knows of the data (compiler/fan-outs.ts, src/db/fan-outs.ts): the most rows one row
// links to and a table's rows, counted on small tables and estimated from PostgreSQL's statistics on large
// ones, on Strapi's layout of the demo models.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';
import { connect } from '../src/db/connect.ts';
import { FanOuts } from '../src/db/fan-outs.ts';
import { estimated, schemaSources, listSource } from '../compiler/fan-outs.ts';
import { FILES } from '../compiler/layout.ts';
import { loadModels } from '../src/models.ts';

let s: TestServer;
before(async () => { s = await startTestServer({ env: { GRAPHQL_COST_STATS_INTERVAL: '0' } }); });
after(async () => { await s?.stop(); });

test('estimates: the most common value\'s share of the rows, else twice the average, nothing before an ANALYZE', () => {
  assert.equal(estimated({ rows: 10_000, distinct: 50, top: 0.125 }, 'c'), 1250);
  assert.equal(estimated({ rows: 10_000, distinct: 400, top: null }, 'c'), 50);
  // A negative n_distinct is a share of the rows: 10,000 rows, 2,500 values, 4 each on average.
  assert.equal(estimated({ rows: 10_000, distinct: -0.25, top: null }, 'c'), 8);
  assert.equal(estimated({ rows: 10_000, distinct: null, top: null }, 'c'), null);
  assert.equal(estimated({ rows: -1, distinct: 50, top: 0.5 }, 'c'), null);
  assert.equal(estimated({ rows: 1234.4, distinct: null, top: null }, null), 1235);
});

test('small tables are counted: the most links of one row, a table\'s rows', async () => {
  const c = s.server.config;
  const schema = loadModels(c.modelsDir, { ...c.i18n, customFields: c.customFields });
  const tags = schema.contentTypes.get('api::tag.tag')!;
  const articles = schema.contentTypes.get('api::article.article')!;
  const tagIds: string[] = [];
  for (let i = 0; i < 5; i++) tagIds.push((await s.fetchJson('POST', '/api/tags', { data: { name: `t${i}` } }, TOKEN)).body.data.documentId);
  // Published articles are two rows each (draft and published), each with its links.
  for (const n of [5, 2]) assert.equal((await s.fetchJson('POST', '/api/articles', { data: { title: `a${n}`, tags: tagIds.slice(0, n) } }, TOKEN)).status, 201);
  const sql = connect(s.server.databaseUrl, 1);
  try {
    const f = new FanOuts(sql, schemaSources(schema), 0);
    await f.refresh();
    assert.equal(f.mostOf(listSource(articles.byName.get('tags')!)!), 5);
    assert.equal(f.mostOf(listSource(tags.byName.get('articles')!)!), 4);
    assert.equal(f.mostOf({ table: tags.table, column: null }), 5);
    assert.equal(f.mostOf({ table: articles.table, column: null }), 4);
    assert.equal(f.mostOf(listSource(articles.byName.get('gallery')!)!), 0);
  } finally {
    await sql.end({ timeout: 5 });
  }
});

test('a large table is estimated from its statistics, close to the count', async () => {
  const sql = connect(s.server.databaseUrl, 1);
  try {
    // 60,000 links of the media library (over the 1 MB counted exactly): 600 rows hold 100 each, one 5,000.
    await sql.unsafe(`insert into ${FILES.related} (file_id, related_id, related_type, field, "order")
      select null, case when g <= 5000 then 1000000 else g % 600 end, 'api::article.article', 'gallery', g from generate_series(1, 65000) g`);
    await sql.unsafe(`analyze ${FILES.related}`);
    const f = new FanOuts(sql, [{ table: FILES.related, column: FILES.relatedId }], 0);
    await f.refresh();
    const most = f.mostOf({ table: FILES.related, column: FILES.relatedId })!;
    assert.ok(most >= 4500 && most <= 5500, `estimated ${most} for 5,000`);
  } finally {
    await sql.end({ timeout: 5 });
  }
});
