// A database this server created follows the models as Strapi's schema sync would: each test writes
// content with the demo models, edits them as a user does (test/schema-edits.ts), restarts on the same
// data, and checks that the server starts, keeps every document, serves the new shape, and that the
// schema is exactly the one a live Strapi 5.54 made when it migrated its own database for the same edit
// (catalog and Strapi's record of the schema, test/fixtures/schema-edits/<edit>.json, made by make.sh).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyModels, DEMO_MODELS, insertFile, startTestServer, TOKEN, type TestServer } from './helpers.ts';
import { EDITS, writeContent } from './schema-edits.ts';
import { catalogSnapshot, type CatalogSnapshot } from '../src/db/verify.ts';

interface RecordTable { name: string }
interface Fixture { snapshot: CatalogSnapshot; record: { hash: string; modelTables: RecordTable[] } }
const INTERNAL = new Set((JSON.parse(readFileSync(new URL('../src/db/strapi-internal-record.json', import.meta.url), 'utf8')) as RecordTable[]).map((t) => t.name));
const byName = (tables: RecordTable[]) => [...tables].sort((a, b) => a.name.localeCompare(b.name));
const fixture = (name: string): Fixture => JSON.parse(readFileSync(new URL(`./fixtures/schema-edits/${name}.json`, import.meta.url), 'utf8')) as Fixture;

/** Every document of every content-type table (its versions too). */
async function documents(s: TestServer, tables: string[]): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const t of tables) {
    const rows = await s.sql().unsafe<Array<{ d: string }>>(`select document_id || ':' || coalesce(locale, '') || ':' || (published_at is null)::text as d from "${t}" order by 1`);
    out[t] = rows.map((r) => r.d);
  }
  return out;
}
const CONTENT = ['articles', 'authors', 'tags', 'categories', 'globals', 'abouts'];

/** A snapshot without the lines naming these objects (`table.` for a column prefix, or a name). */
function without(snap: CatalogSnapshot, patterns: RegExp[]): CatalogSnapshot {
  const keep = (l: string) => !patterns.some((p) => p.test(l));
  return { columns: snap.columns.filter(keep), constraints: snap.constraints.filter(keep), indexes: snap.indexes.filter(keep), sequences: snap.sequences.filter(keep), triggers: snap.triggers.filter(keep) };
}

interface Run { s: TestServer; before: Record<string, string[]>; beforeSnapshot: CatalogSnapshot; dir: string }

