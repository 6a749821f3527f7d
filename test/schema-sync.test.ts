// Schema sync at start: a fresh database gets every table; running it again changes nothing; additive
// model changes are applied; destructive ones are refused (naming what would be lost) unless
// ALLOW_DESTRUCTIVE_SCHEMA=true; invalid models are refused naming the file and the attribute.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, rmSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startTestServer, createTestDatabase, copyModels, serverEnv, ALL_TYPES_MODELS, DEMO_MODELS, TOKEN, type TestServer, type TestDatabase } from './helpers.ts';
import { startServer } from '../src/server.ts';
import { loadModels, ModelError } from '../src/models.ts';
import { syncSchema, SchemaSyncError } from '../src/db/schema-sync.ts';

const I18N = { defaultLocale: 'en', locales: ['en', 'fr'] };

type Json = Record<string, any>;
function editModel(dir: string, file: string, edit: (m: Json) => void): void {
  const p = join(dir, file);
  const m = JSON.parse(readFileSync(p, 'utf8'));
  edit(m);
  writeFileSync(p, JSON.stringify(m, null, 2));
}

async function columns(s: TestServer, table: string): Promise<Record<string, string>> {
  const rows = await s.sql()`select column_name, data_type from information_schema.columns where table_schema = current_schema() and table_name = ${table} order by ordinal_position`;
  return Object.fromEntries(rows.map((r) => [r.column_name, r.data_type]));
}

async function tables(s: TestServer): Promise<string[]> {
  const rows = await s.sql()`select table_name from information_schema.tables where table_schema = current_schema() order by table_name`;
  return rows.map((r) => r.table_name as string);
}

/** Everything about the schema that a sync could change: columns with types and nullability, indexes. */
async function snapshot(s: TestServer): Promise<string> {
  const cols = await s.sql()`select table_name, column_name, data_type, is_nullable, column_default from information_schema.columns where table_schema = current_schema() order by table_name, column_name`;
  const idx = await s.sql()`select indexname, indexdef from pg_indexes where schemaname = current_schema() order by indexname`;
  return JSON.stringify({ cols, idx });
}

/** startServer on a data folder, expected to fail: returns the error. */
async function startFails(db: TestDatabase, modelsDir: string, env: Record<string, string> = {}): Promise<Error> {
  try {
    const s = await startServer({ env: serverEnv(db, modelsDir, env), argv: [] });
    await s.stop();
  } catch (e) {
    return e as Error;
  }
  assert.fail('the server started although it should have refused');
}

