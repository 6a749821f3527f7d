// Indexes beyond Strapi's (issue 31): `npm run indexes` prints and creates them, and the statements the
// server sends use them — late pages read their ids through the published index, `_q` reads through the
// trigram index of the search document — while every answer stays what it was without them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, indexesCli, TOKEN, type TestServer } from './helpers.ts';
import { connect, queryTap } from '../src/db/connect.ts';

let s: TestServer;
const N = 130;
const titles = Array.from({ length: N }, (_, i) => `Entry ${String(i).padStart(3, '0')}`);

before(async () => {
  s = await startTestServer();
  for (const [i, title] of titles.entries()) {
    // Every third one also gets a draft change, so drafts and published rows differ.
    const r = await s.fetchJson('POST', '/api/articles', { data: { title, description: i === 7 ? 'zq-q only at the start' : i === 8 ? 'a zq-q inside' : 'plain' } }, TOKEN);
    assert.equal(r.status, 201, r.text);
    if (i % 3 === 0) assert.equal((await s.fetchJson('PUT', `/api/articles/${r.body.data.documentId}?status=draft`, { data: { title: `${title} (draft)` } }, TOKEN)).status, 200);
  }
});
after(async () => { await s?.stop(); });

const cli = (...args: string[]) => indexesCli(s, ...args);

/** What a set of requests answers (status and body), to compare before and after the indexes exist. */
const PATHS = [
  '/api/articles?pagination[page]=6&pagination[pageSize]=25&fields[0]=title',
  '/api/articles?pagination[start]=101&pagination[limit]=20&fields[0]=title',
  '/api/articles?pagination[start]=100&pagination[limit]=50&sort=title:desc&fields[0]=title',
  '/api/articles?status=draft&pagination[start]=120&pagination[limit]=25&fields[0]=title',
  '/api/articles?_q=zq-q&fields[0]=title',
  '/api/articles?_q=_zq-q&fields[0]=title',
  '/api/articles?_q=ENTRY 12&fields[0]=title&pagination[pageSize]=100',
  '/api/articles?_q=7&fields[0]=title&pagination[pageSize]=100',
  '/api/articles?_q=&fields[0]=title&pagination[pageSize]=1',
  // A filtered, sorted list: its page and count come from one pass over the matches.
  '/api/articles?filters[title][$contains]=Entry 1&sort=title:desc&pagination[page]=2&pagination[pageSize]=7&fields[0]=title',
  // Links, components and files read from each row (the `_fastrapi_fwd` indexes).
  '/api/articles?populate[category]=true&populate[tags]=true&populate[seo][populate]=*&populate[cover]=true&populate[blocks]=true&fields[0]=title&pagination[pageSize]=5',
];
async function answers(): Promise<string[]> {
  return Promise.all(PATHS.map(async (p) => { const r = await s.fetchJson('GET', p, undefined, TOKEN); return `${r.status} ${r.text}`; }));
}

/** The read statement (and its parameters) the server sent for `path`. */
async function statement(path: string): Promise<{ text: string; params: unknown[] }> {
  let seen: { text: string; params: unknown[] } | null = null;
  queryTap.fn = (text, params) => { if (/\bas data\b/.test(text)) seen = { text, params: [...params] }; };
  try { assert.equal((await s.fetchJson('GET', path, undefined, TOKEN)).status, 200); } finally { queryTap.fn = null; }
  assert.ok(seen);
  return seen;
}

/**
 * The scans of the statement's plan, seq scans disabled (a table this small is otherwise read whole; which
 * of the advised indexes a page reads by then depends on estimates for 130 rows, not on the order they serve).
 */
async function scans(path: string): Promise<string[]> {
  const { text, params } = await statement(path);
  const sql = connect(s.server.databaseUrl, 1);
  try {
    return await sql.begin(async (tx) => {
      await tx.unsafe('set local enable_seqscan = off');
      await tx.unsafe(`prepare p as ${text}`);
      const plan = await tx.unsafe<Array<{ 'QUERY PLAN': string }>>(`explain execute p(${params.map((v) => (v === null ? 'null' : `'${String(v).replace(/'/g, "''")}'`)).join(', ')})`);
      return plan.map((r) => r['QUERY PLAN']).filter((l) => /Scan/.test(l)).map((l) => l.trim());
    });
  } finally { await sql.end({ timeout: 5 }); }
}

