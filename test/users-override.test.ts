// Issue 28: users-permissions overridden by a project's src/extensions/users-permissions/strapi-server.js
// (test/fixtures/users-override/strapi-server.js on the users-ext project), replayed against what a live
// Strapi 5.54 answered on the same files (fixture cases.jsonl, steps.ts, recorded by record.ts); then what
// this server cannot honour (a replaced service: 501 naming the file) and files that cannot run (refused).
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { recordedSuite } from './recorded.ts';
import { copyModels, startTestServer, TOKEN } from './helpers.ts';
import { STEPS } from './fixtures/users-override/steps.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const USERS_EXT = here('./fixtures/users-ext');
const SERVER_FILE = 'src/extensions/users-permissions/strapi-server.js';
const tmp: string[] = [];
const variant = (text: string, file = SERVER_FILE): string => { const dir = copyModels(USERS_EXT, { [file]: text }); tmp.push(dir); return dir; };
after(() => { for (const d of tmp) rmSync(d, { recursive: true, force: true }); });

const server = recordedSuite('users-override', variant(readFileSync(here('./fixtures/users-override/strapi-server.js'), 'utf8')), here('./fixtures/users-override'), STEPS);

test('untouched built-in routes keep the native path (no project code runs: the response cache may keep them)', async () => {
  const s = server();
  // The native /users answers; one statement (a project route's ctx and user read would add more).
  const r = await s.fetchJson('GET', '/api/users?fields[0]=username', undefined, TOKEN);
  assert.equal(r.status, 200);
  assert.equal(r.headers['x-sql-statements'], '1');
});

describe('what the server cannot honour, and files that cannot run', () => {
  const refused = async (modelsDir: string, pattern: RegExp) => {
    await assert.rejects(startTestServer({ modelsDir }), (e: Error) => {
      assert.equal(e.constructor.name, 'ProjectLoadError');
      assert.match(e.message, pattern);
      return true;
    });
  };

  test('a strapi-server that throws when loaded, or when run, stops the start naming the file', async () => {
    await refused(variant("throw new Error('broken on purpose');"), /^src\/extensions\/users-permissions\/strapi-server\.js: Error: broken on purpose/);
    await refused(variant("module.exports = async (plugin) => { plugin.controllers.nope.x = 1; return plugin; };"), /^src\/extensions\/users-permissions\/strapi-server\.js: TypeError: Cannot set properties of undefined/);
  });

  test('a handler the plugin has not, a change to contentTypes or config: refused, naming the file', async () => {
    await refused(variant("module.exports = (plugin) => { plugin.controllers.auth.lost = async (ctx) => { ctx.body = 1; }; plugin.routes['content-api'].routes.push({ method: 'GET', path: '/lost', handler: 'auth.lost' }); return plugin; };"),
      /strapi-server\.js: Handler not found "auth\.lost"/);
    await refused(variant("module.exports = (plugin) => { plugin.contentTypes.user.schema.attributes.nick = { type: 'string' }; return plugin; };"), /strapi-server\.js: changes plugin\.contentTypes/);
    await refused(variant("module.exports = (plugin) => { plugin.config.jwt.expiresIn = '1d'; return plugin; };"), /strapi-server\.js: changes plugin\.config/);
  });

  test('a replaced service closes the routes of the plugin\'s own actions with 501, naming the file; the project\'s actions still run', async () => {
    const dir = variant(`export default async function (plugin) {
      const user = plugin.services.user;
      plugin.services.user = ({ strapi }) => ({ ...user({ strapi }), add: async () => null });
      plugin.controllers.user.ping = async (ctx) => { ctx.body = { pong: true }; };
      plugin.routes['content-api'].routes.push({ method: 'GET', path: '/users-ping', handler: 'user.ping', config: { prefix: '', auth: false } });
      return plugin;
    }`, 'src/extensions/users-permissions/strapi-server.mjs');
    const s = await startTestServer({ modelsDir: dir });
    try {
      for (const [method, path] of [['POST', '/api/auth/local/register'], ['GET', '/api/users'], ['GET', '/api/users-permissions/roles']]) {
        const r = await s.fetchJson(method, path, method === 'POST' ? { username: 'x', email: 'x@x.io', password: 'secret1' } : undefined, method === 'POST' ? null : TOKEN);
        assert.equal(r.status, 501, path);
        assert.equal(r.body.error.name, 'NotImplementedError');
        assert.match(r.body.error.message, /src\/extensions\/users-permissions\/strapi-server\.mjs: it replaces the plugin's service user/);
      }
      assert.deepEqual((await s.fetchJson('GET', '/api/users-ping', undefined, null)).body, { pong: true });
    } finally { await s.stop(); }
  });

  test('an extension removing a route: Strapi\'s router answers 404/405 there, the others stay', async () => {
    const dir = variant(`module.exports = (plugin) => {
      plugin.routes['content-api'].routes = plugin.routes['content-api'].routes.filter((r) => r.handler !== 'user.find');
      return plugin;
    };`);
    const s = await startTestServer({ modelsDir: dir });
    try {
      assert.equal((await s.fetchJson('GET', '/api/users', undefined, TOKEN)).status, 404);
      assert.equal((await s.fetchJson('GET', '/api/users/count', undefined, TOKEN)).status, 200);
    } finally { await s.stop(); }
  });
});

test('GraphQL\'s login runs natively unless the extension replaced auth.callback: then 501 naming the file (Strapi\'s mutation would run it)', async () => {
  const keep = await startTestServer({ modelsDir: variant(readFileSync(here('./fixtures/users-override/strapi-server.js'), 'utf8')), env: { GRAPHQL_SHAPE: 'v5' } });
  const replaced = await startTestServer({ modelsDir: variant(`module.exports = (plugin) => {
    const auth = plugin.controllers.auth;
    plugin.controllers.auth = ({ strapi }) => ({ ...auth({ strapi }), async callback(ctx) { ctx.body = { mine: true }; } });
    return plugin;
  };`), env: { GRAPHQL_SHAPE: 'v5' } });
  try {
    const register = 'mutation { register(input: { username: "gqq", email: "gq@x.io", password: "secret1" }) { user { username } } }';
    const login = 'mutation { login(input: { identifier: "gqq", password: "secret1" }) { user { username } } }';
    for (const s of [keep, replaced]) assert.equal((await s.fetchJson('POST', '/graphql', { query: register })).body.data?.register?.user?.username, 'gqq');
    assert.equal((await keep.fetchJson('POST', '/graphql', { query: login })).body.data?.login?.user?.username, 'gqq');
    const r = await replaced.fetchJson('POST', '/graphql', { query: login });
    assert.equal(r.body.data, null);
    assert.match(JSON.stringify(r.body.errors), /strapi-server\.js: it replaces auth\.callback/);
    // REST runs the replacement.
    assert.deepEqual((await replaced.fetchJson('POST', '/api/auth/local', { identifier: 'gqq', password: 'secret1' })).body, { mine: true });
  } finally { await keep.stop(); await replaced.stop(); }
});