describe('sync of the all-types models', () => {
  let models: string;
  let db: TestDatabase;
  let s: TestServer | null = null;
  let doc: string;

  before(async () => {
    models = copyModels(ALL_TYPES_MODELS);
    db = await createTestDatabase();
  });
  after(async () => {
    await s?.stop({ keepData: true });
    await db.drop();
    rmSync(models, { recursive: true, force: true });
  });

  test('a fresh database gets one table per type, link tables and typed columns', async () => {
    s = await startTestServer({ modelsDir: models, db });
    const t = await tables(s);
    for (const name of ['everythings', 'people', 'labels', 'settings', 'posts', 'pages', 'files', 'everythings_gallery_mlnk', 'everythings_labels_lnk', 'everythings_followers_lnk', 'fastrapi_tables']) {
      assert.ok(t.includes(name), `table ${name} missing from ${t.join(', ')}`);
    }
    assert.ok(!t.some((x) => /people_items|labels_things|partner_of|children/.test(x)), 'inverse sides have no storage of their own');
    assert.deepEqual(await columns(s, 'everythings'), {
      id: 'bigint', document_id: 'text', locale: 'text', published_at: 'timestamp with time zone', created_at: 'timestamp with time zone',
      updated_at: 'timestamp with time zone', doc_open: 'text', title: 'text', code: 'text', summary: 'text', body: 'text', content: 'jsonb', contact: 'text',
      secret: 'text', slug: 'text', level: 'text', active: 'boolean', quantity: 'integer', big: 'bigint', ratio: 'double precision',
      price: 'numeric', day: 'date', clock: 'time without time zone', happened_at: 'timestamp with time zone', stamp: 'timestamp with time zone',
      payload: 'jsonb', internal_note: 'text', serial: 'text', cover_file: 'bigint', partner_doc: 'text', parent_doc: 'text', owner_doc: 'text',
      sidekick_doc: 'text', address: 'jsonb', address__json: 'text', links: 'jsonb', links__json: 'text', sections: 'jsonb', sections__json: 'text',
    });
    assert.deepEqual(await columns(s, 'everythings_labels_lnk'), { source_id: 'bigint', target_doc: 'text', position: 'double precision' });
    assert.deepEqual(await columns(s, 'everythings_gallery_mlnk'), { source_id: 'bigint', file_id: 'bigint', position: 'double precision' });
    const idx = await s.sql()`select indexname from pg_indexes where tablename = 'everythings'`;
    const names = idx.map((r) => r.indexname);
    assert.ok(names.includes('everythings_version_uq'), names.join(', '));
    assert.ok(names.includes('everythings_owner_doc_idx'), names.join(', '));
  });

  test('running the sync again is a no-op', async () => {
    assert.ok(s);
    const before = await snapshot(s);
    const report = await syncSchema(s.sql(), loadModels(models, I18N), false);
    assert.deepEqual(report, { created: [], added: [], dropped: [] });
    assert.equal(await snapshot(s), before);
    // and a restart on the same data is fine
    const c = await s.fetchJson('POST', '/api/everythings', { data: { title: 'Survivor', summary: 'kept', quantity: 9 } }, TOKEN);
    assert.equal(c.status, 201, c.text);
    doc = c.body.data.documentId;
    await s.stop({ keepData: true });
    s = await startTestServer({ modelsDir: models, db });
    assert.equal(await snapshot(s), before);
    assert.equal((await s.fetchJson('GET', `/api/everythings/${doc}`)).body.data.summary, 'kept');
  });

  test('an additive change adds the column (and a new type its table) and keeps the data', async () => {
    await s!.stop({ keepData: true });
    s = null;
    editModel(models, 'content-types/everything.json', (m) => { m.attributes.nickname = { type: 'string' }; m.attributes.score = { type: 'biginteger' }; });
    writeFileSync(join(models, 'content-types/extra.json'), JSON.stringify({
      kind: 'collectionType', collectionName: 'extras', info: { singularName: 'extra', pluralName: 'extras' },
      attributes: { label: { type: 'string' }, things: { type: 'relation', relation: 'manyWay', target: 'api::everything.everything' } },
    }));
    s = await startTestServer({ modelsDir: models, db });
    const cols = await columns(s, 'everythings');
    assert.equal(cols.nickname, 'text');
    assert.equal(cols.score, 'bigint');
    assert.deepEqual(await columns(s, 'extras'), { id: 'bigint', document_id: 'text', locale: 'text', published_at: 'timestamp with time zone', created_at: 'timestamp with time zone', updated_at: 'timestamp with time zone', doc_open: 'text', label: 'text' });
    assert.ok((await tables(s)).includes('extras_things_lnk'));
    const g = await s.fetchJson('GET', `/api/everythings/${doc}`);
    assert.equal(g.status, 200);
    assert.equal(g.body.data.summary, 'kept');
    assert.equal(g.body.data.quantity, 9);
    assert.equal(g.body.data.nickname, null);
    const u = await s.fetchJson('PUT', `/api/everythings/${doc}`, { data: { nickname: 'nick', score: '12345678901234' } }, TOKEN);
    assert.equal(u.status, 200, u.text);
    assert.equal(u.body.data.nickname, 'nick');
    const e = await s.fetchJson('POST', '/api/extras?populate=things', { data: { label: 'x', things: [doc] } }, TOKEN);
    assert.equal(e.status, 201, e.text);
    assert.equal(e.body.data.things[0].documentId, doc);
    // the same models again: nothing more to do
    assert.deepEqual(await syncSchema(s.sql(), loadModels(models, I18N), false), { created: [], added: [], dropped: [] });
  });

  test('removing an attribute is refused with a message naming the column; nothing is changed', async () => {
    await s!.stop({ keepData: true });
    s = null;
    const original = readFileSync(join(models, 'content-types/everything.json'), 'utf8');
    editModel(models, 'content-types/everything.json', (m) => { delete m.attributes.summary; m.attributes.added = { type: 'string' }; });
    const err = await startFails(db, models);
    assert.ok(err instanceof SchemaSyncError, String(err));
    assert.match(err.message, /alter table "everythings" drop column "summary"/);
    assert.match(err.message, /ALLOW_DESTRUCTIVE_SCHEMA=true/);
    assert.doesNotMatch(err.message, /"added"/, 'additions are not listed as losses');
    writeFileSync(join(models, 'content-types/everything.json'), original);
    s = await startTestServer({ modelsDir: models, db });
    const cols = await columns(s, 'everythings');
    assert.ok('summary' in cols, 'the column is still there');
    assert.ok(!('added' in cols), 'the refused sync applied nothing, not even its additive part');
    assert.equal((await s.fetchJson('GET', `/api/everythings/${doc}`)).body.data.summary, 'kept');
  });

  test('changing a type, removing a relation or a content-type is refused too', async () => {
    await s!.stop({ keepData: true });
    s = null;
    const everything = readFileSync(join(models, 'content-types/everything.json'), 'utf8');
    editModel(models, 'content-types/everything.json', (m) => { m.attributes.quantity = { type: 'string' }; });
    let err = await startFails(db, models);
    assert.ok(err instanceof SchemaSyncError);
    assert.match(err.message, /"everythings" drop column "quantity".*integer -> text/);
    writeFileSync(join(models, 'content-types/everything.json'), everything);

    editModel(models, 'content-types/everything.json', (m) => { delete m.attributes.followers; });
    err = await startFails(db, models);
    assert.ok(err instanceof SchemaSyncError);
    assert.match(err.message, /drop table "everythings_followers_lnk"/);
    writeFileSync(join(models, 'content-types/everything.json'), everything);

    const extra = readFileSync(join(models, 'content-types/extra.json'), 'utf8');
    rmSync(join(models, 'content-types/extra.json'));
    err = await startFails(db, models);
    assert.ok(err instanceof SchemaSyncError);
    assert.match(err.message, /drop table "extras"/);
    writeFileSync(join(models, 'content-types/extra.json'), extra);
  });

  test('with ALLOW_DESTRUCTIVE_SCHEMA=true the change is applied and the other data kept', async () => {
    editModel(models, 'content-types/everything.json', (m) => { delete m.attributes.summary; });
    s = await startTestServer({ modelsDir: models, db, env: { ALLOW_DESTRUCTIVE_SCHEMA: 'true' } });
    const cols = await columns(s, 'everythings');
    assert.ok(!('summary' in cols));
    const g = await s.fetchJson('GET', `/api/everythings/${doc}`);
    assert.equal(g.status, 200);
    assert.ok(!('summary' in g.body.data));
    assert.equal(g.body.data.nickname, 'nick');
    assert.equal(g.body.data.quantity, 9);
    // and the next start without the flag is a plain no-op
    await s.stop({ keepData: true });
    s = await startTestServer({ modelsDir: models, db });
    assert.deepEqual(await syncSchema(s.sql(), loadModels(models, I18N), false), { created: [], added: [], dropped: [] });
  });
});

