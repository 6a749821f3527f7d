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
//
// Link counters extend them to a list filtered through one to-one relation (`filters[category][name]=…`:
// at 1M articles counting a category's 40,000 links took 175 ms, Strapi's whole answer 640 ms): per target
// row, how many rows of the owner link to it, by the owner row's locale and status. Triggers on the link
// table count its inserts and deletes; two on the owner table cover what the link table's cannot see: a
// deleted owner row's links (Strapi's cascade removes them after the row is gone, so their locale and status
// are known only before), and a row changing locale or status. Installed per relation by `npm run indexes
// -- --for` when a request filters by it (each adds a trigger call to the relation's writes).
import { createHash } from 'node:crypto';
import type { ContentType, RelationAttr, Schema } from './schema.ts';
import { ROW_COLUMNS as R, quoted as q } from './layout.ts';
import { conjuncts, type Filter, type ReadQuery } from './ast.ts';

export const COUNTS_TABLE = 'fastrapi.row_counts';
const FN = 'fastrapi.count_rows';
const NEW = 'fastrapi_new';
const OLD = 'fastrapi_old';

/** The triggers of one counted table, by event. */
export const COUNT_TRIGGERS = { insert: 'fastrapi_count_ins', update: 'fastrapi_count_upd', delete: 'fastrapi_count_del', truncate: 'fastrapi_count_trunc' } as const;

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** The table's oid, resolved where the statement is parsed (the same search path its rows are read by). */
const rel = (table: string) => `${lit(q(table))}::regclass`;

/**
 * SQL: true while every trigger named, on its table, is present and enabled ALWAYS (what a read checks before
 * using counters, and the CLI alike; ≈ 20 µs).
 */
function armed(triggers: Array<[table: string, names: Readonly<Record<string, string>>]>): string {
  const each = triggers.map(([table, names]) => `(g.tgrelid = ${rel(table)} and g.tgname = any(array[${Object.values(names).map(lit).join(', ')}]))`);
  const all = triggers.reduce((n, [, names]) => n + Object.keys(names).length, 0);
  return `(select count(*) from pg_catalog.pg_trigger g where (${each.join(' or ')}) and g.tgenabled = 'A') = ${all}`;
}

const group = (rows: string, sign: string) =>
  `select tg_relid, ${R.locale}, ${R.publishedAt} is not null, ${sign}count(*) from ${rows} group by 2, 3`;

/** The link counters' triggers on a link table, by event (their arguments name the owner table and columns). */
export const LINK_TRIGGERS = { insert: 'fastrapi_links_ins', update: 'fastrapi_links_upd', delete: 'fastrapi_links_del', truncate: 'fastrapi_links_trunc' } as const;
const LINK_FN = 'fastrapi.count_links';
const OWNER_FN = 'fastrapi.count_owner_links';
/** The owner table's two row triggers for one counted link table (an owner has a pair per counted relation). */
const ownerTriggers = (link: string) => {
  const base = `fastrapi_ol_${createHash('sha256').update(link).digest('hex').slice(0, 12)}`;
  return { delete: `${base}_del`, update: `${base}_upd` };
};

/** The counters' table (idempotent; run under an advisory lock by src/db/counts.ts). */
export const COUNTS_TABLE_DDL = [
  'create schema if not exists fastrapi',
  `create table if not exists ${COUNTS_TABLE} (rel oid not null, locale text, published boolean not null, n bigint not null, target integer)`,
  `create index if not exists row_counts_rel on ${COUNTS_TABLE} (rel, published, locale)`,
  // A table made before the link counters lacks their column (ALTER only then: a server running as
  // another role than the table's owner may not alter it, and need not).
  `do $d$ begin
  if not exists (select 1 from pg_catalog.pg_attribute where attrelid = '${COUNTS_TABLE}'::regclass and attname = 'target' and not attisdropped) then
    alter table ${COUNTS_TABLE} add column target integer;
  end if;
  if to_regclass('fastrapi.row_counts_target') is null then
    create index row_counts_target on ${COUNTS_TABLE} (rel, target) where target is not null;
  end if;
end $d$`,
];

