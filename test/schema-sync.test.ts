// The database is Strapi 5's: an empty one gets exactly the schema Strapi 5.54 creates (compared with
// the database Strapi made for the blog: columns in order with types and defaults, constraints,
// indexes, sequences, triggers), one Strapi made is never changed, one missing what the models need
// is refused naming the table and column. Naming rules are checked with Strapi's own expected values.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import postgres, { type Sql } from 'postgres';
import { copyModels, DEMO_MODELS } from './helpers.ts';
import { loadDump } from './strapi-dump.ts';
import { startEmbedded, type EmbeddedDb } from '../src/db/embedded.ts';
import { loadModels, ModelError } from '../src/models.ts';
import { syncSchema, SchemaSyncError, localeName, STRAPI_INTERNAL_MIGRATIONS } from '../src/db/schema-sync.ts';
import { catalogSnapshot } from '../src/db/verify.ts';
import { snakeCase, nameFromTokens, tableName, componentsTable, columnName, ownerJoinTable, INDEX } from '../compiler/layout.ts';

const I18N = { defaultLocale: 'en', locales: ['en', 'fr'] };
const schema = () => loadModels(DEMO_MODELS, I18N);

describe('Strapi naming rules', () => {
  test("snakeCase is lodash's: digits and case changes split words", () => {
    const cases: Record<string, string> = {
      address1: 'address_1', address1Line: 'address_1_line', publishDate: 'publish_date', siteName: 'site_name',
      HTMLParser: 'html_parser', userIDs: 'user_i_ds', 'rich-text': 'rich_text', already_snake: 'already_snake',
      item1st: 'item_1st', iPhone11Pro: 'i_phone_11_pro', ABC: 'abc', '3dModel': '3_d_model', foo__bar: 'foo_bar',
    };
    for (const [input, expected] of Object.entries(cases)) assert.equal(snakeCase(input), expected, input);
    assert.equal(columnName('metaTitle'), 'meta_title');
  });

  // Expected values from Strapi's utils/identifiers tests (getNameFromTokens with a given maxLength).
  test("identifiers are shortened with Strapi's hash and allocation", () => {
    const c = (name: string) => ({ name, compressible: true }), f = (name: string) => ({ name, compressible: false });
    assert.equal(nameFromTokens([c('1234567890'), c('12345'), f('links')], 22), '1234567890_12345_links');
    assert.equal(nameFromTokens([c('123456789012345')], 13), '1234567878db8');
    assert.equal(nameFromTokens([c('1234567_9012345')], 13), '1234567_47b4e');
    assert.equal(nameFromTokens([c('12345678_012345')], 13), '12345678867f6');
    assert.equal(nameFromTokens([c('1234567890'), c('12345'), f('links')], 21), '1234cd65a_12345_links');
    assert.equal(nameFromTokens([c('1234567890'), c('1234567890'), f('links')], 23), '123cd65a_123cd65a_links');
    assert.throws(() => nameFromTokens([c('1234567890'), c('1234567890'), f('links')], 21));
    assert.equal(nameFromTokens([c('1234567890'), c('12345'), c('0987654321'), f('links')], 30), '1234cd65a_12345_0984addb_links');
    assert.equal(nameFromTokens([f('pre'), c('1234567890'), f('in'), c('3456789012'), f('post')], 31), 'pre_1234cd65a_in_3456be378_post');
    assert.equal(nameFromTokens([f('pre'), c('1234567890'), f('in'), c('3456789012'), f('post')], 32), 'pre_1234567890_in_3456be378_post');
  });

  test('Strapi 5 shortens past 55 characters; tables keep their collectionName as written', () => {
    const long = 'a_collection_name_that_is_long_enough_to_need_shortening_x';
    assert.equal(tableName(long).length, 55);
    assert.equal(tableName(long), nameFromTokens([{ name: long, compressible: true }], 55));
    assert.equal(tableName('address1s'), 'address1s');
    assert.equal(componentsTable('articles'), 'articles_cmps');
    assert.equal(INDEX.index(['articles', 'documents']), 'articles_documents_idx');
    assert.equal(INDEX.componentsEntityFk('articles'), 'articles_entity_fk');
    assert.equal(INDEX.unique('articles_tags_lnk'), 'articles_tags_lnk_uq');
  });

  test('join tables: snake-cased names, inv_ prefix on self relations, order columns by side', () => {
    const j = ownerJoinTable({ table: 'categories', singularName: 'category' }, 'parent', { table: 'categories', singularName: 'category' }, 'manyToOne', true);
    assert.deepEqual(j, { table: 'categories_parent_lnk', source: 'category_id', target: 'inv_category_id', order: null, inverseOrder: 'category_ord' });
    const m = ownerJoinTable({ table: 'articles', singularName: 'article' }, 'relatedItems', { table: 'rich_things', singularName: 'richThing' }, 'manyToMany', true);
    assert.deepEqual(m, { table: 'articles_related_items_lnk', source: 'article_id', target: 'rich_thing_id', order: 'rich_thing_ord', inverseOrder: 'article_ord' });
  });

  test('a component without collectionName is refused as Strapi refuses it', () => {
    const dir = copyModels(DEMO_MODELS);
    try {
      writeFileSync(join(dir, 'components/shared/extra.json'), JSON.stringify({ info: { displayName: 'Extra' }, attributes: { a: { type: 'string' } } }));
      assert.throws(() => loadModels(dir, I18N), (e: unknown) => e instanceof ModelError && /Component extra is missing a "collectionName" property/.test((e as Error).message));
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

  test("locale names follow Strapi's `Language (code)`", () => {
    assert.equal(localeName('en'), 'English (en)');
    assert.equal(localeName('fr'), 'French (fr)');
    assert.equal(localeName('de'), 'German (de)');
  });
});

describe('schema creation and verification on PostgreSQL', () => {
  let embedded: EmbeddedDb | null = null;
  let dataDir: string | null = null;
  let base: string;
  const created: string[] = [];

  before(async () => {
    if (process.env.DATABASE_URL) base = process.env.DATABASE_URL;
    else {
      dataDir = mkdtempSync(join(tmpdir(), 'fastrapi-ddl-'));
      embedded = await startEmbedded(dataDir, 0);
      base = embedded.url;
    }
  });
  after(async () => {
    const admin = postgres(base, { max: 1, onnotice: () => {} });
    try { for (const d of created) await admin.unsafe(`drop database if exists ${d} with (force)`); } finally { await admin.end({ timeout: 5 }); }
    await embedded?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** A new empty database on the test server; its URL. */
  async function newDatabase(): Promise<string> {
    const name = `ddl_${randomBytes(5).toString('hex')}`;
    const admin = postgres(base, { max: 1, onnotice: () => {} });
    try { await admin.unsafe(`create database ${name}`); } finally { await admin.end({ timeout: 5 }); }
    created.push(name);
    const u = new URL(base);
    u.pathname = `/${name}`;
    return u.toString();
  }
  async function withDb<T>(url: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
    const sql = postgres(url, { max: 2, onnotice: () => {} });
    try { return await fn(sql); } finally { await sql.end({ timeout: 5 }); }
  }
  let dumpUrl: string | null = null;
  /** A copy of the database Strapi made (loaded once, then copied per test with CREATE DATABASE … TEMPLATE). */
  async function dumpCopy(): Promise<string> {
    if (!dumpUrl) { dumpUrl = await newDatabase(); await loadDump(dumpUrl); }
    const name = `ddl_${randomBytes(5).toString('hex')}`;
    const admin = postgres(base, { max: 1, onnotice: () => {} });
    try { await admin.unsafe(`create database ${name} template ${new URL(dumpUrl).pathname.slice(1)}`); } finally { await admin.end({ timeout: 5 }); }
    created.push(name);
    const u = new URL(base);
    u.pathname = `/${name}`;
    return u.toString();
  }

  test("an empty database gets exactly the schema Strapi 5.54 made for these models", async () => {
    const fresh = await newDatabase();
    const report = await withDb(fresh, (sql) => syncSchema(sql, schema(), false));
    assert.equal(report.outcome, 'created');
    assert.deepEqual(report.locales, ['en', 'fr']);
    const ref = await dumpCopy();
    const [mine, strapis] = [await withDb(fresh, (sql) => catalogSnapshot(sql)), await withDb(ref, (sql) => catalogSnapshot(sql))];
    assert.ok(strapis.columns.length > 400 && strapis.indexes.length > 200, 'the reference snapshot is the whole schema');
    assert.deepEqual(mine, strapis);
    await withDb(fresh, async (sql) => {
      const locales = await sql`select name, code, document_id, published_at from i18n_locale order by id`;
      assert.deepEqual(locales.map((l) => [l.name, l.code]), [['English (en)', 'en'], ['French (fr)', 'fr']]);
      assert.ok(locales.every((l) => /^[a-z][a-z0-9]{23}$/.test(l.document_id) && l.published_at));
      const migrations = await sql`select name from strapi_migrations_internal order by id`;
      assert.deepEqual(migrations.map((m) => m.name), [...STRAPI_INTERNAL_MIGRATIONS]);
      const [store] = await sql`select value from strapi_core_store_settings where key = 'plugin_i18n_default_locale'`;
      assert.equal(store.value, '"en"');
    });
  });

  // The same proof through pg_dump when a client of the server's major version is installed (the
  // developers' PostgreSQL 15); the embedded server ships none, so the catalog comparison above is the one CI runs.
  test('pg_dump --schema-only of a created database equals the dump of the database Strapi made', async (t) => {
    const major = await withDb(base, async (sql) => (await sql`select current_setting('server_version_num')::int / 10000 as v`)[0].v as number);
    const pgDump = `/usr/lib/postgresql/${major}/bin/pg_dump`;
    if (!existsSync(pgDump)) { t.skip(`no ${pgDump}`); return; }
    const fresh = await newDatabase();
    await withDb(fresh, (sql) => syncSchema(sql, schema(), false));
    const ref = await dumpCopy();
    // This server's own schema (`fastrapi`: its bookkeeping) is no part of Strapi's layout.
    const dump = (url: string) => execFileSync(pgDump, ['--schema-only', '--no-owner', '--no-privileges', '--exclude-schema=fastrapi', url], { encoding: 'utf8' })
      .split('\n').filter((l) => !l.startsWith('--') && !l.startsWith('\\') && !l.startsWith('SET ') && !l.startsWith('SELECT pg_catalog')).join('\n');
    assert.equal(dump(fresh), dump(ref));
  });

  test('a database Strapi made is verified and left untouched, also with ALLOW_DESTRUCTIVE_SCHEMA', async () => {
    const ref = await dumpCopy();
    await withDb(ref, async (sql) => {
      const before = await catalogSnapshot(sql);
      const locales = await sql`select * from i18n_locale order by id`;
      const verified = { outcome: 'verified', tables: [], locales: [], changes: [], kept: [] };
      assert.deepEqual(await syncSchema(sql, schema(), false), verified);
      assert.deepEqual(await syncSchema(sql, schema(), true), verified);
      assert.deepEqual(await catalogSnapshot(sql), before);
      assert.deepEqual(await sql`select * from i18n_locale order by id`, locales);
      assert.equal((await sql`select count(*)::int as n from pg_namespace where nspname = 'fastrapi'`)[0].n, 0);
    });
  });

  test('a database missing a column or a table of the models is refused by name and not changed', async () => {
    const ref = await dumpCopy();
    await withDb(ref, async (sql) => {
      await sql`alter table articles drop column views`;
      await sql`drop table articles_tags_lnk`;
      await sql`alter table authors alter column bio type integer using null`;
      const before = await catalogSnapshot(sql);
      await assert.rejects(syncSchema(sql, schema(), false), (e: unknown) => {
        assert.ok(e instanceof SchemaSyncError);
        const m = (e as Error).message;
        assert.match(m, /table "articles": column "views" \(integer\) is missing/);
        assert.match(m, /table "articles_tags_lnk" is missing/);
        assert.match(m, /table "authors": column "bio" is integer, the models need text/);
        return true;
      });
      assert.deepEqual(await catalogSnapshot(sql), before);
    });
  });

  test('a second start on a created database changes nothing', async () => {
    const fresh = await newDatabase();
    await withDb(fresh, async (sql) => {
      await syncSchema(sql, schema(), false);
      const before = await catalogSnapshot(sql);
      const rows = await sql`select (select count(*) from i18n_locale)::int as l, (select count(*) from strapi_migrations_internal)::int as m, (select count(*) from strapi_core_store_settings)::int as s`;
      assert.deepEqual(await syncSchema(sql, schema(), false), { outcome: 'verified', tables: [], locales: [], changes: [], kept: [] });
      assert.deepEqual(await catalogSnapshot(sql), before);
      assert.deepEqual(await sql`select (select count(*) from i18n_locale)::int as l, (select count(*) from strapi_migrations_internal)::int as m, (select count(*) from strapi_core_store_settings)::int as s`, rows);
    });
  });

  test('nodes starting together on an empty database: one creates, the others verify', async () => {
    const fresh = await newDatabase();
    const clients = [0, 1, 2].map(() => postgres(fresh, { max: 1, onnotice: () => {} }));
    try {
      const reports = await Promise.all(clients.map((c) => syncSchema(c, schema(), false)));
      assert.deepEqual(reports.map((r) => r.outcome).sort(), ['created', 'verified', 'verified']);
      assert.equal((await clients[0]`select count(*)::int as n from i18n_locale`)[0].n, 2);
    } finally { await Promise.all(clients.map((c) => c.end({ timeout: 5 }))); }
  });

  const extra = (dir: string) => writeFileSync(join(dir, 'content-types/extra.json'), JSON.stringify({
    kind: 'collectionType', collectionName: 'extras', info: { singularName: 'extra', pluralName: 'extras' }, attributes: { name: { type: 'string' } },
  }));

  test('a model added after creation: created on a database this server made, refused with DATABASE_SCHEMA=verify', async () => {
    const fresh = await newDatabase();
    const dir = copyModels(DEMO_MODELS);
    try {
      await withDb(fresh, (sql) => syncSchema(sql, schema(), false));
      extra(dir);
      await assert.rejects(withDb(fresh, (sql) => syncSchema(sql, loadModels(dir, I18N), false, 'verify')), /table "extras" is missing/);
      const report = await withDb(fresh, (sql) => syncSchema(sql, loadModels(dir, I18N), false));
      assert.equal(report.outcome, 'migrated');
      assert.deepEqual(report.tables, ['extras']);
      assert.ok(report.changes.includes('created table extras'));
      // Strapi's record follows the models: a Strapi started now finds it current.
      const again = await withDb(fresh, (sql) => syncSchema(sql, loadModels(dir, I18N), false));
      assert.deepEqual(again, { outcome: 'verified', tables: [], locales: [], changes: [], kept: [] });
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

  test('nodes starting together with edited models: one migrates, the others find it done', async () => {
    const fresh = await newDatabase();
    const dir = copyModels(DEMO_MODELS);
    const clients = [0, 1, 2].map(() => postgres(fresh, { max: 1, onnotice: () => {} }));
    try {
      await syncSchema(clients[0], schema(), false);
      extra(dir);
      const edited = loadModels(dir, I18N);
      const reports = await Promise.all(clients.map((c) => syncSchema(c, edited, false)));
      assert.deepEqual(reports.map((r) => r.outcome).sort(), ['migrated', 'verified', 'verified']);
    } finally {
      await Promise.all(clients.map((c) => c.end({ timeout: 5 })));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a database Strapi made is migrated only with DATABASE_SCHEMA=manage, and then owned', async () => {
    const ref = await dumpCopy();
    const dir = copyModels(DEMO_MODELS);
    try {
      extra(dir);
      await assert.rejects(withDb(ref, (sql) => syncSchema(sql, loadModels(dir, I18N), false)), /table "extras" is missing/);
      const report = await withDb(ref, (sql) => syncSchema(sql, loadModels(dir, I18N), false, 'manage'));
      assert.equal(report.outcome, 'migrated');
      assert.deepEqual(report.changes, ['created table extras']);
      await withDb(ref, async (sql) => {
        assert.equal((await sql`select count(*)::int as n from fastrapi.schema_state`)[0].n, 1);
        assert.equal((await sql`select count(*)::int as n from articles`)[0].n > 0, true);
      });
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

  test('a database an earlier version of this server made (no record of either kind) is owned', async () => {
    const fresh = await newDatabase();
    const dir = copyModels(DEMO_MODELS);
    try {
      await withDb(fresh, async (sql) => {
        await syncSchema(sql, schema(), false);
        await sql`drop schema fastrapi cascade`;
        await sql`delete from strapi_database_schema`;
      });
      extra(dir);
      const report = await withDb(fresh, (sql) => syncSchema(sql, loadModels(dir, I18N), false));
      assert.equal(report.outcome, 'migrated');
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });
});