describe('invalid models are refused, naming the file and the attribute', () => {
  let dir: string;
  before(() => { dir = copyModels(ALL_TYPES_MODELS); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Applies an edit to a fresh copy of the fixture, loads it, restores the file; returns the error. */
  function refused(file: string, edit: (m: Json) => void): ModelError {
    const p = join(dir, file);
    const original = readFileSync(p, 'utf8');
    editModel(dir, file, edit);
    try {
      loadModels(dir, I18N);
    } catch (e) {
      assert.ok(e instanceof ModelError, `expected a ModelError, got ${String(e)}`);
      return e;
    } finally {
      writeFileSync(p, original);
    }
    return assert.fail(`${file}: the edited model was accepted`);
  }

  const cases: Array<[string, string, (m: Json) => void, RegExp]> = [
    ['unknown attribute type', 'content-types/everything.json', (m) => { m.attributes.colour = { type: 'colour' }; }, /^content-types\/everything\.json: attribute "colour": unknown type "colour"$/],
    ['missing type', 'content-types/everything.json', (m) => { m.attributes.colour = { required: true }; }, /^content-types\/everything\.json: attribute "colour": "type" is missing$/],
    ['relation to an unknown content-type', 'content-types/everything.json', (m) => { m.attributes.boss = { type: 'relation', relation: 'manyToOne', target: 'api::nobody.nobody' }; }, /^content-types\/everything\.json: attribute "boss": .*"api::nobody\.nobody"/],
    ['unsupported relation kind', 'content-types/person.json', (m) => { m.attributes.pets = { type: 'relation', relation: 'morphToMany', target: 'api::label.label' }; }, /^content-types\/person\.json: attribute "pets": unsupported relation "morphToMany"$/],
    ['mappedBy naming no attribute of the target', 'content-types/person.json', (m) => { m.attributes.items.mappedBy = 'nothing'; }, /^content-types\/person\.json: attribute "items": mappedBy "nothing"/],
    ['unknown component', 'content-types/everything.json', (m) => { m.attributes.address.component = 'geo.nowhere'; }, /^content-types\/everything\.json: attribute "address": unknown component "geo\.nowhere"$/],
    ['unknown component in a dynamic zone', 'content-types/post.json', (m) => { m.attributes.sections.components.push('common.nope'); }, /^content-types\/post\.json: attribute "sections": unknown component "common\.nope"$/],
    ['enumeration without values', 'content-types/everything.json', (m) => { m.attributes.level.enum = []; }, /^content-types\/everything\.json: attribute "level": enumeration needs/],
    ['invalid regex', 'content-types/everything.json', (m) => { m.attributes.code.regex = '(['; }, /^content-types\/everything\.json: attribute "code": invalid regex/],
    ['non-numeric constraint', 'content-types/everything.json', (m) => { m.attributes.quantity.max = 'lots'; }, /^content-types\/everything\.json: attribute "quantity": "max" must be a number$/],
    ['reserved attribute name', 'content-types/label.json', (m) => { m.attributes.locale = { type: 'string' }; }, /^content-types\/label\.json: attribute "locale": this name is reserved$/],
    ['two attributes on one column', 'content-types/label.json', (m) => { m.attributes.shortName = { type: 'string' }; m.attributes.short_name = { type: 'string' }; }, /^content-types\/label\.json: attribute "short_name": its column name "short_name" collides/],
    ['bad attribute inside a component', 'components/geo/point.json', (m) => { m.attributes.alt = { type: 'altitude' }; }, /^components\/geo\/point\.json: attribute "alt": unknown type "altitude"$/],
    ['a component containing itself', 'components/geo/point.json', (m) => { m.attributes.inner = { type: 'component', component: 'geo.point' }; }, /geo\.point contains itself/],
    ['missing info.pluralName', 'content-types/label.json', (m) => { delete m.info.pluralName; }, /^content-types\/label\.json: info\.pluralName is missing or invalid$/],
  ];
  for (const [name, file, edit, message] of cases) {
    test(name, () => {
      const e = refused(file, edit);
      assert.match(e.message, message);
    });
  }

  test('a file that is not JSON', () => {
    const p = join(dir, 'content-types/label.json');
    const original = readFileSync(p, 'utf8');
    writeFileSync(p, '{ "kind": ');
    try {
      assert.throws(() => loadModels(dir, I18N), (e: Error) => e instanceof ModelError && /^content-types\/label\.json: not valid JSON/.test(e.message));
    } finally { writeFileSync(p, original); }
  });

  test('the server refuses to start on invalid models, before touching any data', async () => {
    editModel(dir, 'content-types/everything.json', (m) => { m.attributes.colour = { type: 'colour' }; });
    const dataDir = mkdtempSync(join(tmpdir(), 'fastrapi-invalid-'));
    try {
      await assert.rejects(
        startServer({ env: { DATA_DIR: dataDir, MODELS_DIR: dir, PORT: '0', WORKERS: '0', LOG_LEVEL: 'silent', ...(process.env.DATABASE_URL ? { DATABASE_URL: 'postgres://invalid.invalid:1/none' } : {}) }, argv: [] }),
        (e: Error) => e instanceof ModelError && e.message === 'content-types/everything.json: attribute "colour": unknown type "colour"',
      );
      assert.deepEqual(readdirSync(dataDir), [], 'no database was initialised');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      editModel(dir, 'content-types/everything.json', (m) => { delete m.attributes.colour; });
    }
  });

  test('the unmodified fixture and the demo models load', () => {
    const fixture = loadModels(dir, I18N);
    assert.deepEqual([...fixture.routes.keys()].sort(), ['everythings', 'labels', 'pages', 'people', 'posts', 'setting']);
    const demo = loadModels(DEMO_MODELS, I18N);
    assert.deepEqual([...demo.routes.keys()].sort(), ['about', 'articles', 'authors', 'categories', 'global', 'tags']);
    assert.ok(existsSync(join(DEMO_MODELS, 'content-types/article.json')));
  });
});

describe('attribute names that match internal column names', () => {
  test('an attribute named "position" is an ordinary optional integer', {
  }, async () => {
    const dir = copyModels(ALL_TYPES_MODELS);
    editModel(dir, 'content-types/label.json', (m) => { m.attributes.position = { type: 'integer' }; });
    const db = await createTestDatabase();
    let s: TestServer | null = null;
    try {
      s = await startTestServer({ modelsDir: dir, db });
      assert.equal((await columns(s, 'labels')).position, 'integer');
      const r = await s.fetchJson('POST', '/api/labels', { data: { name: 'no position' } }, TOKEN);
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.data.position, null);
      await s.stop({ keepData: true });
      s = await startTestServer({ modelsDir: dir, db });
    } finally {
      await s?.stop({ keepData: true }).catch(() => {});
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