/** Whether the trigger functions exist (a server made them at start when missing; `--apply` replaces them). */
export const COUNT_FUNCTION_EXISTS_SQL = `select ${[FN, LINK_FN, OWNER_FN].map((f) => `to_regprocedure('${f}()') is not null`).join(' and ')} as exists`;

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
  // On a link table, per statement; arguments: the owner table, its column in the link, the target's. The
  // owner's locale and status come from its row: a link whose owner is already gone (deleted, the
  // cascade removing its links) was counted off by the owner's own trigger below. Dynamic SQL: the
  // tables and columns are the trigger's arguments (the schema is the link table's).
  `create or replace function ${LINK_FN}() returns trigger language plpgsql security definer set search_path = pg_catalog, pg_temp as $f$
declare
  side text := format('select l.%I as t, o.${R.locale} as lo, o.${R.publishedAt} is not null as p, %%s as d from %%s l join %I.%I o on o.id = l.%I',
    tg_argv[2], tg_table_schema, tg_argv[0], tg_argv[1]);
  rows text;
begin
  if tg_op = 'TRUNCATE' then
    delete from ${COUNTS_TABLE} where rel = tg_relid;
    return null;
  end if;
  rows := case tg_op when 'INSERT' then format(side, 1, '${NEW}') when 'DELETE' then format(side, -1, '${OLD}')
    else format(side, 1, '${NEW}') || ' union all ' || format(side, -1, '${OLD}') end;
  execute format('insert into ${COUNTS_TABLE} (rel, target, locale, published, n) select $1, t, lo, p, sum(d) from (%s) c group by t, lo, p having sum(d) <> 0', rows)
    using tg_relid;
  return null;
end $f$`,
  // On the owner table, per row: before a row is deleted, its links leave the counts (held FOR KEY SHARE:
  // a writer deleting one of them meanwhile is waited for, then it is gone from the rows read here — each
  // link is counted off once); after a row changes locale or status, its links move to the new key.
  // Arguments: the link table, the owner's column in it, the target's.
  // A change of locale or status locks its row FOR UPDATE first: a writer adding a link to the row holds it
  // FOR KEY SHARE (its foreign key's check), which a plain UPDATE does not wait for, and counts the link by
  // the locale and status it saw. Interleaved, the link was counted under the old key and never moved.
  // Now the change waits for that writer and then reads its link (a new snapshot), and a writer coming
  // after waits for the change and counts by the new key.
  `create or replace function ${OWNER_FN}() returns trigger language plpgsql security definer set search_path = pg_catalog, pg_temp as $f$
declare
  link regclass := format('%I.%I', tg_table_schema, tg_argv[0])::regclass;
  links text := format('select l.%I as t from %s l where l.%I = $2 for key share', tg_argv[2], link, tg_argv[1]);
begin
  if tg_op = 'DELETE' then
    execute format('insert into ${COUNTS_TABLE} (rel, target, locale, published, n) select $1, t, $3, $4, -count(*) from (%s) x group by t', links)
      using link, old.id, old.${R.locale}, old.${R.publishedAt} is not null;
    return old;
  end if;
  execute format('select 1 from %I.%I where id = $1 for update', tg_table_schema, tg_table_name) using new.id;
  execute format('insert into ${COUNTS_TABLE} (rel, target, locale, published, n) select $1, t, lo, p, sum(d) from (
      select t, $3 as lo, $4 as p, -1 as d from (%s) x union all select t, $5, $6, 1 from (%s) y) c
    group by t, lo, p having sum(d) <> 0', links, links)
    using link, new.id, old.${R.locale}, old.${R.publishedAt} is not null, new.${R.locale}, new.${R.publishedAt} is not null;
  return null;
end $f$`,
];

/** Everything the counters need besides each table's triggers, as the CLI prints it. */
export const COUNTS_DDL = [...COUNTS_TABLE_DDL, ...COUNT_FUNCTION_DDL];

export interface CounterAdvice {
  /** The table counted: a content-type's, or a link table. */
  table: string;
  /** Statements to run in one transaction: lock the table, (re)create the triggers, count its rows once. */
  install: string[];
  /** SQL: true while these counters' triggers are all present and enabled ALWAYS (what a read checks). */
  armed: string;
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
    armed: armedRows(ct.table),
    why: `exact totals of ${ct.uid} lists without counting its rows`,
  };
}

const armedRows = (table: string) => armed([[table, COUNT_TRIGGERS]]);

/**
 * The relation whose link counters answer the total of `query`: its filter is one to-one relation of the
 * owning side (the one whose link rows the triggers count by owner row), matching no row without a link.
 * An owner row has one link there, so summing the counts of the matching targets counts each row once —
 * except a row of a type without draft & publish, which links to both versions of a target that has it
 * (src/rest/write-relations.ts): where both match, the sum counted it twice.
 */
export function countedRelation(query: ReadQuery): Extract<Filter, { t: 'relation' }> | null {
  const only = conjuncts(query.where);
  const f = only.length === 1 ? only[0] : null;
  if (f?.t !== 'relation' || f.nullRowMatches || f.attr.toMany || !f.attr.owner) return null;
  return f.target.draftAndPublish && !query.ct.draftAndPublish ? null : f;
}

/** Link counters for the relation a request filters by, when its total would use them (`countedRelation`). */
export function queryCounters(query: ReadQuery): CounterAdvice[] {
  const f = countedRelation(query);
  return f ? [linkCounterAdvice(query.ct, f.attr)] : [];
}

