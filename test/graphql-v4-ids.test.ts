// GraphQL's v4 shape gives an entry an id that survives edits and publishing (issue 17): the id of the
// document's draft row, which Strapi 5 keeps while each publish makes a new published row. Apollo
// Client's InMemoryCache normalizes by `__typename:id`, so an update's answer refreshes the entry a page
// already shows instead of adding a second one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ApolloClient, InMemoryCache, HttpLink, gql } from '@apollo/client/core/index.js';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';

let s: TestServer;
before(async () => { s = await startTestServer({ env: { GRAPHQL_SHAPE: 'v4' } }); });
after(async () => { await s?.stop(); });

const ARTICLE = gql`query One($id: ID) { article(id: $id) { data { id attributes { title } } } }`;
const UPDATE = gql`mutation Up($id: ID!, $title: String) { updateArticle(id: $id, data: { title: $title }) { data { id attributes { title } } } }`;

test('an entry keeps its id across updates and publishes; Apollo\'s cache keeps one entry for it', async () => {
  const created = await s.fetchJson('POST', '/graphql', { query: 'mutation { createArticle(data: { title: "Cached", slug: "cached-article", publishedAt: "2024-01-01T00:00:00.000Z" }) { data { id } } }' }, TOKEN);
  assert.equal(created.status, 200, created.text);
  const id = created.body.data.createArticle.data.id as string;

  const client = new ApolloClient({
    cache: new InMemoryCache(),
    link: new HttpLink({ uri: `${s.url}/graphql`, fetch, headers: { authorization: `Bearer ${TOKEN}` } }),
  });
  const first = await client.query({ query: ARTICLE, variables: { id } });
  assert.equal(first.data.article.data.id, id);
  assert.equal(first.data.article.data.attributes.title, 'Cached');

  for (const title of ['Cached once', 'Cached twice']) {
    const up = await client.mutate({ mutation: UPDATE, variables: { id, title } });
    assert.equal(up.data.updateArticle.data.id, id, 'the update answers the same id (a new published row was made)');
  }
  // Read from the cache only: the entry the first query cached was refreshed by the mutations' answers.
  const cached = client.readQuery({ query: ARTICLE, variables: { id } });
  assert.equal(cached.article.data.attributes.title, 'Cached twice');
  const entries = Object.keys(client.cache.extract()).filter((k) => k.startsWith('ArticleEntity:'));
  assert.deepEqual(entries, [`ArticleEntity:${id}`]);

  // The same id reads the document in a list, through a relation and by id.
  const list = await s.fetchJson('POST', '/graphql', { query: '{ articles(filters: { slug: { eq: "cached-article" } }) { data { id } } }' }, TOKEN);
  assert.deepEqual(list.body.data.articles.data, [{ id }]);
  const again = await s.fetchJson('POST', '/graphql', { query: `{ article(id: "${id}") { data { id attributes { title } } } }` }, TOKEN);
  assert.deepEqual(again.body.data.article.data, { id, attributes: { title: 'Cached twice' } });
  // A row id the client may have kept from before (the published row's) still names the document.
  const [{ pid }] = await s.sql()<{ pid: string }[]>`select id::text as pid from articles where slug = 'cached-article' and published_at is not null`;
  assert.notEqual(pid, id);
  const old = await s.fetchJson('POST', '/graphql', { query: `{ article(id: "${pid}") { data { id } } }` }, TOKEN);
  assert.deepEqual(old.body.data.article.data, { id });
});
