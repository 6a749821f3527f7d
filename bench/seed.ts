// Seeds the benchmark database with set-based SQL (generate_series, insert … select) straight into
// Strapi 5's tables (the layout schema sync creates, as Strapi would), so even 1m articles seed in
// minutes, not hours of HTTP calls. Each article gets a draft and a published row (locale 'en') with
// their own link rows, component rows (`components_shared_*` via `articles_cmps`) and media links
// (`files_related_mph`), as Strapi's publish makes them.
//
// Standalone: tsx bench/seed.ts --size 100k [--database-url URL | --data-dir ./data/bench]
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Sql } from 'postgres';

export const SIZES = { '1k': 1_000, '10k': 10_000, '100k': 100_000, '1m': 1_000_000 } as const;
export type SizeName = keyof typeof SIZES;

/** Bump when the seeded data changes, so an older benchmark database is re-seeded rather than reused. */
const SEED_VERSION = '2-strapi-layout';

/** The benchmark's own bookkeeping lives in this server's schema, never in Strapi's tables. */
const META = 'fastrapi.bench_meta';

export interface Counts { articles: number; authors: number; categories: number; tags: number; files: number }

export function countsFor(size: SizeName): Counts {
  const n = SIZES[size];
  return {
    articles: n,
    // 10 articles per author keeps the deep populate (author → articles → category) realistic, not huge.
    authors: Math.max(10, n / 10),
    categories: 50,
    tags: Math.max(50, n / 100),
    files: Math.max(100, n / 100),
  };
}

/** Strapi-like 24-character document id; the SQL below computes the same `substr(md5(kind:i), 1, 24)`. */
export function docId(kind: string, i: number): string {
  return createHash('md5').update(`${kind}:${i}`).digest('hex').slice(0, 24);
}
const docSql = (kind: string, expr: string) => `substr(md5('${kind}:' || (${expr})), 1, 24)`;

/** The tag that the update scenario rewrites (cleaned back on the next run). */
export const UPDATE_TAG = 1;

// Tables the seed fills (content, their link, component and media tables).
const TABLES = [
  'files', 'files_related_mph', 'authors', 'categories', 'categories_parent_lnk', 'tags', 'articles', 'articles_author_lnk',
  'articles_category_lnk', 'articles_tags_lnk', 'articles_cmps', 'components_shared_seos', 'components_shared_rich_texts',
  'components_shared_quotes', 'components_shared_medias', 'globals', 'globals_cmps',
];
const SEQUENCED = ['files', 'authors', 'categories', 'tags', 'articles', 'globals', 'components_shared_seos', 'components_shared_rich_texts', 'components_shared_quotes', 'components_shared_medias'];

