// Which link tables' target columns PostgreSQL keeps pointing at an existing row: a validated, not
// deferrable foreign key on the column alone, to the target table's id. Strapi creates one on every link
// table (`<table>_ifk`, on delete cascade), as this server does on a database it creates; a database
// whose keys were dropped or left NOT VALID has none, and its reads check each link's target as before.

/** The catalog read: one row per such key, in the connection's current schema. */
export const KEYED_COLUMNS_SQL = `select t.relname as "table", a.attname as "column", r.relname as "target"
  from pg_catalog.pg_constraint c
  join pg_catalog.pg_class t on t.oid = c.conrelid
  join pg_catalog.pg_class r on r.oid = c.confrelid
  join pg_catalog.pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
  join pg_catalog.pg_attribute ra on ra.attrelid = c.confrelid and ra.attnum = c.confkey[1]
  where c.contype = 'f' and c.convalidated and not c.condeferrable and cardinality(c.conkey) = 1
    and ra.attname = 'id' and t.relnamespace = current_schema()::regnamespace and r.relnamespace = t.relnamespace`;

export interface KeyedColumn { table: string; column: string; target: string }

/** The name `keyedColumn` looks up. */
export const keyedColumn = (table: string, column: string, target: string): string => `${table}.${column}>${target}`;

/** The set the compiler's `keyedColumns` option takes, from the catalog's rows. */
export const keyedColumns = (rows: readonly KeyedColumn[]): ReadonlySet<string> => new Set(rows.map((r) => keyedColumn(r.table, r.column, r.target)));