test('pages, late pages and _q answer as Strapi whether or not the advised indexes exist', async () => {
  const before = await answers();
  const page6 = JSON.parse(before[0].slice(4));
  assert.deepEqual(page6.data.map((a: { title: string }) => a.title), titles.slice(125, 130));
  assert.deepEqual(JSON.parse(before[1].slice(4)).data.map((a: { title: string }) => a.title), titles.slice(101, 121));
  assert.deepEqual(JSON.parse(before[2].slice(4)).data.map((a: { title: string }) => a.title), [...titles].reverse().slice(100, 130));
  const drafts = JSON.parse(before[3].slice(4)).data.map((a: { title: string }) => a.title);
  assert.deepEqual(drafts, titles.slice(120, 130).map((t, i) => ((120 + i) % 3 === 0 ? `${t} (draft)` : t)));
  // `_` is a one-character wildcard inside a column, never across the search document's separators:
  // 'zq-q' starts entry 7's description (a separator precedes it in the document), so `_zq-q` finds entry 8 only
  // ('-' keeps random documentIds from matching).
  assert.deepEqual(JSON.parse(before[4].slice(4)).data.map((a: { title: string }) => a.title), [titles[7], titles[8]]);
  assert.deepEqual(JSON.parse(before[5].slice(4)).data.map((a: { title: string }) => a.title), [titles[8]]);
  assert.deepEqual(JSON.parse(before[6].slice(4)).data.map((a: { title: string }) => a.title), titles.filter((t) => t.includes('Entry 12')));
  const filtered = JSON.parse(before[9].slice(4));
  const matching = titles.filter((t) => t.includes('Entry 1')).reverse();
  assert.deepEqual(filtered.data.map((a: { title: string }) => a.title), matching.slice(7, 14));
  assert.deepEqual(filtered.meta.pagination, { page: 2, pageSize: 7, pageCount: Math.ceil(matching.length / 7), total: matching.length });
  assert.match((await statement(PATHS[9])).text, /with m as materialized .*\(select count\(\*\) from m\) as total/);

  const listed = cli();
  assert.equal(listed.status, 0, listed.stderr);
  assert.match(listed.stdout, /create extension if not exists pg_trgm;/);
  assert.match(listed.stdout, /create index concurrently if not exists "articles_fastrapi_pub" on "articles" \(locale, id\) where published_at is not null;/);
  assert.match(listed.stdout, /create index concurrently if not exists "articles_fastrapi_pub_id" on "articles" \(id\) where published_at is not null;/);
  assert.match(listed.stdout, /create index concurrently if not exists "articles_fastrapi_uq_slug" on "articles" using hash \("slug"\) where published_at is not null;/);
  assert.match(listed.stdout, /"categories_fastrapi_uq_name" on "categories" using hash \("name"\)/);
  assert.match(listed.stdout, /"articles_fastrapi_search" on "articles" using gin \(/);
  assert.match(listed.stdout, /"articles_category_lnk_fastrapi_invo" on "articles_category_lnk" \("category_id", "article_ord", id\) include \("article_id"\);/);
  assert.match(listed.stdout, /"articles_category_lnk_fastrapi_fwd" on "articles_category_lnk" \("article_id", id\) include \("category_id"\);/);
  assert.match(listed.stdout, /"articles_tags_lnk_fastrapi_fwd" on "articles_tags_lnk" \("article_id", "tag_ord", id\) include \("tag_id"\);/);
  assert.match(listed.stdout, /"articles_cmps_fastrapi_fwd" on "articles_cmps" \("entity_id", "field", "order", id\) include \("component_type", "cmp_id"\);/);
  assert.equal(listed.stdout.match(/"files_related_mph_fastrapi_fwd" on "files_related_mph" \("related_id", "related_type", "field", "order", id\) include \("file_id"\);/g)?.length, 1, 'one index for every type\'s media');
  assert.match(listed.stdout, /missing: npm run indexes -- --apply/);
  const applied = cli('--apply');
  assert.equal(applied.status, 0, applied.stderr);
  assert.match(applied.stdout, /created articles_fastrapi_draft\b/);
  assert.match(applied.stdout, /created articles_fastrapi_pub_n/);
  const again = cli();
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /-- exists: articles_fastrapi_pub/);
  assert.doesNotMatch(again.stdout, /missing/);

  assert.deepEqual(await answers(), before, 'the same answers with the indexes');
  const late = await scans(PATHS[1]);
  assert.ok(late.some((l) => /articles_fastrapi_pub/.test(l)), late.join('\n'));
  assert.ok(late.every((l) => !/Seq Scan on articles/.test(l)), late.join('\n'));
  const search = await scans(PATHS[4]);
  assert.ok(search.some((l) => /Bitmap Index Scan on articles_fastrapi_search/.test(l)), search.join('\n'));
  const draftLate = await scans(PATHS[3]);
  assert.ok(draftLate.some((l) => /articles_fastrapi_draft/.test(l)), draftLate.join('\n'));
  // Each populate reads its links presorted from the index alone: no Sort of links, no table read of them.
  const populate = await scans(PATHS[10]);
  for (const index of ['articles_category_lnk_fastrapi_fwd', 'articles_tags_lnk_fastrapi_fwd', 'articles_cmps_fastrapi_fwd', 'files_related_mph_fastrapi_fwd']) {
    assert.ok(populate.some((l) => l.includes(`Index Only Scan using ${index}`)), `${index}:\n${populate.join('\n')}`);
  }
});

