// A list sorted first by a to-one relation's field, ascending, reads its page by walking the related rows
// in that order (compiler/sql.ts relationWalk) while the page has rows with a related value, and as the
// full sort does past them (rows without an author, or whose author has no name, sort last). Every page
// of every size must be the full sort's: checked against the order computed here from the same rows.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';

let s: TestServer;

interface Row { id: number; title: string; views: number; name: string | null }

before(async () => {
  s = await startTestServer();
  const post = async (path: string, data: unknown) => {
    const r = await s.fetchJson('POST', path, { data }, TOKEN);
    assert.equal(r.status, 201, r.text);
    return r.body.data as { documentId: string; id: number };
  };
  // Two authors share a name (ties across related rows), one loses its name (a linked null).
  const authors = [];
  for (const name of ['Mia', 'Al', 'Zed', 'Al', 'Nameless']) authors.push(await post('/api/authors', { name }));
  await s.sql()`update authors set name = null where name = 'Nameless'`;
  for (let i = 0; i < 31; i++) {
    const author = i % 6 === 5 ? undefined : authors[(i * 7) % authors.length].documentId;
    await post('/api/articles', { title: `Walk ${i}`, slug: `walk-${i}`, views: (i * 13) % 10, ...(author ? { author } : {}) });
  }
  // Drafts never answer a published list, whatever their author.
  for (let i = 0; i < 3; i++) await post('/api/articles?status=draft', { title: `Draft ${i}`, slug: `walk-draft-${i}`, author: authors[1].documentId });
});
after(() => s?.stop());

async function all(filter: string): Promise<Row[]> {
  const r = await s.fetchJson('GET', `/api/articles?fields[0]=title&fields[1]=views&populate[author][fields][0]=name&pagination[pageSize]=100${filter}`, undefined, TOKEN);
  assert.equal(r.status, 200, r.text);
  return (r.body.data as Array<{ id: number; title: string; views: number; author: { name: string | null } | null }>)
    .map((d) => ({ id: d.id, title: d.title, views: d.views, name: d.author?.name ?? null }));
}

/** Ascending names, nulls last (PostgreSQL's ascending order), then the other keys, then the row id. */
function expected(rows: Row[], viewsDesc: boolean): string[] {
  return [...rows].sort((a, b) => {
    if (a.name !== b.name) return a.name === null ? 1 : b.name === null ? -1 : a.name < b.name ? -1 : 1;
    if (viewsDesc && a.views !== b.views) return b.views - a.views;
    return a.id - b.id;
  }).map((r) => r.title);
}

async function paged(query: string, pageSize: number): Promise<{ titles: string[]; total: number }> {
  const titles: string[] = [];
  let total = -1;
  for (let page = 1; page < 100; page++) {
    const r = await s.fetchJson('GET', `/api/articles?${query}&fields[0]=title&pagination[page]=${page}&pagination[pageSize]=${pageSize}`, undefined, TOKEN);
    assert.equal(r.status, 200, r.text);
    total = r.body.meta.pagination.total;
    if (!r.body.data.length) break;
    titles.push(...r.body.data.map((d: { title: string }) => d.title));
  }
  return { titles, total };
}

for (const [name, query, filter, viewsDesc] of [
  ['by author name', 'sort=author.name:asc', '', false],
  ['by author name, then views descending', 'sort[0]=author.name:asc&sort[1]=views:desc', '', true],
  ['filtered, by author name', 'sort=author.name:asc&filters[views][$gte]=3', '&filters[views][$gte]=3', false],
] as const) {
  test(`every page of a list sorted ${name} is the full sort's`, async () => {
    const rows = await all(filter);
    assert.ok(rows.length > 20 && rows.some((r) => r.name === null), 'rows with and without an author name');
    const want = expected(rows, viewsDesc);
    for (const size of [2, 7, 25, 100]) {
      const got = await paged(query, size);
      assert.deepEqual(got.titles, want, `pages of ${size}`);
      assert.equal(got.total, rows.length, `total, pages of ${size}`);
    }
  });
}
