// A relation given by numeric ids from a type without draft & publish links the very rows the ids name, as
// Strapi 5.54 keeps an `{id}` reference as it is (checked live on the blog models: a tag given articles
// [2, 4] — the en and the fr published rows of one document — links those two rows, in that order; one
// given the en published row's id links that row alone, not the draft beside it). From a type with draft &
// publish too: a draft shop given a product's published row links that row (checked live on the takes models).
import { test, before, after, describe } from 'node:test';
import { fileURLToPath } from 'node:url';
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

describe('from a type with draft & publish (takes models)', () => {
  let t: TestServer;
  before(async () => { t = await startTestServer({ modelsDir: fileURLToPath(new URL('./fixtures/models-takes', import.meta.url)) }); });
  after(async () => { await t?.stop(); });

  test('an id names its row whatever the write\'s status; a publish links the published rows', async () => {
    await created(t, '/api/products?status=published', { name: 'P1' });
    const [draft, pub] = ['is null', 'is not null'].map(async (c) => Number((await t.sql().unsafe(`select id from products where name = 'P1' and published_at ${c}`))[0].id));
    const [d, p] = await Promise.all([draft, pub]);
    const linked = async (shop: string) => (await t.sql()`select s.published_at is not null as shop, p.published_at is not null as product from shops s join shops_products_mm_lnk l on l.shop_id = s.id join products p on p.id = l.product_id where s.name = ${shop} order by s.id, l.id`).map((r) => `${r.shop ? 'p' : 'd'}->${r.product ? 'p' : 'd'}`);
    // Strapi 5.54's links (recorded live).
    await created(t, '/api/shops?status=draft', { name: 'S1', products_mm: [p] });
    assert.deepEqual(await linked('S1'), ['d->p']);
    await created(t, '/api/shops?status=draft', { name: 'S2', products_mm: [d] });
    assert.deepEqual(await linked('S2'), ['d->d']);
    await created(t, '/api/shops?status=published', { name: 'S3', products_mm: [p] });
    assert.deepEqual(await linked('S3'), ['d->p', 'p->p']);
    await created(t, '/api/shops?status=published', { name: 'S4', products_mm: [d] });
    assert.deepEqual(await linked('S4'), ['d->d', 'p->p']);
  });
});
