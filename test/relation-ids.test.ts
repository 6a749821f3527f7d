// A relation given by numeric ids from a type without draft & publish links the very rows the ids name, as
// Strapi 5.54 keeps an `{id}` reference as it is (checked live on the blog models: a tag given articles
// [2, 4] — the en and the fr published rows of one document — links those two rows, in that order; one
// given the en published row's id links that row alone, not the draft beside it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, created, TOKEN, type TestServer } from './helpers.ts';

let s: TestServer;
const rows: Record<string, number> = {};
before(async () => {
  s = await startTestServer();
  const doc = (await created(s, '/api/articles?status=published', { title: 'EN' })).documentId;
  const fr = await s.fetchJson('PUT', `/api/articles/${doc}?locale=fr&status=published`, { data: { title: 'FR' } }, TOKEN);
  assert.equal(fr.status, 200, fr.text);
  for (const r of await s.sql()`select id, locale, published_at is not null as published from articles where document_id = ${doc}`) {
    rows[`${r.locale}-${r.published ? 'pub' : 'draft'}`] = Number(r.id);
  }
  assert.equal(Object.keys(rows).length, 4);
});
after(async () => { await s?.stop(); });

const links = async (name: string) => (await s.sql()`select l.article_id from articles_tags_lnk l join tags t on t.id = l.tag_id where t.name = ${name} order by l.id`).map((r) => Number(r.article_id));

test('ids name rows: each linked as given, whatever its locale and status', async () => {
  await created(s, '/api/tags', { name: 'both', articles: [rows['en-pub'], rows['fr-pub']] });
  assert.deepEqual(await links('both'), [rows['en-pub'], rows['fr-pub']]);
  await created(s, '/api/tags', { name: 'reversed', articles: { connect: [rows['fr-pub'], rows['en-pub']] } });
  assert.deepEqual(await links('reversed'), [rows['fr-pub'], rows['en-pub']]);
  await created(s, '/api/tags', { name: 'one', articles: [rows['en-pub']] });
  assert.deepEqual(await links('one'), [rows['en-pub']]);
  const r = await s.fetchJson('GET', '/api/tags?filters[name][$eq]=both&populate[articles][fields][0]=title&populate[articles][fields][1]=locale', undefined, TOKEN);
  assert.deepEqual(r.body.data[0].articles.map((a: { title: string; locale: string }) => [a.title, a.locale]), [['EN', 'en'], ['FR', 'fr']]);
});

test('a document named by documentId still links its versions in the write\'s locale', async () => {
  const [{ document_id: doc }] = await s.sql()`select document_id from articles where id = ${rows['en-pub']}`;
  await created(s, '/api/tags', { name: 'bydoc', articles: [doc] });
  assert.deepEqual((await links('bydoc')).sort((a, b) => a - b), [rows['en-draft'], rows['en-pub']].sort((a, b) => a - b));
});
