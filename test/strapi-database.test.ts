// Serving a database that real Strapi 5.54 made: the blog dump (test/fixtures/strapi), models read from
// a Strapi project folder, Strapi's own API token salt and no permission variables. Every read request
// recorded against Strapi right after it was seeded must get the same answer here, and Strapi's schema
// must come out of our start-up untouched.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import postgres, { type Sql } from 'postgres';
import { startTestServer, type TestServer } from './helpers.ts';
import { createDumpDatabase, DUMP_TOKEN, DUMP_TOKEN_SALT } from './strapi-dump.ts';

const PROJECT = fileURLToPath(new URL('./fixtures/strapi/project', import.meta.url));
const CASES = fileURLToPath(new URL('./fixtures/strapi/read-cases.jsonl', import.meta.url));

/** A recorded request: a REST GET, or a GraphQL POST with its `body` (documentIds named by key in both). */
interface Case { seq: number; name: string; group: string; method: string; path: string; body?: unknown; auth: 'public' | 'token'; status: number; response: unknown; skip?: string }
const cases: Case[] = readFileSync(CASES, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Case);

const TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const TS_KEYS = new Set(['createdAt', 'updatedAt', 'publishedAt']);
const HASH = /_[0-9a-f]{10}$/;
const UPLOAD_URL = /_[0-9a-f]{10}(\.\w+)$/;

/** Our answer in the recording's terms: ids and timestamps masked, documentIds named by their keys. */
function normalize(v: unknown, keys: Map<string, string>, key = ''): unknown {
  if (Array.isArray(v)) return v.map((x) => normalize(x, keys, key));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalize(x, keys, k)]));
  if (typeof v === 'number' && key === 'id') return '<id>';
  if (typeof v !== 'string') return v;
  if (TS_KEYS.has(key) && TS.test(v)) return '<ts>';
  // The random part of upload hashes, as the recording masks it.
  if (key === 'hash' && HASH.test(v)) return v.replace(HASH, '_<hash>');
  if (key === 'url' && UPLOAD_URL.test(v)) return v.replace(UPLOAD_URL, '_<hash>$1');
  let out = v;
  for (const [id, k] of keys) if (out.includes(id)) out = out.split(id).join(k);
  return out;
}

/** Which recorded key names each documentId of the dump (the default locale names a document). */
async function documentKeys(s: TestServer): Promise<Map<string, string>> {
  const rows = await s.sql().unsafe<Array<{ id: string; key: string }>>(`
    (select distinct on (document_id) document_id as id, 'article:' || coalesce(slug, title) as key from articles order by document_id, (locale = 'en') desc)
    union all select distinct document_id, 'author:' || name from authors
    union all select distinct document_id, 'category:' || coalesce(slug, name) from categories
    union all select distinct document_id, 'tag:' || name from tags
    union all select distinct document_id, 'global:global' from globals
    union all select distinct document_id, 'about:about' from abouts
    union all select distinct document_id, 'file:' || name from files`);
  return new Map(rows.map((r) => [r.id, `@@${r.key}@@`]));
}

/** Strapi's tables as the catalog describes them: columns, constraints, indexes, sequences. */
async function strapiSchema(sql: Sql): Promise<string> {
  const rows = await sql.unsafe<Array<{ line: string }>>(`
    select format('col %s.%s %s %s %s', table_name, column_name, data_type, is_nullable, coalesce(column_default, '')) as line
      from information_schema.columns where table_schema = 'public'
    union all select format('con %s %s', conname, pg_get_constraintdef(oid)) from pg_constraint where connamespace = 'public'::regnamespace
    union all select format('idx %s', indexdef) from pg_indexes where schemaname = 'public'
    union all select format('trg %s', tgname) from pg_trigger t join pg_class c on c.oid = t.tgrelid
      where c.relnamespace = 'public'::regnamespace and not t.tgisinternal
    union all select format('seq %s', sequence_name) from information_schema.sequences where sequence_schema = 'public'
    order by 1`);
  return rows.map((r) => r.line).join('\n');
}

let s: TestServer;
let schemaBefore: string;

before(async () => {
  const db = await createDumpDatabase(async (url) => {
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try { schemaBefore = await strapiSchema(sql); } finally { await sql.end({ timeout: 5 }); }
  });
  s = await startTestServer({
    db, modelsDir: PROJECT,
    // GraphQL as the recording Strapi's config/plugins.js set it (v5 shape, defaultLimit 25, maxLimit 100).
    env: {
      API_TOKEN_SALT: DUMP_TOKEN_SALT, API_TOKENS: undefined, PUBLIC_PERMISSIONS: undefined, AUTHENTICATED_PERMISSIONS: undefined,
      GRAPHQL_SHAPE: 'v5', GRAPHQL_DEFAULT_LIMIT: '25', GRAPHQL_MAX_LIMIT: '100',
    },
  });
});

