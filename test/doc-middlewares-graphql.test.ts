// GraphQL's Shadow CRUD with document service middlewares (Strapi 5's shape, GRAPHQL_SHAPE=v5: the
// reference app's v4CompatibilityMode), compared with a live Strapi 5.54
// (test/fixtures/doc-middlewares/strapi-5.54-graphql.json, recorded by record-gql.ts with the same project
// and operations): the document service calls each root field makes and their parameters (a list's
// findMany then — only when pageInfo or meta is selected — count; findOne; findFirst; create, update,
// delete), what a middleware changes (a filter, a field, the result: nested relations stay the database's)
// and a throw's answer. GraphQL's v4 shape and users-permissions' user writes stay closed (501 naming the file).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';
import { docsProject } from './webhooks-docs-ops.ts';
import { addDocMiddlewares, masker, type MwLogged } from './doc-middlewares-ops.ts';
import { GQL_OPS } from './doc-middlewares-gql-ops.ts';
import { tempDir } from './temp-dir.ts';

interface Recorded { name: string; status: number; body: any; contexts: MwLogged[] }
const RECORDED = JSON.parse(readFileSync(new URL('./fixtures/doc-middlewares/strapi-5.54-graphql.json', import.meta.url), 'utf8')) as { shape: string; graphql: Recorded[] };
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as MwLogged);

/** An error's parts both servers give (Apollo's locations and stack traces aside). */
const comparable = (body: any) => (body?.errors ? { data: body.data, errors: body.errors.map((e: any) => ({ message: e.message, path: e.path, code: e.extensions?.code, error: e.extensions?.error })) } : body);

describe('document service middlewares on GraphQL\'s Shadow CRUD (Strapi 5\'s shape)', () => {
  let s: TestServer;
  const log = join(tempDir('fastrapi-docmw-gql-'), 'contexts.jsonl');
  before(async () => {
    process.env.DOC_MW_LOG = log;
    const dir = docsProject();
    addDocMiddlewares(dir);
    s = await startTestServer({ modelsDir: dir, env: { RESPONSE_CACHE: 'false', GRAPHQL_SHAPE: 'v5' } });
  });
  after(async () => { await s?.stop(); delete process.env.DOC_MW_LOG; });

  test('calls, parameters and answers are Strapi 5.54\'s', async () => {
    assert.equal(RECORDED.shape, 'v5');
    writeFileSync(log, '');
    const st: Record<string, any> = {};
    const ours = masker();
    const theirs = masker();
    for (let i = 0; i < GQL_OPS.length; i++) {
      const op = GQL_OPS[i]!;
      const before = lines(log).length;
      const r = await op.run((method, path, body) => s.fetchJson(method, path, body, TOKEN), st);
      const a = ours({ name: op.name, status: r.status, body: comparable(r.body), contexts: lines(log).slice(before) }) as Recorded;
      const rec = RECORDED.graphql[i]!;
      const b = theirs({ ...rec, body: comparable(rec.body) }) as Recorded;
      assert.equal(a.name, b.name);
      assert.deepEqual(a.contexts, b.contexts, `${a.name}: the middleware's contexts`);
      assert.equal(a.status, b.status, `${a.name}: status`);
      assert.deepEqual(a.body, b.body, `${a.name}: answer`);
    }
  });
});
