// A project's lifecycle hooks (src/project/lifecycles.ts) called for this server's writes as a live Strapi
// 5.54 calls them (test/fixtures/lifecycles/strapi-5.54.json, recorded by its record.ts with the same
// lifecycles files and writes): the same hooks in the same order, with the same data, state and results;
// what a before hook sets is written; a throw rolls the write back with Strapi's answer. A type whose
// reads have hooks is closed (501 naming the file); a lifecycles file that cannot load stops the start.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';
import { docsProject } from './webhooks-docs-ops.ts';
import { addLifecycles, comparable, LC_OPS, type Logged } from './lifecycles-ops.ts';
import type { Call } from './webhooks-ops.ts';
import { tempDir } from './temp-dir.ts';

const RECORDED = JSON.parse(readFileSync(new URL('./fixtures/lifecycles/strapi-5.54.json', import.meta.url), 'utf8')) as Array<{ name: string; status: number; body: any; events: Logged[] }>;
/** The scalar attributes of the demo types (what `params.data` is compared on). */
const SCALARS: Record<string, string[]> = {};
for (const name of ['tag', 'article']) {
  const m = JSON.parse(readFileSync(new URL(`../models/content-types/${name}.json`, import.meta.url), 'utf8')) as { attributes: Record<string, { type: string }> };
  SCALARS[`api::${name}.${name}`] = Object.entries(m.attributes).filter(([, a]) => !['relation', 'media', 'component', 'dynamiczone'].includes(a.type)).map(([k]) => k);
}

describe('lifecycle hooks on writes', () => {
  let s: TestServer;
  const log = join(tempDir('fastrapi-lc-'), 'events.jsonl');
  before(async () => {
    process.env.LC_LOG = log;
    const dir = docsProject();
    addLifecycles(dir);
    s = await startTestServer({ modelsDir: dir });
  });
  after(async () => { await s?.stop(); delete process.env.LC_LOG; });

  test('the hooks, their order, data, state and results are Strapi 5.54\'s; answers too', async () => {
    const call: Call = (method, path, body) => s.fetchJson(method, path, body, TOKEN);
    const st: Record<string, any> = {};
    writeFileSync(log, '');
    const mine: Array<{ name: string; status: number; actions: string[]; events: string[] }> = [];
    for (const op of LC_OPS) {
      const before = readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
      const r = await op.run(call, st);
      const events = readFileSync(log, 'utf8').split('\n').filter(Boolean).slice(before).map((l) => JSON.parse(l) as Logged);
      mine.push({ name: op.name, status: r.status, actions: events.map((e) => e.action), events: events.map((e) => JSON.stringify(comparable(e, SCALARS))).sort() });
    }
    // Strapi deletes a document's versions concurrently: the order of the rows within one action varies.
    const theirs = RECORDED.map((o) => ({ name: o.name, status: o.status, actions: o.events.map((e) => e.action), events: o.events.map((e) => JSON.stringify(comparable(e, SCALARS))).sort() }));
    assert.deepEqual(mine, theirs);
  });

  test('what a before hook set is stored; a throw leaves nothing written', async () => {
    const tags = await s.fetchJson('GET', '/api/tags?sort=name:asc&pagination[pageSize]=100', undefined, TOKEN);
    const names = tags.body.data.map((t: { name: string }) => t.name);
    assert.ok(names.includes('UP:SHOUT'));
    assert.ok(!names.includes('crash') && !names.includes('refused'));
    const refused = RECORDED.find((o) => o.name === 'a hook throws an ApplicationError')!;
    const again = await s.fetchJson('POST', '/api/tags', { data: { name: 'refused' } }, TOKEN);
    assert.deepEqual(again.body, refused.body);
    const crash = await s.fetchJson('POST', '/api/tags', { data: { name: 'crash' } }, TOKEN);
    assert.deepEqual(crash.body, RECORDED.find((o) => o.name === 'a hook throws an Error')!.body);
  });

  test('a publish writes what beforeCreate of the published version set', async () => {
    const made = await s.fetchJson('POST', '/api/articles', { data: { title: 'up:loud', slug: 'loud' } }, TOKEN);
    assert.equal(made.status, 201);
    assert.equal(made.body.data.title, 'UP:LOUD');
    const draft = await s.fetchJson('GET', `/api/articles/${made.body.data.documentId}?status=draft`, undefined, TOKEN);
    assert.equal(draft.body.data.title, 'UP:LOUD');
  });
});

