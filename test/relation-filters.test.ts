// Filters through a relation (issue 31): through a table known to be small the matching target ids are read
// first (compiler/sql.ts relationFilter), through a large one the links are searched per row. Both must answer
// alike: two nodes on one database, one counting every table small, the other every analyzed table with a row
// as large, answer the same filters (REST and GraphQL) with the same bodies, each with its own form of statement.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, sameDatabaseNode, TOKEN, type TestServer } from './helpers.ts';
import { queryTap } from '../src/db/connect.ts';

type Doc = { documentId: string };

describe('relation filters through small and large tables', () => {
  let small: TestServer, large: TestServer;
  const sent: string[] = [];
  before(async () => {
    queryTap.fn = (text) => sent.push(text);
    small = await startTestServer({ env: { WORKERS: '0', GRAPHQL_SHAPE: 'v5' } });
    const post = async (path: string, data: object) => {
      const r = await small.fetchJson('POST', path, { data }, TOKEN);
      assert.equal(r.status, 201, r.text);
      return r.body.data as Doc;
    };
    const parent = await post('/api/categories', { name: 'Parent', slug: 'parent' });
    const cats = [await post('/api/categories', { name: 'Cat A', slug: 'cat-a', parent: { connect: [parent.documentId] } }), await post('/api/categories', { name: 'Cat B', slug: 'cat-b' })];
    const tags = [await post('/api/tags', { name: 'red' }), await post('/api/tags', { name: 'blue' })];
    const ada = await post('/api/authors', { name: 'Ada' });
    for (let i = 0; i < 12; i++) {
      await post('/api/articles', {
        title: `Art ${i}`, views: i * 10, kind: i % 2 ? 'news' : 'tutorial',
        ...(i % 4 === 3 ? {} : { category: { connect: [cats[i % 2].documentId] } }),
        tags: { connect: tags.filter((_, k) => (i + k) % 3 === 0).map((t) => t.documentId) },
        ...(i % 3 === 0 ? { author: { connect: [ada.documentId] } } : {}),
      });
    }
    await small.sql().unsafe('analyze');
    large = await sameDatabaseNode(small, { WORKERS: '0', GRAPHQL_SHAPE: 'v5', DB_CUSTOM_PLAN_ROWS: '1' });
  });
  after(async () => { queryTap.fn = null; await large?.stop(); await small?.stop(); });

  /** The statements a request sent (the nodes share this process, so requests go one at a time). */
  async function read(s: TestServer, method: 'GET' | 'POST', path: string, body?: object) {
    sent.length = 0;
    const r = await s.fetchJson(method, path, body, TOKEN, { 'cache-control': 'no-cache' });
    return { status: r.status, text: r.text, sql: sent.filter((t) => t.includes('_lnk')).join('\n') };
  }

  const paths = [
    '/api/articles?filters[category][name][$startsWith]=Cat&sort=title:asc&fields[0]=title',
    '/api/articles?filters[category][name][$eq]=Cat B&filters[views][$gte]=30&sort=views:desc&fields[0]=title&pagination[pageSize]=3',
    '/api/articles?filters[tags][name][$in][0]=red&filters[tags][name][$in][1]=green&sort=title:asc&fields[0]=title',
    '/api/articles?filters[$or][0][category][slug][$eq]=cat-a&filters[$or][1][kind][$eq]=news&sort=title:asc&fields[0]=title',
    '/api/articles?filters[$not][category][name][$eq]=Cat A&sort=title:asc&fields[0]=title',
    '/api/articles?filters[category][parent][name][$eq]=Parent&sort=title:asc&fields[0]=title&populate[category][fields][0]=name',
    '/api/categories?filters[articles][kind][$eq]=news&sort=name:asc&fields[0]=name',
    '/api/articles?populate[tags][filters][articles][category][name][$eq]=Cat A&sort=title:asc&fields[0]=title',
  ];

  test('REST: the same answers; the small node reads the target ids first, the large one searches per row', async () => {
    // Table sizes are read in the background at start: wait for each node's first answer to show its form.
    for (const [s, form] of [[small, /= any\(array\(select t\d+\.id from "categories"/], [large, /exists \(select 1 from "articles_category_lnk"/]] as const) {
      for (let i = 0; !form.test((await read(s, 'GET', paths[0])).sql); i++) {
        assert.ok(i < 100, `${s === small ? 'small' : 'large'} node never used its form`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    for (const path of paths) {
      const a = await read(small, 'GET', path);
      const b = await read(large, 'GET', path);
      assert.equal(a.status, 200, `${path}: ${a.text}`);
      assert.equal(a.text, b.text, path);
      assert.match(a.sql, /= any\(array\(select /, path);
      assert.doesNotMatch(b.sql, /= any\(array\(select /, path);
    }
    assert.ok(JSON.parse((await read(small, 'GET', paths[0])).text).data.length > 0, 'the filters find rows');
  });

  test('null tests: rows without a link pass on both, also two relations deep', async () => {
    for (const [path, titles] of [
      ['/api/articles?filters[category][id][$null]=true&sort=title:asc&fields[0]=title', ['Art 11', 'Art 3', 'Art 7']],
      // Articles whose tags have an article without an author, or that have no tag.
      ['/api/articles?filters[tags][articles][author][id][$null]=true&sort=title:asc&fields[0]=title', null],
      ['/api/categories?populate[articles][filters][tags][articles][views][$null]=true&populate[articles][fields][0]=title&fields[0]=name&sort=name:asc', null],
    ] as const) {
      const a = await read(small, 'GET', path);
      const b = await read(large, 'GET', path);
      assert.equal(a.status, 200, `${path}: ${a.text}`);
      assert.equal(a.text, b.text, path);
      if (titles) assert.deepEqual(JSON.parse(a.text).data.map((d: { title: string }) => d.title), titles);
      assert.match(a.sql, /= any\(array\(select [^]* or not exists \(select 1 from "articles_/, path);
      assert.doesNotMatch(b.sql, /= any\(array\(select /, path);
    }
  });

  test('in a populate a plain condition through a relation is checked link by link on both nodes (a kept subquery), answers alike', async () => {
    for (const path of [
      '/api/categories?populate[articles][filters][category][name][$startsWith]=Cat&populate[articles][fields][0]=title&fields[0]=name&sort=name:asc',
      '/api/authors?populate[articles][filters][tags][name][$eq]=red&populate[articles][fields][0]=title&fields[0]=name',
      '/api/categories?populate[articles][filters][category][id][$null]=true&populate[articles][fields][0]=title&fields[0]=name&sort=name:asc',
    ]) {
      const a = await read(small, 'GET', path);
      const b = await read(large, 'GET', path);
      assert.equal(a.status, 200, `${path}: ${a.text}`);
      assert.equal(a.text, b.text, path);
      for (const x of [a, b]) {
        assert.match(x.sql, /exists \(select 1 from "articles_(category|tags)_lnk" lt\d+ join "(categories|tags)" t\d+ on [^]*? offset 0\)/, path);
        assert.doesNotMatch(x.sql, /= any\(array\(select /, path);
      }
    }
    const cats = JSON.parse((await read(small, 'GET', '/api/categories?populate[articles][filters][category][name][$startsWith]=Cat&populate[articles][fields][0]=title&fields[0]=name&sort=name:asc')).text).data;
    assert.deepEqual(cats.map((c: { articles: unknown[] }) => c.articles.length), [6, 3, 0], 'Cat A, Cat B, Parent');
  });

  test('GraphQL filters through a relation answer alike', async () => {
    const query = '{ articles(filters: { category: { name: { startsWith: "Cat" } }, tags: { name: { eq: "blue" } } }, sort: "title") { title category { name } } }';
    const a = await read(small, 'POST', '/graphql', { query });
    const b = await read(large, 'POST', '/graphql', { query });
    assert.equal(a.status, 200, a.text);
    assert.equal(a.text, b.text);
    assert.ok(JSON.parse(a.text).data.articles.length > 0, a.text);
    assert.match(a.sql, /= any\(array\(select /);
    assert.doesNotMatch(b.sql, /= any\(array\(select /);
  });
});
