// Row counters (issue 31): the exact `meta.pagination.total` of an unfiltered list without counting rows.
// Without them the total is an index-only scan of every row of the status and locale (≈ 10 ms per 100k
// rows: at 1M articles the count was the whole cost of `populate=*`, 576 ms on Strapi, ≈ 100 ms here).
//
// Statement-level triggers on a content-type's table (installed by `npm run indexes -- --apply`, like the
// advised indexes: compiler/indexes.ts) append the change of each write statement, per locale and status,
// to `fastrapi.row_counts` inside the writing transaction: whoever writes (this server, Strapi's admin,
// SQL by hand), the sum of a table's entries is its row count in every snapshot, so the total a read takes
// from it is exactly what `count(*)` in the same statement would say. Writers only insert (no row is
// updated, so concurrent writers never wait on each other); the deltas are folded into one entry per
// locale and status in the background (src/db/counts.ts).
//
// A read uses the counters only while all four triggers are present and enabled ALWAYS (the statement looks
// at pg_trigger, ≈ 20 µs); otherwise, or on a table without them, it counts rows as before.
import type { ContentType, Schema } from './schema.ts';
import { ROW_COLUMNS as R } from './layout.ts';

export const COUNTS_TABLE = 'fastrapi.row_counts';
const FN = 'fastrapi.count_rows';
const NEW = 'fastrapi_new';
const OLD = 'fastrapi_old';

/** The triggers of one counted table, by event. */
export const COUNT_TRIGGERS = { insert: 'fastrapi_count_ins', update: 'fastrapi_count_upd', delete: 'fastrapi_count_del', truncate: 'fastrapi_count_trunc' } as const;

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * What makes a table counted, over pg_trigger rows `g`: its trigger is one of the four and enabled ALWAYS;
 * a table is counted when ARMED_TRIGGERS of its triggers pass (the reads' check and the CLI's alike).
 */
const armedTrigger = (g: string) => `${g}.tgname = any(array[${Object.values(COUNT_TRIGGERS).map(lit).join(', ')}]) and ${g}.tgenabled = 'A'`;
const ARMED_TRIGGERS = Object.keys(COUNT_TRIGGERS).length;
/** The table's oid, resolved where the statement is parsed (the same search path its rows are read by). */
const rel = (table: string) => `${lit(q(table))}::regclass`;

const group = (rows: string, sign: string) =>
  `select tg_relid, ${R.locale}, ${R.publishedAt} is not null, ${sign}count(*) from ${rows} group by 2, 3`;

/** The counters' table (idempotent; run under an advisory lock by src/db/counts.ts). */
export const COUNTS_TABLE_DDL = [
  'create schema if not exists fastrapi',
  `create table if not exists ${COUNTS_TABLE} (rel oid not null, locale text, published boolean not null, n bigint not null)`,
  `create index if not exists row_counts_rel on ${COUNTS_TABLE} (rel, published, locale)`,
];

/** Whether the trigger function exists (a server made it at start when missing; `--apply` replaces it). */
export const COUNT_FUNCTION_EXISTS_SQL = `select to_regprocedure('${FN}()') is not null as exists`;

/**
 * The trigger function. Only `npm run indexes -- --apply` replaces an existing one: the role that installed
 * the counters owns it, and a server running as another role may not.
 */
export const COUNT_FUNCTION_DDL = [
  // TRUNCATE: the table's entries go (no writer of the table runs meanwhile: TRUNCATE holds its exclusive
  // lock, and a fold takes a share lock on the table first, so none is half-way either).
  // SECURITY DEFINER: whoever writes the table (Strapi may connect as another role) needs no right on this
  // schema; the search path is pinned as such a function's must be.
  `create or replace function ${FN}() returns trigger language plpgsql security definer set search_path = pg_catalog, pg_temp as $f$
begin
  if tg_op = 'INSERT' then
    insert into ${COUNTS_TABLE} (rel, locale, published, n) ${group(NEW, '')};
  elsif tg_op = 'DELETE' then
    insert into ${COUNTS_TABLE} (rel, locale, published, n) ${group(OLD, '-')};
  elsif tg_op = 'UPDATE' then
    insert into ${COUNTS_TABLE} (rel, locale, published, n)
      select tg_relid, l, p, sum(d) from (
        select ${R.locale} as l, ${R.publishedAt} is not null as p, 1 as d from ${NEW}
        union all select ${R.locale}, ${R.publishedAt} is not null, -1 from ${OLD}) c
      group by l, p having sum(d) <> 0;
  else
    delete from ${COUNTS_TABLE} where rel = tg_relid;
  end if;
  return null;
end $f$`,
];