after(async () => { await s?.stop(); });

test('start-up changed nothing in Strapi\'s tables (no column, index, constraint or trigger)', async () => {
  assert.equal(await strapiSchema(s.sql()), schemaBefore);
  assert.match(schemaBefore, /con articles_author_lnk_fk FOREIGN KEY \(article_id\) REFERENCES articles\(id\) ON DELETE CASCADE/);
  assert.doesNotMatch(schemaBefore, /^trg /m, 'no trigger on Strapi\'s tables');
  assert.doesNotMatch(schemaBefore, /doc_open|record_json|__json/, 'none of the old layout\'s derived columns');
});

test('every read recorded against Strapi right after seeding gets the same answer', async () => {
  const keys = await documentKeys(s);
  const failures: string[] = [];
  for (const c of cases) {
    let path = c.path;
    let body = c.body === undefined ? undefined : JSON.stringify(c.body);
    for (const [id, key] of keys) { path = path.split(key).join(id); body = body?.split(key).join(id); }
    const res = await s.fetchJson(c.method, path, body === undefined ? undefined : JSON.parse(body), c.auth === 'token' ? DUMP_TOKEN : null);
    // A case marked `skip` records a Strapi defect (a 500) that is not copied: only no 5xx counts.
    if (c.skip) {
      if (res.status >= 500) failures.push(`#${c.seq} ${c.name}: ${res.status}`);
      continue;
    }
    const got = { status: res.status, body: normalize(res.body, keys) };
    const want = { status: c.status, body: c.response };
    // As JSON text: key order is part of the answer (deepStrictEqual alone passes over it).
    try { assert.equal(JSON.stringify(got), JSON.stringify(want)); } catch {
      failures.push(`#${c.seq} ${c.name}: ${c.method} ${c.path}`);
      if (process.env.SHOW_DIFF) console.log(JSON.stringify(got).slice(0, 3000), '\n', JSON.stringify(want).slice(0, 3000));
    }
  }
  assert.deepEqual(failures, [], `${failures.length} of ${cases.length} recorded reads differ`);
});

test('anonymous callers get what Strapi\'s public role grants, and no more', async () => {
  const list = await s.fetchJson('GET', '/api/tags');
  assert.equal(list.status, 200);
  // The public role has find/findOne only: creating needs a permission it does not have.
  const create = await s.fetchJson('POST', '/api/tags', { data: { name: 'anonymous' } });
  assert.equal(create.status, 403);
  const bad = await s.fetchJson('GET', '/api/tags', undefined, 'not-a-token');
  assert.equal(bad.status, 401);
});

test('the Strapi-made full-access token (hashed with API_TOKEN_SALT) reads drafts', async () => {
  const res = await s.fetchJson('GET', '/api/articles?status=draft&pagination[pageSize]=1&pagination[withCount]=true', undefined, DUMP_TOKEN);
  assert.equal(res.status, 200);
  assert.equal(res.body.meta.pagination.total, 40);
});

test('the schema is still the dump\'s after every read above', async () => {
  assert.equal(await strapiSchema(s.sql()), schemaBefore);
});

test('a non-localized type reaches its localized relations in every locale, as Strapi answers', async () => {
  const [ada] = await s.sql()<Array<{ document_id: string; n: number; fr: number }>>`
    select au.document_id, count(*)::int as n, count(*) filter (where a.locale = 'fr')::int as fr
    from authors au join articles_author_lnk l on l.author_id = au.id join articles a on a.id = l.article_id
    where au.name = 'Ada Lovelace' and a.published_at is not null group by au.document_id`;
  assert.ok(ada.fr > 0, 'the dump links Ada Lovelace to published fr articles');
  for (const query of ['', '&locale=fr']) {
    const res = await s.fetchJson('GET', `/api/authors/${ada.document_id}?populate[articles][fields][0]=locale${query}`);
    assert.equal(res.status, 200, res.text);
    const locales = (res.body.data.articles as Array<{ locale: string }>).map((a) => a.locale);
    assert.equal(locales.length, ada.n, `every published article linked to her${query}`);
    assert.equal(locales.filter((l) => l === 'fr').length, ada.fr);
  }
});
