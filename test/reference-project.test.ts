// The reference Strapi project itself, laid out as ../shared/strapi-reference/setup.sh lays it out: its
// bootstrap() sets up its data through i18n's locales service and the admin's api-token and encryption services. This server runs that bootstrap as Strapi does, with no
// PUBLIC_PERMISSIONS or API_TOKENS of its own, so what the project grants is all a caller gets.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDecipheriv, createHash, createHmac } from 'node:crypto';
import { startTestServer, sameDatabaseNode, type TestServer } from './helpers.ts';
import { tempDir } from './temp-dir.ts';

// The reference project's config/ and src/index.js (../shared/strapi-reference/project), and the demo models
// (the conformance models).
const REFERENCE = fileURLToPath(new URL('./fixtures/reference-project', import.meta.url));
const MODELS = fileURLToPath(new URL('../models', import.meta.url));
const KEY = 'oracle-full-access-token-0123456789abcdef0123456789abcdef';

/** What setup.sh makes: the project's files, the models as schema.json files, core routers/controllers/services. */
function referenceProject(): string {
  const dir = tempDir('reference-project');
  cpSync(REFERENCE, dir, { recursive: true });
  cpSync(join(MODELS, 'components'), join(dir, 'src', 'components'), { recursive: true });
  for (const f of readdirSync(join(MODELS, 'content-types'))) {
    const n = basename(f, '.json');
    const api = join(dir, 'src', 'api', n);
    mkdirSync(join(api, 'content-types', n), { recursive: true });
    cpSync(join(MODELS, 'content-types', f), join(api, 'content-types', n, 'schema.json'));
    for (const [folder, kind] of [['controllers', 'Controller'], ['routes', 'Router'], ['services', 'Service']]) {
      mkdirSync(join(api, folder), { recursive: true });
      writeFileSync(join(api, folder, `${n}.js`), `'use strict';\nconst { factories } = require('@strapi/strapi');\nmodule.exports = factories.createCore${kind}('api::${n}.${n}');\n`);
    }
  }
  return dir;
}

// Only the project's own settings: no permissions or tokens given by this server's environment.
const env = { API_TOKENS: undefined, PUBLIC_PERMISSIONS: undefined, AUTHENTICATED_PERMISSIONS: undefined, ENCRYPTION_KEY: undefined, API_TOKEN_SALT: undefined };
let server: TestServer;
after(async () => { await server?.stop(); });

test('the reference project starts: its bootstrap adds fr, grants the public role reads and pins its full-access token', async () => {
  server = await startTestServer({ modelsDir: referenceProject(), env });
  const anon = await server.fetchJson('GET', '/api/articles', undefined, null);
  assert.equal(anon.status, 200, JSON.stringify(anon.body));
  // Only tags are writable by the project's roles; the token is full access.
  assert.equal((await server.fetchJson('POST', '/api/tags', { data: { name: 'anon' } }, null)).status, 403);
  const created = await server.fetchJson('POST', '/api/tags', { data: { name: 'by token' } }, KEY);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const fr = await server.fetchJson('GET', '/api/articles?locale=fr', undefined, null);
  assert.equal(fr.status, 200, JSON.stringify(fr.body));
  const locales = await server.fetchJson('GET', '/api/i18n/locales', undefined, KEY);
  assert.deepEqual(locales.body.map((l: { code: string }) => l.code), ['en', 'fr']);

  // The token row as Strapi's api-token service writes it: HMAC-SHA512 of the key with the project's salt,
  // and the key encrypted with sha256(admin.secrets.encryptionKey) (config/admin.js defaults).
  const [row] = await server.sql()`select kind, type, access_key, encrypted_key from strapi_api_tokens where name = 'oracle-full-access'`;
  assert.equal(row.kind, 'content-api');
  assert.equal(row.type, 'full-access');
  assert.equal(row.access_key, createHmac('sha512', 'oracle-api-token-salt').update(KEY).digest('hex'));
  const [v, iv, data, tag] = String(row.encrypted_key).split(':');
  assert.equal(v, 'v1');
  const d = createDecipheriv('aes-256-gcm', createHash('sha256').update('oracle-encryption-key-0123456789abcdef').digest(), Buffer.from(iv, 'hex'));
  d.setAuthTag(Buffer.from(tag, 'hex'));
  assert.equal(d.update(Buffer.from(data, 'hex'), undefined, 'utf8') + d.final('utf8'), KEY);
});

test('a second node on the same database runs the bootstrap again without adding anything', async () => {
  const again = await sameDatabaseNode(server, { MODELS_DIR: server.server.config.modelsDir, ...env });
  try {
    const [{ locales, tokens }] = await server.sql()`select (select count(*)::int from i18n_locale) as locales, (select count(*)::int from strapi_api_tokens) as tokens`;
    assert.deepEqual({ locales, tokens }, { locales: 2, tokens: 1 });
    assert.equal((await again.fetchJson('GET', '/api/tags', undefined, KEY)).status, 200);
  } finally { await again.stop({ keepData: true }); }
});