describe('strapi.db.lifecycles.subscribe', () => {
  const index = (body: string) => {
    const dir = docsProject();
    writeFileSync(join(dir, 'src', 'index.js'), body);
    return dir;
  };

  test('in register(): an object for some models and a function for every write run after the content-types\' files', async () => {
    const dir = index(`const seen = [];
module.exports = {
  register({ strapi }) {
    strapi.db.lifecycles.subscribe({ models: ['api::tag.tag'], beforeCreate(e) { e.params.data.name = 'sub:' + e.params.data.name; } });
    strapi.db.lifecycles.subscribe((e) => { if (e.action === 'afterCreate' && e.model.uid === 'api::tag.tag') e.result.name === e.params.data.name || seen.push('mismatch'); });
  },
  bootstrap() {},
};`);
    const s = await startTestServer({ modelsDir: dir });
    try {
      const made = await s.fetchJson('POST', '/api/tags', { data: { name: 'x' } }, TOKEN);
      assert.equal(made.status, 201);
      assert.equal(made.body.data.name, 'sub:x');
      const art = await s.fetchJson('POST', '/api/articles', { data: { title: 'not a tag', slug: 'nat' } }, TOKEN);
      assert.equal(art.body.data.title, 'not a tag');
    } finally { await s.stop(); }
  });

  test('in bootstrap() with worker threads: the start is refused (their writes would miss the hooks)', async () => {
    const dir = index(`module.exports = { register() {}, bootstrap({ strapi }) { strapi.db.lifecycles.subscribe({ beforeCreate() {} }); } };`);
    await assert.rejects(startTestServer({ modelsDir: dir, env: { WORKERS: '1' } }), /bootstrap\(\) subscribes lifecycle hooks .* WORKERS=1/);
    const s = await startTestServer({ modelsDir: dir });
    await s.stop();
  });

  test('the rest of strapi.db names itself', async () => {
    const dir = index(`module.exports = { register({ strapi }) { strapi.db.metadata.get('api::tag.tag'); } };`);
    await assert.rejects(startTestServer({ modelsDir: dir }), /strapi\.db\.metadata is not supported by this server/);
  });
});

describe('hooks on reads, and files that cannot load', () => {
  test('a type whose reads have hooks answers 501 naming its file, in REST and GraphQL; other types are served', async () => {
    const dir = docsProject();
    writeFileSync(join(dir, 'src', 'api', 'tag', 'content-types', 'tag', 'lifecycles.js'),
      'module.exports = { beforeFindMany(event) { event.params.where = { ...event.params.where, name: "mine" }; }, afterCreate() {} };\n');
    const s = await startTestServer({ modelsDir: dir });
    try {
      const r = await s.fetchJson('GET', '/api/tags', undefined, TOKEN);
      assert.equal(r.status, 501);
      assert.equal(r.body.error.name, 'NotImplementedError');
      assert.match(r.body.error.message, /src\/api\/tag\/content-types\/tag\/lifecycles\.js: the lifecycle hooks beforeFindMany run on reads/);
      assert.equal((await s.fetchJson('POST', '/api/tags', { data: { name: 'x' } }, TOKEN)).status, 501);
      const g = await s.fetchJson('POST', '/graphql', { query: '{ tags { data { id } } }' }, TOKEN);
      assert.match(JSON.stringify(g.body.errors), /lifecycles\.js: the lifecycle hooks beforeFindMany/);
      assert.equal((await s.fetchJson('GET', '/api/articles', undefined, TOKEN)).status, 200);
    } finally { await s.stop(); }
  });

  test('a lifecycles file that throws while loading stops the start, naming it', async () => {
    const dir = docsProject();
    writeFileSync(join(dir, 'src', 'api', 'tag', 'content-types', 'tag', 'lifecycles.js'), 'throw new Error("broken hooks");\n');
    await assert.rejects(startTestServer({ modelsDir: dir }), /src\/api\/tag\/content-types\/tag\/lifecycles\.js: Error: broken hooks/);
  });
});
