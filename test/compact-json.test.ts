// Response bodies are compact JSON, byte for byte what Strapi's JSON.stringify sends: `{"id":1,"title":"x"}`,
// not PostgreSQL's json_build_object text `{"id" : 1, "title" : "x"}` (issue 31). Checked on the raw body of
// each answer, from the render cache and rendered live (the cached text and the live one are the same bytes).
// Values stored as jsonb (a `json` or `blocks` attribute, a file's `formats`) keep PostgreSQL's jsonb text
// (`{"a": 1}`), as compiler/sql.ts jsonText() says: these rows have none.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, TOKEN, insertFile, type TestServer } from './helpers.ts';

let s: TestServer;
let doc: string;

/** Every value escaping has to get right, in a string. */
const TRICKY = 'He said "hi" \\ back\nslash\ttab é 😀 </script>';

before(async () => {
  s = await startTestServer({ env: { GRAPHQL_SHAPE: 'v5' } });
  const file = await insertFile(s.sql(), { name: 'cover.png', alternativeText: TRICKY });
  await insertFile(s.sql(), { name: 'other.jpg', mime: 'image/jpeg' });
  const post = async (path: string, data: unknown) => {
    const r = await s.fetchJson('POST', path, { data }, TOKEN);
    assert.equal(r.status, 201, r.text);
    return r.body.data.documentId as string;
  };
  const author = await post('/api/authors', { name: 'Ada', avatar: file });
  const category = await post('/api/categories', { name: 'Databases', slug: 'databases' });
  const tags = [await post('/api/tags', { name: 'sql' }), await post('/api/tags', { name: TRICKY })];
  doc = await post('/api/articles', {
    title: TRICKY, slug: 'compact', description: null, views: 74, rating: 4.25, kind: 'news', featured: true, publishDate: '2024-03-05',
    author, category, tags, cover: file, gallery: [file, file],
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
  const query = `{ articles(sort: "id") { documentId title rating author { name } tags { name } cover { url alternativeText }
    seo { metaTitle } blocks { __typename ... on ComponentSharedQuote { title body } } } }`;
  const r = await s.fetchJson('POST', '/graphql', { query }, TOKEN);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.text, JSON.stringify(JSON.parse(r.text)));
  assert.equal(r.body.data.articles[0].title, TRICKY);
});
