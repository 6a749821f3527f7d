// A populated list given a sort is sorted by its targets' values alone: Strapi 5.54 drops the link order then
// (its populate's getJoinTableOrderBy), and ties come by row (checked live on articles whose descriptions
// are null: the older first, whatever order they were linked in). Without a sort, the link order holds.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, created, TOKEN, type TestServer } from './helpers.ts';

let s: TestServer;
let author = '';
before(async () => {
  s = await startTestServer({ env: { GRAPHQL_SHAPE: 'v5' } });
  const older = (await created(s, '/api/articles?status=published', { title: 'Older' })).documentId;
  const newer = (await created(s, '/api/articles?status=published', { title: 'Newer' })).documentId;
  // Linked newest first: the author's list (its inverse order) holds Newer, then Older.
  author = (await created(s, '/api/authors', { name: 'Tied', articles: [newer, older] })).documentId;
});
after(async () => { await s?.stop(); });

const titles = (list: Array<{ title: string }>) => list.map((a) => a.title);

test('REST: ties of a sorted populate by row, an unsorted one in link order', async () => {
  const sorted = await s.fetchJson('GET', `/api/authors/${author}?populate[articles][sort]=description:desc&populate[articles][fields][0]=title`, undefined, TOKEN);
  assert.deepEqual(titles(sorted.body.data.articles), ['Older', 'Newer']);
  const linked = await s.fetchJson('GET', `/api/authors/${author}?populate[articles][fields][0]=title`, undefined, TOKEN);
  assert.deepEqual(titles(linked.body.data.articles), ['Newer', 'Older']);
});

test('GraphQL: the same', async () => {
  const r = await s.fetchJson('POST', '/graphql', { query: `{ author(documentId: "${author}") { sorted: articles(sort: "description:desc") { title } linked: articles { title } } }` }, TOKEN);
  assert.deepEqual(titles(r.body.data.author.sorted), ['Older', 'Newer']);
  assert.deepEqual(titles(r.body.data.author.linked), ['Newer', 'Older']);
});
