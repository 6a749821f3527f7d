// Unique attributes under concurrency (issue 15): of N parallel writes with the same value exactly one
// succeeds and the others get Strapi's 400, with nothing added to Strapi's tables; and values PostgreSQL
// refuses are answered in the server's own words.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';

let s: TestServer;
before(async () => { s = await startTestServer(); });
after(async () => { await s?.stop(); });

test('50 parallel creates with the same uid: exactly one document, the others 400 "This attribute must be unique"', async () => {
  const results = await Promise.all(Array.from({ length: 50 }, (_, i) =>
    s.fetchJson('POST', '/api/articles', { data: { title: `race ${i}`, slug: 'same-slug' } }, TOKEN)));
  const statuses = results.map((r) => r.status).sort();
  assert.equal(statuses.filter((x) => x === 201).length, 1, JSON.stringify(statuses));
  for (const r of results.filter((x) => x.status !== 201)) {
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.error.details.errors[0].message, 'This attribute must be unique');
  }
  const [{ n }] = await s.sql()<{ n: number }[]>`select count(distinct document_id)::int as n from articles where slug = 'same-slug'`;
  assert.equal(n, 1);
});

test('parallel updates moving two documents onto one value: one wins', async () => {
  const make = async (slug: string) => (await s.fetchJson('POST', '/api/articles', { data: { title: slug, slug } }, TOKEN)).body.data.documentId as string;
  const [a, b] = [await make('move-a'), await make('move-b')];
  const results = await Promise.all([a, b].map((id) => s.fetchJson('PUT', `/api/articles/${id}`, { data: { slug: 'moved-here' } }, TOKEN)));
  assert.deepEqual(results.map((r) => r.status).sort(), [200, 400]);
  const [{ n }] = await s.sql()<{ n: number }[]>`select count(distinct document_id)::int as n from articles where slug = 'moved-here'`;
  assert.equal(n, 1);
});

test('values PostgreSQL refuses are a 400 in the server\'s words, never PostgreSQL\'s', async () => {
  for (const q of ['filters[views][$gt]=99999999999999999999999', 'filters[publishDate][$eq]=2024-02-30', 'filters[title][$containsi]=%00']) {
    const r = await s.fetchJson('GET', `/api/articles?${q}`, undefined, TOKEN);
    assert.equal(r.status, 400, `${q}: ${r.text}`);
    assert.doesNotMatch(r.body.error.message, /bigint|UTF8|encoding|out of range for type|date\/time field|Invalid key/, `${q}: ${r.body.error.message}`);
  }
});
