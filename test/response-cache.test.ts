// The response cache (issue 16): reads are answered from memory until a write changes a table they
// read — through this node, through another node on the same database (NOTIFY), or behind every node's
// back (SQL, as Strapi's admin writes: the change watch) — and callers with different permissions never
// share an answer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import postgres from 'postgres';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';

const CACHE = { RESPONSE_CACHE: 'true', RESPONSE_CACHE_WATCH: '100', PUBLIC_PERMISSIONS: 'article:find,findOne', GRAPHQL_SHAPE: 'v5' };
let a: TestServer;
let b: TestServer;
/** A third node that scans no table (RESPONSE_CACHE_WATCH_SCAN=0): it sees writes by ids, files and statistics counters only. */
let c: TestServer;
let article: string;
let author: string;

const get = (s: TestServer, path: string, token: string | null = TOKEN, headers: Record<string, string> = {}) => s.fetchJson('GET', path, undefined, token, headers);

/** Polls until `check` holds; returns the milliseconds it took (the bound the README reports). */
async function eventually(check: () => Promise<boolean>, timeoutMs = 5000): Promise<number> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return Date.now() - t0;
}

before(async () => {
  a = await startTestServer({ env: CACHE });
  // A second node on the same database.
  // Its change watch is slow on purpose: what it sees quickly, it heard from node a (NOTIFY).
  b = await startTestServer({ env: { ...CACHE, RESPONSE_CACHE_WATCH: '600000', DATABASE_URL: a.server.databaseUrl }, db: { url: a.server.databaseUrl, dataDir: a.db.dataDir, drop: async () => {} } });
  c = await startTestServer({ env: { ...CACHE, RESPONSE_CACHE_WATCH_SCAN: '0', DATABASE_URL: a.server.databaseUrl }, db: { url: a.server.databaseUrl, dataDir: a.db.dataDir, drop: async () => {} } });
  author = (await a.fetchJson('POST', '/api/authors', { data: { name: 'Ada' } }, TOKEN)).body.data.documentId;
  const r = await a.fetchJson('POST', '/api/articles', { data: { title: 'Cached', slug: 'cached', author, seo: { metaTitle: 'm1' } } }, TOKEN);
  assert.equal(r.status, 201, r.text);
  article = r.body.data.documentId;
  // The nodes hear each other once they listen.
  await eventually(async () => (await get(b, '/api/articles')).status === 200 && (await get(b, '/api/articles')).headers['x-sql-statements'] === '0');
});
after(async () => { await c?.stop(); await b?.stop(); await a?.stop(); });

test('a repeated read is answered from the cache (no statement), with its ETag and 304', async () => {
  const first = await get(a, '/api/articles?populate=*&fields[0]=title');
  // Cached (a change watch that reports the setup's writes late, under load, may drop it once first: twice
  // in a row from the cache, so that late report is behind us).
  const cached = async () => (await get(a, '/api/articles?populate=*&fields[0]=title')).headers['x-sql-statements'] === '0';
  await eventually(async () => (await cached()) && (await cached()));
  const again = await get(a, '/api/articles?populate=*&fields[0]=title');
  assert.equal(again.headers['x-sql-statements'], '0');
  assert.equal(again.text, first.text);
  assert.equal(again.headers.etag, first.headers.etag);
  const cond = await get(a, '/api/articles?populate=*&fields[0]=title', TOKEN, { 'if-none-match': first.headers.etag });
  assert.equal(cond.status, 304);
  const br = await get(a, '/api/articles?populate=*&fields[0]=title', TOKEN, { 'accept-encoding': 'br' });
  assert.equal(br.headers['x-sql-statements'] !== undefined, true, 'an encoding variant is its own entry');
});

