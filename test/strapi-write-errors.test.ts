// Write bodies Strapi 5.54 refuses, sent to a live one on the blog models and its answers recorded in
// test/fixtures/strapi/write-error-cases.json (status and error envelope, in its words and paths): replayed
// here on a fresh database of the same models, nothing written.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';

/** `raw`: the body's `data` as JSON text, where JSON.stringify could not write it (1e400). */
interface Case { method: string; path: string; data?: unknown; raw?: string; status: number; error: unknown }
const CASES = JSON.parse(readFileSync(new URL('./fixtures/strapi/write-error-cases.json', import.meta.url), 'utf8')) as Case[];

let s: TestServer;
before(async () => { s = await startTestServer(); });
after(async () => { await s?.stop(); });

test('each recorded body is refused as Strapi refused it, and writes nothing', async () => {
  const rows = async () => (await s.sql()`select (select count(*) from articles)::int + (select count(*) from tags)::int as n`)[0].n as number;
  const before = await rows();
  for (const c of CASES) {
    const r = await s.fetchJson(c.method, c.path, c.raw !== undefined ? `{"data":${c.raw}}` : { data: c.data }, TOKEN, { 'content-type': 'application/json' });
    const what = `${c.method} ${c.path} ${c.raw ?? JSON.stringify(c.data)}`;
    assert.equal(r.status, c.status, `${what}: ${r.text}`);
    assert.deepEqual(r.body, { data: null, error: c.error }, what);
  }
  assert.equal(await rows(), before);
});

test('a GraphQL Float past the doubles (1e400) is refused as Strapi refuses it, not stored as null', async () => {
  const r = await s.fetchJson('POST', '/graphql', { query: 'mutation { createArticle(data: { title: "inf", rating: 1e400 }) { data { id } } }' }, TOKEN);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.errors[0].extensions.error, { name: 'ValidationError', message: 'rating must be a finite number',
    details: { errors: [{ path: ['rating'], message: 'rating must be a finite number', name: 'ValidationError', value: null }] } });
  assert.equal((await s.sql()`select count(*)::int as n from articles where title = 'inf'`)[0].n, 0);
});
