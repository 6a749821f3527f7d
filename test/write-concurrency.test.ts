// Issue 30: writes of one document serialize, whatever the concurrency, across threads and nodes — one
// draft and at most one published row per document and locale, holding every acknowledged change.
// Two nodes on one database (the first with two worker threads), requests spread over both.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startTwoNodes, TOKEN, type TestServer } from './helpers.ts';

type Doc = { id: number; documentId: string; [k: string]: unknown };
type Row = { published: boolean; n: number; title: string | null };

describe('concurrent writes of one document (two nodes)', () => {
  let a: TestServer, b: TestServer;
  const nodes = () => [a, b];
  const send = (i: number, method: string, path: string, data?: unknown) =>
    nodes()[i % 2].fetchJson(method, path, data === undefined ? undefined : { data }, TOKEN);
  const post = async (path: string, data: unknown) => {
    const r = await a.fetchJson('POST', path, { data }, TOKEN);
    assert.equal(r.status, 201, r.text);
    return r.body.data as Doc;
  };
  /** Version rows of an article document per locale: how many drafts and published rows. */
  const versions = async (documentId: string) => [...await a.sql().unsafe(
    `select locale, published_at is not null as published, count(*)::int as n, max(title) as title
     from articles where document_id = $1 group by 1, 2 order by 1, 2`, [documentId])] as unknown as Array<Row & { locale: string }>;

  before(async () => { [a, b] = await startTwoNodes(); });
  after(async () => { await b?.stop(); await a?.stop(); });

  test('50 parallel updates: one draft, one published row, equal to the draft', async () => {
    const doc = await post('/api/articles', { title: 'start' });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => send(i, 'PUT', `/api/articles/${doc.documentId}`, { title: `title ${i}` })));
    for (const r of results) assert.equal(r.status, 200, r.text);
    const rows = await versions(doc.documentId);
    assert.deepEqual(rows.map((r) => [r.published, r.n]), [[false, 1], [true, 1]]);
    assert.equal(rows[0].title, rows[1].title, 'the published row is the last draft published');
    const list = await b.fetchJson('GET', `/api/articles?filters[documentId][$eq]=${doc.documentId}`, undefined, TOKEN);
    assert.equal(list.body.data.length, 1);
    assert.equal(list.body.data[0].title, rows[1].title);
  });

  test('50 parallel relation connects: every acknowledged tag is there, draft and published', async () => {
    const doc = await post('/api/articles', { title: 'tags' });
    const tags = await Promise.all(Array.from({ length: 50 }, (_, i) => post('/api/tags', { name: `t${i}` })));
    const results = await Promise.all(tags.map((t, i) => send(i, 'PUT', `/api/articles/${doc.documentId}`, { tags: { connect: [t.documentId] } })));
    for (const r of results) assert.equal(r.status, 200, r.text);
    const rows = await versions(doc.documentId);
    assert.deepEqual(rows.map((r) => [r.published, r.n]), [[false, 1], [true, 1]]);
    const names = async (status: string) => {
      const r = await a.fetchJson('GET', `/api/articles/${doc.documentId}?status=${status}&populate[tags][fields][0]=name`, undefined, TOKEN);
      assert.equal(r.status, 200, r.text);
      return (r.body.data.tags as Doc[]).map((t) => t.name as string).sort();
    };
    const all = tags.map((t) => t.name as string).sort();
    assert.deepEqual(await names('published'), all);
    assert.deepEqual(await names('draft'), all);
  });

  test('50 parallel connects of one article by ten authors: it keeps one author (the other side holds one)', async () => {
    const article = await post('/api/articles', { title: 'owned once' });
    const authors = await Promise.all(Array.from({ length: 10 }, (_, i) => post('/api/authors', { name: `owner ${i}` })));
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => send(i, 'PUT', `/api/authors/${authors[i % 10].documentId}`, { articles: { connect: [article.documentId] } })));
    for (const r of results) assert.equal(r.status, 200, r.text);
    // Each of the article's rows (draft and published: an author without draft & publish links both) has one author link.
    const links = [...await a.sql().unsafe(
      `select l.article_id, count(*)::int as n from articles_author_lnk l join articles r on r.id = l.article_id where r.document_id = $1 group by 1`, [article.documentId])];
    assert.ok(links.length > 0, 'linked');
    assert.deepEqual(links.filter((l) => l.n !== 1), [], 'one author per article row');
  });

  test('50 articles of one category each moved to another at once: every write succeeds', async () => {
    // Each move takes its article out of the category's ordered list of articles (renumbering the others'
    // links): the old category is locked first, as by a disconnect, or the moves deadlock each other.
    const from = await post('/api/categories', { name: 'moved from' });
    const to = await Promise.all(Array.from({ length: 50 }, (_, i) => post('/api/categories', { name: `moved to ${i}` })));
    const docs = await Promise.all(Array.from({ length: 50 }, (_, i) => post('/api/articles', { title: `moved ${i}`, category: from.documentId })));
    const keep = await post('/api/articles', { title: 'stays', category: from.documentId });
    const results = await Promise.all(docs.map((d, i) => send(i, 'PUT', `/api/articles/${d.documentId}`, { category: to[i].documentId })));
    for (const r of results) assert.equal(r.status, 200, r.text);
    const left = [...await a.sql().unsafe(`select r.document_id from articles_category_lnk l join articles r on r.id = l.article_id
      join categories c on c.id = l.category_id where c.document_id = $1`, [from.documentId])];
    assert.deepEqual(left.map((l) => l.document_id), [keep.documentId, keep.documentId], 'the one left (draft and published)');
  });

  test('category writers setting their articles while 20 article writers publish them: every write succeeds', async () => {
    // A category's list names article rows that a publish is replacing meanwhile (a new published row):
    // the link to the row gone failed its foreign key (400 for a valid write); the write runs again.
    const cats = await Promise.all(Array.from({ length: 4 }, (_, i) => post('/api/categories', { name: `both sides ${i}` })));
    const docs = await Promise.all(Array.from({ length: 20 }, (_, i) => post('/api/articles', { title: `both ${i}` })));
    const work = [
      ...cats.map((c, k) => send(k, 'PUT', `/api/categories/${c.documentId}`, { articles: docs.filter((_, i) => i % 4 === k).map((d) => d.documentId) })),
      ...docs.map((d, i) => send(i, 'PUT', `/api/articles/${d.documentId}`, { title: `republished ${i}` })),
    ];
    for (const r of await Promise.all(work)) assert.equal(r.status, 200, r.text);
    // Each article ends with its category on both rows, draft and published.
    const rows = [...await a.sql().unsafe(`select r.document_id, r.published_at is not null as published, c.document_id as category
      from articles r left join articles_category_lnk l on l.article_id = r.id left join categories c on c.id = l.category_id
      where r.document_id = any($1::text[])`, [docs.map((d) => d.documentId)])];
    assert.equal(rows.length, 40);
    for (const r of rows) assert.equal(r.category, cats[docs.findIndex((d) => d.documentId === r.document_id) % 4].documentId, JSON.stringify(r));
  });

  test('category writers setting their lists while 40 article writers move those articles between them: every write succeeds', async () => {
    // Both sides of one relation written at once: each side's writer holds its own document and then
    // touches the other side's rows (a category takes articles from other categories; a move renumbers
    // the lists it leaves). In opposite orders they deadlocked and queued past the connection deadline (503).
    const cats = await Promise.all(Array.from({ length: 4 }, (_, i) => post('/api/categories', { name: `crossed ${i}` })));
    const docs = await Promise.all(Array.from({ length: 40 }, (_, i) => post('/api/articles', { title: `crossed ${i}`, category: cats[i % 4].documentId })));
    const work = [
      ...Array.from({ length: 12 }, (_, n) => send(n, 'PUT', `/api/categories/${cats[n % 4].documentId}`,
        { articles: docs.filter((_, i) => (i + n) % 4 === n % 4).map((d) => d.documentId) })),
      ...docs.map((d, i) => send(i, 'PUT', `/api/articles/${d.documentId}`, { category: cats[(i + 1) % 4].documentId })),
    ];
    const results = await Promise.all(work);
    const failed = results.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text.slice(0, 200)}`);
    assert.deepEqual(failed, []);
    const rows = [...await a.sql().unsafe(`select r.document_id, r.published_at is not null as published, count(l.id)::int as n, min(c.document_id) as cat
      from articles r left join articles_category_lnk l on l.article_id = r.id left join categories c on c.id = l.category_id
      where r.document_id = any($1::text[]) group by r.id order by 1, 2`, [docs.map((d) => d.documentId)])];
    // A category's list drops the articles it does not name, so an article may end with none; each row
    // has at most one, and the published row the draft's.
    assert.equal(rows.length, 80);
    for (let i = 0; i < rows.length; i += 2) {
      const [draft, published] = [rows[i], rows[i + 1]];
      assert.ok(draft.n <= 1 && published.n <= 1, JSON.stringify([draft, published]));
      assert.equal(published.cat, draft.cat, JSON.stringify([draft, published]));
    }
  });

  test('tag writers setting their articles while 30 article writers set their tags (many-to-many, both sides ordered): every write succeeds', async () => {
    const tags = await Promise.all(Array.from({ length: 6 }, (_, i) => post('/api/tags', { name: `crossed tag ${i}` })));
    const docs = await Promise.all(Array.from({ length: 30 }, (_, i) => post('/api/articles', { title: `tagged ${i}`, tags: [tags[i % 6].documentId] })));
    const work = [
      ...tags.map((t, k) => send(k, 'PUT', `/api/tags/${t.documentId}`, { articles: docs.filter((_, i) => (i + k) % 3 === 0).map((d) => d.documentId) })),
      ...docs.map((d, i) => send(i, 'PUT', `/api/articles/${d.documentId}`, { tags: [tags[(i + 1) % 6].documentId, tags[(i + 2) % 6].documentId] })),
    ];
    const failed = (await Promise.all(work)).filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text.slice(0, 200)}`);
    assert.deepEqual(failed, []);
    // No link twice, and each article's published row has its draft's tags.
    const rows = [...await a.sql().unsafe(`select r.document_id, r.published_at is not null as published,
        coalesce(array_agg(t.document_id order by t.document_id) filter (where t.id is not null), '{}') as tags, count(l.id) - count(distinct l.tag_id) as twice
      from articles r left join articles_tags_lnk l on l.article_id = r.id left join tags t on t.id = l.tag_id
      where r.document_id = any($1::text[]) group by r.id order by 1, 2`, [docs.map((d) => d.documentId)])];
    assert.equal(rows.length, 60);
    for (let i = 0; i < rows.length; i += 2) {
      assert.equal(Number(rows[i].twice) + Number(rows[i + 1].twice), 0, JSON.stringify(rows[i]));
      assert.deepEqual(rows[i + 1].tags, rows[i].tags, JSON.stringify([rows[i], rows[i + 1]]));
    }
  });

  test('author writers setting their articles while 30 article writers choose their author (one side without draft & publish): every write succeeds', async () => {
    const authors = await Promise.all(Array.from({ length: 5 }, (_, i) => post('/api/authors', { name: `crossed author ${i}` })));
    const docs = await Promise.all(Array.from({ length: 30 }, (_, i) => post('/api/articles', { title: `authored ${i}`, author: authors[i % 5].documentId })));
    const work = [
      ...authors.map((w, k) => send(k, 'PUT', `/api/authors/${w.documentId}`, { articles: docs.filter((_, i) => (i + k) % 5 === 0).map((d) => d.documentId) })),
      ...docs.map((d, i) => send(i, 'PUT', `/api/articles/${d.documentId}`, { author: authors[(i + 2) % 5].documentId })),
    ];
    const failed = (await Promise.all(work)).filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text.slice(0, 200)}`);
    assert.deepEqual(failed, []);
    // Each article row keeps at most one author (the other side holds one).
    const rows = [...await a.sql().unsafe(`select r.id, count(l.id)::int as n from articles r left join articles_author_lnk l on l.article_id = r.id
      where r.document_id = any($1::text[]) group by r.id`, [docs.map((d) => d.documentId)])];
    assert.equal(rows.length, 60);
    assert.deepEqual(rows.filter((r) => r.n > 1), []);
  });

  test('50 parallel writes mixing drafts, publishes, connects and a new locale', async () => {
    const doc = await post('/api/articles', { title: 'mixed' });
    const tag = await post('/api/tags', { name: 'mixed-tag' });
    const work = Array.from({ length: 50 }, (_, i) => {
      const path = `/api/articles/${doc.documentId}`;
      switch (i % 5) {
        case 0: return send(i, 'PUT', `${path}?status=draft`, { title: `draft ${i}` });
        case 1: return send(i, 'PUT', path, { title: `pub ${i}` });
        case 2: return send(i, 'PUT', path, { tags: { connect: [tag.documentId] } });
        case 3: return send(i, 'PUT', `${path}?locale=fr`, { title: `fr ${i}` });
        default: return send(i, 'PUT', path, {});
      }
    });
    for (const r of await Promise.all(work)) assert.equal(r.status, 200, r.text);
    const rows = await versions(doc.documentId);
    assert.deepEqual(rows.map((r) => [r.locale, r.published, r.n]), [['en', false, 1], ['en', true, 1], ['fr', false, 1], ['fr', true, 1]]);
  });

  test('updates racing a delete leave the whole document or nothing', async () => {
    const doc = await post('/api/articles', { title: 'doomed' });
    const work = Array.from({ length: 30 }, (_, i) => i === 10
      ? send(i, 'DELETE', `/api/articles/${doc.documentId}`)
      : send(i, 'PUT', `/api/articles/${doc.documentId}`, { title: `t${i}` }));
    for (const r of await Promise.all(work)) assert.ok([200, 204, 404].includes(r.status), r.text);
    const rows = await versions(doc.documentId);
    assert.deepEqual(rows, [], 'every update after the delete found no document; none before it left a row behind');
  });

  test('20 uploads attached to a draft while it is published 10 times: every file there, none lost', async () => {
    const doc = await post('/api/articles', { title: 'gallery' });
    const [draft] = await a.sql()`select id::int as id from articles where document_id = ${doc.documentId} and published_at is null`;
    const upload = (i: number) => {
      const f = new FormData();
      f.append('files', new Blob([`file ${i}`], { type: 'text/plain' }), `f${i}.txt`);
      f.append('ref', 'api::article.article');
      f.append('refId', String(draft.id));
      f.append('field', 'gallery');
      return fetch(`${nodes()[i % 2].url}/api/upload`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: f })
        .then(async (r) => ({ status: r.status, text: await r.text() }));
    };
    const work = [
      ...Array.from({ length: 20 }, (_, i) => upload(i)),
      ...Array.from({ length: 10 }, (_, i) => send(i, 'PUT', `/api/articles/${doc.documentId}`, { title: `g${i}` })),
    ];
    for (const r of await Promise.all(work)) assert.ok(r.status === 200 || r.status === 201, r.text);
    // Strapi's upload links each file with `order` 1 (checked live): twenty links, one per file.
    const links = await a.sql()`select "order"::int as ord, file_id from files_related_mph
      where related_id = ${draft.id} and related_type = 'api::article.article' and field = 'gallery' order by 1`;
    assert.deepEqual(links.map((l) => l.ord), Array(20).fill(1));
    assert.equal(new Set(links.map((l) => l.file_id)).size, 20);
    const rows = await versions(doc.documentId);
    assert.deepEqual(rows.map((r) => [r.published, r.n]), [[false, 1], [true, 1]]);
    const orphans = await a.sql()`select count(*)::int as n from files_related_mph m
      where m.related_type = 'api::article.article' and not exists (select 1 from articles x where x.id = m.related_id)`;
    assert.equal(orphans[0].n, 0);
  });

  test('30 parallel deletes of one document: every one answers 204 (Strapi 5.54 answers a gone document so), nothing left', async () => {
    const doc = await post('/api/articles', { title: 'deleted at once', tags: { connect: [(await post('/api/tags', { name: 'gone with it' })).documentId] } });
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => send(i, 'DELETE', `/api/articles/${doc.documentId}`)));
    for (const r of results) assert.equal(r.status, 204, r.text);
    assert.deepEqual(await versions(doc.documentId), []);
    const links = await a.sql()`select count(*)::int as n from articles_tags_lnk l left join articles r on r.id = l.article_id where r.id is null`;
    assert.equal(links[0].n, 0, 'no link row outlives its article row');
  });

  test('50 parallel GraphQL updates of one document: one draft, one published row, equal to the draft', async () => {
    const doc = await post('/api/articles', { title: 'through graphql' });
    // The default (v4) shape names an entry by its draft row's id.
    const [draft] = await a.sql()`select id from articles where document_id = ${doc.documentId} and published_at is null`;
    const query = 'mutation($id: ID!, $t: String) { updateArticle(id: $id, data: { title: $t }) { data { id attributes { title } } } }';
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) =>
      nodes()[i % 2].fetchJson('POST', '/graphql', { query, variables: { id: String(draft.id), t: `g${i}` } }, TOKEN)));
    for (const r of results) {
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.errors, undefined, r.text);
    }
    const rows = await versions(doc.documentId);
    assert.deepEqual(rows.map((r) => [r.published, r.n]), [[false, 1], [true, 1]]);
    assert.equal(rows[0].title, rows[1].title);
  });

  test('50 parallel writes of a new locale of one document: one French draft and one French published row', async () => {
    const doc = await post('/api/articles', { title: 'english first' });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => send(i, 'PUT', `/api/articles/${doc.documentId}?locale=fr`, { title: `fr ${i}` })));
    for (const r of results) assert.equal(r.status, 200, r.text);
    const rows = await versions(doc.documentId);
    assert.deepEqual(rows.map((r) => [r.locale, r.published, r.n]), [['en', false, 1], ['en', true, 1], ['fr', false, 1], ['fr', true, 1]]);
    assert.equal(rows[2].title, rows[3].title);
  });

  test('articles connecting to a category while it is deleted: each write succeeds or is refused, no link to a gone row', async () => {
    const category = await post('/api/categories', { name: 'short-lived' });
    const articles = await Promise.all(Array.from({ length: 30 }, (_, i) => post('/api/articles', { title: `to connect ${i}` })));
    const work = articles.map((d, i) => send(i, 'PUT', `/api/articles/${d.documentId}`, { category: { connect: [category.documentId] } }));
    work.splice(15, 0, send(1, 'DELETE', `/api/categories/${category.documentId}`));
    const results = await Promise.all(work);
    for (const r of results) assert.ok([200, 204, 400].includes(r.status), `${r.status} ${r.text}`);
    for (const r of results.filter((x) => x.status === 400)) assert.match(r.body.error.message, /do(es)? not exist|not found/i, r.text);
    const rows = await a.sql()`select count(*)::int as n from categories where document_id = ${category.documentId}`;
    assert.equal(rows[0].n, 0, 'the category is gone');
    const dangling = await a.sql()`select count(*)::int as n from articles_category_lnk l left join categories c on c.id = l.category_id where c.id is null`;
    assert.equal(dangling[0].n, 0);
    // Every article answers, published or draft, with no category.
    for (const d of articles) {
      const r = await b.fetchJson('GET', `/api/articles/${d.documentId}?populate[category]=true`, undefined, TOKEN);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.data.category, null);
    }
  });

  test('50 parallel rewrites of a component and a dynamic zone: one write\'s whole set, no component row left unlinked', async () => {
    const doc = await post('/api/articles', { title: 'components', seo: { metaTitle: 'first' }, blocks: [{ __component: 'shared.quote', title: 'q', body: 'b' }] });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => send(i, 'PUT', `/api/articles/${doc.documentId}`, {
      seo: { metaTitle: `seo ${i}` },
      blocks: [{ __component: 'shared.quote', title: `quote ${i}`, body: `${i}` }, { __component: 'shared.rich-text', body: `rich ${i}` }],
    })));
    for (const r of results) assert.equal(r.status, 200, r.text);
    for (const status of ['draft', 'published']) {
      const r = await b.fetchJson('GET', `/api/articles/${doc.documentId}?status=${status}&populate[seo]=true&populate[blocks]=true`, undefined, TOKEN);
      assert.equal(r.status, 200, r.text);
      const n = /^seo (\d+)$/.exec(r.body.data.seo.metaTitle)?.[1];
      assert.ok(n !== undefined, r.text);
      assert.deepEqual(r.body.data.blocks.map((x: { __component: string; title?: string; body: string }) => [x.__component, x.title ?? null, x.body]),
        [['shared.quote', `quote ${n}`, n], ['shared.rich-text', null, `rich ${n}`]], `${status}: the blocks of the write that left the seo`);
    }
    const orphans = await a.sql().unsafe(`
      select (select count(*) from components_shared_seos k where not exists (select 1 from articles_cmps c where c.cmp_id = k.id and c.component_type = 'shared.seo'))::int
           + (select count(*) from components_shared_quotes k where not exists (select 1 from articles_cmps c where c.cmp_id = k.id and c.component_type = 'shared.quote'))::int
           + (select count(*) from components_shared_rich_texts k where not exists (select 1 from articles_cmps c where c.cmp_id = k.id and c.component_type = 'shared.rich-text'))::int as n`);
    assert.equal(orphans[0].n, 0, 'every component row belongs to an entry');
  });

  test('30 parallel first writes of a single type make one document', async () => {
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => send(i, 'PUT', '/api/about', { title: `about ${i}` })));
    for (const r of results) assert.equal(r.status, 200, r.text);
    const docs = await a.sql()`select count(distinct document_id)::int as docs, count(*) filter (where published_at is null)::int as drafts,
      count(*) filter (where published_at is not null)::int as published from abouts`;
    assert.deepEqual({ ...docs[0] }, { docs: 1, drafts: 1, published: 1 });
    const ids = new Set(results.map((r) => r.body.data.documentId as string));
    assert.equal(ids.size, 1, 'every answer names the one document');
  });
});