/** Writes content with the demo models, then restarts on the same data with the edit applied. */
async function migrateWith(edit: string, env: Record<string, string | undefined> = {}): Promise<Run> {
  const first = await startTestServer();
  let dir = '';
  try {
    await writeContent(first);
    // Every row rendered into the render cache: after the edit none of it may be served in the old shape.
    await first.server.renderCacheReady();
    const before = await documents(first, CONTENT);
    const beforeSnapshot = await catalogSnapshot(first.sql());
    await first.stop({ keepData: true });
    dir = copyModels(DEMO_MODELS);
    EDITS[edit].apply(dir);
    const s = await startTestServer({ db: first.db, modelsDir: dir, env });
    return { s, before, beforeSnapshot, dir };
  } catch (e) {
    await first.db.drop().catch(() => {});
    if (dir) rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
async function finish(r: Run): Promise<void> {
  await r.s.stop();
  rmSync(r.dir, { recursive: true, force: true });
}

async function assertStrapiSchema(r: Run, edit: string, ignore: RegExp[] = []): Promise<void> {
  const f = fixture(edit);
  const mine = await catalogSnapshot(r.s.sql());
  assert.deepEqual(without(mine, ignore), without(f.snapshot, ignore), 'the schema Strapi 5.54 made when it migrated for the same edit');
  const [record] = await r.s.sql()<Array<{ hash: string; schema: { tables: RecordTable[] } }>>`select hash, schema from strapi_database_schema`;
  assert.deepEqual(byName(record.schema.tables.filter((t) => !INTERNAL.has(t.name))), byName(f.record.modelTables), "the models' tables in Strapi's record of the schema");
  assert.equal(record.hash, f.record.hash, "Strapi's record of the schema, as Strapi wrote it for the edited models");
}

async function assertDocumentsKept(r: Run, tables = CONTENT): Promise<void> {
  const after = await documents(r.s, tables);
  for (const t of tables) assert.deepEqual(after[t], r.before[t], `every document of ${t} kept`);
}

const get = async (s: TestServer, path: string) => {
  const r = await s.fetchJson('GET', path, undefined, TOKEN);
  assert.equal(r.status, 200, `${path}: ${r.text}`);
  return r.body.data;
};

describe('a model edit migrates this server\'s own database as Strapi does', () => {
  test('the demo models make the schema (and the record) Strapi made for them', async () => {
    const s = await startTestServer();
    try {
      const f = fixture('base');
      assert.deepEqual(await catalogSnapshot(s.sql()), f.snapshot);
      const [record] = await s.sql()<Array<{ hash: string }>>`select hash from strapi_database_schema`;
      assert.equal(record.hash, f.record.hash);
      const [state] = await s.sql()<Array<{ n: number }>>`select jsonb_array_length(tables)::int as n from fastrapi.schema_state`;
      assert.ok(state.n > 10, 'this server records the database as its own');
    } finally { await s.stop(); }
  });

  test('add an attribute (content-type, component)', async () => {
    const r = await migrateWith('add-attribute');
    try {
      await assertStrapiSchema(r, 'add-attribute');
      await assertDocumentsKept(r);
      // The draft's component (an update writes the draft, then publishes it).
      const [a] = await get(r.s, '/api/articles?populate=seo&status=draft&filters[title]=Article 1');
      assert.equal(a.subtitle, null);
      assert.equal(a.seo.canonicalUrl, null);
      assert.equal(a.views, 10);
      const put = await r.s.fetchJson('PUT', `/api/articles/${a.documentId}`, { data: { subtitle: 'Sub', seo: { id: a.seo.id, canonicalUrl: '/a1' } } }, TOKEN);
      assert.equal(put.status, 200, put.text);
      const [b] = await get(r.s, `/api/articles?populate=seo&filters[documentId]=${a.documentId}`);
      assert.equal(b.subtitle, 'Sub');
      assert.equal(b.seo.canonicalUrl, '/a1');
      assert.equal(b.seo.metaTitle, 'Meta 1');
      const [tag] = await get(r.s, '/api/tags?populate=icon&sort=name');
      assert.equal(tag.icon, null);
      const fileId = await insertFile(r.s.sql(), { name: 'icon.png' });
      assert.equal((await r.s.fetchJson('PUT', `/api/tags/${tag.documentId}`, { data: { icon: fileId } }, TOKEN)).status, 200);
      assert.equal((await get(r.s, `/api/tags/${tag.documentId}?populate=icon`)).icon.name, 'icon.png');
    } finally { await finish(r); }
  });

  test('add relations of every kind', async () => {
    const r = await migrateWith('add-relations');
    try {
      await assertStrapiSchema(r, 'add-relations');
      await assertDocumentsKept(r);
      const [ada] = await get(r.s, '/api/authors');
      const tags = await get(r.s, '/api/tags?sort=name');
      const [a1] = await get(r.s, '/api/articles?filters[title]=Article 1');
      const put = await r.s.fetchJson('PUT', `/api/authors/${ada.documentId}`, { data: {
        favoriteTags: [tags[0].documentId, tags[1].documentId], profile: tags[0].documentId, friends: [ada.documentId], edited: [a1.documentId],
      } }, TOKEN);
      assert.equal(put.status, 200, put.text);
      const got = await get(r.s, `/api/authors/${ada.documentId}?populate=*`);
      assert.deepEqual(got.favoriteTags.map((t: { name: string }) => t.name), ['news', 'tips']);
      assert.equal(got.profile.name, 'news');
      assert.deepEqual(got.friends.map((f: { name: string }) => f.name), ['Ada']);
      assert.deepEqual(got.edited.map((a: { title: string }) => a.title), ['Article 1']);
      assert.equal(got.articles.length, 2, 'the relations written before the edit are still there');
      const tag = await get(r.s, `/api/tags/${tags[0].documentId}?populate=owner`);
      assert.equal(tag.owner.name, 'Ada');
    } finally { await finish(r); }
  });

  test('add a relation inside a component, a dynamic-zone component and a nested new component', async () => {
    const r = await migrateWith('add-component-relation');
    try {
      await assertStrapiSchema(r, 'add-component-relation');
      await assertDocumentsKept(r);
      const [ada] = await get(r.s, '/api/authors');
      const tags = await get(r.s, '/api/tags?sort=name');
      const [a1] = await get(r.s, '/api/articles?filters[title]=Article 1&populate=*&status=draft');
      assert.equal(a1.seo.metaTitle, 'Meta 1');
      const put = await r.s.fetchJson('PUT', `/api/articles/${a1.documentId}`, { data: {
        seo: { id: a1.seo.id, author: ada.documentId, links: [{ label: 'L', article: a1.documentId }] },
        blocks: [{ __component: 'shared.quote', title: 'Q', tags: [tags[1].documentId] }],
      } }, TOKEN);
      assert.equal(put.status, 200, put.text);
      const got = await get(r.s, `/api/articles/${a1.documentId}?populate[seo][populate][author]=true&populate[seo][populate][links][populate]=article&populate[blocks][on][shared.quote][populate]=*`);
      assert.equal(got.seo.author.name, 'Ada');
      assert.equal(got.seo.links[0].label, 'L');
      assert.equal(got.seo.links[0].article.title, 'Article 1');
      assert.deepEqual(got.blocks[0].tags.map((t: { name: string }) => t.name), ['tips']);
    } finally { await finish(r); }
  });

  test('add a content-type', async () => {
    const r = await migrateWith('add-content-type');
    try {
      await assertStrapiSchema(r, 'add-content-type');
      await assertDocumentsKept(r);
      const [ada] = await get(r.s, '/api/authors');
      const c = await r.s.fetchJson('POST', '/api/pages', { data: {
        title: 'Home', slug: 'home', author: ada.documentId, seo: { metaTitle: 'Home' }, sections: [{ __component: 'shared.rich-text', body: 'Hi' }],
      } }, TOKEN);
      assert.equal(c.status, 201, c.text);
      const [p] = await get(r.s, '/api/pages?populate=*');
      assert.equal(p.title, 'Home');
      assert.equal(p.author.name, 'Ada');
      assert.equal(p.seo.metaTitle, 'Home');
      assert.equal(p.sections[0].body, 'Hi');
    } finally { await finish(r); }
  });

  test('add a component', async () => {
    const r = await migrateWith('add-component');
    try {
      await assertStrapiSchema(r, 'add-component');
      await assertDocumentsKept(r);
      const [a1] = await get(r.s, '/api/articles?filters[title]=Article 1&populate=*');
      assert.equal(a1.cta, null);
      const put = await r.s.fetchJson('PUT', `/api/articles/${a1.documentId}`, { data: { cta: { label: 'Go', url: '/go', primary: true } } }, TOKEN);
      assert.equal(put.status, 200, put.text);
      const about = await r.s.fetchJson('PUT', '/api/about', { data: { blocks: [{ __component: 'shared.cta', label: 'Join' }] } }, TOKEN);
      assert.equal(about.status, 200, about.text);
      assert.equal((await get(r.s, `/api/articles/${a1.documentId}?populate=cta`)).cta.label, 'Go');
      assert.equal((await get(r.s, '/api/about?populate=*')).blocks[0].label, 'Join');
    } finally { await finish(r); }
  });

  test('add morph relations (morphToMany, morphToOne) and a media field in a component', async () => {
    const r = await migrateWith('add-morph');
    try {
      await assertStrapiSchema(r, 'add-morph');
      await assertDocumentsKept(r);
      const [a1] = await get(r.s, '/api/articles?filters[title]=Article 1&populate[blocks][on][shared.quote][populate]=image&populate[blocks][on][shared.rich-text]=true');
      assert.equal(a1.blocks[0].title, 'Quote 1', 'the zone written before the edit');
      assert.equal(a1.blocks[0].image, null);
      // The new related_type of files_related_mph: a component's media field, written and read.
      const fileId = await insertFile(r.s.sql(), { name: 'quote.png' });
      const put = await r.s.fetchJson('PUT', `/api/articles/${a1.documentId}`, { data: { blocks: [{ __component: 'shared.quote', title: 'Q', image: fileId }] } }, TOKEN);
      assert.equal(put.status, 200, put.text);
      const got = await get(r.s, `/api/articles/${a1.documentId}?populate[blocks][on][shared.quote][populate]=image`);
      assert.equal(got.blocks[0].image.name, 'quote.png');
      // The morph table and the morphToOne columns hold links to rows of any type.
      const [tag] = await get(r.s, '/api/tags?sort=name');
      const [ada] = await get(r.s, '/api/authors');
      const sql = r.s.sql();
      const [tagRow] = await sql<Array<{ id: number }>>`select id from tags where document_id = ${tag.documentId}`;
      const [articleRow] = await sql<Array<{ id: number }>>`select id from articles where document_id = ${a1.documentId} and published_at is not null`;
      await sql`insert into tags_related_mph (tag_id, related_id, related_type, field, "order") values (${tagRow.id}, ${articleRow.id}, 'api::article.article', 'related', 1)`;
      await sql`update authors set target_id = ${tagRow.id}, target_type = 'api::tag.tag' where document_id = ${ada.documentId}`;
      const withRelated = await get(r.s, `/api/tags/${tag.documentId}?populate=related`);
      assert.deepEqual(withRelated.related.map((x: { title: string }) => x.title), ['Article 1']);
      const withPinned = await get(r.s, `/api/authors/${ada.documentId}?populate=pinned`);
      assert.equal(withPinned.pinned.name, 'news');
      assert.equal(withPinned.articles, undefined);
    } finally { await finish(r); }
  });

  test('change types (no value lost): integer → string, string → text', async () => {
    const r = await migrateWith('change-type');
    try {
      await assertStrapiSchema(r, 'change-type');
      await assertDocumentsKept(r);
      const rows = await get(r.s, '/api/articles?sort=title&populate=blocks');
      assert.deepEqual(rows.map((a: { views: unknown }) => a.views), ['10', '20'], 'the numbers, now as strings (never a render cached before the edit)');
      assert.equal((await get(r.s, `/api/articles/${rows[0].documentId}`)).views, '10');
      assert.equal(rows[0].blocks[0].title, 'Quote 1');
      assert.deepEqual((await get(r.s, '/api/tags?sort=name')).map((t: { name: string }) => t.name), ['news', 'tips']);
    } finally { await finish(r); }
  });

  test('remove attributes, a relation, a content-type, narrow a type: kept with their data unless ALLOW_DESTRUCTIVE_SCHEMA', async () => {
    const r = await migrateWith('remove');
    try {
      // What Strapi dropped is still there, with its data; everything else is Strapi's.
      const keptObjects = [/\babouts/, /\barticles_tags_lnk/, /^articles\.\d+ views /, /^components_shared_quotes\.\d+ title /, /^authors\.\d+ bio /];
      await assertStrapiSchema(r, 'remove', keptObjects);
      await assertDocumentsKept(r);
      const [{ n }] = await r.s.sql()<Array<{ n: number }>>`select count(*)::int as n from articles_tags_lnk`;
      assert.ok(n >= 4, 'the removed relation\'s links are kept');
      const [{ bio }] = await r.s.sql()<Array<{ bio: string }>>`select bio from authors`;
      assert.equal(bio.length, 300, 'the text is not cut to 255 characters');
      const mine = await catalogSnapshot(r.s.sql());
      assert.ok(mine.columns.some((c) => /^authors\.\d+ bio text$/.test(c)));
      assert.ok(mine.columns.some((c) => /^articles\.\d+ views integer$/.test(c)));
      const [a] = await get(r.s, '/api/articles?sort=title');
      assert.equal(a.views, undefined);
      assert.equal(a.tags, undefined);
      assert.equal((await r.s.fetchJson('GET', '/api/about', undefined, TOKEN)).status, 404);
      // Restarted with ALLOW_DESTRUCTIVE_SCHEMA: dropped as Strapi drops them.
      await r.s.stop({ keepData: true });
      r.s = await startTestServer({ db: r.s.db, modelsDir: r.dir, env: { ALLOW_DESTRUCTIVE_SCHEMA: 'true' } });
      await assertStrapiSchema(r, 'remove');
      await assertDocumentsKept(r, CONTENT.filter((t) => t !== 'abouts'));
      const [{ bio: cut }] = await r.s.sql()<Array<{ bio: string }>>`select bio from authors`;
      assert.equal(cut.length, 255, 'narrowed as Strapi narrows it');
    } finally { await finish(r); }
  });

  test('a manyToOne made manyToMany: the links written before are kept and listed', async () => {
    const r = await migrateWith('change-relation');
    try {
      await assertStrapiSchema(r, 'change-relation');
      await assertDocumentsKept(r);
      const [a1] = await get(r.s, '/api/articles?filters[title]=Article 1&populate=category');
      assert.deepEqual(a1.category.map((c: { name: string }) => c.name), ['Tech'], 'now a list, with the link written before the edit');
      const other = (await r.s.fetchJson('POST', '/api/categories', { data: { name: 'Other', slug: 'other' } }, TOKEN)).body.data;
      const put = await r.s.fetchJson('PUT', `/api/articles/${a1.documentId}`, { data: { category: { connect: [other.documentId] } } }, TOKEN);
      assert.equal(put.status, 200, put.text);
      const got = await get(r.s, `/api/articles/${a1.documentId}?populate=category`);
      assert.deepEqual(got.category.map((c: { name: string }) => c.name).sort(), ['Other', 'Tech']);
      const cat = await get(r.s, `/api/categories/${other.documentId}?populate=articles`);
      assert.deepEqual(cat.articles.map((a: { title: string }) => a.title), ['Article 1']);
    } finally { await finish(r); }
  });

  test('a changed collectionName makes new tables; the old ones are kept unless ALLOW_DESTRUCTIVE_SCHEMA', async () => {
    const r = await migrateWith('rename-collection');
    try {
      await assertStrapiSchema(r, 'rename-collection', [/\bglobals/]);
      await assertDocumentsKept(r);
      assert.equal((await r.s.fetchJson('GET', '/api/global', undefined, TOKEN)).status, 404, 'the new table is empty, as in Strapi');
      await r.s.stop({ keepData: true });
      r.s = await startTestServer({ db: r.s.db, modelsDir: r.dir, env: { ALLOW_DESTRUCTIVE_SCHEMA: 'true' } });
      await assertStrapiSchema(r, 'rename-collection');
      await assertDocumentsKept(r, CONTENT.filter((t) => t !== 'globals'));
    } finally { await finish(r); }
  });

  test('remove with ALLOW_DESTRUCTIVE_SCHEMA at once: the schema Strapi made', async () => {
    const r = await migrateWith('remove', { ALLOW_DESTRUCTIVE_SCHEMA: 'true' });
    try {
      await assertStrapiSchema(r, 'remove');
      await assertDocumentsKept(r, CONTENT.filter((t) => t !== 'abouts'));
      assert.equal((await get(r.s, '/api/articles')).length, 2);
    } finally { await finish(r); }
  });

  test('a model file that does not parse, or a relation to a missing target: the start is refused naming them, nothing changed', async () => {
    const first = await startTestServer();
    const dir = copyModels(DEMO_MODELS);
    try {
      const before = await catalogSnapshot(first.sql());
      await first.stop({ keepData: true });
      writeFileSync(join(dir, 'content-types/broken.json'), '{ "kind": "collectionType", ');
      await assert.rejects(startTestServer({ db: first.db, modelsDir: dir }), /content-types\/broken\.json: not valid JSON/);
      rmSync(join(dir, 'content-types/broken.json'));
      const tag = JSON.parse(readFileSync(join(dir, 'content-types/tag.json'), 'utf8'));
      tag.attributes.best = { type: 'relation', relation: 'manyToOne', target: 'api::nope.nope' };
      writeFileSync(join(dir, 'content-types/tag.json'), JSON.stringify(tag));
      await assert.rejects(startTestServer({ db: first.db, modelsDir: dir }), /content-types\/tag\.json: attribute "best": relation target "api::nope\.nope" is not a known content-type/);
      const again = await startTestServer({ db: first.db });
      try { assert.deepEqual(await catalogSnapshot(again.sql()), before); } finally { await again.stop(); }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a migration that fails leaves the database as it was and the start is refused', async () => {
    const first = await startTestServer();
    const dir = copyModels(DEMO_MODELS);
    try {
      await writeContent(first);
      const before = await catalogSnapshot(first.sql());
      await first.stop({ keepData: true });
      // A new column (would succeed) and a text that does not cast to an integer (fails).
      EDITS['add-attribute'].apply(dir);
      const author = JSON.parse(readFileSync(join(dir, 'content-types/author.json'), 'utf8'));
      author.attributes.bio = { type: 'integer' };
      writeFileSync(join(dir, 'content-types/author.json'), JSON.stringify(author));
      await assert.rejects(startTestServer({ db: first.db, modelsDir: dir, env: { ALLOW_DESTRUCTIVE_SCHEMA: 'true' } }), /schema migration failed .*left as it was/s);
      const again = await startTestServer({ db: first.db });
      try { assert.deepEqual(await catalogSnapshot(again.sql()), before); } finally { await again.stop(); }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