test('--for advises the indexes of a request\'s own filters and sorts; the page and its count then read the index alone', async () => {
  const broad = '/api/articles?filters[views][$gte]=0&filters[title][$startsWith]=Entry&filters[featured][$eq]=false&sort[0]=publishDate:desc&sort[1]=title:asc&pagination[page]=2&pagination[pageSize]=7&fields[0]=title';
  const byAuthor = '/api/articles?sort[0]=author.name:asc&fields[0]=title';
  const before = (await s.fetchJson('GET', broad, undefined, TOKEN)).text;
  const small = cli('--for', broad);
  assert.equal(small.status, 0, small.stderr);
  assert.match(small.stdout, /no index advised/, 'tables under 10,000 rows get none');
  const advised = cli('--for', broad, '--for', byAuthor, '--min-rows', '0');
  assert.equal(advised.status, 0, advised.stderr);
  // Equality first, then the range; the rest of the filter and the sort ride along, so nothing reads a row.
  assert.match(advised.stdout, /^create index concurrently if not exists "articles_fastrapi_q_[0-9a-f]{8}" on "articles" \(locale, "featured", "views"\) include \("id", "publish_date", "title"\) where published_at is not null;/m);
  assert.match(advised.stdout, /^create index concurrently if not exists "authors_fastrapi_q_[0-9a-f]{8}" on "authors" \("name", id\);/m);
  // A long text is never indexed (a btree entry holds 2,704 bytes: a long body written later would fail).
  const long = cli('--for', '/api/articles?filters[body][$eq]=x&filters[views][$gt]=1&sort=description', '--min-rows', '0');
  assert.equal(long.status, 0, long.stderr);
  assert.match(long.stdout, /on "articles" \(locale, "views"\) include \("id"\) where published_at is not null;/);
  const bad = cli('--for', '/api/nothing?x=1', '--min-rows', '0');
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /--for \/api\/nothing\?x=1: not a content-type's GET route/);

  const applied = cli('--for', broad, '--for', byAuthor, '--min-rows', '0', '--apply');
  assert.equal(applied.status, 0, applied.stderr);
  assert.match(applied.stdout, /created articles_fastrapi_q_/);
  assert.equal((await s.fetchJson('GET', broad, undefined, TOKEN)).text, before, 'the same answer with the index');
  const plan = await scans(broad);
  assert.ok(plan.some((l) => /Index Only Scan using articles_fastrapi_q_/.test(l)), plan.join('\n'));
});
