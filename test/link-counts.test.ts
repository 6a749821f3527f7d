// Link counters (issue 31, compiler/counts.ts): with the triggers `npm run indexes -- --for` installs for a
// list filtered through a to-one relation, the list's total comes from fastrapi.row_counts, and stays
// exactly what counting the rows says whoever writes — two nodes writing relations, publishing, deleting
// articles and categories at once, and SQL by hand changing links, locales and publication, deleting and
// truncating. Without the triggers (dropped, disabled), reads count rows.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import postgres from 'postgres';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, startTwoNodes, indexesCli, created, copyModels, DEMO_MODELS, TOKEN, type TestServer } from './helpers.ts';

type Doc = { documentId: string; [k: string]: unknown };
const PATH = '/api/articles?filters[category][name][$eq]=Cat A';

describe('link counters', () => {
  let a: TestServer, b: TestServer;
  const cats: Doc[] = [];
  before(async () => { [a, b] = await startTwoNodes({ GRAPHQL_SHAPE: 'v5' }); });
  after(async () => { await b?.stop(); await a?.stop(); });

  const cli = (...args: string[]) => indexesCli(a, ...args);
  const post = created;
  /** The totals both nodes answer for lists filtered by category name, next to count(*) over the rows. */
  async function check(what: string): Promise<Record<string, number>> {
    const api: Record<string, number> = {};
    const sql: Record<string, number> = {};
    for (const [name, locale, status] of [['Cat A', 'en', 'published'], ['Cat A', 'en', 'draft'], ['Cat A', 'fr', 'published'], ['Cat B', 'en', 'published'], ['Cat%', 'en', 'published']] as const) {
      const key = `${name} ${locale} ${status}`;
      const op = name.endsWith('%') ? `$startsWith]=${name.slice(0, -1)}` : `$eq]=${name}`;
      // Sorted by a relation's field too: the page walks the authors, the total is the same.
      for (const extra of ['', '&sort[0]=author.name:asc']) {
        const path = `/api/articles?filters[category][name][${op}&locale=${locale}&status=${status}&fields[0]=title&pagination[pageSize]=1${extra}`;
        const [ra, rb] = await Promise.all([a, b].map((s) => s.fetchJson('GET', path, undefined, TOKEN, { 'cache-control': 'no-cache' })));
        assert.equal(ra.status, 200, ra.text);
        assert.equal(rb.body.meta.pagination.total, ra.body.meta.pagination.total, `${what}: ${key}${extra}: both nodes`);
        if (extra) assert.equal(ra.body.meta.pagination.total, api[key], `${what}: ${key}: sorted`);
        api[key] = ra.body.meta.pagination.total;
      }
      const [{ n }] = await a.sql().unsafe(`select count(*)::int as n from articles o where o.locale = $1 and o.published_at is ${status === 'published' ? 'not' : ''} null
        and exists (select 1 from articles_category_lnk l join categories c on c.id = l.category_id where l.article_id = o.id and c.name like $2)`, [locale, name]);
      sql[key] = n;
    }
    assert.deepEqual(api, sql, what);
    // GraphQL's total goes the same way.
    const g = await a.fetchJson('POST', '/graphql', { query: '{ articles_connection(filters: { category: { name: { eq: "Cat A" } } }, status: DRAFT, pagination: { pageSize: 1 }) { pageInfo { total } } }' }, TOKEN, { 'cache-control': 'no-cache' });
    assert.equal(g.status, 200, g.text);
    assert.equal(g.body.data.articles_connection.pageInfo.total, api['Cat A en draft'], `${what}: GraphQL`);
    // And the counters themselves, entry by entry, when installed: what the links say per category, locale and status.
    const [{ armed }] = await a.sql().unsafe(`select count(*)::int as armed from pg_trigger where tgenabled = 'A' and (
      (tgrelid = 'articles_category_lnk'::regclass and tgname like 'fastrapi_links_%') or (tgrelid = 'articles'::regclass and tgname like 'fastrapi_ol_%'))`);
    if (armed === 6) {
      const diff = await a.sql().unsafe(`select * from (
          select target, locale, published, sum(n)::int as n from fastrapi.row_counts where rel = 'articles_category_lnk'::regclass group by 1, 2, 3 having sum(n) <> 0) c
        full join (select l.category_id as target, o.locale, o.published_at is not null as published, count(*)::int as n
          from articles_category_lnk l join articles o on o.id = l.article_id group by 1, 2, 3) r using (target, locale, published)
        where c.n is distinct from r.n`);
      assert.deepEqual([...diff], [], `${what}: the counters per category, locale and status`);
    }
    return api;
  }

  test('before the counters: totals count the links', async () => {
    cats.push(await post(a, '/api/categories', { name: 'Cat A' }), await post(a, '/api/categories', { name: 'Cat B' }));
    const author = await post(a, '/api/authors', { name: 'Ann' });
    for (let i = 0; i < 6; i++) await post(a, '/api/articles', { title: `before ${i}`, category: cats[i % 2].documentId, author: author.documentId });
    await check('before the counters exist');
  });

  test('npm run indexes -- --for prints the link counters; --apply installs them and counts the links once', async () => {
    const printed = cli('--for', PATH, '--min-rows', '0');
    assert.equal(printed.status, 0, printed.stderr);
    assert.match(printed.stdout, /create trigger fastrapi_links_ins after insert on "articles_category_lnk" referencing new table as fastrapi_new for each statement execute function fastrapi\.count_links\('articles', 'article_id', 'category_id'\)/);
    assert.match(printed.stdout, /create trigger fastrapi_ol_[0-9a-f]{12}_del before delete on "articles" for each row/);
    assert.match(printed.stdout, /1 counters missing/);
    const applied = cli('--for', PATH, '--min-rows', '0', '--apply');
    assert.equal(applied.status, 0, applied.stderr);
    assert.match(applied.stdout, /counters on articles_category_lnk/);
    assert.match(cli('--for', PATH, '--min-rows', '0').stdout, /-- exists: counters on articles_category_lnk/);
    const now = await check('right after installing');
    // The reads take the total from the counters now: an entry added by hand shows in it (and only there).
    await a.sql().unsafe(`insert into fastrapi.row_counts (rel, target, locale, published, n) select 'articles_category_lnk'::regclass, id, 'en', true, 1000 from categories where name = 'Cat A'`);
    const r = await a.fetchJson('GET', PATH, undefined, TOKEN, { 'cache-control': 'no-cache' });
    assert.equal(r.body.meta.pagination.total, now['Cat A en published'] + 1000);
    const g = await a.fetchJson('POST', '/graphql', { query: '{ articles_connection(filters: { category: { name: { eq: "Cat A" } } }) { pageInfo { total } } }' }, TOKEN, { 'cache-control': 'no-cache' });
    assert.equal(g.body.data.articles_connection.pageInfo.total, now['Cat A en published'] + 1000, 'GraphQL reads them too');
    await a.sql().unsafe(`delete from fastrapi.row_counts where n = 1000`);
    await check('the hand-made entry removed');
  });

  test('50 parallel writers on two nodes and SQL by hand: every total stays count(*)', async () => {
    const author = await post(b, '/api/authors', { name: 'Bob' });
    const docs = await Promise.all(Array.from({ length: 50 }, (_, i) => post([a, b][i % 2], '/api/articles', { title: `w${i}`, category: cats[i % 2].documentId, author: author.documentId })));
    await check('after 50 parallel creates');
    const ops: Array<Promise<{ status: number; text: string } | unknown>> = [];
    for (const [i, d] of docs.entries()) {
      const s = [a, b][i % 2];
      const other = cats[(i + 1) % 2].documentId;
      if (i % 6 === 0) ops.push(s.fetchJson('DELETE', `/api/articles/${d.documentId}`, undefined, TOKEN));
      else if (i % 6 === 1) ops.push(s.fetchJson('PUT', `/api/articles/${d.documentId}?locale=fr`, { data: { title: `fr ${i}`, category: null } }, TOKEN));
      else if (i % 6 === 2) ops.push(s.fetchJson('PUT', `/api/articles/${d.documentId}?locale=fr`, { data: { title: `fr ${i}`, category: other } }, TOKEN));
      else if (i % 6 === 3) ops.push(s.fetchJson('PUT', `/api/articles/${d.documentId}`, { data: { category: { disconnect: [cats[i % 2].documentId] } } }, TOKEN));
      else if (i % 6 === 4) ops.push(s.fetchJson('PUT', `/api/articles/${d.documentId}`, { data: { category: other } }, TOKEN));
      else ops.push(s.fetchJson('PUT', `/api/articles/${d.documentId}?status=draft`, { data: { title: `draft ${i}`, category: other } }, TOKEN));
    }
    // Strapi-like writes in SQL beside them: links added and removed, a locale and a publication changed, rows deleted.
    const sql = a.sql();
    ops.push(sql.unsafe(`insert into articles_category_lnk (article_id, category_id, article_ord)
      select o.id, (select id from categories where name = 'Cat A'), 1 from articles o where o.title like 'before%' and not exists (select 1 from articles_category_lnk l where l.article_id = o.id)`));
    ops.push(sql.begin(async (tx) => {
      await tx.unsafe(`update articles set locale = 'fr' where id in (select id from articles where title like 'before%' and published_at is null limit 2)`);
      await tx.unsafe(`update articles set published_at = null where id in (select id from articles where title like 'before%' and published_at is not null limit 1)`);
    }));
    ops.push(sql.unsafe(`delete from articles where id in (select id from articles where title = 'before 4')`));
    ops.push(sql.unsafe(`delete from articles_category_lnk where article_id in (select id from articles where title = 'before 5')`));
    for (const [i, r] of (await Promise.all(ops)).entries()) {
      const res = r as { status?: number; text?: string };
      if (res && typeof res.status === 'number') assert.ok(res.status < 300, `op ${i}: ${res.text}`);
    }
    await check('after mixed concurrent writes');
  });

  test('a link written while its row changes locale or status is counted under the row\'s new key', async () => {
    const sql = a.sql();
    const own = postgres(a.server.databaseUrl, { max: 2, onnotice: () => {} });
    const [c1, c2] = [await own.reserve(), await own.reserve()];
    const pause = () => new Promise((r) => setTimeout(r, 300));
    try {
      for (const linkFirst of [true, false]) {
        const doc = await post(a, '/api/articles', { title: `key change ${linkFirst}` });
        const [{ id }] = await sql.unsafe(`select id from articles where document_id = $1 and published_at is null`, [doc.documentId]);
        const link = `insert into articles_category_lnk (article_id, category_id) select ${id}, id from categories where name = 'Cat A'`;
        const change = `update articles set locale = 'fr', published_at = now() where id = ${id}`;
        // Each in its own transaction, the second started while the first is open, then the first committed.
        const [first, second] = linkFirst ? [link, change] : [change, link];
        await c1.unsafe('begin');
        await c1.unsafe(first);
        const waiting = c2.unsafe(second).execute();
        await pause();
        await c1.unsafe('commit');
        await waiting;
        await check(linkFirst ? 'a link added, its row moved meanwhile' : 'a row moved, a link added meanwhile');
      }
    } finally {
      await c1.unsafe('rollback').catch(() => {});
      c1.release();
      c2.release();
      await own.end({ timeout: 5 });
    }
  });

  test('deleting a category removes its links from the counts; both nodes fold the entries', async () => {
    const extra = await post(a, '/api/categories', { name: 'Cat C' });
    await Promise.all(Array.from({ length: 20 }, (_, i) => post([a, b][i % 2], '/api/articles', { title: `c${i}`, category: extra.documentId })));
    await a.sql().unsafe(`update categories set name = 'Cat B' where name = 'Cat C'`);
    await check('a third category named like the second');
    const r = await b.fetchJson('DELETE', `/api/categories/${extra.documentId}`, undefined, TOKEN);
    assert.ok(r.status < 300, r.text);
    await check('the third category deleted');
    const entries = async () => Number((await a.sql().unsafe(`select count(*)::int as n from fastrapi.row_counts where rel = 'articles_category_lnk'::regclass`))[0].n);
    const keys = async () => Number((await a.sql().unsafe(`select count(*)::int as n from (select distinct target, locale, published from fastrapi.row_counts where rel = 'articles_category_lnk'::regclass) k`))[0].n);
    // Over 64 entries (src/db/counts.ts FOLD_ABOVE) and over two per key: the nodes fold them. A fold may
    // already have run during the writes (or run at any moment in the background), leaving fewer: the 70
    // entries that change nothing (n = 0) are enough to fold, so the wait below proves a fold ran.
    await a.sql().unsafe(`insert into fastrapi.row_counts (rel, target, locale, published, n)
      select 'articles_category_lnk'::regclass, (select id from categories where name = 'Cat A'), 'en', true, 0 from generate_series(1, 70)`);
    const deadline = Date.now() + 20_000;
    while (await entries() > await keys() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(await entries(), await keys(), 'folded into one entry per category, locale and status');
    await check('after folding');
  });

  test('a disabled or dropped trigger makes reads count rows; TRUNCATE empties the counts', async () => {
    const [{ name }] = await a.sql().unsafe(`select tgname as name from pg_trigger where tgrelid = 'articles'::regclass and tgname like 'fastrapi_ol_%_del'`);
    await a.sql().unsafe(`alter table articles disable trigger ${name}`);
    // Unseen by the counters now: the links these deletes cascade away stay counted, and the reads must not use them.
    await a.sql().unsafe(`delete from articles where title like 'c%'`);
    await check('the owner delete trigger disabled');
    const reinstalled = cli('--for', PATH, '--min-rows', '0', '--apply');
    assert.match(reinstalled.stdout, /counters on articles_category_lnk/);
    await check('reinstalled and recounted');
    await a.sql().unsafe('truncate articles_category_lnk');
    assert.equal((await check('after truncate'))['Cat A en published'], 0);
    await post(b, '/api/articles', { title: 'after truncate', category: cats[0].documentId });
    assert.equal((await check('an article after truncate'))['Cat A en published'], 1);
    await a.sql().unsafe(`drop trigger fastrapi_links_ins on articles_category_lnk`);
    await a.sql().unsafe(`insert into articles_category_lnk (article_id, category_id) select id, (select id from categories where name = 'Cat A') from articles where title = 'w1' and published_at is not null`);
    await check('a link trigger dropped');
  });
});

describe('link counters: a relation whose rows link to two versions of one target', () => {
  // A type without draft & publish links to both the draft and the published row of a target that has it
  // (src/rest/write-relations.ts): summing the targets' counts would count such a row once per version.
  let s: TestServer;
  before(async () => {
    const dir = copyModels(DEMO_MODELS);
    const file = join(dir, 'content-types', 'author.json');
    const author = JSON.parse(readFileSync(file, 'utf8'));
    author.attributes.featured = { type: 'relation', relation: 'manyToOne', target: 'api::article.article' };
    writeFileSync(file, JSON.stringify(author));
    s = await startTestServer({ modelsDir: dir });
  });
  after(async () => { await s?.stop(); });

  test('a type without draft & publish filtered through a relation to one with it: the total counts each row once', async () => {
    const post = (path: string, data: unknown) => created(s, path, data);
    const article = await post('/api/articles', { title: 'Star' });
    await post('/api/authors', { name: 'Fan', featured: article.documentId });
    await post('/api/authors', { name: 'Nobody' });
    const [{ n }] = await s.sql().unsafe(`select count(*)::int as n from authors_featured_lnk`);
    assert.equal(n, 2, 'the author row links to the article\'s draft and its published row');
    const path = '/api/authors?filters[featured][title][$eq]=Star';
    const total = async () => (await s.fetchJson('GET', path, undefined, TOKEN, { 'cache-control': 'no-cache' })).body.meta.pagination.total;
    assert.equal(await total(), 1);
    const applied = indexesCli(s, '--for', path, '--min-rows', '0', '--apply');
    assert.equal(applied.status, 0, applied.stderr);
    assert.equal(await total(), 1, 'still one author');
    assert.doesNotMatch(applied.stdout, /counters on authors_featured_lnk/);
  });
});
