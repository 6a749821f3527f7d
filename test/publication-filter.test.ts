// Strapi 5.54's `publicationFilter` (and the deprecated `hasPublishedVersion`): cohorts of draft &
// publish rows by the document's other version (@strapi/utils buildPublicationFilterWhere, read in its
// source; a differential run of Strapi's own has-published-version and publication-filter tests found them
// ignored here).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';

let s: TestServer;
const titles = async (query: string) => {
  const r = await s.fetchJson('GET', `/api/articles?${query}&fields[0]=title&sort=title&pagination[pageSize]=100`, undefined, TOKEN);
  assert.equal(r.status, 200, r.text);
  return (r.body.data as Array<{ title: string }>).map((a) => a.title);
};

before(async () => {
  s = await startTestServer();
  const post = async (title: string, query = '') => {
    const r = await s.fetchJson('POST', `/api/articles${query}`, { data: { title, slug: title.toLowerCase().replace(/\W+/g, '-') } }, TOKEN);
    assert.equal(r.status, 201, r.text);
    return r.body.data.documentId as string;
  };
  const a = await post('A published');
  await post('B never published', '?status=draft');
  const c = await post('C modified');
  const author = await s.fetchJson('POST', '/api/authors', { data: { name: 'Ann', articles: [a, c] } }, TOKEN);
  assert.equal(author.status, 201, author.text);
  await new Promise((r) => setTimeout(r, 5));
  const r = await s.fetchJson('PUT', `/api/articles/${c}?status=draft`, { data: { description: 'changed in the draft' } }, TOKEN);
  assert.equal(r.status, 200, r.text);
});
after(() => s.stop());

test('drafts by their published version', async () => {
  assert.deepEqual(await titles('status=draft&publicationFilter=never-published'), ['B never published']);
  assert.deepEqual(await titles('status=draft&hasPublishedVersion=false'), ['B never published']);
  assert.deepEqual(await titles('status=draft&publicationFilter=has-published-version'), ['A published', 'C modified']);
  assert.deepEqual(await titles('status=draft&hasPublishedVersion=true'), ['A published', 'C modified']);
  assert.deepEqual(await titles('status=draft&publicationFilter=modified'), ['C modified']);
  assert.deepEqual(await titles('status=draft&publicationFilter=unmodified'), ['A published']);
  assert.deepEqual(await titles('status=draft&publicationFilter=published-with-draft'), []);
});

test('published rows by their draft', async () => {
  assert.deepEqual(await titles('publicationFilter=never-published'), []);
  assert.deepEqual(await titles('publicationFilter=published-with-draft'), ['A published', 'C modified']);
  assert.deepEqual(await titles('publicationFilter=published-without-draft'), []);
  assert.deepEqual(await titles('publicationFilter=modified'), ['C modified']);
  assert.deepEqual(await titles('publicationFilter=unmodified'), ['A published']);
  const r = await s.fetchJson('GET', '/api/articles?publicationFilter=modified&fields[0]=title', undefined, TOKEN);
  assert.equal(r.body.meta.pagination.total, 1);
});

test('values Strapi refuses, in its words', async () => {
  const bad = await s.fetchJson('GET', '/api/articles?publicationFilter=nope');
  assert.deepEqual([bad.status, bad.body.error.message, bad.body.error.details], [400,
    "Invalid value for 'publicationFilter'. Expected one of: never-published, has-published-version, modified, unmodified, never-published-document, has-published-version-document, published-without-draft, published-with-draft.",
    { source: 'query', param: 'publicationFilter' }]);
  const h = await s.fetchJson('GET', '/api/articles?hasPublishedVersion=yes');
  assert.deepEqual([h.status, h.body.error.message], [400, "Invalid value for 'hasPublishedVersion'. Expected boolean or 'true'/'false' string."]);
});

test('GraphQL: publicationFilter and hasPublishedVersion select the same cohorts', async () => {
  const g = await startTestServer({ env: { GRAPHQL_SHAPE: 'v5' }, db: { url: s.server.databaseUrl, dataDir: s.db.dataDir, drop: async () => {} } });
  try {
    const ask = async (args: string) => {
      const r = await g.fetchJson('POST', '/graphql', { query: `{ articles(${args}, sort: "title", pagination: { pageSize: 100 }) { title } }` }, TOKEN);
      assert.equal(r.status, 200, r.text);
      return (r.body.data.articles as Array<{ title: string }>).map((a) => a.title);
    };
    assert.deepEqual(await ask('status: DRAFT, publicationFilter: NEVER_PUBLISHED'), ['B never published']);
    assert.deepEqual(await ask('status: DRAFT, hasPublishedVersion: true'), ['A published', 'C modified']);
    assert.deepEqual(await ask('publicationFilter: MODIFIED'), ['C modified']);
    // A root of a type without draft & publish: its draft & publish relations get the cohort (Strapi's association resolver).
    const nested = await g.fetchJson('POST', '/graphql', { query: '{ authors(publicationFilter: MODIFIED) { name articles(sort: "title") { title } } }' }, TOKEN);
    assert.deepEqual(nested.body, { data: { authors: [{ name: 'Ann', articles: [{ title: 'C modified' }] }] } });
  } finally { await g.stop(); }
});
