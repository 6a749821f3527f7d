// A Strapi project's configuration (test/fixtures/project-config): its `.env` and `config/*` files read as
// Strapi reads them (function and object forms, config/env/<NODE_ENV> merged over), mapped onto this
// server's settings under the environment; what has no meaning here named, never fatal; and the locales
// of `i18n_locale` used when none are configured.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { readProjectConfig } from '../src/project/config-files.ts';
import { rmSync } from 'node:fs';
import { startTestServer, createTestDatabase, copyModels, TOKEN, type TestServer } from './helpers.ts';
import { tempDir } from './temp-dir.ts';

const PROJECT = fileURLToPath(new URL('./fixtures/project-config', import.meta.url));

describe('the project\'s config files, read', () => {
  test('each file mapped; .env fills what the environment lacks; unknown keys named', async () => {
    const env: Record<string, string | undefined> = { NOTES_PAGE: '4' };
    const p = await readProjectConfig(PROJECT, env);
    assert.ok(p);
    // .env: the variable already set stays; the others are added.
    assert.equal(env.NOTES_PAGE, '4');
    assert.equal(env.HOOK_SECRET, 's3cret');
    assert.deepEqual(p.fromEnvFile.sort(), ['API_TOKEN_SALT', 'HOOK_SECRET']);
    assert.deepEqual(p.overrides.api, { rest: { defaultLimit: 4, maxLimit: 5, withCount: true } });
    assert.equal(p.overrides.auth?.apiTokenSalt, 'salt-from-the-project-env');
    assert.equal(p.overrides.auth?.jwtSecret, 'a-project-jwt-secret-0123456789');
    assert.equal(p.overrides.auth?.jwtExpiresIn, '7d');
    assert.deepEqual(p.overrides.webhooks, { defaultHeaders: { 'X-Hook-Secret': 's3cret' } });
    assert.equal(p.overrides.host, '0.0.0.0');
    assert.equal(p.overrides.port, 1337);
    assert.deepEqual(p.overrides.graphql, { shape: 'v5', v4CompatibilityMode: false, defaultLimit: 10, endpoint: '/gql', shadowCRUD: true, depthLimit: 4, maxLimit: 7, introspection: false });
    assert.equal(p.overrides.http?.cors?.enabled, true);
    assert.deepEqual(p.overrides.http?.cors?.origin, ['https://site.example', 'https://admin.example']);
    assert.deepEqual(p.overrides.http?.cors?.headers, ['Content-Type', 'Authorization', 'X-Custom']);
    // strapi::security is not in the project's list: Strapi sends none of its headers.
    assert.equal(p.overrides.http?.security?.enabled, false);
    assert.equal(p.overrides.http?.maxBodySize, 2048);
    assert.equal(p.overrides.databaseUrl, undefined);
    assert.deepEqual(p.ignored.sort(), [
      'config/api: prefix',
      'config/database: client sqlite (this server needs PostgreSQL: DATABASE_URL)',
      'config/plugins: seo',
    ]);
  });

  test('config/api.js rest.strictParams is api.rest.strictParams, documents.strictParams and strictRelations api.documents.*', async () => {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const dir = tempDir('fastrapi-strict-');
    mkdirSync(join(dir, 'config'));
    mkdirSync(join(dir, 'src', 'api'), { recursive: true });
    writeFileSync(join(dir, 'config', 'api.js'), 'module.exports = { rest: { strictParams: true, defaultLimit: 10 }, documents: { strictParams: true, strictRelations: true } };');
    const p = await readProjectConfig(dir, {});
    assert.deepEqual(p?.overrides.api, { rest: { strictParams: true, defaultLimit: 10 }, documents: { strictParams: true, strictRelations: true } });
    assert.deepEqual(p?.ignored, []);
  });

  test('config/env/<NODE_ENV>/ merged over config/', async () => {
    const p = await readProjectConfig(PROJECT, { NODE_ENV: 'production' });
    assert.deepEqual(p?.overrides.api, { rest: { defaultLimit: 3, maxLimit: 4, withCount: true } });
  });

  test('v4CompatibilityMode keeps Strapi 5\'s flat shape (Strapi 5.54 only adds deprecated fields with it); off by default, or as STRAPI_GRAPHQL_V4_COMPATIBILITY_MODE says', async () => {
    for (const mode of [true, false]) {
      const dir = copyModels(PROJECT, { 'config/plugins.js': `module.exports = { graphql: { config: { v4CompatibilityMode: ${mode}, defaultLimit: 3 } } };` });
      try {
        const p = await readProjectConfig(dir, { STRAPI_GRAPHQL_V4_COMPATIBILITY_MODE: String(!mode) });
        assert.equal(p?.overrides.graphql?.shape, 'v5');
        assert.equal(p?.overrides.graphql?.v4CompatibilityMode, mode);
        assert.equal(p?.overrides.graphql?.defaultLimit, 3);
      } finally { rmSync(dir, { recursive: true, force: true }); }
    }
    // Unset in the file: the plugin's default reads the variable for truthiness (any non-empty value, "false" too).
    for (const [value, mode] of [[undefined, false], ['', false], ['true', true], ['false', true]] as const) {
      const p = await readProjectConfig(PROJECT, value === undefined ? {} : { STRAPI_GRAPHQL_V4_COMPATIBILITY_MODE: value });
      assert.equal(p?.overrides.graphql?.v4CompatibilityMode, mode, `variable ${value}`);
    }
  });

  test('upload security and breakpoints from config/plugins; a security list of anything but strings stops the start', async () => {
    const plugins = (upload: string) => copyModels(PROJECT, { 'config/plugins.js': `module.exports = { upload: { config: ${upload} } };` });
    const dir = plugins(`{ security: { allowedTypes: ['image/*'], deniedTypes: ['image/svg+xml'] }, breakpoints: { xl: 1920, sm: 320 } }`);
    try {
      const p = await readProjectConfig(dir, {});
      assert.deepEqual(p?.overrides.upload, { security: { allowedTypes: ['image/*'], deniedTypes: ['image/svg+xml'] }, breakpoints: { xl: 1920, sm: 320 } });
    } finally { rmSync(dir, { recursive: true, force: true }); }
    const bad = plugins(`{ security: { allowedTypes: 'image/*' } }`);
    try {
      await assert.rejects(readProjectConfig(bad, {}), /upload\.security\.allowedTypes must be an array of strings/);
    } finally { rmSync(bad, { recursive: true, force: true }); }
  });

  test('a models folder without config/ has none', async () => {
    assert.equal(await readProjectConfig(fileURLToPath(new URL('./fixtures/project-code', import.meta.url)), {}), null);
  });

  test('a PostgreSQL connection of config/database becomes the database', async () => {
    const { cpSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const dir = tempDir('fastrapi-project-config-');
    cpSync(PROJECT, dir, { recursive: true });
    writeFileSync(join(dir, 'config', 'database.js'), `module.exports = ({ env }) => ({ connection: { client: 'postgres', connection: {
      host: env('DATABASE_HOST', 'db.example'), port: env.int('DATABASE_PORT', 5433), database: env('DATABASE_NAME', 'cms'),
      user: env('DATABASE_USERNAME', 'strapi'), password: env('DATABASE_PASSWORD', 'p@ss'), ssl: env.bool('DATABASE_SSL', false) } } });`);
    const p = await readProjectConfig(dir, {});
    assert.equal(p?.overrides.databaseUrl, 'postgres://strapi:p%40ss@db.example:5433/cms');
    // A host starting with `/` is a Unix-socket directory, as Strapi's pg client reads it.
    const socket = await readProjectConfig(dir, { DATABASE_HOST: '/var/run/postgresql' });
    assert.equal(socket?.overrides.databaseUrl, 'postgres://strapi:p%40ss@localhost:5433/cms?host=%2Fvar%2Frun%2Fpostgresql');
  });
});

describe('a server on the project', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ modelsDir: PROJECT });
    for (let i = 1; i <= 9; i++) assert.equal((await s.fetchJson('POST', '/api/notes', { data: { title: `n${i}` } }, TOKEN)).status, 201);
  });
  after(async () => { await s?.stop(); });

  test('the environment still wins over the files (PORT, HOST of the test)', () => {
    assert.equal(s.server.config.host, '127.0.0.1');
    assert.notEqual(s.server.config.port, 1337);
    assert.equal(s.server.config.auth.apiTokenSalt, 'salt-from-the-project-env');
    assert.deepEqual(s.server.config.webhooks.defaultHeaders, { 'X-Hook-Secret': 's3cret' });
  });

  test('REST pages as config/api says', async () => {
    const r = await s.fetchJson('GET', '/api/notes');
    assert.equal(r.status, 200);
    assert.equal(r.body.data.length, 3);
    assert.deepEqual(r.body.meta.pagination, { page: 1, pageSize: 3, pageCount: 3, total: 9 });
    const big = await s.fetchJson('GET', '/api/notes?pagination[pageSize]=50');
    assert.equal(big.body.data.length, 5);
  });

  test('GraphQL at the project\'s endpoint, flat shape, its page sizes, no introspection', async () => {
    const q = (query: string) => s.fetchJson('POST', '/gql', { query });
    const r = await q('{ notes { documentId title } }');
    assert.equal(r.status, 200, r.text);
    // The plugin's default page of 10, clamped to its maxLimit of 7 (as @strapi/utils' pagination).
    assert.equal(r.body.data.notes.length, 7);
    assert.equal((await q('{ notes(pagination: { pageSize: 2 }) { title } }')).body.data.notes.length, 2);
    assert.equal((await q('{ notes(pagination: { pageSize: 100 }) { title } }')).body.data.notes.length, 7);
    // Without v4CompatibilityMode (the project leaves it unset), its deprecated fields are not in the schema:
    // refused before anything runs, with Strapi 5.54's messages (recorded live, Strapi's GraphQL test suites).
    for (const [query, message] of [
      ['{ notes { data { attributes { title } } } }', 'Cannot query field "data" on type "Note".'],
      ['{ notes { id title } }', 'Cannot query field "id" on type "Note".'],
      ['{ notes_connection { nodes { title } meta { pagination { total } } } }', 'Cannot query field "meta" on type "NoteEntityResponseCollection".'],
      ['mutation { createNote(data: { title: "x" }) { attributes { title } } }', 'Cannot query field "attributes" on type "Note".'],
    ]) {
      const refused = await s.fetchJson('POST', '/gql', { query }, TOKEN);
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.body.errors[0].message, message);
      assert.equal(refused.body.errors[0].extensions.code, 'GRAPHQL_VALIDATION_FAILED');
    }
    assert.equal((await s.fetchJson('GET', '/api/notes?filters[title][$eq]=x')).body.data.length, 0, 'the refused mutation wrote nothing');
    const intro = await q('{ __schema { types { name } } }');
    assert.match(JSON.stringify(intro.body.errors), /introspection is not allowed/);
    assert.equal((await s.fetchJson('POST', '/graphql', { query: '{ notes { title } }' })).status, 404);
  });

  test('CORS from strapi::cors, the body limit from strapi::body', async () => {
    const pre = (origin: string) => s.fetchJson('OPTIONS', '/api/notes', undefined, null, { origin, 'access-control-request-method': 'GET' });
    const ok = await pre('https://admin.example');
    assert.equal(ok.headers['access-control-allow-origin'], 'https://admin.example');
    assert.match(ok.headers['access-control-allow-headers'] ?? '', /X-Custom/);
    assert.equal((await pre('https://evil.example')).headers['access-control-allow-origin'], undefined);
    const big = await s.fetchJson('POST', '/api/notes', { data: { title: 'x'.repeat(3000) } }, TOKEN);
    assert.equal(big.status, 413);
  });
});

