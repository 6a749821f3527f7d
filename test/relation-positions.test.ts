// Positioned connects (`position: { before | after }`) whose anchor is neither linked nor connected in
// the same request: refused by default (Strapi's orderer is strict unless `options.strict` is false),
// with Strapi 5.54's words (checked live: the connected and the anchor's row ids, the position as sent
// plus the default locale Strapi gives a long-hand reference from a type without i18n); a cycle of
// positions is refused too. Nothing is written.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startTestServer, created, TOKEN, type TestServer } from './helpers.ts';

const MODELS = fileURLToPath(new URL('./fixtures/models-takes', import.meta.url));

describe('positioned connects: strict by default', () => {
  let s: TestServer;
  let q1: string, q2: string, shop: string;
  const draftRow = async (doc: string) => (await s.sql()`select id from products where document_id = ${doc} and published_at is null`)[0].id as number;
  const put = (data: unknown, query = '') => s.fetchJson('PUT', `/api/shops/${shop}${query}`, { data }, TOKEN);
  const names = async () => {
    const r = await s.fetchJson('GET', `/api/shops/${shop}?status=draft&populate[products_mm][fields][0]=name`, undefined, TOKEN);
    return (r.body.data.products_mm as Array<{ name: string }>).map((p) => p.name);
  };

  before(async () => {
    s = await startTestServer({ modelsDir: MODELS });
    q1 = (await created(s, '/api/products', { name: 'q1' })).documentId;
    q2 = (await created(s, '/api/products', { name: 'q2' })).documentId;
    shop = (await created(s, '/api/shops', { name: 'S' })).documentId;
  });
  after(() => s.stop());

  test('an anchor not linked: 400 naming both rows, nothing written', async () => {
    for (const [key, options] of [['after', { options: { strict: true } }], ['before', {}]] as const) {
      const r = await put({ products_mm: { ...options, connect: [{ documentId: q1, position: { [key]: q2 } }] } });
      assert.equal(r.status, 400, r.text);
      assert.deepEqual(r.body.error, {
        status: 400, name: 'ValidationError', details: {},
        message: `There was a problem connecting relation with id ${await draftRow(q1)} at position {"${key}":${await draftRow(q2)},"locale":"en"}. The relation with id ${await draftRow(q2)} needs to be connected first.`,
      });
      assert.deepEqual(await names(), []);
    }
  });

  test('an anchor given as an id that names no row: 400 in the same words, the id as sent (checked live)', async () => {
    const id = await draftRow(q1);
    const r = await put({ products_mm: { connect: [{ id, position: { before: 999999 } }] } });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.error.message, `There was a problem connecting relation with id ${id} at position {"before":999999}. The relation with id 999999 needs to be connected first.`);
    assert.deepEqual(await names(), []);
  });

  test('the shorthand (a list or one entry) names entries by id, documentId and locale only: another key is an invalid key (checked live)', async () => {
    for (const [data, key] of [[{ products_mm: [{ documentId: q1, status: 'draft' }] }, 'status'], [{ products_mm: [{ documentId: q1, position: { end: true } }] }, 'position']] as const) {
      const r = await put(data);
      assert.deepEqual({ status: r.status, error: r.body.error }, { status: 400, error: { status: 400, name: 'ValidationError', message: `Invalid key ${key} at products_mm`, details: { key, path: 'products_mm', source: 'body' } } });
    }
    assert.deepEqual(await names(), []);
    // connect items are not checked so (Strapi writes them).
    assert.equal((await put({ products_mm: { connect: [{ documentId: q1, note: 'x' }] } })).status, 200);
    assert.deepEqual(await names(), ['q1']);
    assert.equal((await put({ products_mm: { disconnect: [q1] } })).status, 200);
  });

  test('not strict: the row goes last; an anchor connected in the same request or linked already counts', async () => {
    let r = await put({ products_mm: { options: { strict: false }, connect: [{ documentId: q1, position: { before: q2 } }] } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(await names(), ['q1']);
    r = await put({ products_mm: { connect: [{ documentId: q2, position: { before: q1 } }] } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(await names(), ['q2', 'q1']);
  });

  test('positions naming each other: refused as a circular reference', async () => {
    const r = await put({ products_mm: { set: [], connect: undefined } });
    assert.equal(r.status, 200, r.text);
    const c = await put({ products_mm: { connect: [{ documentId: q1, position: { before: q2 } }, { documentId: q2, position: { after: q1 } }] } });
    assert.equal(c.status, 400, c.text);
    assert.match(c.body.error.message, /^A circular reference was found in the connect array\./);
    assert.deepEqual(await names(), []);
  });
});

describe('relation payload options', () => {
  let s: TestServer;
  before(async () => { s = await startTestServer({ modelsDir: MODELS }); });
  after(() => s.stop());

  test('options are not looked into: a key beside strict is passed over (Strapi 5.54, checked live on these models)', async () => {
    const q = (await created(s, '/api/products', { name: 'opt' })).documentId;
    const r = await s.fetchJson('POST', '/api/shops?populate[products_mm][fields][0]=name', { data: { name: 'O', products_mm: { options: { strict: true, invalid: true }, connect: [q] } } }, TOKEN);
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.body.data.products_mm.map((p: { name: string }) => p.name), ['opt']);
    // A key that is none of the payload's operations, no id and no attribute of the target is still refused.
    const bad = await s.fetchJson('POST', '/api/shops', { data: { name: 'O', products_mm: { connect: [q], invalid: true } } }, TOKEN);
    assert.deepEqual([bad.status, bad.body.error], [400, { status: 400, name: 'ValidationError', message: 'Invalid key invalid at products_mm', details: { key: 'invalid', path: 'products_mm', source: 'body' } }]);
  });
});
