// CRUD through the REST API on a model with every attribute type (test/fixtures/models-all-types):
// create/get/list/update/delete, defaults, null clearing, hidden attributes, single types,
// draft & publish, localization, components and dynamic zones, persistence across a restart.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, ALL_TYPES_MODELS, TOKEN, insertFile, copyModels, type TestServer } from './helpers.ts';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DOC_ID = /^[a-z0-9]{24}$/;
const NOT_FOUND = { data: null, error: { status: 404, name: 'NotFoundError', message: 'Not Found', details: {} } };

/** Scalar attributes of `everything` a response shows, in model order (no password, no private). */
const EVERYTHING_KEYS = [
  'id', 'documentId', 'title', 'code', 'summary', 'body', 'content', 'contact', 'slug', 'level', 'active', 'quantity', 'big',
  'ratio', 'price', 'day', 'clock', 'happenedAt', 'stamp', 'payload', 'serial', 'createdAt', 'updatedAt', 'publishedAt',
];

let s: TestServer;
let fileA: number, fileB: number;
let ann: string, bob: string, red: string, blue: string;

async function create(path: string, data: unknown): Promise<any> {
  const r = await s.fetchJson('POST', path, { data }, TOKEN);
  assert.equal(r.status, 201, `POST ${path}: ${r.text}`);
  return r.body.data;
}

before(async () => {
  s = await startTestServer({ modelsDir: ALL_TYPES_MODELS });
  fileA = await insertFile(s.sql(), { name: 'a.png', alternativeText: 'A' });
  fileB = await insertFile(s.sql(), { name: 'b.jpg', mime: 'image/jpeg' });
  ann = (await create('/api/people', { name: 'Ann' })).documentId;
  bob = (await create('/api/people', { name: 'Bob' })).documentId;
  red = (await create('/api/labels', { name: 'red' })).documentId;
  blue = (await create('/api/labels', { name: 'blue' })).documentId;
});

after(async () => { await s?.stop(); });

const FULL = () => ({
  title: 'Everything at once',
  code: 'ABC-42',
  summary: 'A plain text summary\nwith two lines',
  body: '# Heading\n\n**bold**',
  content: [{ type: 'paragraph', children: [{ type: 'text', text: 'Hello' }] }],
  contact: 'someone@example.com',
  secret: 'hunter2',
  slug: 'everything-at-once',
  level: 'high',
  active: false,
  quantity: 100,
  big: '9007199254740993',
  ratio: 0.25,
  price: 12.5,
  day: '2024-02-29',
  clock: '13:45:10',
  happenedAt: '2024-05-06T07:08:09.123Z',
  stamp: '2024-05-06T07:08:09Z',
  payload: { list: [1, 'two', null], nested: { ok: true } },
  internalNote: 'for editors only',
  serial: 'SN-FULL',
  cover: fileA,
  gallery: [fileB, fileA],
  owner: ann,
  labels: [red, blue],
  sidekick: bob,
  followers: [ann, bob],
  address: { street: 'Rua Augusta 1', zip: '1100-048', point: { lat: 38.7, lng: -9.1 }, photo: fileB },
  links: [{ label: 'Home', url: 'https://example.com' }, { url: 'https://example.org' }],
  sections: [
    { __component: 'common.text-block', body: 'Intro', image: fileA, links: [{ label: 'inner', url: 'https://inner' }] },
    { __component: 'common.link', label: 'Docs', url: 'https://docs' },
    { __component: 'geo.address', street: 'Second st' },
  ],
});

