// A Strapi project's src/index and global middlewares (test/fixtures/project-code-boot): register() filling
// the GraphQL extension service, bootstrap() seeding a row — once per node, with two worker threads —, and
// the project's own config/middlewares entries around REST and GraphQL, against what a live Strapi 5.54
// running the same files answered (test/fixtures/project-code-boot-cases); and what only this server can
// show: headers set by global middlewares, projects whose src/index or config/middlewares cannot run.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordedSuite } from './recorded.ts';
import { startTestServer, TOKEN, copyModels } from './helpers.ts';
import { STEPS } from './fixtures/project-code-boot-cases/steps.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const PROJECT = here('./fixtures/project-code-boot');
const server = recordedSuite('project-code-boot', PROJECT, here('./fixtures/project-code-boot-cases'), STEPS,
  { WORKERS: '2', AUTHENTICATED_PERMISSIONS: '*:find,findOne;tag:create,update,delete' });

test('global middlewares set headers on every answer: REST, GraphQL, a 404, a refusal', async () => {
  const rest = await server().fetchJson('GET', '/api/tags', undefined, null);
  assert.equal(rest.status, 200);
  assert.equal(rest.headers['x-stamp'], 'stamped 200');
  const gql = await server().fetchJson('POST', '/graphql', { query: '{ bootTags }' }, null);
  assert.equal(gql.status, 200);
  assert.deepEqual(gql.body, { data: { bootTags: ['boot-seeded'] } });
  assert.equal(gql.headers['x-stamp'], 'stamped 200');
  const missing = await server().fetchJson('GET', '/api/nothing', undefined, null);
  assert.equal(missing.headers['x-stamp'], 'stamped 404');
  const helper = await server().fetchJson('GET', '/api/tags', undefined, null, { 'x-block': 'helper' });
  assert.equal(helper.status, 403);
  assert.equal(helper.headers['x-stamp'], undefined, 'the gate answered before stamp ran');
});

test('a middleware that sets ctx.query before routing still runs one statement', async () => {
  const r = await server().fetchJson('GET', '/api/articles?fields[0]=title', undefined, null, { 'x-sort-default': 'title:desc' });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body.data.map((a: { title: string }) => a.title), ['Second article', 'First article']);
  assert.equal(r.headers['x-sql-statements'], '1');
});

describe('a project whose src/index or config/middlewares cannot run does not start', () => {
  const tmp: string[] = [];
  after(() => { for (const d of tmp) rmSync(d, { recursive: true, force: true }); });
  const variant = (files: Record<string, string>): string => {
    const dir = copyModels(PROJECT, files);
    tmp.push(dir);
    return dir;
  };
  const refused = async (files: Record<string, string>, pattern: RegExp) => {
    await assert.rejects(startTestServer({ modelsDir: variant(files) }), (e: Error) => {
      assert.equal(e.constructor.name, 'ProjectLoadError');
      assert.match(e.message, pattern);
      return true;
    });
  };
  const index = (body: string) => ({ 'src/index.js': `module.exports = { ${body} };` });

  test('register() throws', () => refused(index("register() { throw new Error('no register today'); }"), /^src\/index\.js: register\(\) failed: Error: no register today/));
  test('bootstrap() rejects', () => refused(index("async bootstrap() { await null; throw new Error('no bootstrap today'); }"), /^src\/index\.js: bootstrap\(\) failed: Error: no bootstrap today/));
  test('the database in register() (not ready there, as in Strapi)', () =>
    refused(index("register({ strapi }) { strapi.documents('api::tag.tag').findMany(); }"), /src\/index\.js: register\(\) failed: Error: the database is not ready while register\(\) runs/));
  test('what strapi does not support names itself', async () => {
    await refused(index("async bootstrap({ strapi }) { await strapi.db.transaction(); }"), /src\/index\.js: bootstrap\(\) failed: TypeError: strapi\.db\.transaction\(\) without a callback \(a knex transaction to pass around\) is not supported by this server/);
    await refused(index("register({ strapi }) { strapi.documents.use('not a function'); }"), /src\/index\.js: register\(\) failed: TypeError: strapi\.documents\.use: a middleware must be a function/);
    await refused(index("register({ strapi }) { strapi.plugin('upload').service('upload'); }"), /strapi\.plugin\('upload'\) is not supported by this server/);
    await refused(index("register({ strapi }) { strapi.plugin('i18n').service('content-types'); }"), /strapi\.plugin\('i18n'\)\.service\('content-types'\) is not supported by this server/);
    // i18n's locales service is there in register(), its database is not (as in Strapi).
    await refused(index("async register({ strapi }) { await strapi.plugin('i18n').service('locales').find(); }"), /src\/index\.js: register\(\) failed: Error: the database is not ready while register\(\) runs/);
    await refused(index("async bootstrap({ strapi }) { await strapi.service('plugin::users-permissions.role').find(); }"), /strapi\.service\('plugin::users-permissions\.role'\) is not supported by this server/);
    await refused(index("register({ strapi }) { strapi.plugin('graphql').service('extension').shadowCRUD('api::tag.tag'); strapi.plugin('graphql').service('content-api'); }"), /strapi\.plugin\('graphql'\)\.service\('content-api'\) is not supported by this server/);
  });
  test('a global middleware that does not exist, or is a plugin\'s', async () => {
    await refused({ 'config/middlewares.js': "module.exports = ['strapi::errors', 'global::nothing', 'strapi::body'];" }, /^config\/middlewares\.js: Middleware global::nothing not found\./);
    await refused({ 'config/middlewares.js': "module.exports = ['strapi::errors', 'plugin::users-permissions.rateLimit'];" }, /^config\/middlewares\.js: the global middleware plugin::users-permissions\.rateLimit is Strapi's own/);
  });
});

test('without worker threads: bootstrap once, register once in the thread that serves', async () => {
  // src/index's module state, shared with this process's server: the main thread runs register() once, then bootstrap().
  const { default: index } = await import(join(PROJECT, 'src/index.js')) as { default: { booted: string[] } };
  const before = index.booted.length;
  const s = await startTestServer({ modelsDir: PROJECT, env: { WORKERS: '0' } });
  try {
    assert.deepEqual(index.booted.slice(before), ['register', 'bootstrap']);
    const r = await s.fetchJson('GET', '/api/tags?fields[0]=name', undefined, TOKEN);
    assert.deepEqual(r.body.data.map((t: { name: string }) => t.name), ['boot-seeded']);
    const g = await s.fetchJson('POST', '/graphql', { query: '{ articleTitles }' }, null);
    assert.deepEqual(g.body, { data: { articleTitles: [] } });
  } finally { await s.stop(); }
});
