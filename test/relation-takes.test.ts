// A bidirectional oneToOne or oneToMany: linking a target takes it from the document that held it, in
// its draft AND its published row (Strapi 5.54, checked live: the publish that follows a REST write
// writes the new published row's relations as a create does, which takes them). Both sides here have
// draft & publish, so a draft and a published row link to different target rows.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startTestServer, created, TOKEN, type TestServer } from './helpers.ts';

const MODELS = fileURLToPath(new URL('./fixtures/models-takes', import.meta.url));
type Doc = { documentId: string; name: string };

describe('relation writes take targets from other documents, published rows included', () => {
  let s: TestServer;
  const doc = async (path: string, status: 'published' | 'draft') => {
    const r = await s.fetchJson('GET', `${path}${path.includes('?') ? '&' : '?'}status=${status}`, undefined, TOKEN);
    assert.equal(r.status, 200, r.text);
    return r.body.data as Record<string, Doc | Doc[] | null>;
  };
  const name = (v: Doc | Doc[] | null) => (Array.isArray(v) ? v.map((d) => d.name) : v?.name ?? null);
  /** The same in both versions of the document (the test's point: the published row used to keep it). */
  const both = async (path: string, key: string) => {
    const [p, d] = [name((await doc(path, 'published'))[key]), name((await doc(path, 'draft'))[key])];
    assert.deepEqual(p, d, `${path} ${key}: published ${JSON.stringify(p)}, draft ${JSON.stringify(d)}`);
    return p;
  };
  const shop = (id: string) => `/api/shops/${id}?fields[0]=name&populate[0]=products_oo&populate[1]=products_om&populate[2]=products_mo&populate[3]=products_ow`;
  const product = (id: string) => `/api/products/${id}?fields[0]=name&populate[0]=shop&populate[1]=shop_om&populate[2]=shops_mo`;

  // Fifty writers queue on one product's lock: the connection deadline (a read's fast 503 under overload)
  // is widened so that a slow machine measures correctness, not the queue's length.
  before(async () => { s = await startTestServer({ modelsDir: MODELS, env: { WORKERS: '2', DB_CONNECTION_DEADLINE: '15000' } }); });
  after(() => s.stop());

  test('a shop connecting a product takes it from the other shop (oneToOne and oneToMany sides)', async () => {
    const q1 = (await created(s, '/api/products', { name: 'q1' })).documentId;
    const q2 = (await created(s, '/api/products', { name: 'q2' })).documentId;
    const x = (await created(s, '/api/shops', { name: 'X', products_oo: { connect: [q1] }, products_om: { connect: [q1, q2] }, products_ow: [q1] })).documentId;
    const y = (await created(s, '/api/shops', { name: 'Y', products_oo: [q1], products_om: [q1], products_ow: [q1] })).documentId;
    assert.equal(await both(shop(x), 'products_oo'), null);
    assert.deepEqual(await both(shop(x), 'products_om'), ['q2']);
    assert.equal(await both(shop(y), 'products_oo'), 'q1');
    assert.deepEqual(await both(shop(y), 'products_om'), ['q1']);
    assert.equal(await both(product(q1), 'shop'), 'Y');
    assert.equal(await both(product(q1), 'shop_om'), 'Y');
    // A one-way relation has no other side to keep: both shops keep it.
    assert.equal(await both(shop(x), 'products_ow'), 'q1');
    assert.equal(await both(shop(y), 'products_ow'), 'q1');

    // From the product's side: its shop (oneToOne) takes the shop from the product that had it.
    const r = await s.fetchJson('PUT', `/api/products/${q2}`, { data: { shop: { connect: [y] }, shop_om: { set: [y] } } }, TOKEN);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(await both(shop(x), 'products_om'), []);
    assert.equal(await both(shop(y), 'products_oo'), 'q2');
    assert.deepEqual(await both(shop(y), 'products_om'), ['q1', 'q2']);
    assert.equal(await both(product(q1), 'shop'), null);
  });

  test('a product listing a shop (oneToMany) takes it from the other product', async () => {
    const z = (await created(s, '/api/shops', { name: 'Z' })).documentId;
    const p1 = (await created(s, '/api/products', { name: 'p1', shops_mo: [z] })).documentId;
    const p2 = (await created(s, '/api/products', { name: 'p2', shops_mo: [z] })).documentId;
    assert.deepEqual(await both(product(p1), 'shops_mo'), []);
    assert.deepEqual(await both(product(p2), 'shops_mo'), ['Z']);
    assert.equal(await both(shop(z), 'products_mo'), 'p2');
  });

  test('50 shops connecting one product at once: one holds it, in both versions, on both sides', async () => {
    const q = (await created(s, '/api/products', { name: 'contested' })).documentId;
    const res = await Promise.all(Array.from({ length: 50 }, (_, i) => s.fetchJson('POST', '/api/shops', { data: { name: `c${i}`, products_oo: [q], products_om: [q] } }, TOKEN)));
    for (const r of res) assert.equal(r.status, 201, r.text);
    const holder = await both(product(q), 'shop');
    assert.ok(holder?.toString().startsWith('c'), `holder ${holder}`);
    assert.equal(await both(product(q), 'shop_om'), holder);
    const sql = s.sql();
    // Each product row (draft, published) is linked by one shop row at most, on each relation.
    for (const table of ['shops_products_oo_lnk', 'products_shop_om_lnk']) {
      const twice = await sql.unsafe(`select product_id from ${table} group by product_id having count(*) > 1`);
      assert.equal(twice.length, 0, `${table}: ${JSON.stringify(twice)}`);
    }
    const holders = await sql`select count(distinct s.document_id)::int as n from shops_products_oo_lnk l join shops s on s.id = l.shop_id join products p on p.id = l.product_id where p.document_id = ${q}`;
    assert.equal(holders[0].n, 1);
  });
});