describe('collection type with every attribute type', () => {
  let minimal: any;
  let full: any;

  test('create with only the required attribute: 201, defaults applied, model order, no hidden attributes', async () => {
    const r = await s.fetchJson('POST', '/api/everythings', { data: { title: 'Minimal' } }, TOKEN);
    assert.equal(r.status, 201);
    minimal = r.body.data;
    assert.deepEqual(Object.keys(r.body), ['data', 'meta']);
    assert.deepEqual(r.body.meta, {});
    assert.deepEqual(Object.keys(minimal), EVERYTHING_KEYS);
    assert.equal(typeof minimal.id, 'number');
    assert.match(minimal.documentId, DOC_ID);
    assert.equal(minimal.title, 'Minimal');
    // defaults of the model
    assert.equal(minimal.level, 'low');
    assert.equal(minimal.active, true);
    assert.equal(minimal.quantity, 5);
    for (const k of ['code', 'summary', 'body', 'content', 'contact', 'slug', 'big', 'ratio', 'price', 'day', 'clock', 'happenedAt', 'stamp', 'payload', 'serial']) {
      assert.equal(minimal[k], null, k);
    }
    assert.match(minimal.createdAt, ISO_MS);
    assert.match(minimal.updatedAt, ISO_MS);
    // a type without draft & publish is always published
    assert.match(minimal.publishedAt, ISO_MS);
  });

  test('create with every attribute type stores and returns each value in Strapi format', async () => {
    const r = await s.fetchJson('POST', '/api/everythings?populate=*', { data: FULL() }, TOKEN);
    assert.equal(r.status, 201, r.text);
    full = r.body.data;
    assert.equal(full.title, 'Everything at once');
    assert.equal(full.code, 'ABC-42');
    assert.equal(full.summary, 'A plain text summary\nwith two lines');
    assert.equal(full.body, '# Heading\n\n**bold**');
    assert.deepEqual(full.content, [{ type: 'paragraph', children: [{ type: 'text', text: 'Hello' }] }]);
    assert.equal(full.contact, 'someone@example.com');
    assert.equal(full.slug, 'everything-at-once');
    assert.equal(full.level, 'high');
    assert.equal(full.active, false);
    assert.equal(full.quantity, 100);
    assert.equal(full.big, '9007199254740993', 'biginteger keeps every digit, as a string');
    assert.equal(full.ratio, 0.25);
    assert.equal(full.price, 12.5);
    assert.equal(full.day, '2024-02-29');
    // Strapi 5.54 answers a time as PostgreSQL's text of the `time` column.
    assert.equal(full.clock, '13:45:10');
    assert.equal(full.happenedAt, '2024-05-06T07:08:09.123Z');
    // Strapi 5.54 answers a `timestamp` attribute as its epoch milliseconds, as a string.
    assert.equal(full.stamp, String(Date.parse('2024-05-06T07:08:09Z')));
    assert.deepEqual(full.payload, { list: [1, 'two', null], nested: { ok: true } });
    assert.equal(full.serial, 'SN-FULL');
    assert.ok(!('secret' in full), 'password attribute must never be returned');
    assert.ok(!('internalNote' in full), 'private attribute must never be returned');
    // media
    assert.equal(full.cover.id, fileA);
    assert.equal(full.cover.name, 'a.png');
    assert.equal(full.cover.alternativeText, 'A');
    assert.deepEqual(full.gallery.map((f: any) => f.id), [fileB, fileA], 'multiple media keep their order');
    // relations (owning sides)
    assert.equal(full.owner.documentId, ann);
    assert.deepEqual(full.labels.map((l: any) => l.name), ['red', 'blue']);
    assert.equal(full.sidekick.name, 'Bob');
    assert.deepEqual(full.followers.map((p: any) => p.name), ['Ann', 'Bob']);
    assert.equal(full.partner, null);
    assert.equal(full.parent, null);
    assert.deepEqual(full.children, []);
    // components and dynamic zone (populate=* populates one level)
    assert.equal(full.address.street, 'Rua Augusta 1');
    assert.equal(full.address.city, 'Lisbon', 'component attribute default applied');
    assert.equal(full.address.zip, '1100-048');
    assert.equal(typeof full.address.id, 'number');
    assert.deepEqual(full.links.map((l: any) => [l.label, l.url]), [['Home', 'https://example.com'], [null, 'https://example.org']]);
    assert.deepEqual(full.sections.map((x: any) => x.__component), ['common.text-block', 'common.link', 'geo.address']);
    assert.equal(full.sections[0].body, 'Intro');
    assert.equal(full.sections[1].url, 'https://docs');
    assert.equal(full.sections[2].street, 'Second st');
    assert.equal(full.sections[2].city, 'Lisbon');
  });

  test("a repeatable component's populate `sort`: instances in that order, the sorted keys first (Strapi 5.54, checked live)", async () => {
    const r = await s.fetchJson('GET', `/api/everythings/${full.documentId}?fields[0]=title&populate[links][sort]=url:desc`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.data.links.map((l: any) => Object.keys(l)), [['url', 'id', 'label'], ['url', 'id', 'label']]);
    assert.deepEqual(r.body.data.links.map((l: any) => l.url), ['https://example.org', 'https://example.com']);
    const asc = await s.fetchJson('GET', `/api/everythings/${full.documentId}?fields[0]=title&populate[links][sort][0]=url:asc&populate[links][fields][0]=label&populate[links][fields][1]=url`);
    assert.deepEqual(asc.body.data.links.map((l: any) => [Object.keys(l), l.url]), [[['url', 'id', 'label'], 'https://example.com'], [['url', 'id', 'label'], 'https://example.org']]);
  });

  test('get one returns what was stored', async () => {
    const r = await s.fetchJson('GET', `/api/everythings/${full.documentId}`);
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body.data), EVERYTHING_KEYS);
    for (const k of EVERYTHING_KEYS) assert.deepEqual(r.body.data[k], full[k], k);
    assert.deepEqual(r.body.meta, {});
  });

  test('nested component populate returns nested components and media', async () => {
    const r = await s.fetchJson('GET', `/api/everythings/${full.documentId}?fields[0]=title&populate[address][populate]=*&populate[sections][populate]=*`);
    assert.equal(r.status, 200, r.text);
    const d = r.body.data;
    assert.deepEqual(Object.keys(d), ['id', 'documentId', 'title', 'address', 'sections']);
    assert.deepEqual({ lat: d.address.point.lat, lng: d.address.point.lng }, { lat: 38.7, lng: -9.1 });
    assert.equal(typeof d.address.point.id, 'number');
    assert.equal(d.address.photo.id, fileB);
    assert.equal(d.sections[0].image.id, fileA);
    assert.deepEqual(d.sections[0].links.map((l: any) => l.url), ['https://inner']);
    assert.equal(d.sections[2].point, null);
  });

  test('list returns every document with pagination meta', async () => {
    const r = await s.fetchJson('GET', '/api/everythings?sort=id:asc');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.data.map((d: any) => d.documentId), [minimal.documentId, full.documentId]);
    assert.deepEqual(r.body.meta, { pagination: { page: 1, pageSize: 25, pageCount: 1, total: 2 } });
    for (const d of r.body.data) {
      assert.ok(!('secret' in d) && !('internalNote' in d));
      assert.ok(!('cover' in d) && !('address' in d) && !('owner' in d), 'nothing is populated by default');
    }
  });

  test('inverse sides of relations show what the owning sides wrote', async () => {
    // self-referencing oneToOne and manyToOne / oneToMany, written from the owning side
    const r = await s.fetchJson('PUT', `/api/everythings/${full.documentId}?populate[partner][fields][0]=title&populate[parent][fields][0]=title`, { data: { partner: minimal.documentId, parent: minimal.documentId } }, TOKEN);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.data.partner.documentId, minimal.documentId);
    assert.equal(r.body.data.parent.documentId, minimal.documentId);
    const m = await s.fetchJson('GET', `/api/everythings/${minimal.documentId}?populate[partnerOf][fields][0]=title&populate[children][fields][0]=title`);
    assert.equal(m.body.data.partnerOf.documentId, full.documentId);
    assert.deepEqual(m.body.data.children.map((c: any) => c.documentId), [full.documentId]);
    const p = await s.fetchJson('GET', `/api/people/${ann}?populate[items][fields][0]=title`);
    assert.deepEqual(p.body.data.items.map((c: any) => c.title), ['Everything at once']);
    const l = await s.fetchJson('GET', `/api/labels/${blue}?populate=things`);
    assert.deepEqual(l.body.data.things.map((c: any) => c.documentId), [full.documentId]);
    for (const t of l.body.data.things) assert.ok(!('secret' in t) && !('internalNote' in t), 'hidden attributes stay hidden when populated');
  });

  test('writing the inverse side of a relation updates the owning side', async () => {
    const r = await s.fetchJson('PUT', `/api/people/${bob}?populate[items][fields][0]=title`, { data: { items: [minimal.documentId] } }, TOKEN);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.data.items.map((x: any) => x.documentId), [minimal.documentId]);
    const e = await s.fetchJson('GET', `/api/everythings/${minimal.documentId}?populate[owner][fields][0]=name`);
    assert.equal(e.body.data.owner?.name, 'Bob');
  });

  test('update: 200, only the given attributes change', async () => {
    const before = (await s.fetchJson('GET', `/api/everythings/${full.documentId}`)).body.data;
    const r = await s.fetchJson('PUT', `/api/everythings/${full.documentId}`, { data: { title: 'Renamed', quantity: 7, level: 'medium', secret: 'new-secret' } }, TOKEN);
    assert.equal(r.status, 200, r.text);
    const d = r.body.data;
    assert.equal(d.title, 'Renamed');
    assert.equal(d.quantity, 7);
    assert.equal(d.level, 'medium');
    assert.ok(!('secret' in d));
    for (const k of ['code', 'summary', 'content', 'big', 'price', 'day', 'clock', 'happenedAt', 'payload', 'serial', 'createdAt', 'documentId', 'id']) assert.deepEqual(d[k], before[k], k);
    assert.ok(d.updatedAt >= before.updatedAt);
    // relations and components not mentioned are kept
    const p = await s.fetchJson('GET', `/api/everythings/${full.documentId}?populate=*`);
    assert.equal(p.body.data.cover?.id, fileA);
    assert.equal(p.body.data.labels.length, 2);
    assert.equal(p.body.data.address?.street, 'Rua Augusta 1');
    assert.equal(p.body.data.sections.length, 3);
  });

  test('update with an empty data object changes nothing', async () => {
    const before = (await s.fetchJson('GET', `/api/everythings/${full.documentId}`)).body.data;
    const r = await s.fetchJson('PUT', `/api/everythings/${full.documentId}`, { data: {} }, TOKEN);
    assert.equal(r.status, 200);
    for (const k of EVERYTHING_KEYS.filter((k) => k !== 'updatedAt' && k !== 'publishedAt')) assert.deepEqual(r.body.data[k], before[k], k);
    // Without draft & publish every update publishes anew (Strapi 5.54 sets publishedAt on each write; checked live).
    assert.equal(r.body.data.publishedAt, r.body.data.updatedAt);
    assert.ok(r.body.data.publishedAt > before.publishedAt);
  });

  test('updating a unique attribute to its own value is allowed', async () => {
    const r = await s.fetchJson('PUT', `/api/everythings/${full.documentId}`, { data: { serial: 'SN-FULL' } }, TOKEN);
    assert.equal(r.status, 200, r.text);
  });

  test('null clears scalars, media, relations, single components and dynamic zones; [] a repeatable component', async () => {
    const nulls = {
      code: null, summary: null, body: null, content: null, contact: null, slug: null, big: null, ratio: null, price: null,
      day: null, clock: null, happenedAt: null, stamp: null, payload: null, serial: null, level: null, active: null, quantity: null,
      cover: null, gallery: null, owner: null, labels: null, sidekick: null, followers: null, partner: null, parent: null,
      // A repeatable component and a dynamic zone are cleared with [] (null is refused, as Strapi 5.54 does, checked live).
      address: null, links: [], sections: [],
    };
    for (const key of ['links', 'sections']) {
      const nullList = await s.fetchJson('PUT', `/api/everythings/${full.documentId}`, { data: { [key]: null } }, TOKEN);
      assert.equal(nullList.status, 400);
      assert.equal(nullList.body.error.message, `${key} must be a \`array\` type, but the final value was: \`null\`.`);
      assert.deepEqual(nullList.body.error.details.errors[0].value, null);
    }
    const r = await s.fetchJson('PUT', `/api/everythings/${full.documentId}?populate=*`, { data: nulls }, TOKEN);
    assert.equal(r.status, 200, r.text);
    const d = r.body.data;
    for (const k of ['code', 'summary', 'body', 'content', 'contact', 'slug', 'big', 'ratio', 'price', 'day', 'clock', 'happenedAt', 'stamp', 'payload', 'serial', 'level', 'active', 'quantity']) {
      assert.equal(d[k], null, k);
    }
    assert.equal(d.cover, null);
    assert.deepEqual(d.gallery, []);
    assert.equal(d.owner, null);
    assert.deepEqual(d.labels, []);
    assert.equal(d.sidekick, null);
    assert.deepEqual(d.followers, []);
    assert.equal(d.partner, null);
    assert.equal(d.parent, null);
    assert.equal(d.address, null);
    assert.deepEqual(d.links, []);
    assert.deepEqual(d.sections, []);
    assert.equal(d.title, 'Renamed', 'attributes not sent are kept');
    // the inverse sides lost the links too
    const m = await s.fetchJson('GET', `/api/everythings/${minimal.documentId}?populate[partnerOf]=true&populate[children]=true`);
    assert.equal(m.body.data.partnerOf, null);
    assert.deepEqual(m.body.data.children, []);
    const l = await s.fetchJson('GET', `/api/labels/${red}?populate=things`);
    assert.deepEqual(l.body.data.things, []);
  });

  test('delete: 204 without body, then 404 on GET and 204 again on DELETE', async () => {
    const r = await s.fetchJson('DELETE', `/api/everythings/${full.documentId}`, undefined, TOKEN);
    assert.equal(r.status, 204);
    assert.equal(r.text, '');
    const g = await s.fetchJson('GET', `/api/everythings/${full.documentId}`);
    assert.equal(g.status, 404);
    assert.deepEqual(g.body, NOT_FOUND);
    const again = await s.fetchJson('DELETE', `/api/everythings/${full.documentId}`, undefined, TOKEN);
    assert.equal(again.status, 204);
    const list = await s.fetchJson('GET', '/api/everythings');
    assert.deepEqual(list.body.data.map((d: any) => d.documentId), [minimal.documentId]);
    assert.equal(list.body.meta.pagination.total, 1);
  });

  test('deleting a document removes the links that pointed at it', async () => {
    const target = await create('/api/everythings', { title: 'Target' });
    const src = await create('/api/everythings', { title: 'Source', partner: target.documentId, parent: target.documentId });
    const lab = await create('/api/labels', { name: 'temp' });
    await s.fetchJson('PUT', `/api/everythings/${src.documentId}`, { data: { labels: [lab.documentId] } }, TOKEN);
    assert.equal((await s.fetchJson('DELETE', `/api/everythings/${target.documentId}`, undefined, TOKEN)).status, 204);
    assert.equal((await s.fetchJson('DELETE', `/api/labels/${lab.documentId}`, undefined, TOKEN)).status, 204);
    const r = await s.fetchJson('GET', `/api/everythings/${src.documentId}?populate[partner]=true&populate[parent]=true&populate[labels]=true`);
    assert.equal(r.body.data.partner, null);
    assert.equal(r.body.data.parent, null);
    assert.deepEqual(r.body.data.labels, []);
    await s.fetchJson('DELETE', `/api/everythings/${src.documentId}`, undefined, TOKEN);
  });

  test('unknown documentId: GET 404, PUT 404, DELETE 204', async () => {
    const id = 'doesnotexist000000000000';
    const g = await s.fetchJson('GET', `/api/everythings/${id}`);
    assert.equal(g.status, 404);
    assert.deepEqual(g.body, NOT_FOUND);
    const p = await s.fetchJson('PUT', `/api/everythings/${id}`, { data: { title: 'x1' } }, TOKEN);
    assert.equal(p.status, 404);
    assert.deepEqual(p.body, NOT_FOUND);
    const d = await s.fetchJson('DELETE', `/api/everythings/${id}`, undefined, TOKEN);
    assert.equal(d.status, 204);
    assert.equal(d.text, '');
  });

  test('password and private attributes cannot be read through fields, filters, sort or populate', async () => {
    const holder = await create('/api/everythings?populate=*', { title: 'Holder', secret: 'hunter2', internalNote: 'eyes only', owner: ann, partner: minimal.documentId });
    assert.ok(!('secret' in holder) && !('internalNote' in holder));
    const [row] = await s.sql()`select secret, internal_note from everythings where document_id = ${holder.documentId}`;
    assert.deepEqual({ ...row }, { secret: 'hunter2', internal_note: 'eyes only' }, 'they are stored');
    for (const q of ['fields[0]=secret', 'fields[0]=internalNote', 'filters[secret][$eq]=hunter2', 'filters[internalNote][$null]=true', 'sort=internalNote', 'sort=secret:desc']) {
      const r = await s.fetchJson('GET', `/api/everythings?${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(r.body.error.name, 'ValidationError', q);
    }
    for (const path of ['/api/everythings?populate=*&fields=*', `/api/everythings/${holder.documentId}?populate=*`,
      `/api/people/${ann}?populate=*`, `/api/everythings/${minimal.documentId}?populate[partnerOf]=true`]) {
      const r = await s.fetchJson('GET', path);
      assert.equal(r.status, 200, path);
      assert.ok(r.text.includes('Holder'), `${path} shows the holder`);
      assert.ok(!r.text.includes('hunter2') && !r.text.includes('eyes only') && !r.text.includes('"secret"') && !r.text.includes('internalNote'), path);
    }
    assert.equal((await s.fetchJson('DELETE', `/api/everythings/${holder.documentId}`, undefined, TOKEN)).status, 204);
  });

  test('values are stored in typed columns', async () => {
    const d = await create('/api/everythings', { title: 'Typed', big: '-9223372036854775808', price: '0.1', ratio: '1e-3', quantity: '12', active: 'false' });
    assert.equal(d.big, '-9223372036854775808');
    assert.equal(d.price, 0.1);
    assert.equal(d.ratio, 0.001);
    assert.equal(d.quantity, 12);
    assert.equal(d.active, false);
    const [row] = await s.sql()`select big::text as big, price::text as price, quantity, active, secret, internal_note from everythings where document_id = ${d.documentId}`;
    assert.deepEqual({ ...row }, { big: '-9223372036854775808', price: '0.10', quantity: 12, active: false, secret: null, internal_note: null });
    await s.fetchJson('DELETE', `/api/everythings/${d.documentId}`, undefined, TOKEN);
  });

  test("numbers and enumerations cast as yup casts them, bigintegers checked as Strapi's validator (answers recorded live on Strapi 5.54)", async () => {
    // `level: 'nope'` keeps each body from being written: its error comes with the number's.
    const LEVEL = { path: ['level'], message: 'level must be one of the following values: low, medium, high, ', name: 'ValidationError', value: 'nope' };
    const refused = async (extra: Record<string, unknown>) => {
      const r = await s.fetchJson('POST', '/api/everythings', { data: { title: 'ab', level: 'nope', ...extra } }, TOKEN);
      assert.equal(r.status, 400, r.text);
      return r.body.error.details.errors.filter((e: { path: string[] }) => e.path[0] !== 'level');
    };
    const nan = (name: string, shown: string) => [{ path: [name], message: `${name} must be a \`number\` type, but the final value was: \`NaN\` (cast from the value \`${shown}\`).`, name: 'ValidationError', value: null }];
    assert.deepEqual(await refused({ quantity: true }), nan('quantity', 'true'));
    assert.deepEqual(await refused({ ratio: true }), nan('ratio', 'true'));
    assert.deepEqual(await refused({ quantity: { x: 1 } }), nan('quantity', '{\n  "x": "1"\n}'));
    assert.deepEqual(await refused({ quantity: [] }), nan('quantity', '[]'));
    // White space goes before the cast; the model's max is checked on the number, and before the column's range.
    assert.deepEqual(await refused({ quantity: '1 000' }), [{ path: ['quantity'], message: 'quantity must be less than or equal to 100', name: 'ValidationError', value: 1000 }]);
    assert.deepEqual(await refused({ quantity: '9007199254740993' }), [{ path: ['quantity'], message: 'quantity must be less than or equal to 100', name: 'ValidationError', value: 9007199254740992 }]);
    assert.deepEqual(await refused({ quantity: ' 12 ', big: ' 42 ' }), []);
    for (const big of [true, 1.5, 'abc', { a: 1 }]) {
      assert.deepEqual(await refused({ big }), [{ path: ['big'], message: 'big must be a valid integer', name: 'ValidationError', value: big }], JSON.stringify(big));
    }
    // An enumeration casts a number to its text, and reports it so.
    const r = await s.fetchJson('POST', '/api/everythings', { data: { title: 'ab', level: 1 } }, TOKEN);
    assert.deepEqual(r.body.error.details.errors, [{ path: ['level'], message: 'level must be one of the following values: low, medium, high, ', name: 'ValidationError', value: '1' }]);
    // parseFloat's reading of a list: [5] is 5.
    const d = await create('/api/everythings', { title: 'Cast', quantity: [5], big: ' +42 ', ratio: ' 1.5 ' });
    assert.deepEqual([d.quantity, d.big, d.ratio], [5, '42', 1.5]);
    await s.fetchJson('DELETE', `/api/everythings/${d.documentId}`, undefined, TOKEN);
    // A boolean from the text of the value, in any case: "TRUE", [1], [[0]]; "yes" and "1 " are refused.
    for (const [given, active] of [['TRUE', true], ['False', false], [[1], true], [[[0]], false], ['1', true]] as const) {
      const b = await create('/api/everythings', { title: 'Bool', active: given });
      assert.equal(b.active, active, JSON.stringify(given));
      await s.fetchJson('DELETE', `/api/everythings/${b.documentId}`, undefined, TOKEN);
    }
    for (const given of ['yes', '1 ', { a: 1 }]) {
      assert.deepEqual((await refused({ active: given })).map((e: { message: string }) => e.message), [`active must be a \`boolean\` type, but the final value was: \`${given === 'yes' ? '"yes"' : given === '1 ' ? '"1 "' : '{\n  "a": "1"\n}'}\`.`], JSON.stringify(given));
    }
  });
});

