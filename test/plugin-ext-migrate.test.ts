// Issue 28: extensions added to a project whose database this server already created. Started first
// without test/fixtures/plugin-data's src/extensions, then with them on the same database: the schema
// sync adds the extended plugin tables' columns, link tables and `_cmps` tables as it does for a model edit
// (appended, as Strapi's ALTER TABLE … ADD does), keeps the rows there were, and the reads serve the new
// attributes at once.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';

const project = fileURLToPath(new URL('./fixtures/plugin-data', import.meta.url));
const plain = mkdtempSync(join(tmpdir(), 'fastrapi-plain-'));
let s: TestServer | null = null;
after(async () => { await s?.stop(); rmSync(plain, { recursive: true, force: true }); });

test('extensions added later: their columns and tables are made on the existing database, its rows kept, and served; a deleted file takes its own media links along', async () => {
  cpSync(project, plain, { recursive: true, filter: (src) => !src.includes(`${join('src', 'extensions')}`) });
  const first = await startTestServer({ modelsDir: plain });
  const before = await first.fetchJson('GET', '/api/i18n/locales', undefined, TOKEN);
  assert.equal(before.status, 200, before.text);
  assert.equal(before.body[0].flag, undefined);
  const db = first.db;
  await first.stop({ keepData: true });

  s = await startTestServer({ modelsDir: project, db });
  const columns = async (table: string) => (await s!.sql()`select column_name from information_schema.columns
    where table_schema = 'public' and table_name = ${table} order by ordinal_position`).map((r) => r.column_name as string);
  assert.deepEqual((await columns('files')).slice(-2), ['credit', 'license']);
  assert.deepEqual((await columns('i18n_locale')).slice(-1), ['flag']);
  assert.deepEqual((await columns('up_permissions')).slice(-2), ['note', 'secret']);
  assert.deepEqual((await columns('upload_folders')).slice(-1), ['color']);
  const tables = (await s.sql()`select tablename from pg_tables where schemaname = 'public'`).map((r) => r.tablename as string);
  for (const t of ['files_team_lnk', 'files_cmps', 'i_18_n_locale_team_lnk', 'i18n_locale_cmps']) assert.ok(tables.includes(t), `${t} made`);

  const locales = await s.fetchJson('GET', '/api/i18n/locales', undefined, TOKEN);
  assert.equal(locales.status, 200, locales.text);
  assert.equal(locales.body[0].documentId, before.body[0].documentId, 'the row there was is kept');
  assert.equal(locales.body[0].flag, null);
  const files = await s.fetchJson('GET', '/api/upload/files?populate[team]=true&populate[info]=true&populate[extras]=true&populate[thumb]=true', undefined, TOKEN);
  assert.equal(files.status, 200, files.text);

  // A file deleted takes its own media fields' links along (they name it as the related row: no key cascades them).
  const made = await s.sql()`insert into files (document_id, name, hash, ext, mime, size, url, provider, created_at, updated_at, published_at)
    select 'doc' || g, 'f' || g || '.png', 'h' || g, '.png', 'image/png', 1, '/uploads/h' || g || '.png', 'local', now(), now(), now() from generate_series(1, 2) g returning id`;
  const [a, b] = made.map((r) => Number(r.id));
  await s.sql()`insert into files_related_mph (file_id, related_id, related_type, field, "order") values (${b}, ${a}, 'plugin::upload.file', 'thumb', 1)`;
  const del = await s.fetchJson('DELETE', `/api/upload/files/${a}`, undefined, TOKEN);
  assert.equal(del.status, 200, del.text);
  assert.deepEqual([...await s.sql()`select file_id from files_related_mph where related_type = 'plugin::upload.file' and related_id = ${a}`], []);
});