describe('locales from i18n_locale', () => {
  test('without LOCALES the database\'s locales and default are used', async () => {
    const db = await createTestDatabase();
    const first = await startTestServer({ db, modelsDir: PROJECT, env: { LOCALES: 'en,de,it', DEFAULT_LOCALE: 'de' } });
    await first.stop({ keepData: true });
    const s = await startTestServer({ db, modelsDir: PROJECT });
    try {
      assert.deepEqual(s.server.config.i18n, { locales: ['de', 'en', 'it'], defaultLocale: 'de' });
      const made = await s.fetchJson('POST', '/api/notes', { data: { title: 'hallo' } }, TOKEN);
      assert.equal(made.status, 201);
      assert.equal(made.body.data.locale, 'de');
      assert.equal((await s.fetchJson('POST', '/api/notes?locale=it', { data: { title: 'ciao' } }, TOKEN)).status, 201);
      // fr is only in this server's default list: not a locale of this database (which Strapi 5.54 still
      // writes when asked, checked live: locales decide defaults and lists, not what a write may name).
      const locales = await s.fetchJson('GET', '/api/i18n/locales', undefined, TOKEN);
      assert.deepEqual(locales.body.map((l: { code: string }) => l.code).sort(), ['de', 'en', 'it']);
    } finally { await s.stop(); }
  });
});
