// Writes keep Strapi's invariants: on the database Strapi 5.54 made (the blog dump), articles are written
// through this server with exactly the requests the seed sent to Strapi, and every row they produce —
// version rows, link rows with their order columns, component rows and `_cmps` entries, media links —
// must have the shape Strapi gave the same articles: the same graph, whatever the ids.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startTestServer, type TestServer } from './helpers.ts';
import { createDumpDatabase, DUMP_TOKEN, DUMP_TOKEN_SALT } from './strapi-dump.ts';

const PROJECT = fileURLToPath(new URL('./fixtures/strapi/project', import.meta.url));
const TOPICS = [
  'Getting Started with Node', 'Understanding PostgreSQL Indexes', 'GraphQL vs REST', 'A Week in Lisbon',
  'The Perfect Sourdough', 'Why Types Matter', 'hello world', 'Career Advice for Juniors',
  'Caching Strategies', 'Street Food in Bangkok',
];
const KINDS = ['news', 'tutorial', 'opinion', null];

interface Refs { authors: string[]; categories: string[]; tags: string[]; files: Record<'red' | 'blue' | 'green' | 'orange', number> }
type Req = [method: string, path: string, data: Record<string, unknown>];

/** The requests the conformance seed sent to Strapi for article `i` (its rules, with the dump's documents); `slug` tells it apart. */
function seedRequests(i: number, r: Refs, suffix: string): { create: Req; then: Req[] } {
  const topic = TOPICS[i % TOPICS.length];
  const title = `${topic} #${i}`;
  const imgs = [r.files.red, r.files.blue, r.files.orange, null];
  const data: Record<string, unknown> = {
    title,
    description: i % 7 === 0 ? null : `Description for article ${i} about ${topic.toLowerCase()}.`,
    body: i % 9 === 0 ? null : `# ${topic}\n\nArticle number **${i}**.\n\n- one\n- two\n`,
    content: i % 6 === 0 ? null : [
      { type: 'heading', level: 2, children: [{ type: 'text', text: `Section ${i}` }] },
      { type: 'paragraph', children: [{ type: 'text', text: 'Plain, ' }, { type: 'text', text: 'bold', bold: true }, { type: 'link', url: 'https://example.com', children: [{ type: 'text', text: ' link' }] }] },
      { type: 'list', format: 'unordered', children: [{ type: 'list-item', children: [{ type: 'text', text: `item ${i}` }] }] },
    ],
    featured: i % 4 === 0,
    views: (i * 37) % 1000,
    rating: i % 5 === 0 ? null : (i % 10) / 2 + 0.25,
    publishDate: i % 8 === 0 ? null : `2024-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
    kind: KINDS[i % 4],
    metadata: i % 3 === 0 ? { readingTime: i, labels: ['a', 'b'], nested: { even: i % 2 === 0 } } : null,
    cover: imgs[i % 4] ?? null,
    gallery: i % 5 === 2 ? [r.files.red, r.files.blue] : i === 3 ? [r.files.orange] : [],
    author: i % 11 === 0 ? null : r.authors[i % 3],
    category: i % 13 === 0 ? null : r.categories[i % 6],
    tags: r.tags.filter((_, k) => (i + k) % 4 === 0 || (i * k) % 7 === 1),
    seo: i % 2 === 0 ? {
      metaTitle: `SEO ${title}`, metaDescription: i % 4 === 0 ? `Meta description ${i}` : null,
      keywords: 'strapi,oracle', shareImage: i % 4 === 0 ? r.files.orange : null,
    } : null,
    blocks: i % 3 === 0 ? [
      { __component: 'shared.rich-text', body: `## Rich ${i}\n\nText.` },
      { __component: 'shared.quote', title: `Quote ${i}`, body: 'To be or not to be.' },
      { __component: 'shared.media', file: r.files.blue },
    ] : i % 3 === 1 ? [
      { __component: 'shared.quote', title: `Only quote ${i}`, body: null },
      { __component: 'shared.slider', files: [r.files.red, r.files.orange] },
    ] : [],
    slug: `article-${i}${suffix}`,
  };
  const draftOnly = i % 7 === 5;
  const then: Req[] = [];
  if (!draftOnly && i % 8 === 1) then.push(['PUT', '?status=draft', { title: `${title} (edited draft)`, views: 9999 }]);
  if (i % 4 === 1 || i === 5) {
    then.push(['PUT', `?locale=fr${draftOnly ? '&status=draft' : ''}`, {
      title: `[FR] ${topic} n°${i}`, slug: `article-${i}-fr${suffix}`, description: `Description de l'article ${i}.`,
      featured: i % 2 === 1, views: i, kind: 'news', author: r.authors[0], category: r.categories[i % 6],
      seo: { metaTitle: `SEO FR ${i}`, keywords: 'fr' },
      blocks: [{ __component: 'shared.quote', title: `Citation ${i}`, body: 'Être ou ne pas être.' }],
    }]);
  }
  return { create: ['POST', draftOnly ? '?status=draft' : '', data], then };
}

let s: TestServer;
before(async () => {
  const db = await createDumpDatabase();
  s = await startTestServer({
    db, modelsDir: PROJECT,
    env: { API_TOKEN_SALT: DUMP_TOKEN_SALT, API_TOKENS: undefined, PUBLIC_PERMISSIONS: undefined, AUTHENTICATED_PERMISSIONS: undefined },
  });
});
after(async () => { await s?.stop(); });

const q = <T>(text: string, params: unknown[] = []) => s.sql().unsafe(text, params as never[]) as unknown as Promise<T[]>;

