// Which error a write body with several faults gets, in Strapi 5.54's order (each answer recorded from a live
// Strapi 5.54 on the blog models, found by bench/write-diff-fuzz.ts): documentIds mapped first, then yup's
// errors together with the relations store's check (entries named by id must exist: one error, the first
// target in the model's order lacking some), then what the database layer refuses, then the publish's own
// validation. A value another document holds is one of yup's errors. The relations store's errors carry the
// entry as Strapi's validation saw it (`value`: references mapped to row ids, yup's cast).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, copyModels, DEMO_MODELS, TOKEN, type TestServer } from './helpers.ts';

let s: TestServer;
before(async () => { s = await startTestServer(); });
after(async () => { await s?.stop(); });

const missing = (n: number, uid: string) => `${n} relation(s) of type ${uid} associated with this entity do not exist`;

async function refused(method: string, path: string, data: unknown): Promise<{ message: string; errors: Array<{ path: string[]; message: string; value?: unknown }> }> {
  const r = await s.fetchJson(method, path, { data }, TOKEN, { 'content-type': 'application/json' });
  assert.equal(r.status, 400, `${method} ${path} ${JSON.stringify(data)}: ${r.text}`);
  assert.equal(r.body.error.name, 'ValidationError', r.text);
  return { message: r.body.error.message, errors: r.body.error.details?.errors ?? [] };
}

test('a missing file comes before the publish validation: the draft is checked (and written) first', async () => {
  const e = await refused('POST', '/api/articles?status=published', { title: null, cover: 99999 });
  assert.equal(e.message, missing(1, 'plugin::upload.file'));
  assert.deepEqual(e.errors.map((x) => [x.path, x.message]), [[[], missing(1, 'plugin::upload.file')]]);
});

test('the relations store error joins yup\'s errors, after them', async () => {
  const e = await refused('POST', '/api/articles', { title: 'x', views: 'abc', kind: 'other', tags: [9999] });
  assert.equal(e.message, '3 errors occurred');
  assert.deepEqual(e.errors.map((x) => x.message), [
    'views must be a `number` type, but the final value was: `NaN` (cast from the value `"abc"`).',
    'kind must be one of the following values: news, tutorial, opinion, ',
    missing(1, 'api::tag.tag'),
  ]);
});

test('entries named by id are checked before a value the database cannot take (a date, an integer past int4)', async () => {
  assert.equal((await refused('POST', '/api/articles?status=published', { title: 'x', tags: [9999], publishDate: 'nope' })).message, missing(1, 'api::tag.tag'));
  assert.equal((await refused('POST', '/api/articles', { title: 'x', views: 2147483648, cover: 99999 })).message, missing(1, 'plugin::upload.file'));
  // Alone, the integer is refused here as a 400 (Strapi 5.54 answers a 500 from PostgreSQL).
  assert.equal((await refused('POST', '/api/articles', { title: 'x', views: 2147483648 })).message, 'views must be less than or equal to 2147483647');
  // A date Strapi's query layer cannot parse comes first: only PostgreSQL refuses the integer, at the insert
  // (write-diff-fuzz seed 24, recorded live: views before publishDate in the body and the model alike).
  assert.equal((await refused('POST', '/api/articles', { title: 'x', views: 2147483648, publishDate: 'nope' })).message, 'Invalid format, expected yyyy-MM-dd');
  assert.equal((await refused('POST', '/api/articles', { title: 'x', metadata: '{nope', publishDate: 'nope' })).message, 'Invalid format, expected yyyy-MM-dd');
  assert.equal((await s.sql()`select count(*)::int as n from articles`)[0].n, 0);
});

test('one store error: the first target in the model\'s order lacking entries, counting distinct ids', async () => {
  // cover (media) comes before category in the article model.
  assert.equal((await refused('POST', '/api/articles', { title: 'x', category: 9999, cover: 99999 })).message, missing(1, 'plugin::upload.file'));
  assert.equal((await refused('POST', '/api/tags', { name: 'x', articles: [9999, 99998, 9999] })).message, missing(2, 'api::article.article'));
});