describe('components and dynamic zones', () => {
  let doc: string;
  let first: any;
  const POP = 'populate[address][populate]=*&populate[links]=true&populate[sections][populate]=*&fields[0]=title';

  test('stored on create and returned with numeric ids when populated', async () => {
    const r = await s.fetchJson('POST', `/api/everythings?${POP}`, { data: {
      title: 'With components',
      address: { street: 'One', point: { lat: 1, lng: 2 } },
      links: [{ label: 'a', url: 'https://a' }, { label: 'b', url: 'https://b' }],
      sections: [{ __component: 'common.link', url: 'https://dz' }, { __component: 'common.text-block', body: 'tb', links: [{ url: 'https://n' }] }],
    } }, TOKEN);
    assert.equal(r.status, 201, r.text);
    doc = r.body.data.documentId;
    first = r.body.data;
    // ids are per component type (as Strapi's per-component tables): unique within each type
    const byType: Record<string, number[]> = {
      'geo.address': [first.address.id],
      'geo.point': [first.address.point.id],
      'common.link': [...first.links.map((l: any) => l.id), first.sections[0].id, first.sections[1].links[0].id],
      'common.text-block': [first.sections[1].id],
    };
    for (const [uid, ids] of Object.entries(byType)) {
      for (const id of ids) assert.ok(Number.isInteger(id) && id > 0, `${uid}: ${id}`);
      assert.equal(new Set(ids).size, ids.length, `every ${uid} instance has its own id: ${ids}`);
    }
    assert.deepEqual(Object.keys(first.links[0]), ['id', 'label', 'url']);
    assert.deepEqual(Object.keys(first.sections[0]), ['id', 'label', 'url', '__component']);
    assert.deepEqual(Object.keys(first.address), ['id', 'street', 'city', 'zip', 'point', 'photo']);
  });

  test('ids are stable across reads', async () => {
    const r = await s.fetchJson('GET', `/api/everythings/${doc}?${POP}`);
    assert.deepEqual(r.body.data, first);
  });

  test('an instance sent back with its id keeps the id; a new one gets a new id', async () => {
    const r = await s.fetchJson('PUT', `/api/everythings/${doc}?${POP}`, { data: {
      address: { id: first.address.id, street: 'Two' },
      links: [{ id: first.links[1].id, label: 'b2', url: 'https://b2' }, { label: 'c', url: 'https://c' }],
      sections: [{ __component: 'common.text-block', id: first.sections[1].id, body: 'tb2' }],
    } }, TOKEN);
    assert.equal(r.status, 200, r.text);
    const d = r.body.data;
    assert.equal(d.address.id, first.address.id);
    assert.equal(d.address.street, 'Two');
    assert.deepEqual(d.address.point, first.address.point, 'attributes not sent keep their values');
    assert.equal(d.links.length, 2);
    assert.equal(d.links[0].id, first.links[1].id);
    assert.deepEqual([d.links[0].label, d.links[1].label], ['b2', 'c']);
    const oldLinks = new Set([...first.links.map((l: any) => l.id), first.sections[0].id, first.sections[1].links[0].id]);
    assert.ok(!oldLinks.has(d.links[1].id), 'a new instance gets a fresh id');
    assert.equal(d.sections.length, 1);
    assert.equal(d.sections[0].id, first.sections[1].id);
    assert.equal(d.sections[0].body, 'tb2');
    assert.equal(d.sections[0].__component, 'common.text-block');
  });

  test('dynamic zone populate with `on` selects per component', async () => {
    await s.fetchJson('PUT', `/api/everythings/${doc}`, { data: { sections: [
      { __component: 'common.link', label: 'L', url: 'https://l' },
      { __component: 'geo.address', street: 'Z', point: { lat: 3, lng: 4 } },
    ] } }, TOKEN);
    const r = await s.fetchJson('GET', `/api/everythings/${doc}?fields[0]=title&populate[sections][on][common.link][fields][0]=url&populate[sections][on][geo.address][populate][point]=true`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.data.sections.map((x: any) => ({ ...x, id: 0, point: x.point ? { ...x.point, id: 0 } : undefined })), [
      { id: 0, url: 'https://l', __component: 'common.link', point: undefined },
      { id: 0, street: 'Z', city: 'Lisbon', zip: null, point: { id: 0, lat: 3, lng: 4 }, __component: 'geo.address' },
    ]);
  });
});

