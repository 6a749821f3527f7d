// Issue 28: upload and i18n overridden by a project's src/extensions/<plugin>/strapi-server.js
// (test/fixtures/plugins-override/*-strapi-server.js on the models-media project), replayed against what a live
// Strapi 5.54 answered on the same files (fixture cases.jsonl, steps.ts, recorded by record.ts); then what
// this server cannot honour (a replaced service, an action it has no handler for: 501 naming the file) and
// files that cannot run (refused).
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordedSuite } from './recorded.ts';
import { startTestServer, TOKEN } from './helpers.ts';
import { loadModels } from '../src/models.ts';
import { startProject } from '../src/project/start-project.ts';
import { STEPS } from './fixtures/plugins-override/steps.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const MODELS = here('./fixtures/models-media');
const UPLOAD_FILE = 'src/extensions/upload/strapi-server.js';
const I18N_FILE = 'src/extensions/i18n/strapi-server.js';
const fixture = (f: string) => readFileSync(here(`./fixtures/plugins-override/${f}`), 'utf8');
const tmp: string[] = [];
after(() => { for (const d of tmp) rmSync(d, { recursive: true, force: true }); });

/** The models-media models as a Strapi project (src/api/<name>/content-types/<name>/schema.json, as setup.sh lays them), with `files` written in. */
function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'fastrapi-plugins-override-'));
  tmp.push(dir);
  for (const f of readdirSync(join(MODELS, 'content-types'))) {
    const name = basename(f, '.json');
    mkdirSync(join(dir, 'src/api', name, 'content-types', name), { recursive: true });
    cpSync(join(MODELS, 'content-types', f), join(dir, 'src/api', name, 'content-types', name, 'schema.json'));
  }
  cpSync(join(MODELS, 'components'), join(dir, 'src/components'), { recursive: true });
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(dir, f, '..'), { recursive: true });
    writeFileSync(join(dir, f), text);
  }
  return dir;
}

const server = recordedSuite('plugins-override', project({ [UPLOAD_FILE]: fixture('upload-strapi-server.js'), [I18N_FILE]: fixture('i18n-strapi-server.js') }), here('./fixtures/plugins-override'), STEPS);

test('untouched built-in routes stay the native plugins\' (no project code runs there); replaced and added ones run as project code', async () => {
  const config = server().server.config;
  const p = await startProject(config, loadModels(config.modelsDir, { defaultLocale: 'en', locales: ['en', 'fr'] }));
  assert.ok(p);
  for (const [method, path] of [['GET', '/api/upload/files/1'], ['DELETE', '/api/upload/files/1'], ['POST', '/api/upload']]) assert.equal(p.match(method, path, 'upload'), null, `${method} ${path}`);
  for (const [method, path, plugin] of [['GET', '/api/upload/files', 'upload'], ['GET', '/api/upload/files/1/name', 'upload'], ['GET', '/api/upload/ping', 'upload'], ['GET', '/api/i18n/locales', 'i18n']]) {
    assert.equal(p.match(method, path, plugin)?.route?.plugin, plugin, `${method} ${path}`);
  }
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
    await refused(project({ [UPLOAD_FILE]: "throw new Error('broken on purpose');" }), /^src\/extensions\/upload\/strapi-server\.js: Error: broken on purpose/);
    await refused(project({ [I18N_FILE]: "module.exports = (plugin) => { plugin.controllers.nope.x = 1; return plugin; };" }), /^src\/extensions\/i18n\/strapi-server\.js: TypeError: Cannot set properties of undefined/);
  });

  test('a handler the plugin has not, a change to contentTypes or config: refused, naming the file', async () => {
    await refused(project({ [I18N_FILE]: "module.exports = (plugin) => { plugin.routes['content-api'].routes.push({ method: 'GET', path: '/lost', handler: 'locales.lost' }); return plugin; };" }),
      /src\/extensions\/i18n\/strapi-server\.js: Handler not found "locales\.lost"/);
    await refused(project({ [UPLOAD_FILE]: "module.exports = (plugin) => { plugin.contentTypes.file.schema.attributes.credit = { type: 'string' }; return plugin; };" }), /upload\/strapi-server\.js: changes plugin\.contentTypes/);
    await refused(project({ [UPLOAD_FILE]: "module.exports = (plugin) => { plugin.config.sizeLimit = 1; return plugin; };" }), /upload\/strapi-server\.js: changes plugin\.config/);
  });

  test('a replaced service closes the routes of the plugin\'s own actions with 501, naming the file; the project\'s actions and the other plugins still run', async () => {
    const s = await startTestServer({ modelsDir: project({ [UPLOAD_FILE]: `module.exports = (plugin) => {
      const upload = plugin.services.upload;
      plugin.services.upload = ({ strapi }) => ({ ...upload({ strapi }), findMany: async () => [] });
      const make = plugin.controllers['content-api'];
      plugin.controllers['content-api'] = ({ strapi }) => ({ ...make({ strapi }), async hello(ctx) { ctx.body = { hello: true }; } });
      plugin.routes['content-api'].routes.push({ method: 'GET', path: '/hello', handler: 'content-api.hello', config: { auth: false } });
      return plugin;
    };` }) });
    try {
      for (const [method, path] of [['GET', '/api/upload/files'], ['GET', '/api/upload/files/1'], ['DELETE', '/api/upload/files/1']]) {
        const r = await s.fetchJson(method, path, undefined, TOKEN);
        assert.equal(r.status, 501, path);
        assert.equal(r.body.error.name, 'NotImplementedError');
        assert.match(r.body.error.message, /src\/extensions\/upload\/strapi-server\.js: it replaces the plugin's service upload/);
      }
      assert.deepEqual((await s.fetchJson('GET', '/api/upload/hello', undefined, null)).body, { hello: true });
      assert.equal((await s.fetchJson('GET', '/api/i18n/locales', undefined, TOKEN)).status, 200);
    } finally { await s.stop(); }
  });

  test('a route on an action this server has no handler for (an admin controller action) answers 501 naming it; a removed route is Strapi\'s 404', async () => {
    const s = await startTestServer({ modelsDir: project({
      [UPLOAD_FILE]: `module.exports = (plugin) => {
        plugin.routes['content-api'].routes.push({ method: 'GET', path: '/paged', handler: 'admin-file.find' });
        return plugin;
      };`,
      [I18N_FILE]: `module.exports = (plugin) => { plugin.routes['content-api'].routes = []; return plugin; };`,
    }) });
    try {
      const r = await s.fetchJson('GET', '/api/upload/paged', undefined, TOKEN);
      assert.equal(r.status, 501);
      assert.match(r.body.error.message, /upload's admin-file\.find is not run by this server/);
      assert.equal((await s.fetchJson('GET', '/api/i18n/locales', undefined, TOKEN)).status, 404);
      assert.equal((await s.fetchJson('GET', '/api/upload/files', undefined, TOKEN)).status, 200);
    } finally { await s.stop(); }
  });
});
