// Deep list reads split in two statements run at once (src/rest/split-read.ts, DB_SPLIT_READS): the
// answer must be byte for byte the one statement's, whatever the page, status, locale or size limit, and
// stay whole while writes republish the page's rows between the two statements' snapshots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, sameDatabaseNode, created, TOKEN, type TestServer } from './helpers.ts';
import { splice } from '../src/rest/split-read.ts';

let split: TestServer;
let whole: TestServer;
const authors: string[] = [];
const articles: string[] = [];

// The benchmark's deep populate: the author's articles and their category beside the row's other populates.
const DEEP = 'populate[author][populate][articles][populate][category]=true&populate[seo][populate]=*&populate[tags][fields][0]=name'
  + '&populate[blocks][on][shared.quote]=true&populate[category]=true';

before(async () => {
  split = await startTestServer();
  whole = await sameDatabaseNode(split, { DB_SPLIT_READS: 'false' });
  const categories = [];
  for (const name of ['News', 'Guides']) categories.push((await created(split, '/api/categories', { name, slug: name.toLowerCase() })).documentId);
  const tag = (await created(split, '/api/tags', { name: 'pg' })).documentId;
  for (let i = 0; i < 4; i++) authors.push((await created(split, '/api/authors', { name: `Author ${i}` })).documentId);
  for (let i = 0; i < 14; i++) {
    const a = await created(split, '/api/articles', {
      title: `Article ${i}`, slug: `article-${i}`, views: i, author: i % 5 === 4 ? null : authors[i % 4], category: categories[i % 2],
      tags: i % 3 ? [tag] : [], seo: { metaTitle: `SEO ${i}` }, blocks: i % 2 ? [{ __component: 'shared.quote', title: `Q${i}`, body: 'b' }] : [],
    });
    articles.push(a.documentId);
  }
  // A draft-only article and a French version: other statuses and locales read their own rows.
  await created(split, '/api/articles?status=draft', { title: 'Draft', slug: 'draft', author: authors[0] });
  const fr = await split.fetchJson('PUT', `/api/articles/${articles[0]}?locale=fr`, { data: { title: 'Article 0 fr', slug: 'article-0-fr', author: authors[1] } }, TOKEN);
  assert.equal(fr.status, 200, fr.text);
});

after(async () => {
  await whole?.stop();
  await split?.stop();
});

/** The same GET on both nodes: the split node's answer, after checking it equals the unsplit one's. */
async function both(path: string): Promise<{ status: number; text: string; statements: string }> {
  const a = await split.fetchJson('GET', path, undefined, TOKEN, { 'cache-control': 'no-cache' });
  const b = await whole.fetchJson('GET', path, undefined, TOKEN, { 'cache-control': 'no-cache' });
  assert.equal(a.status, b.status, `${path}: ${a.text.slice(0, 300)}`);
  assert.equal(a.text, b.text, path);
  assert.equal(b.headers['x-sql-statements'], '1', path);
  return { status: a.status, text: a.text, statements: String(a.headers['x-sql-statements']) };
}

test('a deep list read answers the same bytes in two statements as in one', async () => {
  for (const q of [
    DEEP, `${DEEP}&sort=title:desc`, `${DEEP}&pagination[pageSize]=3&pagination[page]=2`, `${DEEP}&status=draft`,
    `${DEEP}&locale=fr`, `${DEEP}&pagination[withCount]=false`, `${DEEP}&filters[views][$gte]=5`,
    `${DEEP}&pagination[start]=4&pagination[limit]=5`,
  ]) {
    const r = await both(`/api/articles?${q}`);
    assert.equal(r.status, 200);
    // Nothing else runs on the node: every such read is split.
    assert.equal(r.statements, '2', q);
    const body = JSON.parse(r.text);
    assert.ok(body.data.length > 0, q);
    assert.ok(!r.text.includes('\\u0001') && !r.text.includes('\u0001'), q);
  }
  // The author's own articles are there, and rows without an author answer null.
  const body = JSON.parse((await both(`/api/articles?${DEEP}&sort=views:asc&pagination[pageSize]=20`)).text);
  assert.equal(body.data[0].author.name, 'Author 0');
  assert.ok(body.data[0].author.articles.some((a: { documentId: string }) => a.documentId === articles[0]));
  assert.equal(body.data[4].author, null);
  assert.equal(body.meta.pagination.total, 14);
});

test('an empty page, and reads whose split-off part has parameters of its own, stay right', async () => {
  const empty = await both(`/api/articles?${DEEP}&pagination[page]=9`);
  assert.equal(empty.statements, '2');
  assert.deepEqual(JSON.parse(empty.text).data, []);
  // A filter of the author's populate: both halves name its parameter (the other one to order keys by
  // what the author's populate finds), split.
  const byAuthor = await both(`/api/articles?${DEEP.replace('populate[author][populate]', 'populate[author][filters][name][$eq]=Author%201&populate[author][populate]')}`);
  assert.equal(byAuthor.statements, '2');
  assert.deepEqual(new Set(JSON.parse(byAuthor.text).data.map((d: { author: { name: string } | null }) => d.author?.name ?? null)), new Set(['Author 1', null]));
  // A filter of the tags' populate is a parameter the side never names: not split.
  const byTag = await both(`/api/articles?${DEEP.replace('populate[tags][fields][0]=name', 'populate[tags][filters][name][$eq]=pg')}`);
  assert.equal(byTag.statements, '1');
  assert.ok(JSON.parse(byTag.text).data.some((d: { tags: unknown[] }) => d.tags.length === 1));
  // One populate only: nothing to run beside it.
  assert.equal((await both('/api/articles?populate[author][populate][articles]=true')).statements, '1');
});

