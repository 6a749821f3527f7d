// Indexes beyond Strapi's that make reads cheap on large tables (issue 31), as DDL text; src/cli/indexes.ts
// prints or creates them. Strapi 5.54 keeps indexes it did not make (its schema sync diffs against the
// schema it recorded itself), so adding them changes nothing Strapi sees.
// - published/draft: partial indexes per draft & publish type and status, on (locale, id) and on
//   (locale) alone. A list's exact count (`meta.pagination.total`) is an index-only scan of the rows of
//   its status and locale only (of the smaller one), a page reads its ids from the first (a late or
//   sorted one skips and orders ids only: see compiler/sql.ts).
// - inv: per relation link table, (related row, row): Strapi's unique index covers the other order, so a
//   filter through a relation that starts from the related rows (a category's articles) reads the link
//   rows from the table without it (at 1M articles, a category's 40,000 links: 12,700 table pages).
// - search: a trigram index over the type's search document (compiler/search.ts), which `_q` compares
//   before Strapi's OR of ILIKEs: PostgreSQL then reads only the rows containing the text.
import { createHash } from 'node:crypto';
import type { ContentType, Schema } from './schema.ts';
import { ROW_COLUMNS as R } from './layout.ts';
import { searchDocument } from './search.ts';

export interface IndexAdvice {
  table: string;
  name: string;
  /** What must exist first (an extension), or null. */
  requires: string | null;
  /** `create index if not exists …` without CONCURRENTLY (the caller adds it when it can). */
  create: string;
  why: string;
}

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;

/** `<table>_<suffix>`, within PostgreSQL's 63 bytes (a hash keeps long names distinct). */
function indexName(table: string, suffix: string): string {
  const name = `${table}_${suffix}`;
  if (Buffer.byteLength(name) <= 63) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${table.slice(0, 63 - suffix.length - 10)}_${hash}_${suffix}`;
}

const TRGM = 'create extension if not exists pg_trgm';

function advice(ct: ContentType): IndexAdvice[] {
  const out: IndexAdvice[] = [];
  const cols = ct.localized ? `${R.locale}, id` : 'id';
  if (ct.draftAndPublish) {
    for (const [suffix, cond, status] of [['pub', 'is not null', 'published'], ['draft', 'is null', 'draft']] as const) {
      const pages = indexName(ct.table, `fastrapi_${suffix}`);
      out.push({
        table: ct.table, name: pages, requires: null,
        create: `create index if not exists ${q(pages)} on ${q(ct.table)} (${cols}) where ${R.publishedAt} ${cond}`,
        why: `pages of ${ct.uid} lists (status ${status}) order and skip ids without reading rows`,
      });
      // The count reads every entry: on the locale alone the index is deduplicated (one key, a list of
      // row pointers), a third of the size, and counted in two thirds of the time at 1M rows.
      const counts = indexName(ct.table, `fastrapi_${suffix}_n`);
      out.push({
        table: ct.table, name: counts, requires: null,
        create: `create index if not exists ${q(counts)} on ${q(ct.table)} (${R.locale}) where ${R.publishedAt} ${cond}`,
        why: `exact counts of ${ct.uid} lists (status ${status}) read only those rows`,
      });
    }
  }
  for (const a of ct.attributes) {
    if (a.kind !== 'relation' || !a.owner) continue;
    // Strapi's unique index covers (row, related row); this one the other way round.
    const inv = indexName(a.join.table, 'fastrapi_inv');
    out.push({
      table: a.join.table, name: inv, requires: null,
      create: `create index if not exists ${q(inv)} on ${q(a.join.table)} (${q(a.join.target)}, ${q(a.join.source)})`,
      why: `filters through ${ct.uid}.${a.name} start from the related rows and find their ${ct.uid} rows in the index alone`,
    });
  }
  const name = indexName(ct.table, 'fastrapi_search');
  out.push({
    table: ct.table, name, requires: TRGM,
    create: `create index if not exists ${q(name)} on ${q(ct.table)} using gin (${searchDocument(ct, null)} gin_trgm_ops)`,
    why: `_q on ${ct.uid} reads only the rows containing the text`,
  });
  return out;
}

/** Every advised index of the project's own content-types (not the plugins' tables), in model order. */
export function advisedIndexes(schema: Schema): IndexAdvice[] {
  return [...schema.contentTypes.values()].filter((ct) => !ct.builtin && ct.kind === 'collectionType').flatMap(advice);
}
