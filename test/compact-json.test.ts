// Response bodies are compact JSON, byte for byte what Strapi's JSON.stringify sends: `{"id":1,"title":"x"}`,
// not PostgreSQL's json_build_object text `{"id" : 1, "title" : "x"}` (issue 31). Checked on the raw body of
// each answer, from the render cache and rendered live (the cached text and the live one are the same bytes).
// Values stored as jsonb (a `json` or `blocks` attribute, a file's `formats`) too, though PostgreSQL prints
// jsonb as `{"a": 1}` (compiler/sql.ts compactJson): with null members, escapes, and strings that look like
// jsonb's separators.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, TOKEN, insertFile, type TestServer } from './helpers.ts';

let s: TestServer;
let doc: string;

/** Every value escaping has to get right, in a string. */
const TRICKY = 'He said "hi" \\ back\nslash\ttab é 😀 </script>';
/** jsonb values: each of compactJson's ways (no null member; null members; null members beside `\": null` in a string). */
const METADATA = [
  { labels: ['a, b', 'c: d'], nested: { even: false, n: [1.5, -2, 0.001, 12345678901] }, s: TRICKY },
  { a: null, b: [null, 1, { c: null }], s: 'x: null', q: 'say "hi"', e: {}, f: [] },
  { q: 'say "hi": null', z: null, 'k\\': null, t: 'a\u0001b \\u0001' },
];
const CONTENT = [{ type: 'paragraph', children: [{ type: 'text', text: 'Plain, ' }, { type: 'text', text: TRICKY, bold: true }] }];
const FORMATS = { thumbnail: { ext: '.png', url: '/uploads/t.png', hash: 't', mime: 'image/png', name: 't.png', path: null, size: 5.68, width: 208, height: 156, sizeInBytes: 5677 } };

before(async () => {
  s = await startTestServer({ env: { GRAPHQL_SHAPE: 'v5' } });
  const file = await insertFile(s.sql(), { name: 'cover.png', alternativeText: TRICKY });
  await s.sql()`update files set formats = ${s.sql().json(FORMATS)}, focal_point = ${s.sql().json({ x: 1, y: null })}, provider_metadata = ${s.sql().json({ k: 'v "q"', n: null })} where id = ${file}`;
  const other = await insertFile(s.sql(), { name: 'other.jpg', mime: 'image/jpeg' });
  const post = async (path: string, data: unknown) => {
    const r = await s.fetchJson('POST', path, { data }, TOKEN);
    assert.equal(r.status, 201, r.text);
    return r.body.data.documentId as string;
  };
  const author = await post('/api/authors', { name: 'Ada', avatar: file });
  const category = await post('/api/categories', { name: 'Databases', slug: 'databases' });
  const tags = [await post('/api/tags', { name: 'sql' }), await post('/api/tags', { name: TRICKY })];
  doc = await post('/api/articles', {
    title: TRICKY, slug: 'compact', description: null, metadata: METADATA, content: CONTENT, views: 74, rating: 4.25, kind: 'news', featured: true, publishDate: '2024-03-05',
    author, category, tags, cover: file, gallery: [file, other],
    seo: { metaTitle: 'SEO', shareImage: file },
    blocks: [{ __component: 'shared.quote', title: 'q', body: TRICKY }, { __component: 'shared.rich-text', body: 'r' }, { __component: 'shared.media', file }, { __component: 'shared.slider', files: [file] }],
  });
  await post('/api/articles', { title: 'second', slug: 'second', views: 1, tags: [tags[0]] });
});
after(async () => { await s?.stop(); });

const PATHS = () => [
  '/api/articles?populate=*',
  `/api/articles/${doc}?populate=*`,
  '/api/articles?populate[blocks][populate]=*&populate[seo][populate]=*&populate[author][populate]=*&populate[tags][count]=true',
  '/api/articles?fields[0]=title&fields[1]=rating&populate[cover][fields][0]=url&populate[gallery]=true&populate[category][fields][0]=name',
  '/api/articles?populate[localizations]=true&populate[tags][filters][name][$eq]=sql',
  `/api/authors?populate[articles][populate]=*`,
  '/api/upload/files',
  '/api/i18n/locales',
  '/api/users-permissions/roles',
];

/** Asserts each answer is compact JSON; returns the bodies. */
async function compactBodies(): Promise<string[]> {
  const bodies: string[] = [];
  for (const path of PATHS()) {
    const r = await s.fetchJson('GET', path, undefined, TOKEN);
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    assert.equal(r.text, JSON.stringify(JSON.parse(r.text)), path);
    bodies.push(r.text);
  }
  return bodies;
}

test('REST answers are compact JSON: lists and documents with relations, media, components and zones', async () => {
  const bodies = await compactBodies();
  const [list, one] = bodies.map((b) => JSON.parse(b));
  // The answers hold what the check is about (no empty populate passes it trivially).
  const a = list.data.find((x: { documentId: string }) => x.documentId === doc);
  assert.equal(a.title, TRICKY);
  assert.equal(a.rating, 4.25);
  assert.equal(a.description, null);
  assert.equal(a.cover.alternativeText, TRICKY);
  assert.deepEqual(a.metadata, METADATA);
  assert.deepEqual(a.content, CONTENT);
  assert.deepEqual(a.cover.formats, FORMATS);
  assert.deepEqual([a.cover.focalPoint, a.cover.provider_metadata], [{ x: 1, y: null }, { k: 'v "q"', n: null }]);
  assert.equal(a.gallery.length, 2);
  assert.deepEqual(a.tags.map((t: { name: string }) => t.name), ['sql', TRICKY]);
  assert.equal(a.seo.metaTitle, 'SEO');
  assert.deepEqual(a.blocks.map((b: { __component: string }) => b.__component), ['shared.quote', 'shared.rich-text', 'shared.media', 'shared.slider']);
  assert.equal(one.data.author.name, 'Ada');
  assert.match(bodies[2], /"tags":\{"count":2\}/);
});

test('a render read live (rows changed behind the server: cache entries stale) is the same compact text', async () => {
  const cached = await compactBodies();
  // As Strapi's admin writes: a new updated_at makes every render cache entry a miss until refreshed.
  const sql = s.sql();
  for (const t of ['articles', 'authors', 'categories', 'tags', 'files']) await sql.unsafe(`update ${t} set updated_at = updated_at + interval '1 millisecond'`);
  const live = await compactBodies();
  const strip = (b: string) => b.replace(/"updatedAt":"[^"]*"/g, '"updatedAt":…');
  assert.deepEqual(live.map(strip), cached.map(strip));
});

test('GraphQL answers are compact JSON', async () => {
  const query = `{ articles(sort: "id") { documentId title rating metadata author { name } tags { name } cover { url alternativeText formats }
    seo { metaTitle } blocks { __typename ... on ComponentSharedQuote { title body } } } }`;
  const r = await s.fetchJson('POST', '/graphql', { query }, TOKEN);
  assert.equal(r.status, 200, r.text);
  // Compact, ending with Apollo's newline as Strapi's answers do.
  assert.equal(r.text, `${JSON.stringify(JSON.parse(r.text))}\n`);
  assert.equal(r.body.data.articles[0].title, TRICKY);
  assert.deepEqual(r.body.data.articles[0].metadata, METADATA);
});
