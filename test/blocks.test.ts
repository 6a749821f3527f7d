// A blocks attribute's value as Strapi 5.54 validates and stores it (its entity validator's yup schema for
// block nodes): each case was sent to a live Strapi 5.54 on the blog models (articles' `content`) and its
// answer recorded in test/fixtures/strapi/blocks-cases.json — the error in its words and paths, or what it
// stored. Replayed here through REST and once through GraphQL, nothing written where it refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';

interface Case { content: unknown; status: number; stored?: unknown; error?: { status: number; name: string; message: string; details: unknown } }
const CASES = JSON.parse(readFileSync(new URL('./fixtures/strapi/blocks-cases.json', import.meta.url), 'utf8')) as Case[];

let s: TestServer;
before(async () => { s = await startTestServer(); });
after(async () => { await s?.stop(); });

const count = async () => (await s.sql()`select count(*)::int as n from articles`)[0].n as number;

test('every recorded blocks value: Strapi\'s error, or the value it stored', async () => {
  assert.ok(CASES.some((c) => c.status === 400) && CASES.some((c) => c.status === 201));
  for (const c of CASES) {
    const before = await count();
    const r = await s.fetchJson('POST', '/api/articles?status=draft', { data: { title: 'blocks case', content: c.content } }, TOKEN);
    const what = JSON.stringify(c.content);
    assert.equal(r.status, c.status, `${what}: ${r.text}`);
    if (c.status === 201) {
      assert.deepEqual(r.body.data.content, c.stored, what);
      const [row] = await s.sql()`select content from articles where document_id = ${r.body.data.documentId as string}`;
      assert.deepEqual(row.content, c.stored, `${what}: stored`);
    } else {
      assert.deepEqual(r.body.error, c.error, what);
      assert.equal(await count(), before, `${what}: nothing written`);
    }
  }
});

test('GraphQL mutations check blocks the same way', async () => {
  const r = await s.fetchJson('POST', '/graphql', { query: 'mutation { createArticle(data: { title: "g", content: [{ type: "nope" }] }) { data { id } } }' }, TOKEN);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.errors[0].message, 'Block node is of invalid type');
  assert.deepEqual(r.body.errors[0].extensions.error.details.errors, [{ path: ['content', '0'], message: 'Block node is of invalid type', name: 'ValidationError', value: { type: 'nope' } }]);
});