function statements(c: Counts): Array<[string, string]> {
  const ts = (expr: string) => `timestamp '2024-01-01 00:00:00' + make_interval(mins => (${expr})::int)`;
  // Article i has row ids 2i - 1 (draft, v = 0) and 2i (published, v = 1); each row owns one instance of
  // every component with the row's id, so no sequence call is needed and ids never collide.
  const rows = `generate_series(1, ${c.articles}) i cross join generate_series(0, 1) v cross join lateral (select 2 * i - 1 + v) r(id)`;
  const mph = (file: string, related: string, type: string, field: string, order: string, from: string) =>
    `insert into files_related_mph (file_id, related_id, related_type, field, "order") select ${file}, ${related}, '${type}', '${field}', ${order} from ${from}`;
  return [
    ['files', `insert into files (id, document_id, name, alternative_text, caption, width, height, formats, hash, ext, mime, size, url, provider, folder_path, created_at, updated_at, published_at)
      select j, ${docSql('file', 'j')}, 'image-' || j || '.jpg', 'Image ' || j, null, 1200, 800,
        jsonb_build_object('thumbnail', jsonb_build_object('name', 'thumbnail_image-' || j || '.jpg', 'hash', 'thumbnail_image_' || j, 'ext', '.jpg',
          'mime', 'image/jpeg', 'path', null, 'width', 234, 'height', 156, 'size', 8.5, 'sizeInBytes', 8500, 'url', '/uploads/thumbnail_image_' || j || '.jpg')),
        'image_' || j, '.jpg', 'image/jpeg', 123.45, '/uploads/image_' || j || '.jpg', 'local', '/', ${ts('j')}, ${ts('j')}, ${ts('j')}
      from generate_series(1, ${c.files}) j`],
    ['authors', `insert into authors (id, document_id, locale, published_at, created_at, updated_at, name, email, bio)
      select j, ${docSql('author', 'j')}, null, ${ts('j')}, ${ts('j')}, ${ts('j')}, 'Author ' || j, 'author' || j || '@example.com',
        'Writes about things, author number ' || j || '.'
      from generate_series(1, ${c.authors}) j`],
    ['author avatars', mph(`(j - 1) % ${c.files} + 1`, 'j', 'api::author.author', 'avatar', '1', `generate_series(1, ${c.authors}) j`)],
    // The first 10 categories are roots; the others hang below them (exercises category.parent).
    ['categories', `insert into categories (id, document_id, locale, published_at, created_at, updated_at, name, slug, description)
      select j, ${docSql('category', 'j')}, null, ${ts('j')}, ${ts('j')}, ${ts('j')}, 'Category ' || j, 'category-' || j, 'Everything about category ' || j
      from generate_series(1, ${c.categories}) j`],
    ['categories_parent_lnk', `insert into categories_parent_lnk (category_id, inv_category_id, category_ord)
      select j, (j - 1) % 10 + 1, (j - 1) / 10 from generate_series(11, ${c.categories}) j`],
    ['tags', `insert into tags (id, document_id, locale, published_at, created_at, updated_at, name)
      select j, ${docSql('tag', 'j')}, null, ${ts('j')}, ${ts('j')}, ${ts('j')}, 'tag-' || j
      from generate_series(1, ${c.tags}) j`],
    ['articles', `insert into articles (id, document_id, locale, published_at, created_at, updated_at, title, slug, description, body, content,
        featured, views, rating, publish_date, kind, metadata)
      select r.id, ${docSql('article', 'i')}, 'en', case when v = 1 then ${ts('i')} end, ${ts('i')}, ${ts('i')},
        'Article ' || i, 'article-' || i, 'A short description of article ' || i || '.',
        '## Article ' || i || E'\\n\\nSome **markdown** body text for article ' || i || '.',
        jsonb_build_array(jsonb_build_object('type', 'paragraph', 'children',
          jsonb_build_array(jsonb_build_object('type', 'text', 'text', 'First paragraph of article ' || i)))),
        i % 5 = 0, (i * 37) % 10000, ((i % 50) / 10.0)::numeric, date '2020-01-01' + (i % 1500),
        (array['news', 'tutorial', 'opinion'])[i % 3 + 1],
        jsonb_build_object('wordCount', 200 + i % 800, 'source', 'bench')
      from ${rows}`],
    // Both versions of an article sit at the same place in their author's and category's lists, as after Strapi's publish.
    ['articles_author_lnk', `insert into articles_author_lnk (article_id, author_id, article_ord)
      select r.id, (i - 1) % ${c.authors} + 1, (i - 1) / ${c.authors} + 1 from ${rows}`],
    ['articles_category_lnk', `insert into articles_category_lnk (article_id, category_id, article_ord)
      select r.id, (i - 1) % ${c.categories} + 1, (i - 1) / ${c.categories} + 1 from ${rows}`],
    // Three tags per version, distinct per row since k < 3 <= tags.
    ['articles_tags_lnk', `insert into articles_tags_lnk (article_id, tag_id, tag_ord, article_ord)
      select r.id, (i * 3 + k) % ${c.tags} + 1, k + 1, i from ${rows} cross join generate_series(0, 2) k`],
    ['article covers', mph(`(i - 1) % ${c.files} + 1`, 'r.id', 'api::article.article', 'cover', '1', rows)],
    ['article galleries', mph(`(i * 2 + k) % ${c.files} + 1`, 'r.id', 'api::article.article', 'gallery', 'k + 1', `${rows} cross join generate_series(0, 1) k`)],
    ['components_shared_seos', `insert into components_shared_seos (id, meta_title, meta_description, keywords)
      select r.id, 'Article ' || i, 'Read article ' || i || ' now.', 'bench,article' from ${rows}`],
    ['seo share images', mph(`i % ${c.files} + 1`, 'r.id', 'shared.seo', 'shareImage', '1', rows)],
    ['components_shared_rich_texts', `insert into components_shared_rich_texts (id, body) select r.id, 'Rich text block of article ' || i from ${rows}`],
    ['components_shared_quotes', `insert into components_shared_quotes (id, title, body) select r.id, 'Quote ' || i, 'Simplicity is prerequisite for reliability.' from ${rows}`],
    ['components_shared_medias', `insert into components_shared_medias (id) select r.id from ${rows}`],
    ['dynamic-zone media', mph(`(i + 1) % ${c.files} + 1`, 'r.id', 'shared.media', 'file', '1', rows)],
    ['articles_cmps', `insert into articles_cmps (entity_id, cmp_id, component_type, field, "order")
      select r.id, r.id, x.type, x.field, x.ord from ${rows}
      cross join (values ('shared.seo', 'seo', null::float8), ('shared.rich-text', 'blocks', 1), ('shared.quote', 'blocks', 2), ('shared.media', 'blocks', 3)) x(type, field, ord)`],
    ['globals', `insert into globals (id, document_id, locale, published_at, created_at, updated_at, site_name, site_description)
      values (1, ${docSql('global', '1')}, null, ${ts('0')}, ${ts('0')}, ${ts('0')}, 'Fastrapi bench', 'A site seeded for the benchmark')`],
    ['global seo', `insert into components_shared_seos (id, meta_title, meta_description, keywords) values (${2 * c.articles + 1}, 'Fastrapi bench', 'Benchmark site', 'bench')`],
    ['globals_cmps', `insert into globals_cmps (entity_id, cmp_id, component_type, field, "order") values (1, ${2 * c.articles + 1}, 'shared.seo', 'defaultSeo', null)`],
    ['global media', `insert into files_related_mph (file_id, related_id, related_type, field, "order") values
      (1, 1, 'api::global.global', 'favicon', 1), (1, ${2 * c.articles + 1}, 'shared.seo', 'shareImage', 1)`],
  ];
}

