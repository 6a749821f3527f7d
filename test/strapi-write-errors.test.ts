// Write bodies Strapi 5.54 refuses, sent to a live one on the blog models and its answers recorded in
// test/fixtures/strapi/write-error-cases.json (status and error envelope, in its words and paths): replayed
// here on a fresh database of the same models, nothing written.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';

interface Case { method: string; path: string; data: unknown; status: number; error: unknown }
const CASES = JSON.parse(readFileSync(new URL('./fixtures/strapi/write-error-cases.json', import.meta.url), 'utf8')) as Case[];

let s: TestServer;
before(async () => { s = await startTestServer(); });
after(async () => { await s?.stop(); });

test('each recorded body is refused as Strapi refused it, and writes nothing', async () => {
  const rows = async () => (await s.sql()`select (select count(*) from articles)::int + (select count(*) from tags)::int as n`)[0].n as number;
  const before = await rows();
  for (const c of CASES) {
    const r = await s.fetchJson(c.method, c.path, { data: c.data }, TOKEN);
    const what = `${c.method} ${c.path} ${JSON.stringify(c.data)}`;
    assert.equal(r.status, c.status, `${what}: ${r.text}`);
    assert.deepEqual(r.body, { data: null, error: c.error }, what);
  }
  assert.equal(await rows(), before);
});