describe('single type', () => {
  test('GET is 404 before anything is saved', async () => {
    const r = await s.fetchJson('GET', '/api/setting');
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, NOT_FOUND);
  });

  test('PUT validates like a create when nothing exists yet', async () => {
    const r = await s.fetchJson('PUT', '/api/setting', { data: { maintenance: true } }, TOKEN);
    assert.equal(r.status, 400);
    assert.equal(r.body.error.name, 'ValidationError');
    assert.deepEqual(r.body.error.details.errors.map((e: any) => e.path), [['siteName']]);
  });

  let documentId: string;
  test('PUT creates the document (200) with defaults', async () => {
    const r = await s.fetchJson('PUT', '/api/setting?populate=footer', { data: { siteName: 'My site', footer: { label: 'f', url: 'https://f' } } }, TOKEN);
    assert.equal(r.status, 200, r.text);
    const d = r.body.data;
    documentId = d.documentId;
    assert.deepEqual(Object.keys(d), ['id', 'documentId', 'siteName', 'maintenance', 'createdAt', 'updatedAt', 'publishedAt', 'footer']);
    assert.equal(d.siteName, 'My site');
    assert.equal(d.maintenance, false);
    assert.equal(d.footer.url, 'https://f');
    const g = await s.fetchJson('GET', '/api/setting');
    assert.equal(g.status, 200);
    assert.equal(g.body.data.documentId, documentId);
    assert.ok(!('footer' in g.body.data));
  });

  test('PUT again updates the same document', async () => {
    const r = await s.fetchJson('PUT', '/api/setting?populate=footer', { data: { maintenance: true } }, TOKEN);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.data.documentId, documentId);
    assert.equal(r.body.data.siteName, 'My site');
    assert.equal(r.body.data.maintenance, true);
    assert.equal(r.body.data.footer.url, 'https://f');
    const rows = await s.sql()`select count(*)::int as n from settings`;
    assert.equal(rows[0].n, 1, 'still one row');
  });

  test('POST is not allowed on a single type; an id segment is not found', async () => {
    assert.equal((await s.fetchJson('POST', '/api/setting', { data: { siteName: 'x' } }, TOKEN)).status, 405);
    assert.equal((await s.fetchJson('GET', `/api/setting/${documentId}`)).status, 404);
  });

  test('DELETE removes it: 204, then GET 404', async () => {
    const r = await s.fetchJson('DELETE', '/api/setting', undefined, TOKEN);
    assert.equal(r.status, 204);
    assert.equal(r.text, '');
    const g = await s.fetchJson('GET', '/api/setting');
    assert.equal(g.status, 404);
    assert.deepEqual(g.body, NOT_FOUND);
    assert.equal((await s.sql()`select count(*)::int as n from settings`)[0].n, 0);
  });

  // Strapi v5: SingleTypeService.delete returns { deletedEntries: 0 } when there is no document and
  // the controller always sets 204 (as DELETE of an unknown documentId on a collection type).
  test('DELETE when nothing exists is 204, like Strapi v5', async () => {
    const again = await s.fetchJson('DELETE', '/api/setting', undefined, TOKEN);
    assert.equal(again.status, 204, again.text);
    assert.equal(again.text, '');
  });
});