/** Everything the counters need besides each table's triggers, as the CLI prints it. */
export const COUNTS_DDL = [...COUNTS_TABLE_DDL, ...COUNT_FUNCTION_DDL];

export interface CounterAdvice {
  table: string;
  /** Statements to run in one transaction: lock the table, (re)create the triggers, count its rows once. */
  install: string[];
  why: string;
}

/** Counters for a project's collection types (the lists whose totals are asked for). */
export function advisedCounters(schema: Schema): CounterAdvice[] {
  return [...schema.contentTypes.values()].filter((ct) => !ct.builtin && ct.kind === 'collectionType').map(counterAdvice);
}

function counterAdvice(ct: ContentType): CounterAdvice {
  const t = q(ct.table);
  const T = COUNT_TRIGGERS;
  return {
    table: ct.table,
    install: [
      // Writers wait (readers do not) while the rows are counted, so no write falls between the count and the triggers.
      `lock table ${t} in share row exclusive mode`,
      ...Object.values(T).map((name) => `drop trigger if exists ${name} on ${t}`),
      `create trigger ${T.insert} after insert on ${t} referencing new table as ${NEW} for each statement execute function ${FN}()`,
      `create trigger ${T.update} after update on ${t} referencing old table as ${OLD} new table as ${NEW} for each statement execute function ${FN}()`,
      `create trigger ${T.delete} after delete on ${t} referencing old table as ${OLD} for each statement execute function ${FN}()`,
      `create trigger ${T.truncate} after truncate on ${t} for each statement execute function ${FN}()`,
      // ALWAYS: they fire under session_replication_role = replica too (a restore, logical replication).
      ...Object.values(T).map((name) => `alter table ${t} enable always trigger ${name}`),
      `delete from ${COUNTS_TABLE} where rel = ${rel(ct.table)}`,
      `insert into ${COUNTS_TABLE} (rel, locale, published, n) select ${rel(ct.table)}, ${R.locale}, ${R.publishedAt} is not null, count(*) from ${t} group by 2, 3`,
    ],
    why: `exact totals of ${ct.uid} lists without counting its rows`,
  };
}

/** Which of `tables` have all four triggers, enabled ALWAYS (what a read checks before using the counters). */
export const COUNTED_TABLES_SQL = `select c.relname as table from pg_trigger g join pg_class c on c.oid = g.tgrelid
  where c.relnamespace = current_schema()::regnamespace and c.relname = any($1::text[])
    and ${armedTrigger('g')}
  group by c.relname having count(*) = ${ARMED_TRIGGERS}`;

/**
 * The exact row count of `table` for a status (null: either) and a locale (a parameter number; null: every
 * locale), from the counters when the table has them, else `fallback` (a `select count(*) …`).
 */
export function countedTotal(table: string, published: boolean | null, localeParam: number | null, fallback: string): string {
  const conds = [`rel = ${rel(table)}`];
  if (published !== null) conds.push(published ? 'published' : 'not published');
  if (localeParam !== null) conds.push(`locale = $${localeParam}::text`);
  const armed = `(select count(*) from pg_catalog.pg_trigger g where g.tgrelid = ${rel(table)} and ${armedTrigger('g')}) = ${ARMED_TRIGGERS}`;
  // CASE runs only the branch it takes: the rows are not counted when the counters answer.
  return `select case when ${armed} then (select coalesce(sum(n), 0)::bigint from ${COUNTS_TABLE} where ${conds.join(' and ')}) else (${fallback}) end`;
}

/** Tables with more than `min` entries: each gets folded (`foldCounts`). */
export const FOLDABLE_SQL = `select r.rel::regclass::text as table from ${COUNTS_TABLE} r join pg_catalog.pg_class c on c.oid = r.rel
  group by r.rel having count(*) > $1::int`;

/** Entries of tables that no longer exist (dropped, or recreated under a new oid without counters). */
export const ORPHANS_SQL = `delete from ${COUNTS_TABLE} r where not exists (select 1 from pg_catalog.pg_class c where c.oid = r.rel)`;

/**
 * Folds a table's entries into one per locale and status. The share lock waits for a TRUNCATE of the table
 * (whose trigger empties its entries) and holds it off; writers' concurrent inserts are kept (not in the
 * snapshot, not deleted), and a concurrent fold's rows are deleted by one of the two only.
 */
export function foldCounts(table: string): string[] {
  return [
    `lock table ${table} in access share mode`,
    `with d as (delete from ${COUNTS_TABLE} where rel = ${lit(table)}::regclass returning locale, published, n)
      insert into ${COUNTS_TABLE} (rel, locale, published, n) select ${lit(table)}::regclass, locale, published, sum(n) from d group by 2, 3 having sum(n) <> 0`,
  ];
}
