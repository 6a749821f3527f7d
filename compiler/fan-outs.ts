// What GraphQL's operation cost (src/graphql/cost.ts) knows of the data: the most entries a list can hold.
// A nested list holds at most the rows one row links to through its link table column (a to-many relation,
// a multiple media, a repeatable component or a zone), a root list at most its table's rows. Priced by page
// sizes alone, four nested lists of 25 (Strapi's default) cost 390,625 entries whatever the database holds,
// and a frontend's query Strapi answers at once was refused; priced by what the tables hold, a query is
// refused where its answer would really be that large. Read by src/db/fan-outs.ts: counted where a table is
// small, estimated from PostgreSQL's statistics (pg_stats, kept by ANALYZE) where it is not.
import { CMPS, FILES, quoted as q } from './layout.ts';
import type { Attribute, Schema } from './schema.ts';

/** Rows of `table`, or, with a `column`, the most rows of `table` holding one value in `column`. */
export interface Counted { table: string; column: string | null }

/** Where the entries of a list attribute of one row are (null: no list, or one this server does not price from data). */
export function listSource(attr: Attribute): Counted | null {
  switch (attr.kind) {
    case 'relation': return attr.toMany && !attr.creator ? { table: attr.join.table, column: attr.join.source } : null;
    case 'media': return attr.multiple ? { table: FILES.related, column: FILES.relatedId } : null;
    // One row's components of every field of it: more than one field holds, never fewer.
    case 'component': return attr.repeatable ? { table: attr.cmpsTable, column: CMPS.entity } : null;
    case 'dynamiczone': return { table: attr.cmpsTable, column: CMPS.entity };
    case 'morph': return attr.relation === 'morphToMany' && attr.join ? { table: attr.join.table, column: attr.join.owner } : null;
    default: return null;
  }
}

export const countedKey = (c: Counted) => (c.column === null ? c.table : `${c.table}.${c.column}`);


/**
 * Per source ($1: tables, $2: columns, '' for a table's rows): whether the table's heap is at most $3 bytes
 * (then counted: countStatement), its estimated rows (-1 before its first ANALYZE), and its column's
 * statistics: distinct values (negative: a fraction of the rows) and the most common value's share.
 */
export const STATISTICS_STATEMENT = `select a.t as "table", a.c as "column",
    pg_catalog.pg_relation_size(c.oid) <= $3::int8 as small, c.reltuples::float8 as rows,
    s.n_distinct::float8 as "distinct", s.most_common_freqs[1]::float8 as top
  from unnest($1::text[], $2::text[]) a(t, c)
  join pg_catalog.pg_class c on c.relname = a.t and c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p')
  left join pg_catalog.pg_stats s on s.schemaname = current_schema() and s.tablename = a.t and s.attname = a.c and not s.inherited`;

/** Exact figures of small tables, one row per source in order (`n`: rows, or the most rows of one value). */
export function countStatement(sources: readonly Counted[]): string {
  return sources.map((s, i) => s.column === null
    ? `select ${i} as i, (select count(*) from ${q(s.table)})::int8 as n`
    : `select ${i} as i, (select coalesce(max(x.n), 0) from (select count(*) as n from ${q(s.table)} group by ${q(s.column)}) x)::int8 as n`).join(' union all ');
}

/** A statistics row of STATISTICS_STATEMENT. */
export interface Statistics { rows: number; distinct: number | null; top: number | null }

/**
 * The most entries a large table's source holds, from its statistics (null: not analyzed yet). A column's most
 * common value holds its share of the rows; with no value common enough for PostgreSQL to list, values are
 * spread evenly, and twice the average is taken as the most one holds.
 */
export function estimated(s: Statistics, column: string | null): number | null {
  if (s.rows < 0) return null;
  if (column === null) return Math.ceil(s.rows);
  if (s.top !== null) return Math.ceil(s.top * s.rows);
  if (s.distinct === null || s.distinct === 0) return null;
  const values = s.distinct > 0 ? s.distinct : -s.distinct * s.rows;
  return values > 0 ? Math.ceil((2 * s.rows) / values) : null;
}

/** Every source a schema's lists have: its list attributes' (content-types, components, the media library's file), its collection types' rows. */
export function schemaSources(schema: Schema): Counted[] {
  const out: Counted[] = [];
  const models = [...schema.contentTypes.values(), ...schema.components.values(), ...(schema.files ? [schema.files] : [])];
  for (const m of models) for (const a of m.attributes) { const s = listSource(a); if (s) out.push(s); }
  for (const ct of schema.contentTypes.values()) if (ct.kind === 'collectionType') out.push({ table: ct.table, column: null });
  return out;
}