test('a write invalidates what read its tables: the article itself, a populated author, a component', async () => {
  const q = `/api/articles/${article}?populate[author][fields][0]=name&populate[seo]=true&fields[0]=title`;
  assert.equal((await get(a, q)).body.data.author.name, 'Ada');
  // Cached (a change watch that reports the setup's writes late, under load, may drop it once first).
  await eventually(async () => (await get(a, q)).headers['x-sql-statements'] === '0');
  // The author's rename reaches the article that populated it, at once (before the write answered).
  await a.fetchJson('PUT', `/api/authors/${author}`, { data: { name: 'Ada L.' } }, TOKEN);
  const renamed = await get(a, q);
  assert.equal(renamed.headers['x-sql-statements'], '1');
  assert.equal(renamed.body.data.author.name, 'Ada L.');
  await a.fetchJson('PUT', `/api/articles/${article}`, { data: { seo: { metaTitle: 'm2' } } }, TOKEN);
  assert.equal((await get(a, q)).body.data.seo.metaTitle, 'm2');
  // A new localization shows in the localizations of the default locale's answer.
  const loc = `/api/articles/${article}?populate[localizations][fields][0]=title&fields[0]=title`;
  assert.deepEqual((await get(a, loc)).body.data.localizations, []);
  await a.fetchJson('PUT', `/api/articles/${article}?locale=fr`, { data: { title: 'En cache' } }, TOKEN);
  assert.deepEqual((await get(a, loc)).body.data.localizations.map((l: { title: string }) => l.title), ['En cache']);
});

test('callers with different permissions never share an answer', async () => {
  const q = `/api/articles/${article}?populate[author][fields][0]=name&fields[0]=title`;
  const full = await get(a, q);
  const pub = await get(a, q, null);
  assert.equal(full.body.data.author.name, 'Ada L.');
  assert.equal(pub.body.data.author, undefined, 'the public role may not read authors: the relation is left out');
  assert.equal((await get(a, q, null)).body.data.author, undefined);
  assert.equal((await get(a, q)).body.data.author.name, 'Ada L.');
});

test('GraphQL reads are cached and invalidated too; mutations never', async () => {
  const query = { query: `{ articles(filters: { slug: { eq: "cached" } }) { title author { name } } }` };
  const first = await a.fetchJson('POST', '/graphql', query, TOKEN);
  // Cached (a change watch that reports earlier writes late, under load, may drop it once first).
  let again = await a.fetchJson('POST', '/graphql', query, TOKEN);
  await eventually(async () => (again = await a.fetchJson('POST', '/graphql', query, TOKEN)).headers['x-sql-statements'] === '0');
  assert.deepEqual(again.body, first.body);
  await a.fetchJson('POST', '/graphql', { query: `mutation { updateAuthor(documentId: "${author}", data: { name: "Ada G." }) { name } }` }, TOKEN);
  const after = await a.fetchJson('POST', '/graphql', query, TOKEN);
  assert.equal(after.body.data.articles[0].author.name, 'Ada G.');
});

test('two nodes on one database: a write through either is visible on the other at once', async (t) => {
  const q = `/api/authors/${author}?fields[0]=name`;
  await get(b, q); // cached on b
  // Cached (a change watch that reports earlier writes late, under load, may drop it once first).
  await eventually(async () => (await get(b, q)).headers['x-sql-statements'] === '0');
  const waits: number[] = [];
  for (const name of ['Node A1', 'Node A2', 'Node A3']) {
    await a.fetchJson('PUT', `/api/authors/${author}`, { data: { name } }, TOKEN);
    waits.push(await eventually(async () => (await get(b, q)).body.data.name === name));
  }
  await b.fetchJson('PUT', `/api/authors/${author}`, { data: { name: 'Node B' } }, TOKEN);
  waits.push(await eventually(async () => (await get(a, q)).body.data.name === 'Node B'));
  t.diagnostic(`other node saw the write after ${waits.join(', ')} ms`);
});

test('a write made in SQL (as Strapi\'s admin) is seen within the change watch\'s bound', async (t) => {
  const q = `/api/authors/${author}?fields[0]=name`;
  await get(a, q);
  // Cached (a change watch that reports earlier writes late, under load, may drop it once first).
  await eventually(async () => (await get(a, q)).headers['x-sql-statements'] === '0');
  await a.sql()`update authors set name = 'From Strapi', updated_at = now() where document_id = ${author}`;
  const waited = await eventually(async () => (await get(a, q)).body.data.name === 'From Strapi');
  t.diagnostic(`a write behind the server's back was seen after ${waited} ms (RESPONSE_CACHE_WATCH=100)`);
});