describe('draft & publish', () => {
  let published: any;
  let draft: any;

  test('create publishes by default', async () => {
    const r = await s.fetchJson('POST', '/api/posts', { data: { title: 'Published post' } }, TOKEN);
    assert.equal(r.status, 201);
    published = r.body.data;
    assert.match(published.publishedAt, ISO_MS);
    const g = await s.fetchJson('GET', `/api/posts/${published.documentId}`);
    assert.equal(g.status, 200);
    assert.equal(g.body.data.title, 'Published post');
  });

  test('create with ?status=draft only makes a draft', async () => {
    const r = await s.fetchJson('POST', '/api/posts?status=draft', { data: { title: 'Draft post' } }, TOKEN);
    assert.equal(r.status, 201);
    draft = r.body.data;
    assert.equal(draft.publishedAt, null);
    assert.equal(draft.title, 'Draft post');
  });

  test('draft-only documents are invisible by default', async () => {
    const list = await s.fetchJson('GET', '/api/posts');
    assert.deepEqual(list.body.data.map((d: any) => d.title), ['Published post']);
    assert.equal(list.body.meta.pagination.total, 1);
    const one = await s.fetchJson('GET', `/api/posts/${draft.documentId}`);
    assert.equal(one.status, 404);
    const explicit = await s.fetchJson('GET', `/api/posts/${draft.documentId}?status=published`);
    assert.equal(explicit.status, 404);
  });

  test('?status=draft returns the draft versions', async () => {
    const list = await s.fetchJson('GET', '/api/posts?status=draft&sort=title:asc');
    assert.deepEqual(list.body.data.map((d: any) => [d.title, d.publishedAt]), [['Draft post', null], ['Published post', null]]);
    const one = await s.fetchJson('GET', `/api/posts/${draft.documentId}?status=draft`);
    assert.equal(one.status, 200);
    assert.equal(one.body.data.documentId, draft.documentId);
    assert.equal(one.body.data.publishedAt, null);
  });

  test('PUT ?status=draft changes only the draft; PUT without status publishes it', async () => {
    const d = await s.fetchJson('PUT', `/api/posts/${published.documentId}?status=draft`, { data: { title: 'Edited draft' } }, TOKEN);
    assert.equal(d.status, 200, d.text);
    assert.equal(d.body.data.title, 'Edited draft');
    assert.equal(d.body.data.publishedAt, null);
    assert.equal((await s.fetchJson('GET', `/api/posts/${published.documentId}`)).body.data.title, 'Published post');
    const p = await s.fetchJson('PUT', `/api/posts/${published.documentId}`, { data: { body: 'now live' } }, TOKEN);
    assert.equal(p.status, 200);
    assert.equal(p.body.data.title, 'Edited draft');
    assert.equal(p.body.data.body, 'now live');
    assert.match(p.body.data.publishedAt, ISO_MS);
    const g = await s.fetchJson('GET', `/api/posts/${published.documentId}`);
    assert.equal(g.body.data.title, 'Edited draft');
  });

  test('required attributes of draft & publish types use the typed message; a draft is not checked for them', async () => {
    // Checked live: Strapi validates a draft without required, min, format rules; publishing checks all.
    const d = await s.fetchJson('POST', '/api/posts?status=draft', { data: { body: 'no title' } }, TOKEN);
    assert.equal(d.status, 201, d.text);
    assert.equal(d.body.data.title, null);
    const r = await s.fetchJson('POST', '/api/posts', { data: { body: 'no title' } }, TOKEN);
    assert.equal(r.status, 400);
    assert.deepEqual(r.body.error, {
      status: 400, name: 'ValidationError', message: 'title must be a `string` type, but the final value was: `null`.',
      details: { errors: [{ path: ['title'], message: 'title must be a `string` type, but the final value was: `null`.', name: 'ValidationError', value: null }] },
    });
  });

  test('delete removes the draft and the published version', async () => {
    assert.equal((await s.fetchJson('DELETE', `/api/posts/${published.documentId}`, undefined, TOKEN)).status, 204);
    assert.equal((await s.fetchJson('GET', `/api/posts/${published.documentId}`)).status, 404);
    assert.equal((await s.fetchJson('GET', `/api/posts/${published.documentId}?status=draft`)).status, 404);
  });
});

