// The render cache (fastrapi.<table>): reads copy a row's cached text only while the row's updated_at is
// the one it was rendered from, so a write made behind this server's back (as Strapi's admin makes them)
// is never answered stale; writes through this server renew their rows' entries in their transaction;
// the background refresh renders rows that have none.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';

let s: TestServer;
let doc: string;

before(async () => {
  s = await startTestServer({ env: { RENDER_CACHE_REFRESH: '100' } });
  const r = await s.fetchJson('POST', '/api/tags', { data: { name: 'cached' } }, TOKEN);
  assert.equal(r.status, 201, r.text);
  doc = r.body.data.documentId;
});
after(async () => { await s?.stop(); });

const entry = async () => (await s.sql()`select c.doc, c.updated_at = t.updated_at as current
  from tags t join fastrapi.tags c on c.id = t.id where t.document_id = ${doc}`)[0];
const read = async () => (await s.fetchJson('GET', `/api/tags/${doc}`, undefined, TOKEN)).body.data;

test('a write through the API renders its row into the cache before it answers', async () => {
  const e = await entry();
  assert.ok(e, 'an entry exists right after the create');
  assert.equal(e.current, true);
  assert.match(e.doc, /"name":"cached"/);
  assert.ok(!e.doc.endsWith('}'), 'kept without its closing brace, so populated values can follow');
});

test('reads copy the cached text while the row is unchanged', async () => {
  // Marks the entry (same updated_at): a read that answers the mark proves it came from the cache.
  await s.sql()`update fastrapi.tags c set doc = replace(c.doc, '"cached"', '"from-the-cache"') from tags t where t.id = c.id and t.document_id = ${doc}`;
  assert.equal((await read()).name, 'from-the-cache');
  const populated = (await s.fetchJson('GET', `/api/tags/${doc}?populate=articles`, undefined, TOKEN)).body.data;
  assert.equal(populated.name, 'from-the-cache');
  assert.deepEqual(populated.articles, []);
  // An explicit field list is rendered live: the cache keeps only the default selection.
  assert.equal((await s.fetchJson('GET', `/api/tags/${doc}?fields[0]=name`, undefined, TOKEN)).body.data.name, 'cached');
});

test('a row changed behind this server\'s back (new updated_at) is read live at once, then cached again', async () => {
  await s.sql()`update tags set name = 'changed by Strapi', updated_at = updated_at + interval '1 millisecond' where document_id = ${doc}`;
  assert.equal((await read()).name, 'changed by Strapi');
  // The background refresh (every 100 ms here) renders it again.
  const deadline = Date.now() + 5000;
  while (!(await entry()).current && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const e = await entry();
  assert.equal(e.current, true);
  assert.match(e.doc, /"changed by Strapi"/);
});

test('rows inserted behind this server\'s back get an entry from the background refresh', async () => {
  await s.sql()`insert into tags (document_id, name, created_at, updated_at, published_at) values ('sqlinsertedtag0000000000', 'by SQL', now(), now(), now())`;
  const deadline = Date.now() + 5000;
  let hit: unknown;
  while (!hit && Date.now() < deadline) {
    hit = (await s.sql()`select 1 from fastrapi.tags c join tags t on t.id = c.id and c.updated_at = t.updated_at where t.document_id = 'sqlinsertedtag0000000000'`)[0];
    if (!hit) await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(hit, 'rendered by the refresh');
  const list = (await s.fetchJson('GET', '/api/tags?filters[name][$eq]=by SQL', undefined, TOKEN)).body.data;
  assert.equal(list.length, 1);
  assert.equal(list[0].documentId, 'sqlinsertedtag0000000000');
});

test('the cache lives in this server\'s own schema only', async () => {
  const own = await s.sql()`select table_schema, table_name from information_schema.tables where table_name like '%render_cache%' or (table_schema = 'fastrapi' and table_name = 'tags')`;
  assert.deepEqual(own.map((r) => r.table_schema).sort(), ['fastrapi', 'fastrapi']);
});
