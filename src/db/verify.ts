// Reading a database's schema back: which tables exist, whether the tables and columns the models
// need are there with a compatible type (a database Strapi made is used as it is, never altered),
// and a full catalog snapshot (columns, constraints, indexes, sequences, triggers) to compare two
// schemas — the tests compare a database made here with one Strapi made.
import type { Sql } from 'postgres';

/** Tables of the connection's current schema (where Strapi's live). */
export async function currentTables(sql: Sql): Promise<Set<string>> {
  const rows = await sql<{ name: string }[]>`select c.relname as name from pg_class c where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p')`;
  return new Set(rows.map((r) => r.name));
}

/** Modifiers (length, precision) do not make a column unusable; the base type does. */
const baseType = (t: string) => t.replace(/\([^)]*\)/g, '').replace(/\s+/g, ' ').trim();
/** Ids and foreign keys may have been widened to bigint by a migration: both read and write as numbers. */
const compatible = (expected: string, actual: string) => {
  const e = baseType(expected), a = baseType(actual);
  return e === a || ((e === 'integer' || e === 'bigint') && (a === 'integer' || a === 'bigint'));
};

/** A table some part of this server needs: its columns with their catalog types. */
export interface NeededTable { name: string; columns: Array<{ name: string; catalogType: string }> }

/** What is missing or different, one line each, naming the table and column ('' = everything is there). */
export async function schemaProblems(sql: Sql, expected: NeededTable[]): Promise<string[]> {
  const names = expected.map((t) => t.name);
  const rows = await sql<{ table: string; column: string; type: string }[]>`
    select c.relname as table, a.attname as column, format_type(a.atttypid, a.atttypmod) as type
      from pg_attribute a join pg_class c on c.oid = a.attrelid
     where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p')
       and a.attnum > 0 and not a.attisdropped and c.relname = any(${names})`;
  const actual = new Map<string, Map<string, string>>();
  for (const r of rows) {
    if (!actual.has(r.table)) actual.set(r.table, new Map());
    actual.get(r.table)!.set(r.column, r.type);
  }
  const problems: string[] = [];
  for (const t of expected) {
    const cols = actual.get(t.name);
    if (!cols) { problems.push(`table "${t.name}" is missing`); continue; }
    for (const c of t.columns) {
      const type = cols.get(c.name);
      if (type === undefined) problems.push(`table "${t.name}": column "${c.name}" (${c.catalogType}) is missing`);
      else if (!compatible(c.catalogType, type)) problems.push(`table "${t.name}": column "${c.name}" is ${type}, the models need ${c.catalogType}`);
    }
  }
  return problems;
}

/** A table as the catalog has it: what a migration compares with the models' tables (src/db/migrate.ts). */
export interface ActualTable {
  name: string;
  /** Column name → format_type(), in column order. */
  columns: Map<string, string>;
  /** Plain indexes (not those of the primary key or of constraints): name → columns. */
  indexes: Map<string, string[]>;
  uniques: Map<string, string[]>;
  foreignKeys: Map<string, { columns: string[]; table: string; onDelete: string }>;
}

