// A to-one populate answers each row's first link (by id) once, however many links the row holds
// (migrated data can hold two). On a small link table the statement first looks, once, for any row with
// two links and skips every row's own check when there is none (compiler/sql.ts `joinedPopulate`); on a
// larger one it checks row by row; on one the node knows is large (src/db/table-sizes.ts) it reads each
// row's first link alone. All answer the same, before and after a row gains a second link.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, sameDatabaseNode, TOKEN, type TestServer } from './helpers.ts';
import { queryTap } from '../src/db/connect.ts';

let s: TestServer;
const ids: Record<string, string> = {};

const post = async (path: string, data: unknown): Promise<string> => {
  const r = await s.fetchJson('POST', path, { data }, TOKEN);
  assert.equal(r.status, 201, r.text);
  return r.body.data.documentId as string;
};
const get = async (path: string, node = s) => {
  const r = await node.fetchJson('GET', path, undefined, TOKEN);
  assert.equal(r.status, 200, r.text);
  return r.body;
};

before(async () => {
  s = await startTestServer();
  for (const name of ['Tech', 'Food']) ids[name] = await post('/api/categories', { name, slug: name.toLowerCase() });
  ids.ann = await post('/api/authors', { name: 'Ann' });
  for (const [t, c] of [['A1', 'Tech'], ['A2', 'Tech'], ['A3', 'Food']]) ids[t] = await post('/api/articles', { title: t, category: ids[c], author: ids.ann });
  ids.A4 = await post('/api/articles', { title: 'A4' });
});
after(async () => { await s?.stop(); });

/** Published articles A1–A4 by title: [title, category name], through the author's articles too. */
const PATH = '/api/articles?sort=title&fields[0]=title&filters[title][$startsWith]=A&populate[category][fields][0]=name&populate[author][populate][articles][sort]=title&populate[author][populate][articles][fields][0]=title&populate[author][populate][articles][populate][category][fields][0]=name';
type Entry = { title: string; category: { name: string } | null; author: { articles: Entry[] } | null };
async function categories(node = s): Promise<{ rows: Array<[string, string | null]>; nested: Array<[string, string | null]> }> {
  const data = (await get(PATH, node)).data as Entry[];
  return {
    rows: data.map((a) => [a.title, a.category?.name ?? null]),
    nested: (data[0].author?.articles ?? []).map((a) => [a.title, a.category?.name ?? null]),
  };
}

/** A second link of A2's published row, to Food, with a lower id than its own (so it is the first). Returns the undo. */
async function duplicateLink(): Promise<() => Promise<void>> {
  const sql = s.sql();
  const [row] = await sql`select id from articles where document_id = ${ids.A2} and published_at is not null`;
  const [food] = await sql`select id from categories where document_id = ${ids.Food}`;
  const [own] = await sql`select category_id, article_ord from articles_category_lnk where article_id = ${row.id}`;
  await sql`delete from articles_category_lnk where article_id = ${row.id}`;
  await sql`insert into articles_category_lnk (article_id, category_id, article_ord) values (${row.id}, ${food.id}, 99), (${row.id}, ${own.category_id}, ${own.article_ord})`;
  return async () => {
    await sql`delete from articles_category_lnk where article_id = ${row.id}`;
    await sql`insert into articles_category_lnk (article_id, category_id, article_ord) values (${row.id}, ${own.category_id}, ${own.article_ord})`;
  };
}

/** EXPLAIN ANALYZE of PATH's read statement: the lines about articles_category_lnk's two checks. */
async function checks(node = s): Promise<{ perRow: string[]; once: string[]; plan: string[] }> {
  let seen: { text: string; params: unknown[] } | null = null;
  queryTap.fn = (text, params) => { if (/\bas data\b/.test(text)) seen = { text, params: [...params] }; };
  try { await get(PATH, node); } finally { queryTap.fn = null; }
  assert.ok(seen);
  const { text, params } = seen as { text: string; params: unknown[] };
  const plan = await s.sql().begin(async (tx) => {
    await tx.unsafe(`prepare p as ${text}`);
    const args = params.map((v) => (v === null ? 'null' : `'${String(v).replace(/'/g, "''")}'`)).join(', ');
    try {
      return (await tx.unsafe<Array<{ 'QUERY PLAN': string }>>(`explain (analyze, costs off, timing off) execute p${args ? `(${args})` : ''}`)).map((r) => r['QUERY PLAN']);
    } finally { await tx.unsafe('deallocate p'); }
  });
  // The joined link itself is `lt<n>`, an earlier one `lt<m>` (filtered by `id < lt<n>.id`), the whole-table look `lt<m>d`.
  const lines = plan.filter((l) => /Scan.* on articles_category_lnk lt\d+d?\b/.test(l));
  return { perRow: lines.filter((l) => /on articles_category_lnk lt\d+ /.test(l) && /\(never executed\)|loops/.test(l)), once: lines.filter((l) => /on articles_category_lnk lt\d+d\b/.test(l)), plan };
}

