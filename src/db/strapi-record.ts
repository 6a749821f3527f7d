// Strapi's own record of the schema: the `strapi_database_schema` row its schema sync writes (its
// metadataToSchema as JSON, and a sha256 of it with the tables sorted by name). At start Strapi
// compares that hash with the one of its models: equal, it touches nothing; different, it diffs the
// database against its models and drops what its previous record listed and the models no longer
// have. Written here exactly as Strapi writes it, so a Strapi started on a database this server
// created or migrated finds its record current and changes nothing — and what this server kept with
// its data (src/db/migrate.ts) is not in it, so Strapi leaves that alone too.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Sql } from 'postgres';
import type { TableDef } from './strapi-ddl.ts';

/** A table of Strapi's record. Key order matters: the hash is taken over JSON.stringify. */
export interface RecordTable {
  name: string;
  indexes: Array<{ name: string; columns: string[]; type?: string | null }>;
  foreignKeys: Array<Record<string, unknown>>;
  columns: Array<{ name: string; type: string; args: unknown[]; defaultTo: null; notNullable: boolean; unsigned: boolean }>;
}
export interface StrapiRecord { tables: RecordTable[] }

/** Strapi's own tables' part of the record (src/db/strapi-internal-extract.ts, from a database Strapi made). */
const INTERNAL: RecordTable[] = JSON.parse(readFileSync(new URL('./strapi-internal-record.json', import.meta.url), 'utf8')) as RecordTable[];

function recordTable(t: TableDef): RecordTable {
  const indexes: RecordTable['indexes'] = t.indexes.map((i) => ({ name: i.name, columns: [...i.columns] }));
  indexes.splice(t.uniquesAfter ?? indexes.length, 0, ...t.uniques.map((u) => ({ name: u.name, columns: [...u.columns], type: 'unique' })));
  return {
    name: t.name,
    indexes,
    // A join column's key (created_by_id) and a join table's are built by different code in Strapi, in different key orders.
    foreignKeys: t.foreignKeys.map((f) => f.joinColumn
      ? { name: f.name, columns: [...f.columns], referencedTable: f.table, referencedColumns: ['id'], onDelete: f.onDelete }
      : { name: f.name, columns: [...f.columns], referencedColumns: ['id'], referencedTable: f.table, onDelete: f.onDelete }),
    columns: t.columns.map((c, i) => ({
      name: c.name, type: c.strapi.type, args: c.strapi.args, defaultTo: null, notNullable: i === 0, unsigned: c.strapi.unsigned,
    })),
  };
}

const isJoin = (name: string) => /_(lnk|mph)$/.test(name);

/**
 * The record for these model tables. Strapi lists its own tables and the models' in its registry's
 * order (content-types among the plugins', components after the admin's, join tables last); the
 * order is only cosmetic — the hash sorts the tables.
 */
export function strapiRecord(models: TableDef[]): StrapiRecord {
  const own = models.map(recordTable);
  const main = own.filter((t) => !isJoin(t.name)), joins = own.filter((t) => isJoin(t.name));
  const internalMain = INTERNAL.filter((t) => !isJoin(t.name)), internalJoins = INTERNAL.filter((t) => isJoin(t.name));
  return { tables: [...internalMain, ...main, ...internalJoins, ...joins] };
}

/** Strapi's hashSchema: the tables sorted by name (localeCompare), the whole stringified. */
export function recordHash(record: StrapiRecord): string {
  const sorted = { ...record, tables: [...record.tables].sort((a, b) => a.name.localeCompare(b.name)) };
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
}

/** Replaces the record as Strapi's schema storage does (one row). */
export async function writeStrapiRecord(sql: Sql, models: TableDef[]): Promise<void> {
  const record = strapiRecord(models);
  await sql`delete from strapi_database_schema`;
  await sql`insert into strapi_database_schema (schema, time, hash) values (${sql.json(record as unknown as Parameters<typeof sql.json>[0])}, now() at time zone 'utc', ${recordHash(record)})`;
}

/** The hash of the record a database holds (null: Strapi never started on it, and this server wrote none). */
export async function storedRecordHash(sql: Sql): Promise<string | null> {
  const rows = await sql<{ hash: string }[]>`select hash from strapi_database_schema order by time desc limit 1`;
  return rows[0]?.hash ?? null;
}
