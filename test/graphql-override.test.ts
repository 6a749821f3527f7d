// Issue 28: GraphQL's own src/extensions/graphql/strapi-server.js (test/fixtures/graphql-override/strapi-server.js
// on the users-ext project), replayed against what a live Strapi 5.54 answered with the same file (fixture
// cases.jsonl, steps.ts, recorded by record.ts); then what this server honours besides (a replaced register)
// and what it cannot run (501 naming the file and the member), and files that cannot run (refused).
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordedSuite } from './recorded.ts';
import { copyModels, startTestServer } from './helpers.ts';
import { loadModels } from '../src/models.ts';
import { startProject } from '../src/project/start-project.ts';
import { STEPS } from './fixtures/graphql-override/steps.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const USERS_EXT = here('./fixtures/users-ext');
const FILE = 'src/extensions/graphql/strapi-server.js';
const tmp: string[] = [];
after(() => { for (const d of tmp) rmSync(d, { recursive: true, force: true }); });
/** The users-ext project with `text` as GraphQL's strapi-server (and `index` as src/index.js, if given). */
const variant = (text: string, index?: string): string => {
  const dir = copyModels(USERS_EXT);
  tmp.push(dir);
  for (const [f, t] of [[FILE, text], ...(index ? [['src/index.js', index]] : [])]) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    writeFileSync(join(dir, f), t);
  }
  return dir;
};

const server = recordedSuite('graphql-override', variant(readFileSync(here('./fixtures/graphql-override/strapi-server.js'), 'utf8')), here('./fixtures/graphql-override'), STEPS, {}, {
  // Kept in the recording: deletePost and every team mutation are gone there, as the steps above answer too.
  'the mutations left for posts and teams': 'Strapi 5.54 lists the review-workflows plugin\'s mutations among them, a plugin this server does not serve',
});

/** Why /graphql is closed for the project at `dir` (null: served), from the project runtime alone (no server). */
async function closedWhy(dir: string): Promise<string | null> {
  const config = { ...server().server.config, modelsDir: dir };
  const p = await startProject(config, loadModels(dir, { defaultLocale: 'en', locales: ['en', 'fr'] }));
  assert.ok(p);
  const m = p.match('POST', '/graphql', 'graphql');
  if (!m) return null;
  assert.ok(m.route);
  assert.equal(m.route.file, FILE);
  return m.route.closed ?? null;
}

describe('what this server honours besides, and what it cannot run', () => {
  test('a replaced register runs before the app\'s and reaches the schema; the factory called outside the registry makes a service of its own, as in Strapi', async () => {
    const s = await startTestServer({ modelsDir: variant(`module.exports = (plugin) => {
      // Called here, the factory makes a service Strapi's registry never uses: its registrations reach no schema.
      plugin.services.extension({ strapi: null }).use({ typeDefs: 'type Query { lost: Int }', resolvers: { Query: { lost: () => 1 } } });
      plugin.register = ({ strapi }) => {
        strapi.plugin('graphql').service('extension').use({
          typeDefs: 'type Query { early: String! }', resolvers: { Query: { early: () => 'plugin register' } }, resolversConfig: { 'Query.early': { auth: false } },
        });
      };
      return plugin;
    };`, `module.exports = { register({ strapi }) {
      strapi.plugin('graphql').service('extension').use({ resolvers: { Query: { early: () => 'app register, after the plugin\\'s' } } });
    } };`) });
    try {
      assert.deepEqual((await s.fetchJson('POST', '/graphql', { query: '{ early }' }, null)).body, { data: { early: 'app register, after the plugin\'s' } });
      const lost = await s.fetchJson('POST', '/graphql', { query: '{ lost }' }, null);
      assert.equal(lost.status, 400);
      assert.match(lost.body.errors[0].message, /Cannot query field "lost" on type "Query"/);
    } finally { await s.stop(); }
  });

  test('an identity strapi-server serves /graphql as without it', async () => {
    assert.equal(await closedWhy(variant('module.exports = (plugin) => plugin;')), null);
  });

  test('what it replaces that this server cannot run closes /graphql, naming the file and the member', async () => {
    assert.match(await closedWhy(variant('module.exports = (plugin) => { const b = plugin.bootstrap; plugin.bootstrap = async (o) => b(o); return plugin; };')) ?? '',
      /^it replaces bootstrap of the graphql plugin, which this server does not run$/);
    assert.match(await closedWhy(variant("module.exports = (plugin) => { plugin.services['content-api'] = () => ({}); plugin.config.shadowCRUD = false; return plugin; };")) ?? '',
      /^it replaces services\.content-api, config\.shadowCRUD of the graphql plugin/);
    assert.match(await closedWhy(variant('module.exports = (plugin) => { plugin.services.extension = () => ({ use() { return this; }, shadowCRUD() { return {}; } }); return plugin; };')) ?? '',
      /its services\.extension makes a service other than the graphql plugin's own/);
  });

  test('a file that throws, or reads config this server does not keep, stops the start naming it', async () => {
    const refused = async (dir: string, pattern: RegExp) => {
      await assert.rejects(startTestServer({ modelsDir: dir }), (e: Error) => {
        assert.equal(e.constructor.name, 'ProjectLoadError');
        assert.match(e.message, pattern);
        return true;
      });
    };
    await refused(variant("throw new Error('broken on purpose');"), /^src\/extensions\/graphql\/strapi-server\.js: Error: broken on purpose/);
    await refused(variant('module.exports = (plugin) => { if (plugin.config.landingPage) {} return plugin; };'), /strapi-server\.js: TypeError: plugin\.config\.landingPage of the graphql plugin is not known to this server/);
    await refused(variant('module.exports = (plugin) => { plugin.services.extension = () => { throw new Error(\'no service\'); }; return plugin; };'), /strapi-server\.js: the graphql plugin's services\.extension: Error: no service/);
  });
});