function linkCounterAdvice(owner: ContentType, attr: RelationAttr): CounterAdvice {
  const j = attr.join;
  const [o, l] = [q(owner.table), q(j.table)];
  const args = (...a: string[]) => a.map(lit).join(', ');
  const T = LINK_TRIGGERS;
  const O = ownerTriggers(j.table);
  const onLink = (event: string, name: string, ref: string) =>
    `create trigger ${name} after ${event} on ${l}${ref} for each statement execute function ${LINK_FN}(${args(owner.table, j.source, j.target)})`;
  const keyChanged = `old.${R.locale} is distinct from new.${R.locale} or (old.${R.publishedAt} is null) <> (new.${R.publishedAt} is null)`;
  return {
    table: j.table,
    install: [
      // Writers of both wait (readers do not) while the links are counted.
      `lock table ${o}, ${l} in share row exclusive mode`,
      ...Object.values(T).map((name) => `drop trigger if exists ${name} on ${l}`),
      ...Object.values(O).map((name) => `drop trigger if exists ${name} on ${o}`),
      onLink('insert', T.insert, ` referencing new table as ${NEW}`),
      onLink('update', T.update, ` referencing old table as ${OLD} new table as ${NEW}`),
      onLink('delete', T.delete, ` referencing old table as ${OLD}`),
      onLink('truncate', T.truncate, ''),
      `create trigger ${O.delete} before delete on ${o} for each row execute function ${OWNER_FN}(${args(j.table, j.source, j.target)})`,
      `create trigger ${O.update} after update of ${R.locale}, ${R.publishedAt} on ${o} for each row when (${keyChanged}) execute function ${OWNER_FN}(${args(j.table, j.source, j.target)})`,
      ...Object.values(T).map((name) => `alter table ${l} enable always trigger ${name}`),
      ...Object.values(O).map((name) => `alter table ${o} enable always trigger ${name}`),
      `delete from ${COUNTS_TABLE} where rel = ${rel(j.table)}`,
      `insert into ${COUNTS_TABLE} (rel, target, locale, published, n) select ${rel(j.table)}, l.${q(j.target)}, o.${R.locale}, o.${R.publishedAt} is not null, count(*)
        from ${l} l join ${o} o on o.id = l.${q(j.source)} group by 2, 3, 4`,
    ],
    armed: armedLinks(owner.table, j.table),
    why: `exact totals of ${owner.uid} lists filtered by ${attr.name} without counting its links`,
  };
}

const armedLinks = (owner: string, link: string) => armed([[link, LINK_TRIGGERS], [owner, ownerTriggers(link)]]);

/** The same counters advised twice (two requests filtering by one relation) are one. */
export const distinctCounters = (advice: CounterAdvice[]): CounterAdvice[] => [...new Map(advice.map((a) => [a.table, a])).values()];

/**
 * The exact row count of `table` for a status (null: either) and a locale (a parameter number; null: every
 * locale), from the counters when the table has them, else `fallback` (a `select count(*) …`).
 */
export function countedTotal(table: string, published: boolean | null, localeParam: number | null, fallback: string): string {
  return fromCounters(armedRows(table), [`rel = ${rel(table)}`], published, localeParam, fallback);
}

/**
 * The exact count of `owner` rows of a status and locale (as `countedTotal`) linked through `attr` to a row
 * of `targets` (a `select id …`), from the link counters when armed, else `fallback`.
 */
export function countedLinkTotal(owner: ContentType, attr: RelationAttr, targets: string, published: boolean | null, localeParam: number | null, fallback: string): string {
  return fromCounters(armedLinks(owner.table, attr.join.table), [`rel = ${rel(attr.join.table)}`, `target in (${targets})`], published, localeParam, fallback);
}

function fromCounters(armedSql: string, conds: string[], published: boolean | null, localeParam: number | null, fallback: string): string {
  if (published !== null) conds.push(published ? 'published' : 'not published');
  if (localeParam !== null) conds.push(`locale = $${localeParam}::text`);
  // CASE runs only the branch it takes: the rows are not counted when the counters answer.
  return `select case when ${armedSql} then (select coalesce(sum(n), 0)::bigint from ${COUNTS_TABLE} where ${conds.join(' and ')}) else (${fallback}) end`;
}

/**
 * Tables with more than `min` entries, and more than two per key (a locale, status and target each: a link
 * table's thousands of targets are not refolded at every pass): each gets folded (`foldCounts`).
 */
export const FOLDABLE_SQL = `select r.rel::regclass::text as table from ${COUNTS_TABLE} r join pg_catalog.pg_class c on c.oid = r.rel
  group by r.rel having count(*) > greatest($1::int, 2 * count(distinct (r.locale, r.published, r.target)))`;

/** Entries of tables that no longer exist (dropped, or recreated under a new oid without counters). */
export const ORPHANS_SQL = `delete from ${COUNTS_TABLE} r where not exists (select 1 from pg_catalog.pg_class c where c.oid = r.rel)`;

/**
 * Folds a table's entries into one per locale, status (and target, for a link table). The share lock waits
 * for a TRUNCATE of the table (whose trigger empties its entries) and holds it off; writers' concurrent
 * inserts are kept (not in the snapshot, not deleted), and a concurrent fold's rows are deleted by one of
 * the two only.
 */
export function foldCounts(table: string): string[] {
  return [
    `lock table ${table} in access share mode`,
    `with d as (delete from ${COUNTS_TABLE} where rel = ${lit(table)}::regclass returning locale, published, target, n)
      insert into ${COUNTS_TABLE} (rel, locale, published, target, n) select ${lit(table)}::regclass, locale, published, target, sum(n) from d group by 2, 3, 4 having sum(n) <> 0`,
  ];
}