describe('localized type', () => {
  let doc: string;
  test('create uses the default locale; PUT ?locale=fr adds a localization sharing non-localized attributes', async () => {
    const r = await s.fetchJson('POST', '/api/pages', { data: { title: 'Hello', slug: 'hello', rank: 3 } }, TOKEN);
    assert.equal(r.status, 201);
    doc = r.body.data.documentId;
    assert.equal(r.body.data.locale, 'en');
    assert.deepEqual(Object.keys(r.body.data), ['id', 'documentId', 'title', 'slug', 'rank', 'createdAt', 'updatedAt', 'publishedAt', 'locale']);
    const fr = await s.fetchJson('PUT', `/api/pages/${doc}?locale=fr`, { data: { title: 'Bonjour', slug: 'bonjour' } }, TOKEN);
    assert.equal(fr.status, 200, fr.text);
    assert.equal(fr.body.data.documentId, doc);
    assert.equal(fr.body.data.locale, 'fr');
    assert.equal(fr.body.data.rank, 3);
  });

  test('each locale is read on its own; locale=* reads all', async () => {
    assert.deepEqual((await s.fetchJson('GET', '/api/pages')).body.data.map((p: any) => p.title), ['Hello']);
    assert.deepEqual((await s.fetchJson('GET', '/api/pages?locale=fr')).body.data.map((p: any) => p.title), ['Bonjour']);
    const all = await s.fetchJson('GET', '/api/pages?locale=*&sort=locale:asc');
    assert.deepEqual(all.body.data.map((p: any) => [p.locale, p.title]), [['en', 'Hello'], ['fr', 'Bonjour']]);
    assert.equal((await s.fetchJson('GET', `/api/pages/${doc}?locale=fr`)).body.data.title, 'Bonjour');
  });

  test('the same slug may be used in another locale, not twice in one locale', async () => {
    const ok = await s.fetchJson('POST', '/api/pages?locale=fr', { data: { title: 'Autre', slug: 'hello' } }, TOKEN);
    assert.equal(ok.status, 201, ok.text);
    const dup = await s.fetchJson('POST', '/api/pages', { data: { title: 'Again', slug: 'hello' } }, TOKEN);
    assert.equal(dup.status, 400);
    assert.deepEqual(dup.body.error.details.errors, [{ path: ['slug'], message: 'This attribute must be unique', name: 'ValidationError', value: 'hello' }]);
    await s.fetchJson('DELETE', `/api/pages/${ok.body.data.documentId}`, undefined, TOKEN);
  });

  test('updating a non-localized attribute updates every locale', async () => {
    const r = await s.fetchJson('PUT', `/api/pages/${doc}`, { data: { rank: 9 } }, TOKEN);
    assert.equal(r.status, 200);
    assert.equal((await s.fetchJson('GET', `/api/pages/${doc}?locale=fr`)).body.data.rank, 9);
  });

  test('DELETE ?locale=fr removes only that localization', async () => {
    assert.equal((await s.fetchJson('DELETE', `/api/pages/${doc}?locale=fr`, undefined, TOKEN)).status, 204);
    assert.equal((await s.fetchJson('GET', `/api/pages/${doc}?locale=fr`)).status, 404);
    assert.equal((await s.fetchJson('GET', `/api/pages/${doc}`)).body.data.title, 'Hello');
  });

  test('a locale the project lacks is written as given, as Strapi 5.54 does (checked live)', async () => {
    const r = await s.fetchJson('POST', '/api/pages?locale=xx', { data: { title: 'x' } }, TOKEN);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.data.locale, 'xx');
    assert.equal((await s.fetchJson('GET', `/api/pages/${r.body.data.documentId}?locale=xx`)).body.data.title, 'x');
  });
});