const CLEAN = { rows: [['A1', 'Tech'], ['A2', 'Tech'], ['A3', 'Food'], ['A4', null]], nested: [['A1', 'Tech'], ['A2', 'Tech'], ['A3', 'Food']] };
const DOUBLED = { rows: [['A1', 'Tech'], ['A2', 'Food'], ['A3', 'Food'], ['A4', null]], nested: [['A1', 'Tech'], ['A2', 'Food'], ['A3', 'Food']] };

test('a small link table: looked at once for a row with two links; each row checked only when one has', async () => {
  assert.deepEqual(await categories(), CLEAN);
  const clean = await checks();
  assert.ok(clean.once.length && clean.once.every((l) => !/never executed/.test(l)), clean.once.join('\n'));
  // Every per-row look for an earlier link is skipped (the joined link's own scan runs).
  const skipped = clean.perRow.filter((l) => /never executed/.test(l));
  assert.ok(skipped.length >= 1, clean.perRow.join('\n'));

  const undo = await duplicateLink();
  try {
    assert.deepEqual(await categories(), DOUBLED, 'the first link, each row once');
    const doubled = await checks();
    assert.ok(doubled.perRow.length >= 2 && doubled.perRow.every((l) => !/never executed/.test(l)), doubled.perRow.join('\n'));
  } finally { await undo(); }
  assert.deepEqual(await categories(), CLEAN);
});

test('a link table past four pages: checked row by row, the whole-table look never runs', async () => {
  // 1,000 more draft articles of Tech (rows and links by SQL): the link table grows to ≈ 7 pages.
  const sql = s.sql();
  await sql.unsafe(`with a as (insert into articles (document_id, title, locale, created_at, updated_at)
      select 'bulk' || g, 'Bulk ' || g, 'en', now(), now() from generate_series(1, 1000) g returning id)
    insert into articles_category_lnk (article_id, category_id, article_ord)
      select a.id, c.id, 1 from a, categories c where c.document_id = '${ids.Tech}'`);
  const [{ size }] = await sql`select pg_relation_size('articles_category_lnk') as size`;
  assert.ok(Number(size) > 32768, String(size));
  assert.deepEqual(await categories(), CLEAN);
  const big = await checks();
  assert.ok(big.once.length && big.once.every((l) => /never executed/.test(l)), big.once.join('\n'));
  const undo = await duplicateLink();
  try {
    assert.deepEqual(await categories(), DOUBLED, 'the first link, each row once');
  } finally { await undo(); }
  assert.deepEqual(await categories(), CLEAN);
});

test('a link table the node knows is large: each row\'s first link read alone, then its target', async () => {
  // The threshold at one row and the tables analyzed: a node started now counts every table holding rows as large.
  await s.sql().unsafe('analyze articles_category_lnk; analyze articles_author_lnk; analyze categories; analyze authors');
  const large = await sameDatabaseNode(s, { DB_CUSTOM_PLAN_ROWS: '1' });
  try {
    assert.deepEqual(await categories(large), CLEAN);
    const { plan, once } = await checks(large);
    assert.equal(once.length, 0, 'no whole-table look');
    assert.ok(plan.some((l) => /Limit/.test(l)) && plan.some((l) => /Sort Key: lt\d+\.id\b/.test(l)), plan.join('\n'));
    const undo = await duplicateLink();
    try {
      assert.deepEqual(await categories(large), DOUBLED, 'the first link, each row once');
    } finally { await undo(); }
    assert.deepEqual(await categories(large), CLEAN);
  } finally { await large.stop(); }
});