export interface SeedInfo { size: SizeName; counts: Counts; reused: boolean; seconds: number }

async function readMeta(sql: Sql): Promise<Map<string, string>> {
  await sql.unsafe(`create schema if not exists fastrapi`);
  await sql.unsafe(`create table if not exists ${META} (key text primary key, value text not null)`);
  const rows = await sql.unsafe<Array<{ key: string; value: string }>>(`select key, value from ${META}`);
  return new Map(rows.map((r) => [r.key, r.value]));
}

/** Seeds (or reuses) the benchmark data; the schema must already be synced (startServer does it). */
export async function seed(sql: Sql, size: SizeName, say: (msg: string) => void): Promise<SeedInfo> {
  const started = Date.now();
  const counts = countsFor(size);
  const meta = await readMeta(sql);
  if (meta.get('size') === size && meta.get('version') === SEED_VERSION) {
    // Undo what the write scenarios of an earlier run did, so every run reads the same data.
    await sql.unsafe(`delete from tags where id > $1::bigint`, [counts.tags]);
    // A write that keeps updated_at is one the render cache cannot see (its entry would stay current).
    await sql.unsafe(`update tags set name = 'tag-' || id, updated_at = localtimestamp where id = $1::bigint`, [UPDATE_TAG]);
    say(`reusing the seeded ${size} database`);
    return { size, counts, reused: true, seconds: (Date.now() - started) / 1000 };
  }
  if (!meta.has('size')) {
    // Never truncate data the benchmark did not seed (--database-url may point at a real database).
    const [{ used }] = await sql.unsafe<Array<{ used: boolean }>>(`select ${TABLES.map((t) => `exists (select 1 from ${t})`).join(' or ')} as used`);
    if (used) throw new Error('the database already holds content that the benchmark did not seed; refusing to truncate it (use an empty database)');
  }
  say(`seeding ${size}: ${counts.articles} articles (x2 versions), ${counts.authors} authors, ${counts.tags} tags, ${counts.files} files`);
  // The server is already running: its render cache refresher and count folder read these tables, and a
  // statement of theirs that locks them in another order than TRUNCATE does deadlocks with it. PostgreSQL
  // then rolls one side back; when that is the seed, it starts again (nothing of it was kept).
  for (let attempt = 1; ; attempt++) {
    try { await fill(sql, counts, size, say); break; } catch (e) {
      if ((e as { code?: string }).code !== DEADLOCK || attempt === 3) throw e;
      say(`  deadlock with the server's background reads; seeding again (attempt ${attempt + 1})`);
    }
  }
  // Statistics for the planner and a visibility map, now rather than by autovacuum in the middle of a
  // measurement (a fresh cluster's autovacuum otherwise competes with the first scenarios for CPU).
  await sql.unsafe(`vacuum (analyze) ${TABLES.join(', ')}`);
  const seconds = (Date.now() - started) / 1000;
  say(`seeded in ${seconds.toFixed(1)} s`);
  return { size, counts, reused: false, seconds };
}

