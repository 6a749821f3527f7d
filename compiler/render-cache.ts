// The render cache: each content row's default response text (and its components' default populate,
// and each file record) kept in this server's own schema, so a read copies text instead of formatting
// every value. Nothing is added to Strapi's tables: an entry is valid while its row's `updated_at` is the
// one it was rendered from, which every write changes — this server's (which refreshes the entries it
// touched in its own transaction) and Strapi's (the entry is then a miss, rendered live, until the
// background refresh renders it again). Pure SQL text; src/db/render-cache.ts runs it.
import { createHash } from 'node:crypto';
import type { ContentType, Schema } from './schema.ts';
import { FILES, OWN_SCHEMA, RENDER, quoted as q } from './layout.ts';
import { cacheRenders } from './sql.ts';


export interface CacheTable {
  /** The Strapi table whose rows it renders. */
  source: string;
  table: string;
  /** Changes whenever what is rendered changes (models, this server's rendering): the table is then rebuilt. */
  version: string;
  create: string;
  /** Renders rows `$1` (ids) into the cache. */
  refreshIds: string;
  /**
   * One step of the background refresh's walk down the table by id (newest rows first): the `WINDOW`
   * rows with the highest ids at or below `$1` are compared with their entries, those missing or stale are
   * rendered, and entries in the window's id range whose row is gone are dropped. Answers `next` (the
   * bound of the next step; null once the walk reached the table's lowest id), `rendered` and `dropped`.
   * A step reads its window by the primary key of both tables, so a whole walk costs one pass over the
   * table and a step the same at any table size.
   */
  refreshWindow: string;
}

/** Rows a refresh step looks at (written into the text: the planner then knows a step reads a page). */
export const WINDOW = 500;
/** Where a walk starts (the highest id an `integer` column can hold). */
export const WALK_START = 2147483647;

function cacheTable(schema: Schema, model: ContentType | null): CacheTable {
  const source = model ? model.table : FILES.table;
  const { renders, joins } = cacheRenders(schema, model, 't');
  const cols = renders.map(([c]) => c);
  const table = RENDER.table(source);
  const lateral = joins.map((j) => ` ${j}`).join('');
  const upsert = (from: string, where: string) => `insert into ${table} as c (id, ${RENDER.stamp}, ${cols.map(q).join(', ')})
    select t.id, t.updated_at, ${renders.map(([, e]) => e).join(', ')} ${from}${lateral} ${where}
    on conflict (id) do update set ${[RENDER.stamp, ...cols].map((c) => `${q(c)} = excluded.${q(c)}`).join(', ')}`;
  const create = `create table if not exists ${table} (id integer primary key, ${RENDER.stamp} timestamp(6), ${cols.map((c) => `${q(c)} text`).join(', ')})`;
  return {
    source, table, create,
    // Hashes the whole render (its lateral joins hold the rows' columns) and the attributes it renders:
    // a type changed in the models (a schema migration casts the column) renders the same SQL text but
    // another JSON, so entries rendered before the edit must go.
    version: createHash('sha256').update(create).update(upsert('', '')).update(modelShape(schema, model)).digest('hex').slice(0, 16),
    refreshIds: upsert(`from ${q(source)} t`, 'where t.id = any($1::int[])'),
    refreshWindow: `with w as (select t.id, t.updated_at from ${q(source)} t where t.id <= $1::int order by t.id desc limit ${WINDOW}),
      b as (select case when count(*) < ${WINDOW} then null else min(id) end as low from w),
      up as (${upsert(`from ${q(source)} t`, `where t.id in (select w.id from w left join ${table} x on x.id = w.id
        where x.id is null or x.${RENDER.stamp} is distinct from w.updated_at)`)} returning 1),
      gone as (delete from ${table} x where x.id <= $1::int and x.id >= coalesce((select low from b), ${-WALK_START - 1})
        and not exists (select 1 from w where w.id = x.id) returning 1)
      select (select low - 1 from b) as next, (select count(*) from up)::int as rendered, (select count(*) from gone)::int as dropped`,
  };
}

/** The attributes of a content-type and of every component it reaches (or of an extended file), as text. */
function modelShape(schema: Schema, model: ContentType | null): string {
  // Files: their record's attributes when a project's extension added some (schema.pluginRecords).
  if (!model) return schema.pluginRecords?.file ? JSON.stringify(schema.pluginRecords.file.ct.attributes) : '';
  const seen = new Set<string>();
  const parts: unknown[] = [model.attributes];
  const visit = (attrs: ContentType['attributes']) => {
    for (const a of attrs) {
      const uids = a.kind === 'component' ? [a.component] : a.kind === 'dynamiczone' ? a.components : [];
      for (const uid of uids) {
        const c = schema.components.get(uid);
        if (!c || seen.has(uid)) continue;
        seen.add(uid);
        parts.push(uid, c.attributes);
        visit(c.attributes);
      }
    }
  };
  visit(model.attributes);
  return JSON.stringify(parts);
}

const built = new WeakMap<Schema, Map<ContentType | null, CacheTable>>();

/** The cache table of a content-type (null: files), built once per schema. */
export function cacheTableOf(schema: Schema, model: ContentType | null): CacheTable {
  let m = built.get(schema);
  if (!m) built.set(schema, (m = new Map()));
  let t = m.get(model);
  if (!t) m.set(model, (t = cacheTable(schema, model)));
  return t;
}

/** Drops every entry of a cache table (a statement this server cannot see into may have changed any row without its `updated_at`). */
export function clearCacheSql(t: CacheTable): string {
  return `delete from ${t.table}`;
}

/** One cache table per content-type, and one for files. */
export function cacheTables(schema: Schema): CacheTable[] {
  return [...[...schema.contentTypes.values()].map((ct) => cacheTableOf(schema, ct)), cacheTableOf(schema, null)];
}

/** Which version each cache table was built for, and whether it was filled since. */
export const CACHE_META = `${OWN_SCHEMA}.render_cache_meta`;
export const CACHE_DDL = [
  `create schema if not exists ${OWN_SCHEMA}`,
  `create table if not exists ${CACHE_META} (source text primary key, version text not null)`,
  // Whether the background refresh has walked the whole table since it was made (reads wait for it).
  `alter table ${CACHE_META} add column if not exists filled boolean not null default false`,
];