test('null on a required string, an empty email, an unknown key on an update of no document', async () => {
  const n = await s.fetchJson('POST', '/api/authors', { data: { name: null } }, TOKEN);
  assert.deepEqual(n.body.error, { status: 400, name: 'ValidationError', message: 'name must be a `string` type, but the final value was: `null`.',
    details: { errors: [{ path: ['name'], message: 'name must be a `string` type, but the final value was: `null`.', name: 'ValidationError', value: null }] } });
  const m = await s.fetchJson('POST', '/api/authors', { data: { name: 'x', email: '' } }, TOKEN);
  assert.deepEqual(m.body.error, { status: 400, name: 'ValidationError', message: 'email cannot be empty',
    details: { errors: [{ path: ['email'], message: 'email cannot be empty', name: 'ValidationError', value: '' }] } });
  const k = await s.fetchJson('PUT', '/api/tags/nonexistentdoc1234567890ab', { data: { name: 'x', unknownField: 1 } }, TOKEN);
  assert.deepEqual([k.status, k.body.error], [400, { status: 400, name: 'ValidationError', message: 'Invalid key unknownField', details: { key: 'unknownField', path: null, source: 'body' } }]);
  assert.equal((await s.sql()`select count(*)::int as n from authors`)[0].n, 0);
});

test('a value another document holds is one of yup\'s errors: reported with the others, in the model\'s order', async () => {
  const taken = (attr: string, value: string) => ({ path: [attr], message: 'This attribute must be unique', name: 'ValidationError', value });
  assert.equal((await s.fetchJson('POST', '/api/categories', { data: { name: 'Tech', slug: 'tech' } }, TOKEN)).status, 201);
  assert.equal((await s.fetchJson('POST', '/api/articles?status=published', { data: { title: 'One', slug: 'one' } }, TOKEN)).status, 201);
  // Strapi 5.54's answers (recorded live): the unique name before the description's type error, in either body order.
  for (const data of [{ name: 'Tech', description: 123 }, { description: 123, name: 'Tech' }]) {
    const e = await s.fetchJson('POST', '/api/categories', { data }, TOKEN);
    assert.deepEqual(e.body.error, { status: 400, name: 'ValidationError', message: '2 errors occurred', details: { errors: [
      taken('name', 'Tech'),
      { path: ['description'], message: 'description must be a `string` type, but the final value was: `123`.', name: 'ValidationError', value: 123 },
    ] } });
  }
  // The publish's validation: the title's type error, then the slug a published article holds.
  const p = await refused('POST', '/api/articles?status=published', { title: null, slug: 'one' });
  assert.equal(p.message, '2 errors occurred');
  assert.deepEqual(p.errors, [{ path: ['title'], message: 'title must be a `string` type, but the final value was: `null`.', name: 'ValidationError', value: null }, taken('slug', 'one')]);
  // Before the relations store's error; and on an update, the document's own value is not taken.
  const r = await refused('POST', '/api/categories', { name: 'Tech', parent: 99999 });
  assert.deepEqual(r.errors.map((x) => x.message), ['This attribute must be unique', missing(1, 'api::category.category')]);
  const [{ document_id: tech }] = await s.sql()`select document_id from categories where name = 'Tech'`;
  const u = await refused('PUT', `/api/categories/${tech}`, { name: 'Tech', description: 5 });
  assert.deepEqual(u.errors.map((x) => x.path), [['description']]);
});