test('an answer over MAX_RESPONSE_SIZE is refused whole, though each half is under it', async () => {
  const size = Buffer.byteLength((await both(`/api/articles?${DEEP}`)).text);
  const limited = await sameDatabaseNode(split, { MAX_RESPONSE_SIZE: String(Math.floor(size * 0.8)) });
  try {
    const r = await limited.fetchJson('GET', `/api/articles?${DEEP}`, undefined, TOKEN, { 'cache-control': 'no-cache' });
    assert.equal(r.status, 400, r.text.slice(0, 200));
    assert.match(r.body.error.message, /limit http\.maxResponseSize/);
  } finally {
    await limited.stop();
  }
});

test('reads split while writes republish the page: every answer whole, each row with its own author', async () => {
  let writing = true;
  let written = 0;
  const writes = (async () => {
    for (let i = 0; writing; i++, written++) {
      // Each publish makes a new published row: the page's ids change between two snapshots.
      const doc = articles[i % 6];
      const r = await split.fetchJson('PUT', `/api/articles/${doc}`, { data: { views: 100 + i } }, TOKEN);
      assert.equal(r.status, 200, r.text);
    }
  })();
  const metric = async (outcome: string) => Number(new RegExp(`^fastrapi_split_reads\\{outcome="${outcome}"\\} (\\d+)$`, 'm')
    .exec((await split.fetchJson('GET', '/metrics')).text)?.[1]);
  const [splicedBefore, againBefore] = [await metric('spliced'), await metric('again')];
  let splitReads = 0;
  let again = 0;
  try {
    for (let n = 0; n < 60; n++) {
      const r = await split.fetchJson('GET', `/api/articles?${DEEP}&sort=title:asc`, undefined, TOKEN, { 'cache-control': 'no-cache' });
      assert.equal(r.status, 200, r.text.slice(0, 300));
      assert.ok(!r.text.includes('\u0001'));
      if (Number(r.headers['x-sql-statements']) >= 2) splitReads++;
      // Two statements and the whole one after them: the halves read different pages.
      if (r.headers['x-sql-statements'] === '3') again++;
      const titles = r.body.data.map((d: { title: string }) => d.title);
      assert.deepEqual(titles, [...titles].sort(), 'rows in order');
      assert.equal(r.body.data.length, 14);
      for (const d of r.body.data as Array<{ documentId: string; author: { articles: Array<{ documentId: string }> } | null }>) {
        // A row holding another row's author would not be among that author's articles.
        if (d.author) assert.ok(d.author.articles.some((a) => a.documentId === d.documentId), `${d.documentId} under its author`);
      }
    }
  } finally {
    writing = false;
    await writes;
  }
  assert.ok(splitReads > 0, 'no read was split');
  assert.equal(await metric('spliced') - splicedBefore, splitReads - again);
  assert.equal(await metric('again') - againBefore, again);
  assert.ok(written >= 5, `only ${written} writes ran beside the reads`);
});

test('splice puts each value at its row and place, and refuses halves that read different pages', () => {
  const b = (s: string) => Buffer.from(s);
  // Two populates split off; the row's keys put them in either order.
  const main = b('{"id":7,"a":\u00017:0\u0002,"b":\u00017:1\u0002,"t":1},{"id":9,"b":\u00019:1\u0002,"a":\u00019:0\u0002}');
  const side = b('7\u0001{"n":"x"}\u0003[1]\u00029\u0001null\u0003[]');
  assert.equal(Buffer.concat(splice(main, side, 2)!).toString(), '{"id":7,"a":{"n":"x"},"b":[1],"t":1},{"id":9,"b":[],"a":null}');
  // The side read a row the main did not (or the reverse), or none at all.
  assert.equal(splice(main, b('7\u0001{}\u0003[]\u00029\u0001{}\u0003[]\u000211\u0001{}\u0003[]'), 2), null);
  assert.equal(splice(main, b('7\u0001{}\u0003[]'), 2), null);
  assert.equal(splice(main, null, 2), null);
  assert.equal(splice(main, b('7\u0001{}\u0003[]\u00028\u0001{}\u0003[]'), 2), null);
  // A row with fewer values than populates, a marker naming no place.
  assert.equal(splice(main, b('7\u0001{}\u00029\u0001{}\u0003[]'), 2), null);
  assert.equal(splice(b('{"a":\u00017\u0002}'), b('7\u0001{}'), 1), null);
  // A main without markers (no rows) and an empty side agree.
  assert.deepEqual(Buffer.concat(splice(b('x'), null, 2)!).toString(), 'x');
});