test('data survives a restart on the same data folder', async () => {
  const person = await create('/api/people', { name: 'Persistent' });
  const e = await create('/api/everythings', {
    title: 'Persistent', big: '123456789012345678', owner: person.documentId, labels: [red],
    address: { street: 'Kept' }, sections: [{ __component: 'common.link', url: 'https://kept' }],
  });
  const q = `/api/everythings/${e.documentId}?populate=*`;
  const beforeRestart = await s.fetchJson('GET', q);
  assert.equal(beforeRestart.status, 200);
  const db = s.db;
  await s.stop({ keepData: true });
  s = await startTestServer({ modelsDir: ALL_TYPES_MODELS, db });
  const afterRestart = await s.fetchJson('GET', q);
  assert.equal(afterRestart.status, 200);
  assert.deepEqual(afterRestart.body, beforeRestart.body);
  assert.equal(afterRestart.body.data.owner.name, 'Persistent');
  assert.equal(afterRestart.body.data.address.street, 'Kept');
  // and the restarted server keeps writing: component ids continue, no clash with the old ones
  const more = await s.fetchJson('POST', '/api/everythings?populate=address', { data: { title: 'After restart', address: { street: 'New' } } }, TOKEN);
  assert.equal(more.status, 201, more.text);
  assert.notEqual(more.body.data.address.id, afterRestart.body.data.address.id);
  assert.ok(more.body.data.id > e.id);
});