test('body keys are checked pass by pass: id and documentId, then what no body writes, then unknown keys depth first in body order', async () => {
  const key = async (path: string, data: unknown) => (await s.fetchJson('POST', path, { data }, TOKEN)).body.error;
  // Strapi 5.54's answers (recorded live).
  assert.deepEqual(await key('/api/tags', { unknownField: 1, documentId: 'x', name: 'a' }), { status: 400, name: 'ValidationError', message: 'Invalid key documentId', details: { key: 'documentId', source: 'body' } });
  assert.equal((await key('/api/tags', { documentId: 'x', id: 5 })).message, 'Invalid key id');
  assert.deepEqual(await key('/api/tags', { unknownField: 1, createdAt: '2020-01-01' }), { status: 400, name: 'ValidationError', message: 'Invalid key createdAt', details: { key: 'createdAt', path: 'createdAt', source: 'body' } });
  assert.equal((await key('/api/articles', { unknownField: 1, localizations: [] })).message, 'Invalid key localizations');
  assert.deepEqual(await key('/api/articles', { seo: { bad: 1 }, unknownRoot: 1 }), { status: 400, name: 'ValidationError', message: 'Invalid key bad at seo', details: { key: 'bad', path: 'seo', source: 'body' } });
  assert.equal((await key('/api/articles', { unknownRoot: 1, seo: { bad: 1 } })).message, 'Invalid key unknownRoot');
  assert.equal((await key('/api/articles', { blocks: [{ __component: 'shared.quote', nope: 1 }], unknownRoot: 1 })).message, 'Invalid key nope at blocks');
  assert.equal((await key('/api/articles', { author: { connect: [1], bad: 1 }, unknownRoot: 1 })).message, 'Invalid key bad at author');
  assert.equal((await key('/api/articles', { title: 'x', seo: { metaTitle: 'm', shareImage: { id: 1, bad: 1 } } })).message, 'Invalid key bad at seo.shareImage');
  // A relation's or a media's payload may name the target's attributes (passed over), and its options anything.
  const tag = await s.fetchJson('POST', '/api/tags', { data: { name: 'k', articles: { connect: [], title: 't', options: { strict: false, other: 1 } } } }, TOKEN);
  assert.equal(tag.status, 201, tag.text);
  assert.equal((await key('/api/articles', { title: 'x', cover: { id: 99999, name: 'n' } })).message, missing(1, 'plugin::upload.file'));
  assert.equal((await key('/api/tags', { name: 'x', articles: [{ id: 1, status: 'published' }] })).message, 'Invalid key status at articles');
});

test('an id the relations store cannot count is its "Invalid relations"; 0 and negative ids are missing ones', async () => {
  // Strapi 5.54's answers (recorded live), relations and media alike.
  for (const data of [{ name: 'w', articles: [1.5] }, { name: 'w', articles: [true] }, { name: 'w', articles: { connect: [{ id: 1.5 }] } }, { name: 'w', articles: [99999999999] }, { name: 'w', articles: ['99999999999'] }]) {
    const e = await refused('POST', '/api/tags', data);
    assert.equal(e.message, 'Invalid relations', JSON.stringify(data));
    assert.deepEqual(e.errors.map((x) => [x.path, x.message]), [[[], 'Invalid relations']]);
  }
  for (const cover of [1.5, true, 99999999999, { id: 1.5 }]) assert.equal((await refused('POST', '/api/articles', { title: 'x', cover })).message, 'Invalid relations', JSON.stringify(cover));
  assert.equal((await refused('POST', '/api/tags', { name: 'w', articles: [-1] })).message, missing(1, 'api::article.article'));
  assert.equal((await refused('POST', '/api/tags', { name: 'w', articles: [{ id: '-1' }, 0] })).message, missing(2, 'api::article.article'));
  assert.equal((await refused('POST', '/api/articles', { title: 'x', cover: 0 })).message, missing(1, 'plugin::upload.file'));
  // With yup's errors, after them.
  const both = await refused('POST', '/api/tags', { name: 5, articles: [true] });
  assert.deepEqual(both.errors.map((x) => x.message), ['name must be a `string` type, but the final value was: `5`.', 'Invalid relations']);
  assert.equal((await s.sql()`select count(*)::int as n from tags where name = 'w'`)[0].n, 0);
});