/** The tables of the current schema, as the catalog describes them. */
export async function readTables(sql: Sql): Promise<Map<string, ActualTable>> {
  const out = new Map<string, ActualTable>();
  const tables = await sql<{ name: string }[]>`select relname as name from pg_class where relnamespace = current_schema()::regnamespace and relkind in ('r', 'p')`;
  for (const t of tables) out.set(t.name, { name: t.name, columns: new Map(), indexes: new Map(), uniques: new Map(), foreignKeys: new Map() });
  const columns = await sql<{ table: string; column: string; type: string }[]>`
    select c.relname as table, a.attname as column, format_type(a.atttypid, a.atttypmod) as type
      from pg_attribute a join pg_class c on c.oid = a.attrelid
     where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p') and a.attnum > 0 and not a.attisdropped
     order by c.relname, a.attnum`;
  for (const r of columns) out.get(r.table)?.columns.set(r.column, r.type);
  const indexes = await sql<{ table: string; name: string; columns: string[] }[]>`
    select c.relname as table, i.relname as name,
           array(select a.attname from unnest(x.indkey) with ordinality k(n, o) join pg_attribute a on a.attrelid = c.oid and a.attnum = k.n order by k.o)::text[] as columns
      from pg_index x join pg_class c on c.oid = x.indrelid join pg_class i on i.oid = x.indexrelid
     where c.relnamespace = current_schema()::regnamespace and not x.indisprimary
       and not exists (select 1 from pg_constraint k where k.conindid = x.indexrelid and k.conrelid = c.oid)`;
  for (const r of indexes) out.get(r.table)?.indexes.set(r.name, r.columns);
  const constraints = await sql<{ table: string; name: string; kind: string; columns: string[]; target: string | null; on_delete: string }[]>`
    select c.relname as table, k.conname as name, k.contype::text as kind,
           array(select a.attname from unnest(k.conkey) with ordinality u(n, o) join pg_attribute a on a.attrelid = c.oid and a.attnum = u.n order by u.o)::text[] as columns,
           t.relname as target,
           case k.confdeltype when 'c' then 'CASCADE' when 'n' then 'SET NULL' when 'r' then 'RESTRICT' when 'd' then 'SET DEFAULT' else 'NO ACTION' end as on_delete
      from pg_constraint k join pg_class c on c.oid = k.conrelid left join pg_class t on t.oid = k.confrelid
     where c.relnamespace = current_schema()::regnamespace and k.contype in ('u', 'f')`;
  for (const r of constraints) {
    const t = out.get(r.table);
    if (!t) continue;
    if (r.kind === 'u') t.uniques.set(r.name, r.columns);
    else t.foreignKeys.set(r.name, { columns: r.columns, table: r.target ?? '', onDelete: r.on_delete });
  }
  return out;
}

/** Everything about a schema's DDL, in a stable order, with the schema's own name left out. */
export interface CatalogSnapshot {
  columns: string[];
  constraints: string[];
  indexes: string[];
  sequences: string[];
  triggers: string[];
}

export async function catalogSnapshot(sql: Sql, schema?: string): Promise<CatalogSnapshot> {
  const [{ s }] = schema ? [{ s: schema }] : await sql<{ s: string }[]>`select current_schema() as s`;
  const unqualify = (text: string) => text.split(`${s}.`).join('').split(`"${s}".`).join('');
  const columns = await sql<{ v: string }[]>`
    select c.relname || '.' || lpad(a.attnum::text, 3, '0') || ' ' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
           || case when a.attnotnull then ' not null' else '' end
           || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '') as v
      from pg_attribute a join pg_class c on c.oid = a.attrelid
      left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
     where c.relnamespace = ${s}::regnamespace and c.relkind in ('r', 'p') and a.attnum > 0 and not a.attisdropped
     order by 1`;
  const constraints = await sql<{ v: string }[]>`
    select c.relname || ' ' || k.conname || ' ' || pg_get_constraintdef(k.oid) as v
      from pg_constraint k join pg_class c on c.oid = k.conrelid
     where c.relnamespace = ${s}::regnamespace and k.contype <> 'n' order by 1`;
  const indexes = await sql<{ v: string }[]>`
    select pg_get_indexdef(i.indexrelid) as v from pg_index i join pg_class c on c.oid = i.indrelid
     where c.relnamespace = ${s}::regnamespace order by 1`;
  const sequences = await sql<{ v: string }[]>`
    select c.relname || ' ' || format_type(q.seqtypid, null) || ' start ' || q.seqstart || ' inc ' || q.seqincrement
           || ' min ' || q.seqmin || ' max ' || q.seqmax || ' cache ' || q.seqcache || ' cycle ' || q.seqcycle
           || coalesce(' owned by ' || o.relname || '.' || a.attname, '') as v
      from pg_sequence q join pg_class c on c.oid = q.seqrelid
      left join pg_depend d on d.objid = c.oid and d.classid = 'pg_class'::regclass and d.refclassid = 'pg_class'::regclass and d.deptype = 'a'
      left join pg_class o on o.oid = d.refobjid
      left join pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
     where c.relnamespace = ${s}::regnamespace order by 1`;
  const triggers = await sql<{ v: string }[]>`
    select c.relname || ' ' || t.tgname as v from pg_trigger t join pg_class c on c.oid = t.tgrelid
     where c.relnamespace = ${s}::regnamespace and not t.tgisinternal order by 1`;
  const strip = (rows: { v: string }[]) => rows.map((r) => unqualify(r.v));
  return { columns: strip(columns), constraints: strip(constraints), indexes: strip(indexes), sequences: strip(sequences), triggers: strip(triggers) };
}
