// The order an entry's localizations are answered in, as Strapi 5.54 answers them (checked live on the blog
// models with en, fr and de rows of one document, de written last): REST by locale for one document (its
// documents index), in the rows' physical order for several (its statement reads the table); GraphQL by row.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, created, TOKEN, type TestServer } from './helpers.ts';

let s: TestServer;
let doc = '';
before(async () => {
  s = await startTestServer({ env: { LOCALES: 'en,fr,de,es', GRAPHQL_SHAPE: 'v5' } });
  doc = (await created(s, '/api/articles?status=published', { title: 'EN' })).documentId;
  for (const [locale, title] of [['fr', 'FR'], ['de', 'DE'], ['es', 'ES']]) {
    const r = await s.fetchJson('PUT', `/api/articles/${doc}?locale=${locale}&status=published`, { data: { title } }, TOKEN);
    assert.equal(r.status, 200, r.text);
  }
});
after(async () => { await s?.stop(); });

const locales = (list: Array<{ locale: string }>) => list.map((l) => l.locale);

test('REST: by locale, whatever the rows\' ids', async () => {
  const fr = await s.fetchJson('GET', `/api/articles/${doc}?locale=fr&populate[localizations][fields][0]=locale`, undefined, TOKEN);
  assert.deepEqual(locales(fr.body.data.localizations), ['de', 'en', 'es']);
  const en = await s.fetchJson('GET', `/api/articles/${doc}?populate=localizations`, undefined, TOKEN);
  assert.deepEqual(locales(en.body.data.localizations), ['de', 'es', 'fr']);
  const list = await s.fetchJson('GET', `/api/articles?locale=fr&filters[documentId][$eq]=${doc}&populate[localizations][fields][0]=locale`, undefined, TOKEN);
  assert.deepEqual(locales(list.body.data[0].localizations), ['de', 'en', 'es']);
});

test('REST, a page of several documents: in the rows\' physical order', async () => {
  const other = (await created(s, '/api/articles?status=published', { title: 'Other' })).documentId;
  assert.equal((await s.fetchJson('PUT', `/api/articles/${other}?locale=fr&status=published`, { data: { title: 'Autre' } }, TOKEN)).status, 200);
  // The published de row rewritten in place: its new version lies after the es row (neither by id nor by locale).
  await s.sql()`update articles set title = title where document_id = ${doc} and locale = 'de' and published_at is not null`;
  const physical = (await s.sql()`select locale from articles where document_id = ${doc} and locale <> 'fr' and published_at is not null order by ctid`).map((r) => r.locale as string);
  assert.deepEqual(physical, ['en', 'es', 'de']);
  const list = await s.fetchJson('GET', '/api/articles?locale=fr&sort=title&populate[localizations][fields][0]=locale', undefined, TOKEN);
  const mine = (list.body.data as Array<{ documentId: string; localizations: Array<{ locale: string }> }>).find((d) => d.documentId === doc)!;
  assert.equal(list.body.data.length, 2);
  assert.deepEqual(locales(mine.localizations), physical);
});

test('GraphQL: by row', async () => {
  const r = await s.fetchJson('POST', '/graphql', { query: `{ article(documentId: "${doc}", locale: "fr") { localizations { locale } } }` }, TOKEN);
  assert.deepEqual(locales(r.body.data.article.localizations), ['en', 'de', 'es']);
});