test('the relations store\'s errors carry the entry as Strapi\'s validation saw it', async () => {
  const author = await s.fetchJson('POST', '/api/authors', { data: { name: 'V' } }, TOKEN);
  const t1 = await s.fetchJson('POST', '/api/tags', { data: { name: 'v1' } }, TOKEN);
  const t2 = await s.fetchJson('POST', '/api/tags', { data: { name: 'v2' } }, TOKEN);
  const [a, x, y] = [author, t1, t2].map((r) => r.body.data as { id: number; documentId: string });
  const value = async (method: string, path: string, data: unknown) => (await refused(method, path, data)).errors.at(-1)!.value;
  // Key order is part of the answer.
  const same = (actual: unknown, expected: unknown) => assert.equal(JSON.stringify(actual), JSON.stringify(expected));
  // Strapi 5.54's answers (recorded live): a create casts (defaults added), so yup rebuilds the entry in its
  // own order (locale, publishedAt, then the attributes in reverse); references become row ids in `set`,
  // a payload's operations keep their keys, positions name rows too.
  same(await value('POST', '/api/articles?status=draft', { title: 'v1', author: null, tags: [99999] }),
    { locale: 'en', publishedAt: null, blocks: [], tags: { set: [{ id: 99999 }] }, author: null, views: 0, featured: false, title: 'v1' });
  same(await value('POST', '/api/articles?status=draft', { title: 'v2', author: a.documentId, tags: { connect: [{ documentId: x.documentId, position: { before: y.documentId } }], disconnect: [y.documentId] }, category: 99999 }),
    { locale: 'en', publishedAt: null, blocks: [], tags: { connect: [{ id: x.id, position: { before: y.id } }], disconnect: [{ id: y.id }] }, category: { set: [{ id: 99999 }] }, author: { set: [{ id: a.id }] }, views: 0, featured: false, title: 'v2' });
  // An id Strapi's store cannot count is echoed as given.
  const invalid = await value('POST', '/api/tags', { name: 'w', articles: [true] }) as Record<string, unknown>;
  assert.deepEqual(invalid.articles, { set: [true] });
  // An update casts nothing: the body as sent, then publishedAt and locale; a value yup casts rebuilds it.
  const doc = (await s.fetchJson('POST', '/api/articles?status=draft', { data: { title: 'u' } }, TOKEN)).body.data.documentId as string;
  same(await value('PUT', `/api/articles/${doc}`, { title: 'u1', tags: [99999] }), { title: 'u1', tags: { set: [{ id: 99999 }] }, publishedAt: null, locale: 'en' });
  same(await value('PUT', `/api/articles/${doc}`, { title: 'u1', tags: [99999], views: '7' }), { locale: 'en', publishedAt: null, tags: { set: [{ id: 99999 }] }, views: 7, title: 'u1' });
  // yup's casts, as the entry holds them (recorded live): numbers without their white space or through
  // parseFloat (a NaN is null in JSON), booleans from their text in any case, an enumeration's number as text.
  for (const [views, cast] of [[' 1 000', 1000], [true, null], [[5], 5], ['0x10', 16], [{ a: 1 }, null]] as const) {
    const entry = await value('POST', '/api/articles?status=draft', { title: 'c', views, featured: ['TRUE'], kind: true, rating: ' 2.5', tags: [99999] }) as Record<string, unknown>;
    assert.deepEqual([entry.views, entry.featured, entry.kind, entry.rating], [cast, true, 'true', 2.5], JSON.stringify(views));
  }
  // A type without draft & publish is published as it is written.
  const tag = await value('POST', '/api/tags', { name: 'w3', articles: [99999] }) as Record<string, unknown>;
  assert.deepEqual(Object.keys(tag), ['name', 'articles', 'publishedAt']);
  assert.match(String(tag.publishedAt), /^\d{4}-\d\d-\d\dT/);
});

