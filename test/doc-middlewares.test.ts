// Document service middlewares (`strapi.documents.use` in register(), src/project/document-middlewares.ts)
// run where Strapi 5.54 runs them, compared with a live one (test/fixtures/doc-middlewares/strapi-5.54.json,
// recorded by its record.ts with the same project and requests): the context each core REST action passes
// (action, params), what a middleware changes (a filter, a field, the result) and a throw's answer; project
// code's calls (bootstrap) go through them and their webhooks are sent; GraphQL's Shadow CRUD in the v4
// shape (this suite's default; Strapi 5's shape runs them: doc-middlewares-graphql.test.ts), which cannot
// run them, answers 501 naming the file; users-permissions' user writes run them (doc-middlewares-users.test.ts).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';
import { docsProject } from './webhooks-docs-ops.ts';
import { addDocMiddlewares, masker, MW_OPS, type MwLogged } from './doc-middlewares-ops.ts';
import { receiver } from './webhooks-ops.ts';
import { tempDir } from './temp-dir.ts';

interface Recorded { name: string; status: number; body: any; contexts: MwLogged[] }
const RECORDED = JSON.parse(readFileSync(new URL('./fixtures/doc-middlewares/strapi-5.54.json', import.meta.url), 'utf8')) as {
  rest: Recorded[]; bootstrap: { context: MwLogged; webhooks: Array<{ headers: Record<string, string>; body: any }> };
};
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as MwLogged);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('document service middlewares on core REST routes', () => {
  let s: TestServer;
  const log = join(tempDir('fastrapi-docmw-'), 'contexts.jsonl');
  before(async () => {
    process.env.DOC_MW_LOG = log;
    const dir = docsProject();
    addDocMiddlewares(dir);
    s = await startTestServer({ modelsDir: dir, env: { RESPONSE_CACHE: 'false' } });
  });
  after(async () => { await s?.stop(); delete process.env.DOC_MW_LOG; });

  test('contexts, statuses and answers are Strapi 5.54\'s', async () => {
    writeFileSync(log, '');
    const st: Record<string, any> = {};
    const mine: Recorded[] = [];
    for (const op of MW_OPS) {
      const before = lines(log).length;
      const r = await op.run((method, path, body) => s.fetchJson(method, path, body, TOKEN), st);
      mine.push({ name: op.name, status: r.status, body: r.status === 204 ? '' : r.body, contexts: lines(log).slice(before) });
    }
    // One masker per side: a document id is named by its first appearance, in contexts and answers alike.
    const ours = masker();
    const theirs = masker();
    for (let i = 0; i < MW_OPS.length; i++) {
      const a = ours(mine[i]) as Recorded;
      const b = theirs(RECORDED.rest[i]) as Recorded;
      assert.deepEqual(a.contexts, b.contexts, `${a.name}: the middleware's contexts`);
      assert.equal(a.status, b.status, `${a.name}: status`);
      assert.deepEqual(a.body, b.body, `${a.name}: answer`);
      // Key order too (a middleware's added key comes last, as Strapi's sanitizer keeps it).
      assert.equal(JSON.stringify(a.body), JSON.stringify(b.body), `${a.name}: answer's key order`);
    }
  });

  test('the filter a middleware adds holds under concurrent writes; a single type stays one document', async () => {
    await Promise.all(Array.from({ length: 12 }, (_, i) => s.fetchJson('PUT', '/api/about', { data: { title: `About ${i}` } }, TOKEN)));
    const rows = await s.sql().unsafe('select count(distinct document_id)::int as n from abouts');
    assert.equal(rows[0].n, 1);
    const tags = await s.fetchJson('GET', '/api/tags?pagination[pageSize]=100', undefined, TOKEN);
    assert.ok(tags.body.data.every((t: { name: string }) => !/hidden/i.test(t.name)));
  });

  test('GraphQL\'s v4-shaped Shadow CRUD answers 501 naming the file; users-permissions\' user writes run (doc-middlewares-users.test.ts)', async () => {
    const g = await s.fetchJson('POST', '/graphql', { query: '{ tags { data { attributes { name } } } }' }, TOKEN);
    assert.match(JSON.stringify(g.body), /src\/index\.js: strapi\.documents\.use registers document service middlewares/);
    assert.equal(g.body.data?.tags ?? null, null);
    const reg = await s.fetchJson('POST', '/api/auth/local/register', { username: 'mw1', email: 'mw@example.com', password: 'Secret123' }, null);
    assert.equal(reg.status, 200, reg.text);
    const gqlReg = await s.fetchJson('POST', '/graphql', { query: 'mutation { register(input: { username: "mw2", email: "mw2@example.com", password: "Secret123" }) { jwt } }' }, null);
    assert.equal(typeof gqlReg.body.data?.register?.jwt, 'string', gqlReg.text);
    const login = await s.fetchJson('POST', '/api/auth/local', { identifier: 'nobody@example.com', password: 'x1234567' }, null);
    assert.equal(login.status, 400);
  });
});

test('bootstrap()\'s strapi.documents writes run the middlewares and send their webhooks, as in Strapi 5.54', async () => {
  const log = join(tempDir('fastrapi-docmw-boot-'), 'contexts.jsonl');
  writeFileSync(log, '');
  process.env.DOC_MW_LOG = log;
  const dir = docsProject();
  addDocMiddlewares(dir);
  const r = await receiver();
  let s = await startTestServer({ modelsDir: dir });
  await s.sql().unsafe('insert into strapi_webhooks (name, url, headers, events, enabled) values ($1, $2, $3, $4, true)',
    ['boot', `http://127.0.0.1:${r.port}/hook`, '{}', JSON.stringify(['entry.create', 'entry.update', 'entry.delete', 'entry.publish'])] as never[]);
  const db = s.db;
  await s.stop({ keepData: true });
  process.env.DOC_MW_BOOT = '1';
  try {
    s = await startTestServer({ modelsDir: dir, db });
    for (let i = 0; i < 50 && r.got.length === 0; i++) await sleep(100);
    const [ctx] = lines(log);
    assert.deepEqual(ctx, RECORDED.bootstrap.context);
    const mask = masker();
    assert.deepEqual(r.got.map((g) => mask({ event: g.headers['x-strapi-event'], body: g.body })),
      RECORDED.bootstrap.webhooks.map((w) => masker()({ event: w.headers['x-strapi-event'], body: w.body })));
  } finally {
    delete process.env.DOC_MW_BOOT;
    delete process.env.DOC_MW_LOG;
    await s.stop();
    await r.close();
  }
});
