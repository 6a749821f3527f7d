// The order an entry's localizations are answered in, as Strapi 5.54 answers them (checked live on the blog
// models with en, fr and de rows of one document, de written last): REST by locale (its documents index),
// GraphQL by row.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, created, TOKEN, type TestServer } from './helpers.ts';

let s: TestServer;
let doc = '';
before(async () => {
  s = await startTestServer({ env: { LOCALES: 'en,fr,de', GRAPHQL_SHAPE: 'v5' } });
  doc = (await created(s, '/api/articles?status=published', { title: 'EN' })).documentId;
  for (const [locale, title] of [['fr', 'FR'], ['de', 'DE']]) {
    const r = await s.fetchJson('PUT', `/api/articles/${doc}?locale=${locale}&status=published`, { data: { title } }, TOKEN);
    assert.equal(r.status, 200, r.text);
  }
});
after(async () => { await s?.stop(); });

const locales = (list: Array<{ locale: string }>) => list.map((l) => l.locale);

test('REST: by locale, whatever the rows\' ids', async () => {
  const fr = await s.fetchJson('GET', `/api/articles/${doc}?locale=fr&populate[localizations][fields][0]=locale`, undefined, TOKEN);
  assert.deepEqual(locales(fr.body.data.localizations), ['de', 'en']);
  const en = await s.fetchJson('GET', `/api/articles/${doc}?populate=localizations`, undefined, TOKEN);
  assert.deepEqual(locales(en.body.data.localizations), ['de', 'fr']);
  const list = await s.fetchJson('GET', `/api/articles?locale=fr&filters[documentId][$eq]=${doc}&populate[localizations][fields][0]=locale`, undefined, TOKEN);
  assert.deepEqual(locales(list.body.data[0].localizations), ['de', 'en']);
});

test('GraphQL: by row', async () => {
  const r = await s.fetchJson('POST', '/graphql', { query: `{ article(documentId: "${doc}", locale: "fr") { localizations { locale } } }` }, TOKEN);
  assert.deepEqual(locales(r.body.data.article.localizations), ['en', 'de']);
});