/**
 * Runs one write in SQL on a connection of its own, as another program would (Strapi's admin). The
 * connection ends after it: PostgreSQL publishes a connection's statistics counters at its end at the
 * latest (the bound of a connection that keeps writing is in the README).
 */
async function elsewhere(s: TestServer, write: (sql: ReturnType<TestServer['sql']>) => Promise<unknown>): Promise<void> {
  const other = postgres(s.server.databaseUrl, { max: 1, onnotice: () => {} });
  try { await write(other); } finally { await other.end({ timeout: 5 }); }
}

test('a node that scans no table sees inserts, updates and deletes made in SQL (ids, statistics counters)', async (t) => {
  const q = '/api/tags?fields[0]=name&sort=name&filters[name][$startsWith]=watched';
  const names = async () => ((await get(c, q)).body.data as Array<{ name: string }>).map((x) => x.name);
  const cached = async () => { await eventually(async () => (await get(c, q)).headers['x-sql-statements'] === '0'); };
  const waits: number[] = [];
  const seen = async (expected: string[]) => { waits.push(await eventually(async () => JSON.stringify(await names()) === JSON.stringify(expected))); await cached(); };
  await cached();
  assert.deepEqual(await names(), []);
  // An insert: the highest id changes.
  await elsewhere(c, (sql) => sql`insert into tags (document_id, name, created_at, updated_at, published_at) values ('watchedtag00000000000001', 'watched 1', now(), now(), now())`);
  await seen(['watched 1']);
  // An insert below the highest id (an explicit id): only the counters tell.
  await elsewhere(c, (sql) => sql`insert into tags (id, document_id, name, created_at, updated_at, published_at) values (-10, 'watchedtag00000000000002', 'watched 2', now(), now(), now())`);
  await seen(['watched 1', 'watched 2']);
  // An update that keeps updated_at, and a delete of a row that is not the highest.
  await elsewhere(c, (sql) => sql`update tags set name = 'watched 1b' where document_id = 'watchedtag00000000000001'`);
  await seen(['watched 1b', 'watched 2']);
  await elsewhere(c, (sql) => sql`delete from tags where id = -10`);
  await seen(['watched 1b']);
  t.diagnostic(`seen after ${waits.join(', ')} ms (RESPONSE_CACHE_WATCH=100, no table scanned)`);
});

test('a node that scans no table sees a write of a connection that stays open (PostgreSQL publishes its counters once idle)', async (t) => {
  const q = '/api/tags?fields[0]=name&sort=name&filters[name][$startsWith]=watched';
  const names = async () => ((await get(c, q)).body.data as Array<{ name: string }>).map((x) => x.name);
  await eventually(async () => (await get(c, q)).headers['x-sql-statements'] === '0');
  const other = postgres(c.server.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    // A connection that published its counters less than a second ago (here: when it connected) keeps
    // them until its next transaction a second later, or until it has been idle for 10 s.
    await other`select 1`;
    await other`update tags set name = 'watched 1c' where document_id = 'watchedtag00000000000001'`;
    const waited = await eventually(async () => JSON.stringify(await names()) === '["watched 1c"]', 30000);
    t.diagnostic(`seen after ${waited} ms`);
  } finally { await other.end({ timeout: 5 }); }
});

test('a TRUNCATE made in SQL is seen (the table gets a new file)', async () => {
  const q = '/api/tags?fields[0]=name&sort=name&filters[name][$startsWith]=watched';
  await eventually(async () => (await get(c, q)).headers['x-sql-statements'] === '0');
  assert.equal((await get(c, q)).body.data.length, 1);
  await a.sql()`truncate tags cascade`;
  await eventually(async () => (await get(c, q)).body.data.length === 0);
});

test('a lost connection to the database drops every cached answer', async () => {
  const q = `/api/authors/${author}?fields[0]=name`;
  await get(b, q);
  // Cached (a change watch that reports earlier writes late, under load, may drop it once first).
  await eventually(async () => (await get(b, q)).headers['x-sql-statements'] === '0');
  await a.sql()`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = 'fastrapi' and query ilike '%listen%'`;
  await eventually(async () => (await get(b, q)).headers['x-sql-statements'] === '1');
});
