// Row counters (issue 31, compiler/counts.ts): with the triggers `npm run indexes -- --apply` installs, an
// unfiltered list's total comes from fastrapi.row_counts, and stays exactly count(*) whoever writes —
// two nodes (one with two worker threads) writing at once through REST and GraphQL, SQL by hand with
// inserts, updates of locale and publication, deletes and TRUNCATE, while both nodes fold the entries. Without
// the triggers (never installed, dropped, disabled), reads count rows. And filtered lists on large tables
// run on the custom-plan pool with the same answers.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, sameDatabaseNode, startTwoNodes, indexesCli, created, TOKEN, type TestServer } from './helpers.ts';

type Doc = { documentId: string; [k: string]: unknown };

describe('row counters', () => {
  let a: TestServer, b: TestServer;
  before(async () => { [a, b] = await startTwoNodes({ GRAPHQL_SHAPE: 'v5' }); });
  after(async () => { await b?.stop(); await a?.stop(); });

  const cli = (...args: string[]) => indexesCli(a, ...args);
  const post = created;
  /** What the REST lists (both nodes) and GraphQL say the totals are, next to count(*). */
  async function totals(): Promise<{ api: Record<string, number>; sql: Record<string, number> }> {
    const api: Record<string, number> = {};
    for (const [key, path] of [
      ['articles en published', '/api/articles?fields[0]=title&pagination[pageSize]=1'],
      ['articles en draft', '/api/articles?status=draft&fields[0]=title&pagination[pageSize]=1'],
      ['articles fr published', '/api/articles?locale=fr&fields[0]=title&pagination[pageSize]=1'],
      ['articles fr draft', '/api/articles?locale=fr&status=draft&fields[0]=title&pagination[pageSize]=1'],
      ['articles * published', '/api/articles?locale=*&fields[0]=title&pagination[start]=0&pagination[limit]=1'],
      ['tags', '/api/tags?pagination[pageSize]=1'],
    ] as const) {
      const [ra, rb] = await Promise.all([a.fetchJson('GET', path, undefined, TOKEN, { 'cache-control': 'no-cache' }), b.fetchJson('GET', path, undefined, TOKEN, { 'cache-control': 'no-cache' })]);
      assert.equal(ra.status, 200, ra.text);
      assert.equal(rb.body.meta.pagination.total, ra.body.meta.pagination.total, `${key}: both nodes`);
      api[key] = ra.body.meta.pagination.total;
    }
    const g = await a.fetchJson('POST', '/graphql', { query: '{ tags_connection(pagination: { pageSize: 1 }) { pageInfo { total } } }' }, TOKEN, { 'cache-control': 'no-cache' });
    assert.equal(g.status, 200, g.text);
    assert.equal(g.body.data.tags_connection.pageInfo.total, api.tags, 'GraphQL total');
    const n = async (where: string, table = 'articles') => Number((await a.sql().unsafe(`select count(*)::int as n from ${table} where ${where}`))[0].n);
    const sql: Record<string, number> = {
      'articles en published': await n("locale = 'en' and published_at is not null"),
      'articles en draft': await n("locale = 'en' and published_at is null"),
      'articles fr published': await n("locale = 'fr' and published_at is not null"),
      'articles fr draft': await n("locale = 'fr' and published_at is null"),
      'articles * published': await n('published_at is not null'),
      tags: await n('published_at is not null', 'tags'),
    };
    return { api, sql };
  }
  const exact = async (what: string) => { const t = await totals(); assert.deepEqual(t.api, t.sql, what); return t.sql; };
  const entries = async () => Number((await a.sql().unsafe(`select count(*)::int as n from fastrapi.row_counts where rel = 'articles'::regclass`))[0].n);

  test('without counters installed, totals count rows', async () => {
    for (let i = 0; i < 5; i++) await post(a, '/api/articles', { title: `before ${i}` });
    await post(a, '/api/tags', { name: 'first' });
    await exact('before the counters exist');
    assert.equal((await a.sql().unsafe('select count(*)::int as n from fastrapi.row_counts'))[0].n, 0);
  });

  test('npm run indexes prints the counters; --apply installs them and counts the rows once', async () => {
    const printed = cli();
    assert.equal(printed.status, 0, printed.stderr);
    assert.match(printed.stdout, /create or replace function fastrapi\.count_rows\(\)/);
    assert.match(printed.stdout, /create trigger fastrapi_count_ins after insert on "articles"/);
    assert.match(printed.stdout, /counters missing: npm run indexes -- --apply/);
    const applied = cli('--apply');
    assert.equal(applied.status, 0, applied.stderr);
    assert.match(applied.stdout, /counters on articles/);
    const again = cli();
    assert.match(again.stdout, /-- exists: counters on articles/);
    const totalsNow = await exact('right after installing');
    // The reads now take the totals from the counters: an entry added by hand shows in them (and only there).
    await a.sql().unsafe(`insert into fastrapi.row_counts (rel, locale, published, n) values ('tags'::regclass, null, true, 1000)`);
    const r = await a.fetchJson('GET', '/api/tags', undefined, TOKEN, { 'cache-control': 'no-cache' });
    assert.equal(r.body.meta.pagination.total, totalsNow.tags + 1000);
    await a.sql().unsafe(`delete from fastrapi.row_counts where rel = 'tags'::regclass and n = 1000`);
    await exact('the hand-made entry removed');
  });

  test('50 parallel writers on two nodes, GraphQL, and SQL by hand: every total stays count(*)', async () => {
    const docs = await Promise.all(Array.from({ length: 50 }, (_, i) => post([a, b][i % 2], '/api/articles', { title: `w${i}` })));
    await exact('after 50 parallel creates');
    const ops: Array<Promise<unknown>> = [];
    for (const [i, d] of docs.entries()) {
      const s = [a, b][i % 2];
      if (i % 5 === 0) ops.push(s.fetchJson('DELETE', `/api/articles/${d.documentId}`, undefined, TOKEN));
      else if (i % 5 === 1) ops.push(s.fetchJson('POST', `/api/articles/${d.documentId}/actions/unpublish`, undefined, TOKEN).then(() => undefined));
      else if (i % 5 === 2) ops.push(s.fetchJson('PUT', `/api/articles/${d.documentId}?locale=fr`, { data: { title: `fr ${i}` } }, TOKEN));
      else if (i % 5 === 3) ops.push(s.fetchJson('PUT', `/api/articles/${d.documentId}?status=draft`, { data: { title: `draft ${i}` } }, TOKEN));
      else ops.push(s.fetchJson('POST', '/graphql', { query: `mutation { createTag(data: { name: "g${i}" }) { documentId } }` }, TOKEN));
    }
    // Beside them, Strapi-like writes in SQL on other connections: inserts, a locale change, unpublishing, deletes.
    const sql = a.sql();
    ops.push(sql.unsafe(`insert into articles (document_id, title, locale, published_at, created_at, updated_at)
      select 'sqldoc' || g, 'sql ' || g, case when g % 2 = 0 then 'en' else 'fr' end, case when g % 3 = 0 then null else now() end, now(), now() from generate_series(1, 40) g`));
    ops.push(sql.begin(async (tx) => {
      await tx.unsafe(`update articles set locale = 'fr' where id in (select id from articles where title like 'before%' and published_at is null limit 2)`);
      await tx.unsafe(`update articles set published_at = null where id in (select id from articles where title like 'before%' and published_at is not null limit 1)`);
    }));
    ops.push(sql.unsafe(`delete from articles where id in (select id from articles where title like 'before 4%')`));
    const results = await Promise.all(ops);
    for (const r of results) if (r && typeof r === 'object' && 'status' in r) assert.ok((r as { status: number }).status < 300, JSON.stringify(r));
    await exact('after mixed concurrent writes');
    // Both nodes fold the entries once there are more than 64: the totals stay exact through it. A fold
    // may already have run during the writes (or run at any moment in the background), leaving fewer: the
    // 70 entries that change nothing (n = 0) are enough to fold, so the wait below proves a fold ran.
    await a.sql().unsafe(`insert into fastrapi.row_counts (rel, locale, published, n) select 'articles'::regclass, 'en', true, 0 from generate_series(1, 70)`);
    const deadline = Date.now() + 20_000;
    while (await entries() > 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok(await entries() <= 4, 'folded into one entry per locale and status');
    await exact('after folding');
  });

  test('TRUNCATE empties the counts; writes after it count again', async () => {
    await a.sql().unsafe('truncate tags cascade');
    assert.equal((await exact('after truncate')).tags, 0);
    await post(b, '/api/tags', { name: 'after truncate' });
    assert.equal((await exact('a tag after truncate')).tags, 1);
  });

  test('a disabled or dropped trigger makes reads count rows again', async () => {
    await a.sql().unsafe('alter table tags disable trigger fastrapi_count_ins');
    await a.sql().unsafe(`insert into tags (document_id, name, published_at, created_at, updated_at) values ('sqltag', 'unseen by the counters', now(), now(), now())`);
    assert.equal((await exact('trigger disabled')).tags, 2);
    await a.sql().unsafe('drop trigger fastrapi_count_ins on tags');
    assert.equal((await exact('trigger dropped')).tags, 2);
    const reinstalled = cli('--apply');
    assert.match(reinstalled.stdout, /counters on tags/);
    assert.doesNotMatch(reinstalled.stdout, /counters on articles/);
    await post(a, '/api/tags', { name: 'counted again' });
    assert.equal((await exact('reinstalled and recounted')).tags, 3);
  });
});

describe('filtered lists on large tables', () => {
  let custom: TestServer, generic: TestServer;
  before(async () => {
    generic = await startTestServer({ env: { DB_CUSTOM_PLAN_ROWS: '0', GRAPHQL_SHAPE: 'v5' } });
    const cat = (await generic.fetchJson('POST', '/api/categories', { data: { name: 'Cat A' } }, TOKEN)).body.data as Doc;
    for (let i = 0; i < 30; i++) {
      const r = await generic.fetchJson('POST', '/api/articles', { data: { title: `Art ${i}`, views: i * 10, ...(i % 3 ? {} : { category: { connect: [cat.documentId] } }) } }, TOKEN);
      assert.equal(r.status, 201, r.text);
    }
    // Table sizes are PostgreSQL's estimates, read at start: every table with a row counts as large on the
    // second server, whose filtered lists then take the custom-plan pool.
    await generic.sql().unsafe('analyze');
    custom = await sameDatabaseNode(generic, { DB_CUSTOM_PLAN_ROWS: '1', GRAPHQL_SHAPE: 'v5' });
  });
  after(async () => { await custom?.stop(); await generic?.stop(); });

  const customConnections = async () => Number((await custom.sql().unsafe(
    `select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = 'fastrapi-custom-plans'`))[0].n);

  test('answer as with generic plans, from the force_custom_plan pool', async () => {
    const paths = [
      '/api/articles?filters[views][$gte]=100&sort=views:desc&pagination[pageSize]=5&fields[0]=title&fields[1]=views',
      '/api/articles?filters[category][name][$startsWith]=Cat&sort=title:asc&populate[category][fields][0]=name',
      '/api/articles?_q=Art 1&fields[0]=title',
    ];
    // The table sizes are read in the background at start.
    const deadline = Date.now() + 10_000;
    while (await customConnections() === 0 && Date.now() < deadline) {
      await custom.fetchJson('GET', paths[0], undefined, TOKEN, { 'cache-control': 'no-cache' });
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(await customConnections() > 0, 'a filtered list ran on the custom-plan pool');
    for (const p of paths) {
      const [c, g] = await Promise.all([custom.fetchJson('GET', p, undefined, TOKEN, { 'cache-control': 'no-cache' }), generic.fetchJson('GET', p, undefined, TOKEN, { 'cache-control': 'no-cache' })]);
      assert.equal(c.status, 200, c.text);
      assert.ok(c.body.data.length > 0, p);
      assert.deepEqual(c.body, g.body, p);
    }
    const gq = '{ articles(filters: { views: { gt: 50 } }, sort: "views:asc", pagination: { limit: 3 }) { title views } }';
    const [c, g] = await Promise.all([custom.fetchJson('POST', '/graphql', { query: gq }, TOKEN), generic.fetchJson('POST', '/graphql', { query: gq }, TOKEN)]);
    assert.equal(c.status, 200, c.text);
    assert.deepEqual(c.body, g.body);
    assert.equal(c.body.data.articles.length, 3);
  });

  test('unfiltered lists and single documents stay on the generic-plan pool', async () => {
    const first = await startTestServer({ env: { DB_CUSTOM_PLAN_ROWS: '1' } });
    const doc = (await first.fetchJson('POST', '/api/articles', { data: { title: 'alone', views: 5 } }, TOKEN)).body.data as Doc;
    await first.sql().unsafe('analyze');
    await first.stop({ keepData: true });
    const own = await startTestServer({ env: { DB_CUSTOM_PLAN_ROWS: '1' }, db: first.db });
    try {
      const opened = async () => Number((await own.sql().unsafe(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = 'fastrapi-custom-plans'`))[0].n);
      const filtered = () => own.fetchJson('GET', '/api/articles?filters[views][$eq]=5', undefined, TOKEN, { 'cache-control': 'no-cache' });
      // The table sizes are read in the background at start.
      await new Promise((r) => setTimeout(r, 500));
      for (let i = 0; i < 20; i++) {
        for (const p of ['/api/articles', '/api/articles?populate=*', `/api/articles/${doc.documentId}`, '/api/global', '/api/articles?sort=views:desc']) {
          const r = await own.fetchJson('GET', p, undefined, TOKEN, { 'cache-control': 'no-cache' });
          assert.ok(r.status === 200 || r.status === 404, `${p}: ${r.status}`);
        }
      }
      assert.equal(await opened(), 0, 'no custom-plan connection for unfiltered reads');
      const r = await filtered();
      assert.equal(r.body.data.length, 1);
      assert.ok(await opened() > 0, 'the filtered list opened one');
    } finally { await own.stop(); }
  });
});
