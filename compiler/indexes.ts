// Indexes beyond Strapi's that make reads cheap on large tables (issue 31), as DDL text; src/cli/indexes.ts
// prints or creates them. Strapi 5.54 keeps indexes it did not make (its schema sync diffs against the
// schema it recorded itself), so adding them changes nothing Strapi sees.
// - published/draft: partial indexes per draft & publish type and status, on (locale, id), on (locale)
//   alone and (localized types) on id alone. A list's exact count (`meta.pagination.total`) is an
//   index-only scan of the rows of its status and locale only (of the smaller one), a page reads its ids
//   from the first (a late or sorted one skips and orders ids only: see compiler/sql.ts), a populate
//   rejects the other status's rows from the last.
// - inv: per relation link table, (related row, row): Strapi's unique index covers the other order, so a
//   filter through a relation that starts from the related rows (a category's articles) reads the link
//   rows from the table without it (at 1M articles, a category's 40,000 links: 12,700 table pages).
// - uq: per unique attribute, a hash index of its published rows' values, for the unique check of writes and
//   publishes (Strapi makes none).
// - search: a trigram index over the type's search document (compiler/search.ts), which `_q` compares
//   before Strapi's OR of ILIKEs: PostgreSQL then reads only the rows containing the text.
// - fwd: the links a populate reads from a row, in the order it reads them and holding what it reads: per
//   relation link table (row, its order of the related rows, id) holding the related row, per `_cmps` table
//   (row, field, order, id) holding the component, and on `files_related_mph` (row, type, field, order, id)
//   holding the file. Strapi's indexes find a row's links but not their order or what they point to, so each
//   populate of each row fetched its links from the table and sorted them (and the files' index, on the row
//   id alone, also every other type's links of the same id); with these every link is read presorted from
//   the index alone (at 100k articles, `npm run bench:explain`: populate=* and the deep populate 10-23%
//   fewer buffers and 5-15% less time per statement).
import { createHash } from 'node:crypto';
import type { Attribute, ContentType, Schema } from './schema.ts';
import { CMPS, FILES, ROW_COLUMNS as R, quoted as q } from './layout.ts';
import { searchDocument } from './search.ts';
import type { FieldRef, Filter, ReadQuery } from './ast.ts';
import { conjuncts } from './ast.ts';

