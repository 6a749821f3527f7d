// The render cache (fastrapi.<table>): reads copy a row's cached text only while the row's updated_at is
// the one it was rendered from, so a write made behind this server's back (as Strapi's admin makes them)
// is never answered stale; writes through this server renew their rows' entries in their transaction;
// the background refresh walks every table by id, rendering rows whose entry is missing or stale and
// dropping entries whose row is gone, also while the node is answering requests.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import postgres from 'postgres';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';
import { WALK_KEY } from '../src/db/render-cache.ts';

let s: TestServer;
let doc: string;

before(async () => {
  s = await startTestServer({ env: { RENDER_CACHE_REFRESH: '100' } });
  // Reads look at the cache once every table has been walked (made empty here: at once).
  await s.server.renderCacheReady();
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

/** Rows of tags without a current entry, and entries without a row. */
const behind = async () => (await s.sql()`select
  (select count(*)::int from tags t left join fastrapi.tags c on c.id = t.id and c.updated_at = t.updated_at where c.id is null) as missing,
  (select count(*)::int from fastrapi.tags c where not exists (select 1 from tags t where t.id = c.id)) as orphans`)[0] as { missing: number; orphans: number };

async function caughtUp(timeoutMs = 20000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let b = await behind();
  while ((b.missing || b.orphans) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    b = await behind();
  }
  assert.deepEqual(b, { missing: 0, orphans: 0 });
}

test('the refresh walks the whole table: many rows written in SQL, stale rows and deleted rows in every window', async () => {
  // More rows than several refresh steps look at (WINDOW), with ids below and far above the others.
  await s.sql()`insert into tags (id, document_id, name, created_at, updated_at, published_at)
    values (-5, 'sqllowidtag0000000000000', 'low id', now(), now(), now()), (900000, 'sqlhighidtag000000000000', 'high id', now(), now(), now())`;
  await s.sql()`insert into tags (document_id, name, created_at, updated_at, published_at)
    select 'bulktag' || lpad(g::text, 17, '0'), 'bulk ' || g, now(), now(), now() from generate_series(1, 1300) g`;
  await caughtUp();
  // Stale entries spread over the table (first, middle, last window) and rows deleted behind the server's back.
  await s.sql()`update tags set name = name || ' (edited)', updated_at = updated_at + interval '1 millisecond'
    where id in (-5, 900000, (select id from tags where name = 'bulk 650'))`;
  await s.sql()`delete from tags where name in ('bulk 3', 'bulk 1299') or id = (select min(id) from tags where id > 0)`;
  const deleted = (await s.sql()`select count(*)::int as n from fastrapi.tags c where not exists (select 1 from tags t where t.id = c.id)`)[0].n;
  assert.equal(deleted, 3, 'their entries are orphans until the refresh walks by');
  await caughtUp();
  const edited = await s.sql()`select c.doc from fastrapi.tags c join tags t on t.id = c.id where t.name like '%(edited)' order by t.id`;
  assert.equal(edited.length, 3);
  for (const e of edited) assert.match(e.doc, /\(edited\)"/);
  const low = (await s.fetchJson('GET', '/api/tags/sqllowidtag0000000000000', undefined, TOKEN)).body.data;
  assert.equal(low.name, 'low id (edited)');
});

test('a node answering requests still renders what was written behind its back (its refresh trickles)', async () => {
  let reading = true;
  const readers = Array.from({ length: 3 }, async () => {
    while (reading) await s.fetchJson('GET', '/api/tags?populate=*&pagination[pageSize]=5', undefined, TOKEN);
  });
  try {
    await s.sql()`insert into tags (document_id, name, created_at, updated_at, published_at)
      select 'busytag' || lpad(g::text, 18, '0'), 'busy ' || g, now(), now(), now() from generate_series(1, 700) g`;
    await s.sql()`update tags set name = name || ' (busy edit)', updated_at = updated_at + interval '1 millisecond' where name = 'bulk 10'`;
    await caughtUp(60000);
  } finally {
    reading = false;
    await Promise.all(readers);
  }
});

/** Another node on the same database, whose refresh cannot walk while `locker` holds the walk's lock. */
async function blockedNode(filled: boolean): Promise<{ node: TestServer; release: () => Promise<void> }> {
  const locker = postgres(s.server.databaseUrl, { max: 1, onnotice: () => {} });
  await locker`select pg_advisory_lock(${WALK_KEY}::bigint)`;
  await s.sql()`update fastrapi.render_cache_meta set filled = ${filled}`;
  const node = await startTestServer({ env: { RENDER_CACHE_REFRESH: '100' }, db: { url: s.server.databaseUrl, dataDir: s.db.dataDir, drop: async () => {} } });
  return { node, release: async () => { await locker`select pg_advisory_unlock(${WALK_KEY}::bigint)`.catch(() => {}); await locker.end({ timeout: 5 }); } };
}

test('while the cache is first filled, reads do not look at it; once every table was walked, they do', async () => {
  await s.sql()`update fastrapi.tags c set doc = replace(c.doc, '"by SQL"', '"marked"') from tags t where t.id = c.id and t.document_id = 'sqlinsertedtag0000000000'`;
  const { node, release } = await blockedNode(false);
  const name = async () => (await node.fetchJson('GET', '/api/tags/sqlinsertedtag0000000000', undefined, TOKEN)).body.data.name;
  try {
    assert.equal(await name(), 'by SQL', 'rendered live: the cache was not filled');
  } finally { await release(); }
  try {
    // Either node walks now; the other learns that the tables are filled.
    const deadline = Date.now() + 20000;
    while (await name() !== 'marked' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await name(), 'marked');
  } finally { await node.stop(); }
});

test('a node started on a filled cache reads it at once', async () => {
  const { node, release } = await blockedNode(true);
  try {
    assert.equal((await node.fetchJson('GET', '/api/tags/sqlinsertedtag0000000000', undefined, TOKEN)).body.data.name, 'marked');
  } finally { await release(); await node.stop(); }
});

test('the cache lives in this server\'s own schema only', async () => {
  const own = await s.sql()`select table_schema, table_name from information_schema.tables where table_name like '%render_cache%' or (table_schema = 'fastrapi' and table_name = 'tags')`;
  assert.deepEqual(own.map((r) => r.table_schema).sort(), ['fastrapi', 'fastrapi']);
});

test("the files' cache keeps whole media records: a read of files themselves (GraphQL uploadFiles) renders them live", async () => {
  const g = await startTestServer({ env: { RENDER_CACHE_REFRESH: '100', GRAPHQL_SHAPE: 'v5' } });
  try {
    await g.server.renderCacheReady();
    const sql = g.sql();
    await sql`insert into files (document_id, name, hash, ext, mime, size, url, provider, created_at, updated_at, published_at)
      values ('filefilefilefilefilefile', 'a.png', 'a_1', '.png', 'image/png', 1.5, '/uploads/a_1.png', 'local', now(), now(), now())`;
    // The background refresh renders the new file's record into fastrapi.files.
    for (let i = 0; i < 100 && !(await sql`select 1 from fastrapi.files`).length; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal((await sql`select count(*)::int as n from fastrapi.files`)[0].n, 1);
    // (Asking for `related` reads the file's whole default record: the cached one when current.)
    const r = await g.fetchJson('POST', '/graphql', { query: '{ uploadFiles { name url related { __typename } } }' }, TOKEN);
    assert.deepEqual(r.body, { data: { uploadFiles: [{ name: 'a.png', url: '/uploads/a_1.png', related: [] }] } });
  } finally { await g.stop(); }
});
