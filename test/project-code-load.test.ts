// Loading a Strapi project's code: TypeScript (compiled by tsx) and ES modules with `@strapi/strapi` and
// `@strapi/utils` imports (test/fixtures/project-code-ts), on the main thread and in worker threads;
// Strapi's error answers from project code (ctx helpers, ctx.throw, a thrown Error, a PolicyError, an
// unsupported strapi.*); a route using Strapi's own middlewares closed with 501 naming its file; and a
// project that cannot load (a file throwing, a handler, policy or middleware that does not exist) refusing
// to start, naming the file.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer, TOKEN, type TestServer, copyModels } from './helpers.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const TS_PROJECT = here('./fixtures/project-code-ts');

for (const workers of ['0', '1']) {
  describe(`a TypeScript project (WORKERS=${workers})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer({ modelsDir: TS_PROJECT, env: { WORKERS: workers } });
      for (const name of ['b', 'a', 'c']) assert.equal((await s.fetchJson('POST', '/api/tags', { data: { name } }, TOKEN)).status, 201);
    });
    after(async () => { await s?.stop(); });

    test('route middlewares from .ts files, a global one after next(), an ES module policy', async () => {
      const r = await s.fetchJson('GET', '/api/tags?sort=name:asc', undefined, null);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.data.map((t: Record<string, unknown>) => Object.keys(t)), [['id', 'documentId', 'name'], ['id', 'documentId', 'name'], ['id', 'documentId', 'name']]);
      assert.deepEqual(r.body.data.map((t: { name: string }) => t.name), ['a', 'b', 'c']);
      assert.equal(r.headers['x-after'], '200');
      if (workers === '0') assert.equal(r.headers['x-sql-statements'], '1');
      const denied = await s.fetchJson('GET', '/api/tags?deny=1', undefined, null);
      assert.equal(denied.status, 403);
      assert.deepEqual(denied.body.error, { status: 403, name: 'PolicyError', message: 'denied by an ES module', details: { esm: true } });
    });

    test('a custom route on strapi.documents, with a response header; its own permission when auth is on', async () => {
      const r = await s.fetchJson('GET', '/api/tags-hello/ada', undefined, null);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { hello: 'ada', count: 3, first: ['a'], user: null });
      assert.equal(r.headers['x-hello'], 'ada');
      assert.equal((await s.fetchJson('GET', '/api/tags-private', undefined, null)).status, 403, 'api::tag.tag.hello is not the public role\'s');
      assert.equal((await s.fetchJson('GET', '/api/tags-private', undefined, TOKEN)).status, 200);
    });

    test('errors from project code answer as Strapi', async () => {
      const crash = await s.fetchJson('GET', '/api/tags-crash', undefined, null);
      assert.equal(crash.status, 500);
      assert.deepEqual(crash.body.error, { status: 500, name: 'InternalServerError', message: 'Internal Server Error' });
      const teapot = await s.fetchJson('GET', '/api/tags-teapot', undefined, null);
      assert.equal(teapot.status, 418);
      assert.deepEqual(teapot.body, { data: null, error: { status: 418, name: 'ImATeapotError', message: "I'm a Teapot", details: {} } });
      const thrown = await s.fetchJson('GET', '/api/tags-teapot?details=1', undefined, null);
      assert.equal(thrown.status, 418);
      assert.deepEqual(thrown.body, { data: null, error: { status: 418, name: 'ImATeapotError', message: 'short and stout' } });
      const unsupported = await s.fetchJson('GET', '/api/tags-unsupported', undefined, null);
      assert.equal(unsupported.status, 500, 'knex\'s query builder (strapi.db.connection(table)) throws, naming itself (logged)');
    });

    test('a route whose middleware is Strapi\'s own is closed, naming the file', async () => {
      const r = await s.fetchJson('GET', `/api/tags/${'x'.repeat(24)}`, undefined, null);
      assert.equal(r.status, 501);
      assert.equal(r.body.error.name, 'NotImplementedError');
      assert.match(r.body.error.message, /src\/api\/tag\/routes\/tag\.ts: the middleware plugin::users-permissions\.rateLimit is Strapi's own/);
    });

    test('core actions without project code keep their path', async () => {
      const r = await s.fetchJson('POST', '/api/tags', { data: { name: 'd' } }, TOKEN);
      assert.equal(r.status, 201);
      assert.equal(r.body.data.name, 'd');
    });
  });
}

describe('a project that cannot load does not start', () => {
  const tmp: string[] = [];
  after(() => { for (const d of tmp) rmSync(d, { recursive: true, force: true }); });
  const variant = (files: Record<string, string>): string => {
    const dir = copyModels(TS_PROJECT, files);
    tmp.push(dir);
    return dir;
  };
  const refused = async (modelsDir: string, pattern: RegExp) => {
    await assert.rejects(startTestServer({ modelsDir }), (e: Error) => {
      assert.equal(e.constructor.name, 'ProjectLoadError');
      assert.match(e.message, pattern);
      return true;
    });
  };

  test('a file that throws while loading', async () => {
    await refused(here('./fixtures/project-code-broken'), /^src\/api\/tag\/middlewares\/broken\.js: Error: Cannot find module '\.\/missing-settings\.json'/);
  });
  test('a handler that does not exist', async () => {
    await refused(variant({ 'src/api/tag/routes/custom.ts': "export default { routes: [{ method: 'GET', path: '/x', handler: 'tag.nope' }] };" }),
      /src\/api\/tag\/routes\/custom\.ts: Handler not found "tag\.nope"/);
  });
  test('a route of the wrong shape (Strapi checks routes at start too)', async () => {
    await refused(variant({ 'src/api/tag/routes/custom.ts': "export default { routes: [{ method: 'get', path: '/x', handler: 'tag.hello' }] };" }),
      /src\/api\/tag\/routes\/custom\.ts: Invalid route config \/method/);
  });
  test('a policy or a middleware that does not exist', async () => {
    await refused(variant({ 'src/api/tag/routes/custom.ts': "export default { routes: [{ method: 'GET', path: '/x', handler: 'tag.hello', config: { policies: ['is-nobody'] } }] };" }),
      /src\/api\/tag\/routes\/custom\.ts: Policy is-nobody not found\./);
    await refused(variant({ 'src/api/tag/routes/custom.ts': "export default { routes: [{ method: 'GET', path: '/x', handler: 'tag.hello', config: { middlewares: ['api::tag.nothing'] } }] };" }),
      /src\/api\/tag\/routes\/custom\.ts: Middleware api::tag\.nothing not found\./);
  });
  test('a route path Strapi\'s router refuses (path-to-regexp 6), in its words', async () => {
    await refused(variant({ 'src/api/tag/routes/custom.ts': "export default { routes: [{ method: 'GET', path: '/x/:id(', handler: 'tag.hello' }] };" }),
      /src\/api\/tag\/routes\/custom\.ts: Error creating endpoint GET \/x\/:id\(: Unbalanced pattern at 6/);
  });
  test('a plugin\'s middleware in config/middlewares (it may be an access rule)', async () => {
    await refused(variant({ 'config/middlewares.ts': "export default ['strapi::errors', 'plugin::users-permissions.rateLimit', 'strapi::body'];" }),
      /^config\/middlewares\.ts: the global middleware plugin::users-permissions\.rateLimit is Strapi's own, which this server does not run/);
  });
  test('a TypeScript syntax error', async () => {
    await refused(variant({ 'src/api/tag/middlewares/names-only.ts': 'export default (config => {' }), /src\/api\/tag\/middlewares\/names-only\.ts: /);
  });
});

test('a plugin extension this server cannot run (graphql\'s replacing its bootstrap) has its routes closed, naming the file and member; users-permissions\' and upload\'s run; lifecycles run', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fastrapi-project-'));
  cpSync(TS_PROJECT, dir, { recursive: true });
  for (const plugin of ['users-permissions', 'upload', 'graphql']) {
    mkdirSync(join(dir, `src/extensions/${plugin}`), { recursive: true });
    writeFileSync(join(dir, `src/extensions/${plugin}/strapi-server.ts`), plugin === 'graphql'
      ? 'export default (plugin) => { plugin.bootstrap = async () => {}; return plugin; };'
      : 'export default (plugin) => plugin;');
  }
  writeFileSync(join(dir, 'src/index.ts'), 'export default { register() {}, async bootstrap() {} };');
  writeFileSync(join(dir, 'src/api/tag/content-types/tag/lifecycles.ts'), 'export default { beforeCreate(e: { params: { data: { name: string } } }) { e.params.data.name += " (hooked)"; } };');
  const s = await startTestServer({ modelsDir: dir });
  try {
    const r = await s.fetchJson('POST', '/graphql', { query: '{ __typename }' }, TOKEN);
    assert.equal(r.status, 501);
    assert.match(r.body.error.message, /src\/extensions\/graphql\/strapi-server\.ts: it replaces bootstrap of the graphql plugin, which this server does not run/);
    // users-permissions' and upload's extensions leave the plugins as they were: their routes answer natively.
    assert.equal((await s.fetchJson('GET', '/api/upload/files', undefined, TOKEN)).status, 200);
    assert.equal((await s.fetchJson('GET', '/api/users', undefined, TOKEN)).status, 200);
    assert.equal((await s.fetchJson('POST', '/api/auth/local', { identifier: 'x', password: 'y' }, null)).status, 400);
    assert.equal((await s.fetchJson('GET', '/api/tags', undefined, null)).status, 200);
    assert.equal((await s.fetchJson('GET', '/api/i18n/locales', undefined, TOKEN)).status, 200, 'other plugins answer');
    const made = await s.fetchJson('POST', '/api/tags', { data: { name: 'tag' } }, TOKEN);
    assert.equal(made.status, 201);
    assert.equal(made.body.data.name, 'tag (hooked)', 'a TypeScript lifecycles file runs');
  } finally { await s.stop(); rmSync(dir, { recursive: true, force: true }); }
});

test('a TypeScript global middleware from config/middlewares runs around core routes, project routes and GraphQL', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fastrapi-project-'));
  cpSync(TS_PROJECT, dir, { recursive: true });
  writeFileSync(join(dir, 'config/middlewares.ts'), "export default ['strapi::errors', 'strapi::query', 'strapi::body', 'global::timing'];");
  const s = await startTestServer({ modelsDir: dir });
  try {
    assert.equal((await s.fetchJson('POST', '/api/tags', { data: { name: 'a' } }, TOKEN)).headers['x-after'], '201');
    assert.equal((await s.fetchJson('GET', '/api/tags-hello/ada', undefined, null)).headers['x-after'], '200');
    assert.equal((await s.fetchJson('POST', '/graphql', { query: '{ __typename }' }, TOKEN)).headers['x-after'], '200');
    assert.equal((await s.fetchJson('GET', '/api/nothing', undefined, null)).headers['x-after'], '404');
  } finally { await s.stop(); rmSync(dir, { recursive: true, force: true }); }
});

test('PROJECT_CODE=false serves the project\'s models without its code', async () => {
  const s = await startTestServer({ modelsDir: TS_PROJECT, env: { PROJECT_CODE: 'false' } });
  try {
    assert.equal((await s.fetchJson('POST', '/api/tags', { data: { name: 'a' } }, TOKEN)).status, 201);
    const r = await s.fetchJson('GET', '/api/tags', undefined, null);
    assert.equal(r.status, 200);
    assert.ok('createdAt' in r.body.data[0], 'no middleware chose the fields');
    assert.equal((await s.fetchJson('GET', '/api/tags-hello/x', undefined, null)).status, 404);
  } finally { await s.stop(); }
});