test('a publish checks the draft\'s stored values with the published rules, and writes nothing when they fail', async () => {
  // Strapi 5.54's answers (recorded live): a draft may hold a slug that is no uid; publishing it is refused.
  const doc = (await s.fetchJson('POST', '/api/articles?status=draft', { data: { title: 'sl', slug: 'Not A Slug' } }, TOKEN)).body.data.documentId as string;
  const slug = { path: ['slug'], message: 'slug must match the following: "/^[A-Za-z0-9-_.~]*$/"', name: 'ValidationError', value: 'Not A Slug' };
  const e = await refused('PUT', `/api/articles/${doc}?status=published`, { title: 'x' });
  assert.deepEqual(e.errors, [slug]);
  const draft = await s.fetchJson('GET', `/api/articles/${doc}?status=draft&fields[0]=title`, undefined, TOKEN);
  assert.equal(draft.body.data.title, 'sl');
  assert.equal((await s.sql()`select count(*)::int as n from articles where document_id = ${doc} and published_at is not null`)[0].n, 0);
  // Saved as a draft, the update goes through.
  assert.equal((await s.fetchJson('PUT', `/api/articles/${doc}?status=draft`, { data: { title: 'x' } }, TOKEN)).status, 200);
});

test('a publish checks the unique values the draft holds, with the body\'s other faults', async () => {
  // Strapi 5.54's answers (recorded live): a draft may hold a published article's slug; publishing it is refused.
  assert.equal((await s.fetchJson('POST', '/api/articles?status=published', { data: { title: 'A', slug: 'same-slug' } }, TOKEN)).status, 201);
  const taken = { path: ['slug'], message: 'This attribute must be unique', name: 'ValidationError', value: 'same-slug' };
  const titleNull = { path: ['title'], message: 'title must be a `string` type, but the final value was: `null`.', name: 'ValidationError', value: null };
  const draft = async (data: Record<string, unknown>) => (await s.fetchJson('POST', '/api/articles?status=draft', { data }, TOKEN)).body.data.documentId as string;
  const b = await draft({ title: 'B', slug: 'same-slug' });
  assert.deepEqual((await refused('PUT', `/api/articles/${b}?status=published`, { title: 'B2' })).errors, [taken]);
  assert.deepEqual((await refused('PUT', `/api/articles/${b}?status=published`, { title: null })).errors, [titleNull, taken]);
  // The draft's own missing title (a stored value) and its slug, in the model's order.
  const c = await draft({ slug: 'same-slug' });
  assert.deepEqual((await refused('PUT', `/api/articles/${c}?status=published`, { views: 3 })).errors, [titleNull, taken]);
  assert.equal((await s.sql()`select count(*)::int as n from articles where slug = 'same-slug' and published_at is not null`)[0].n, 1);
});

test('files named by documentId are mapped with the relations, in the body\'s order, before yup\'s errors', async () => {
  const notFound = (d: string) => `Document with id "${d}", locale "null" not found`;
  const cases: Array<[unknown, string]> = [
    [{ title: 'x', views: 'abc', cover: 'nofile' }, 'nofile'],
    [{ title: 'x', tags: ['nosuchdoc'], cover: 'nofile' }, 'nosuchdoc'],
    [{ title: 'x', cover: 'nofile', tags: ['nosuchdoc'] }, 'nofile'],
    // A component's media at the component's key.
    [{ title: 'x', seo: { metaTitle: 'm', shareImage: 'nofile' }, tags: ['nosuchdoc'] }, 'nofile'],
    [{ title: 'x', gallery: { connect: ['nofile'] }, kind: 'bad' }, 'nofile'],
  ];
  for (const [data, doc] of cases) {
    const e = await refused('POST', '/api/articles', data);
    assert.equal(e.message, notFound(doc), JSON.stringify(data));
    assert.deepEqual(e.errors, [], JSON.stringify(data));
  }
});