export interface IndexAdvice {
  table: string;
  name: string;
  /** What must exist first (an extension), or null. */
  requires: string | null;
  /** `create index if not exists …` without CONCURRENTLY (the caller adds it when it can). */
  create: string;
  why: string;
}


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
      // A populate reaches these rows by id through links that join both statuses (a type without draft &
      // publish links to the draft and the published row alike): the pages' index leads with the locale,
      // so each link to a row of the other status cost a table read to reject. On the id alone, it is
      // rejected in the index (at 100k articles, the deep populate's statement: 12% less CPU).
      if (ct.localized) {
        const byId = indexName(ct.table, `fastrapi_${suffix}_id`);
        out.push({
          table: ct.table, name: byId, requires: null,
          create: `create index if not exists ${q(byId)} on ${q(ct.table)} (id) where ${R.publishedAt} ${cond}`,
          why: `populates of ${ct.uid} (status ${status}) skip rows of the other status by the index alone`,
        });
      }
    }
  }
  for (const a of ct.attributes) {
    if (a.kind !== 'relation' || !a.owner) continue;
    // Strapi's unique index covers (row, related row); this one the other way round. Where the other side
    // keeps an order (the related row's list of these rows: an author's articles), in that order too: a
    // populate of that list reads its first links presorted from the index alone, where Strapi's index on
    // the related row alone made it fetch and sort every link (at 100k articles a fifth of a deep populate).
    // (An earlier `_inv` on (related row, row) serves the same filters and may be dropped once this exists.)
    const j = a.join;
    const inv = indexName(j.table, j.inverseOrder ? 'fastrapi_invo' : 'fastrapi_inv');
    out.push({
      table: j.table, name: inv, requires: null,
      create: j.inverseOrder
        ? `create index if not exists ${q(inv)} on ${q(j.table)} (${q(j.target)}, ${q(j.inverseOrder)}, id) include (${q(j.source)})`
        : `create index if not exists ${q(inv)} on ${q(j.table)} (${q(j.target)}, ${q(j.source)})`,
      why: `filters through ${ct.uid}.${a.name} start from the related rows and find their ${ct.uid} rows in the index alone${j.inverseOrder ? ', and the related rows\' lists of them read in order' : ''}`,
    });
  }
  for (const a of ct.attributes) {
    if (a.kind !== 'scalar' || !a.unique) continue;
    // Strapi keeps no index for a unique attribute: its check (a published row of another document holding
    // the value, at every write naming it and every publish) read every published row of the table (at 100k
    // articles, `npm run bench`: 10 publishes a second of one document without it, 86 with it). A hash
    // index answers the equality for values of any length (a btree entry holds at most 2,704 bytes).
    const uq = indexName(ct.table, `fastrapi_uq_${a.column}`);
    out.push({
      table: ct.table, name: uq, requires: null,
      create: `create index if not exists ${q(uq)} on ${q(ct.table)} using hash (${q(a.column)}) where ${R.publishedAt} is not null`,
      why: `the unique check of ${ct.uid}.${a.name} finds the value's published rows in the index`,
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

/**
 * The links a populate reads from rows holding `attributes` (a collection type's or a component's, whose rows
 * grow with their owners'): `fwd` above. `uid` names the owner in `why`.
 */
function forwardAdvice(uid: string, attributes: readonly Attribute[]): IndexAdvice[] {
  const out: IndexAdvice[] = [];
  for (const a of attributes) {
    if (a.kind === 'relation' && a.owner) {
      const j = a.join;
      const name = indexName(j.table, 'fastrapi_fwd');
      out.push({
        table: j.table, name, requires: null,
        create: `create index if not exists ${q(name)} on ${q(j.table)} (${q(j.source)}, ${j.order ? `${q(j.order)}, ` : ''}id) include (${q(j.target)})`,
        why: `populates of ${uid}.${a.name} read each row's links in order from the index alone`,
      });
    } else if (a.kind === 'component' || a.kind === 'dynamiczone') {
      const name = indexName(a.cmpsTable, 'fastrapi_fwd');
      out.push({
        table: a.cmpsTable, name, requires: null,
        create: `create index if not exists ${q(name)} on ${q(a.cmpsTable)} (${q(CMPS.entity)}, ${q(CMPS.field)}, ${q(CMPS.order)}, id) include (${q(CMPS.type)}, ${q(CMPS.cmp)})`,
        why: `populates of ${uid}'s components read each row's components in order from the index alone`,
      });
    } else if (a.kind === 'media') {
      const name = indexName(FILES.related, 'fastrapi_fwd');
      out.push({
        table: FILES.related, name, requires: null,
        create: `create index if not exists ${q(name)} on ${q(FILES.related)} (${q(FILES.relatedId)}, ${q(FILES.relatedType)}, ${q(FILES.field)}, ${q(FILES.order)}, id) include (${q(FILES.file)})`,
        why: 'populates of media read each row\'s files in order from the index alone',
      });
    }
  }
  return out;
}

/**
 * Every advised index of the project's own collection types and components (not the plugins' tables but
 * the media links they share), in model order, each once.
 */
export function advisedIndexes(schema: Schema): IndexAdvice[] {
  const types = [...schema.contentTypes.values()].filter((ct) => !ct.builtin && ct.kind === 'collectionType');
  const all = [
    ...types.flatMap(advice),
    ...types.flatMap((ct) => forwardAdvice(ct.uid, ct.attributes)),
    ...[...schema.components.values()].flatMap((c) => forwardAdvice(c.uid, c.attributes)),
  ];
  const seen = new Set<string>();
  return all.filter((a) => !seen.has(a.name) && seen.add(a.name));
}

// ------------------------------------------------------------ indexes for one query (`npm run indexes -- --for PATH`)

/** Operators a btree answers from its keys: equality first in the key, then at most one range. */
const EQUALITY = new Set(['$eq', '$in']);
const RANGE = new Set(['$lt', '$lte', '$gt', '$gte', '$between']);

/**
 * Columns of unbounded size never go into an index: a btree entry holds at most 2,704 bytes, so a long text
 * written later would fail its insert (a 500 for a valid write).
 */
const UNBOUNDED = new Set<FieldRef['type']>(['text', 'richtext', 'blocks', 'json']);
const bounded = (f: FieldRef) => !UNBOUNDED.has(f.type) && !f.searchOf && !f.status;

/** A root-row column compared by a filter, when an index can hold it (not `_q`'s document, not a status sort, not a long text). */
const indexable = (f: Filter): f is Extract<Filter, { t: 'cmp' }> => f.t === 'cmp' && bounded(f.field);

/**
 * Indexes that let PostgreSQL answer one read from an index instead of the table's rows (issue 31: a broad
 * filter on a large table read every published row). Not advised by default: which columns a project's
 * frontends filter and sort by is only known from its requests, so the operator names them.
 * - the root's own filters and sort: one partial index per status, on (locale, equality columns, then one
 *   range column — or, without one, the sort columns in their direction), holding the id and every other
 *   filter and sort column (INCLUDE), so the page and its exact count are an index-only scan;
 * - a sort whose first key is a to-one relation's field: that field on the related table, so the page walks
 *   the related rows in order (compiler/sql.ts `relationWalk`);
 * - a filter on a relation's field by equality or range: that field on the related table.
 */
export function queryIndexes(schema: Schema, query: ReadQuery): IndexAdvice[] {
  const ct = query.ct;
  const out: IndexAdvice[] = [];
  const cmps = conjuncts(query.where).filter(indexable);
  const eq = [...new Set(cmps.filter((c) => EQUALITY.has(c.op)).map((c) => c.field.column))].sort();
  const range = cmps.find((c) => RANGE.has(c.op) && !eq.includes(c.field.column))?.field.column;
  const rootSort = query.sort.filter((s) => !s.path.length && bounded(s.field));
  if (eq.length || range || rootSort.length) {
    const byLocale = ct.localized && query.localeParam !== null;
    const keys = [...(byLocale ? [R.locale] : []), ...eq.filter((c) => !(byLocale && c === R.locale)).map(q)];
    if (range) keys.push(q(range));
    else {
      for (const s of rootSort) if (!eq.includes(s.field.column)) keys.push(`${q(s.field.column)}${s.desc ? ' desc' : ''}`);
      // Every list ends its order with `id asc` (compiler/sql.ts): in the key, the page needs no sort at all.
      keys.push('id');
    }
    const inKey = new Set([...eq, ...(range ? [range] : [...rootSort.map((s) => s.field.column), 'id']), R.locale]);
    const include = [...new Set(['id', ...rootSort.map((s) => s.field.column), ...cmps.map((c) => c.field.column)])].filter((c) => !inKey.has(c));
    const where = ct.draftAndPublish && query.status ? ` where ${R.publishedAt} is ${query.status === 'published' ? 'not null' : 'null'}` : '';
    const body = `(${keys.join(', ')})${include.length ? ` include (${include.map(q).join(', ')})` : ''}${where}`;
    out.push(queryIndex(ct.table, body, `${ct.uid} lists filtered or sorted by ${[...eq, range ?? '', ...rootSort.map((s) => s.field.column)].filter(Boolean).join(', ')} read the index alone`));
  }
  const first = query.sort[0];
  const rel = first?.path.length === 1 && first.path[0].kind === 'relation' && !first.path[0].toMany ? first.path[0] : null;
  const target = rel && schema.contentTypes.get(rel.target);
  if (rel && target && bounded(first.field)) out.push(queryIndex(target.table, `(${q(first.field.column)}, id)`, `${ct.uid} lists sorted by ${rel.name}.${first.field.column} walk the related rows in order`));
  for (const f of conjuncts(query.where)) {
    if (f.t !== 'relation') continue;
    const col = conjuncts(f.sub).filter(indexable).find((c) => EQUALITY.has(c.op) || RANGE.has(c.op));
    if (col) out.push(queryIndex(f.target.table, `(${q(col.field.column)})`, `${ct.uid} lists filtered by ${f.attr.name}.${col.field.column} find the related rows by it`));
  }
  return out;
}

function queryIndex(table: string, body: string, why: string): IndexAdvice {
  // Named by what it indexes: the same advice twice is one index, and a changed query a new one.
  const name = indexName(table, `fastrapi_q_${createHash('sha256').update(body).digest('hex').slice(0, 8)}`);
  return { table, name, requires: null, create: `create index if not exists ${q(name)} on ${q(table)} ${body}`, why };
}