test('the worker-thread path (WORKERS=1) answers like the inline one', async () => {
  const w = await startTestServer({ modelsDir: ALL_TYPES_MODELS, env: { WORKERS: '1' } });
  try {
    const c = await w.fetchJson('POST', '/api/labels', { data: { name: 'from worker' } }, TOKEN);
    assert.equal(c.status, 201, c.text);
    const g = await w.fetchJson('GET', `/api/labels/${c.body.data.documentId}`);
    assert.equal(g.status, 200);
    assert.equal(g.body.data.name, 'from worker');
    const bad = await w.fetchJson('GET', '/api/labels?filters[nope]=1');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.message, 'Invalid key nope');
    assert.equal((await w.fetchJson('GET', '/api/labels', undefined, 'wrong')).status, 401);
  } finally {
    await w.stop();
  }
});

describe('publishing validates the stored draft as a whole (Strapi 5.54, checked live)', () => {
  let g: TestServer;
  const GADGET = JSON.stringify({
    kind: 'collectionType', collectionName: 'gadgets', info: { singularName: 'gadget', pluralName: 'gadgets', displayName: 'Gadget' },
    options: { draftAndPublish: true },
    attributes: { name: { type: 'string', required: true }, note: { type: 'string' }, spot: { type: 'component', component: 'geo.point', repeatable: false, required: true } },
  });
  before(async () => { g = await startTestServer({ modelsDir: copyModels(ALL_TYPES_MODELS, { 'content-types/gadget.json': GADGET }) }); });
  after(() => g.stop());

  test('an update that publishes fails on what the draft lacks, and writes nothing', async () => {
    const d = await g.fetchJson('POST', '/api/gadgets?status=draft', { data: { note: 'draft' } }, TOKEN);
    assert.equal(d.status, 201, d.text);
    const r = await g.fetchJson('PUT', `/api/gadgets/${d.body.data.documentId}`, { data: { note: 'renamed' } }, TOKEN);
    const nameErr = 'name must be a `string` type, but the final value was: `null`.';
    const spotErr = 'spot must be a `object` type, but the final value was: `null`.';
    assert.equal(r.status, 400, r.text);
    assert.deepEqual(r.body.error, { status: 400, name: 'ValidationError', message: '2 errors occurred', details: { errors: [
      { path: ['name'], message: nameErr, name: 'ValidationError', value: null },
      { path: ['spot'], message: spotErr, name: 'ValidationError', value: null },
    ] } });
    const back = await g.fetchJson('GET', `/api/gadgets/${d.body.data.documentId}?status=draft`, undefined, TOKEN);
    assert.equal(back.body.data.note, 'draft');
    // Saving the draft alone is no publish: allowed.
    assert.equal((await g.fetchJson('PUT', `/api/gadgets/${d.body.data.documentId}?status=draft`, { data: { note: 'saved' } }, TOKEN)).status, 200);
  });

  test('a create that publishes without a required component: its object-type error', async () => {
    const r = await g.fetchJson('POST', '/api/gadgets', { data: { name: 'n' } }, TOKEN);
    assert.equal(r.status, 400, r.text);
    assert.deepEqual(r.body.error.details.errors, [{ path: ['spot'], message: 'spot must be a `object` type, but the final value was: `null`.', name: 'ValidationError', value: null }]);
  });
});

test("an update's validation errors come before a component id the row does not hold (Strapi 5.54 checks the id in its entity layer, after the body's validation)", async () => {
  const KIT = JSON.stringify({
    kind: 'collectionType', collectionName: 'kits', info: { singularName: 'kit', pluralName: 'kits', displayName: 'Kit' },
    options: { draftAndPublish: false },
    attributes: { name: { type: 'string' }, parts: { type: 'component', component: 'common.link', repeatable: true, required: true, min: 2, max: 5 } },
  });
  const k = await startTestServer({ modelsDir: copyModels(ALL_TYPES_MODELS, { 'content-types/kit.json': KIT }) });
  try {
    const made = await k.fetchJson('POST', '/api/kits', { data: { name: 'k', parts: [{ url: 'a' }, { url: 'b' }] } }, TOKEN);
    assert.equal(made.status, 201, made.text);
    const r = await k.fetchJson('PUT', `/api/kits/${made.body.data.documentId}`, { data: { parts: [{ id: 999999, url: 'x' }] } }, TOKEN);
    assert.deepEqual([r.status, r.body.error.name, r.body.error.message], [400, 'ValidationError', 'parts field must have at least 2 items']);
    const held = await k.fetchJson('PUT', `/api/kits/${made.body.data.documentId}`, { data: { parts: [{ id: 999999, url: 'x' }, { url: 'y' }] } }, TOKEN);
    assert.deepEqual([held.status, held.body.error.name, held.body.error.message], [400, 'ApplicationError', 'Some of the provided components in parts are not related to the entity']);
  } finally { await k.stop(); }
});