test('a disconnect\'s documentId of no entry is mapped first too: before the publish\'s validation, and in the store error\'s entry', async () => {
  // Recorded live on Strapi 5.54 (found by bench/write-diff-fuzz.ts, seed 21).
  const tag = (await s.fetchJson('POST', '/api/tags', { data: { name: 'dc1' } }, TOKEN)).body.data as { id: number; documentId: string };
  const doc = (await s.fetchJson('POST', '/api/articles', { data: { title: 'dc', seo: { metaTitle: 'm' }, tags: [tag.documentId] } }, TOKEN)).body.data.documentId as string;
  // A publishing update whose component lacks its required value: the draft's mapping comes first.
  const e = await refused('PUT', `/api/articles/${doc}`, { title: 'x', tags: { disconnect: ['nosuchdoc'] }, seo: { metaDescription: 'a' } });
  assert.equal(e.message, 'Document with id "nosuchdoc", locale "null" not found');
  assert.deepEqual(e.errors, []);
  // Disconnecting a document that exists, beside a file of no entry: the entry names its row.
  const store = await refused('PUT', `/api/articles/${doc}`, { tags: { disconnect: [tag.documentId] }, cover: 99999 });
  assert.equal(store.message, missing(1, 'plugin::upload.file'));
  assert.deepEqual((store.errors.at(-1)!.value as { tags: unknown }).tags, { disconnect: [{ id: tag.id }] });
});

test('a required field absent from a component an update writes is no error without draft & publish; a create\'s is (Strapi 5.54, checked live)', async () => {
  // yup's notNull on an update, notNil on a create (@strapi/core entity-validator), in components too; a
  // draft & publish type's publish checks the stored draft with a create's rules instead.
  assert.equal((await s.fetchJson('DELETE', '/api/global', undefined, TOKEN)).status, 204);
  const create = await refused('PUT', '/api/global', { defaultSeo: { keywords: 'no title' } });
  assert.deepEqual(create.errors.map((x) => [x.path, x.message]), [[['defaultSeo', 'metaTitle'], 'defaultSeo.metaTitle must be defined.']]);
  assert.equal((await s.fetchJson('PUT', '/api/global', { data: { siteName: 'Site' } }, TOKEN)).status, 200);
  const update = await s.fetchJson('PUT', '/api/global?populate=*', { data: { defaultSeo: { keywords: 'no title' } } }, TOKEN);
  assert.equal(update.status, 200, update.text);
  assert.deepEqual({ ...update.body.data.defaultSeo, id: 0 }, { id: 0, metaTitle: null, metaDescription: null, keywords: 'no title' });
  const nulled = await refused('PUT', '/api/global', { defaultSeo: { metaTitle: null } });
  assert.deepEqual(nulled.errors.map((x) => x.message), ['defaultSeo.metaTitle must be a `string` type, but the final value was: `null`.']);
  const published = await refused('PUT', `/api/articles/${(await s.fetchJson('POST', '/api/articles', { data: { title: 'Seo' } }, TOKEN)).body.data.documentId}`, { seo: { keywords: 'no title' } });
  assert.deepEqual(published.errors.map((x) => [x.path, x.message]), [[['seo', 'metaTitle'], 'seo.metaTitle must be a `string` type, but the final value was: `null`.']]);
});

test('an email attribute: its minLength gives way to the email validator\'s min(1); its maxLength comes before its format', async () => {
  // Strapi's emailValidator is the string validator (min, max, regex) then email() and min(1, "cannot be
  // empty"), which replaces yup's min test: a 5-character email of a type asking 6 is stored (checked live
  // on the users' email, which asks 6).
  const author = JSON.parse(readFileSync(join(DEMO_MODELS, 'content-types/author.json'), 'utf8'));
  author.attributes.email = { type: 'email', minLength: 6, maxLength: 20 };
  const e = await startTestServer({ modelsDir: copyModels(DEMO_MODELS, { 'content-types/author.json': JSON.stringify(author) }) });
  try {
    const short = await e.fetchJson('POST', '/api/authors', { data: { name: 'Short mail', email: 'a@b.c' } }, TOKEN);
    assert.equal(short.status, 201, short.text);
    const r = await e.fetchJson('POST', '/api/authors', { data: { name: 'Long', email: 'x'.repeat(25) } }, TOKEN);
    assert.deepEqual(r.body.error.details.errors.map((x: { message: string }) => x.message), ['email must be at most 20 characters', 'email must be a valid email']);
  } finally {
    await e.stop();
  }
});