/** Everything the rows of one document hold, ids replaced by what they point at; slugs without `suffix`. */
async function graph(documentId: string, suffix: string): Promise<unknown> {
  const rows = await q<Record<string, unknown>>(`select * from articles where document_id = $1 order by locale, published_at is not null`, [documentId]);
  const out = [];
  for (const row of rows) {
    const id = row.id as number;
    const links = async (table: string, col: string, target: string, ord: string | null) => q(
      `select t.document_id as doc, t.locale, t.published_at is not null as published${ord ? `, l.${ord} as ord` : ''}
       from ${table} l join ${target} t on t.id = l.${col} where l.article_id = $1 order by ${ord ? `l.${ord}, ` : ''}t.document_id`, [id]);
    const media = async (type: string, rid: number) => q(`select field, file_id, "order" from files_related_mph where related_type = $1 and related_id = $2 order by field, "order"`, [type, rid]);
    const cmps = await q<{ cmp_id: number; component_type: string; field: string; order: number | null }>(
      `select cmp_id, component_type, field, "order" from articles_cmps where entity_id = $1 order by field, "order"`, [id]);
    const components = [];
    for (const c of cmps) {
      const table = { 'shared.seo': 'components_shared_seos', 'shared.quote': 'components_shared_quotes', 'shared.rich-text': 'components_shared_rich_texts', 'shared.media': 'components_shared_medias', 'shared.slider': 'components_shared_sliders' }[c.component_type]!;
      const [data] = await q<Record<string, unknown>>(`select * from ${table} where id = $1`, [c.cmp_id]);
      const { id: _, ...fields } = data;
      components.push({ field: c.field, type: c.component_type, order: c.order, fields, media: await media(c.component_type, c.cmp_id) });
    }
    const { id: _i, document_id: _d, created_at: _c, updated_at: _u, published_at: _p, ...columns } = row;
    out.push({
      columns: { ...columns, slug: String(columns.slug).replace(suffix, '') },
      published: row.published_at !== null,
      author: await links('articles_author_lnk', 'author_id', 'authors', null),
      category: await links('articles_category_lnk', 'category_id', 'categories', null),
      tags: await links('articles_tags_lnk', 'tag_id', 'tags', 'tag_ord'),
      components,
      media: await media('api::article.article', id),
    });
  }
  return out;
}

/** Which timestamps of a document's rows are equal (Strapi's publish copies the draft's created_at and updated_at). */
async function timestamps(documentId: string): Promise<unknown> {
  return q(`select d.locale, p.created_at = d.created_at as created, p.updated_at = d.updated_at as updated, p.published_at >= p.created_at as after
    from articles d join articles p on p.document_id = d.document_id and p.locale = d.locale and p.published_at is not null
    where d.document_id = $1 and d.published_at is null order by d.locale`, [documentId]);
}

test('articles written here have the rows Strapi wrote for the same requests', async () => {
  const ids = (sql: string) => q<{ document_id: string }>(sql).then((r) => r.map((x) => x.document_id));
  const files = Object.fromEntries((await q<{ id: number; name: string }>(`select id, name from files`)).map((f) => [f.name.replace(/^(cover|avatar|share)-|\.png$/g, ''), f.id]));
  const refs: Refs = {
    authors: await ids(`select document_id from authors order by id`),
    categories: await ids(`select document_id from categories order by id`),
    tags: await ids(`select document_id from tags order by id`),
    files: files as Refs['files'],
  };
  // 1: published, draft edited afterwards, a published fr localization; 4: seo with media, a slider;
  // 5: draft only, with a draft fr localization; 6: rich text, quote and media in the zone.
  const versions: Record<number, number> = { 1: 4, 4: 2, 5: 2, 6: 2 };
  for (const i of [1, 4, 5, 6]) {
    const suffix = '-fastrapi';
    const { create, then } = seedRequests(i, refs, suffix);
    const made = await s.fetchJson(create[0], `/api/articles${create[1]}`, { data: create[2] }, DUMP_TOKEN);
    assert.equal(made.status, 201, made.text);
    const doc = made.body.data.documentId as string;
    for (const [method, query, data] of then) {
      const r = await s.fetchJson(method, `/api/articles/${doc}${query}`, { data }, DUMP_TOKEN);
      assert.equal(r.status, 200, r.text);
    }
    const [strapi] = await ids(`select document_id from articles where slug = 'article-${i}'`);
    const want = await graph(strapi, '') as unknown[];
    assert.equal(want.length, versions[i], `article ${i}: Strapi's rows`);
    assert.deepEqual(await graph(doc, suffix), want, `article ${i}: rows differ from Strapi's`);
    assert.deepEqual(await timestamps(doc), await timestamps(strapi), `article ${i}: timestamps relate differently`);
  }
});

test('a document written here reads the same through the API as the one Strapi wrote', async () => {
  const [ours] = await q<{ document_id: string }>(`select document_id from articles where slug = 'article-4-fastrapi'`);
  const [theirs] = await q<{ document_id: string }>(`select document_id from articles where slug = 'article-4'`);
  const read = async (doc: string) => {
    const r = await s.fetchJson('GET', `/api/articles/${doc}?populate[blocks][populate]=*&populate[seo][populate]=*&populate[cover]=true&populate[tags]=true&populate[author]=true&populate[category]=true`, undefined, DUMP_TOKEN);
    assert.equal(r.status, 200, r.text);
    return JSON.parse(JSON.stringify(r.body.data, (k, v) => (['id', 'documentId', 'createdAt', 'updatedAt', 'publishedAt'].includes(k) && typeof v !== 'object' ? '<x>' : k === 'slug' ? String(v).replace('-fastrapi', '') : v)));
  };
  assert.deepEqual(await read(ours.document_id), await read(theirs.document_id));
});