const DEADLOCK = '40P01';

async function fill(sql: Sql, counts: Counts, size: SizeName, say: (msg: string) => void): Promise<void> {
  await sql.begin(async (tx) => {
    // A crash mid-seed rolls back; bench_meta is written last, so a partial seed is never reused.
    await tx.unsafe(`set local synchronous_commit = off`);
    await tx.unsafe(`delete from ${META}`);
    await tx.unsafe(`truncate ${TABLES.join(', ')} restart identity cascade`);
    for (const [table, text] of statements(counts)) {
      const t0 = Date.now();
      const res = await tx.unsafe(text);
      say(`  ${table}: ${res.count} rows in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
    // Explicit ids bypass the identity columns: move them past the seeded rows so POSTs get fresh ids.
    for (const table of SEQUENCED) {
      await tx.unsafe(`select setval(pg_get_serial_sequence('${table}', 'id'), greatest((select max(id) from ${table}), 1))`);
    }
    await tx.unsafe(`insert into ${META} (key, value) values ('size', $1), ('version', $2), ('seeded_at', now()::text)`, [size, SEED_VERSION]);
  });
}

async function main(argv: string[]): Promise<void> {
  const flag = (name: string) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
  const size = (flag('--size') ?? '100k') as SizeName;
  if (!(size in SIZES)) throw new Error(`--size must be one of ${Object.keys(SIZES).join(', ')}`);
  // Imported lazily so that run.ts, which only needs seed(), does not load them twice.
  const { loadConfig } = await import('../config.ts');
  const { loadModels } = await import('../src/models.ts');
  const { startEmbedded } = await import('../src/db/embedded.ts');
  const { connect } = await import('../src/db/connect.ts');
  const { syncSchema } = await import('../src/db/schema-sync.ts');
  const config = loadConfig({}, [], {});
  let url = flag('--database-url');
  const embedded = url ? null : await startEmbedded(resolve(flag('--data-dir') ?? './data/bench'), 0);
  url ??= embedded!.url;
  const sql = connect(url, 1);
  try {
    await syncSchema(sql, loadModels(config.modelsDir, { ...config.i18n, customFields: config.customFields }), false);
    await seed(sql, size, (m) => console.log(m));
  } finally {
    await sql.end({ timeout: 5 });
    await embedded?.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((e: unknown) => { console.error(e); process.exit(1); });
}
