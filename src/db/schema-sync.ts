// The database is Strapi 5's. At start, under an advisory lock (several nodes may start together), in
// one transaction (a failure leaves the database as it was):
// - an empty database gets exactly what Strapi 5.54 creates: its own tables (strapi-internal.sql,
//   extracted from a database Strapi made) and the models' tables (strapi-ddl.ts), plus the configured
//   locales in i18n_locale, Strapi's record of the schema (strapi-record.ts) and this server's own record
//   (`fastrapi.schema_state`): the database is this server's;
// - a database this server owns is migrated to the models as Strapi's schema sync would (migrate.ts):
//   new tables, columns, indexes and keys, changed types; what would lose data only with
//   ALLOW_DESTRUCTIVE_SCHEMA, otherwise kept and logged;
// - a database Strapi made is never altered: the tables and columns the models and this server need
//   must be there with a compatible type, otherwise the start is refused with the table and column named.
// DATABASE_SCHEMA=manage|verify overrides the choice between the last two.
import { readFileSync } from 'node:fs';
import Type from 'typebox';
import { Compile } from 'typebox/compile';
import { newDocumentId } from './document-id.ts';
import type { Sql, TransactionSql } from 'postgres';
import type { Schema } from '../../compiler/schema.ts';
import { createStatements, modelTables, withExtendedTables, type TableDef } from './strapi-ddl.ts';
import { currentTables, readTables, schemaProblems, type NeededTable } from './verify.ts';
import { planMigration, trackedOf, type TrackedTable } from './migrate.ts';
import { recordHash, storedRecordHash, strapiRecord, writeStrapiRecord } from './strapi-record.ts';
import { afterSchemaChange, beforeSchemaChange, dropRenderCache, flagsOf, recordInStrapiStore, strapiFlags, switchesOf, type FlagRecord } from './content-migrations.ts';
import { OWN_SCHEMA } from '../../compiler/layout.ts';
import { log } from '../log.ts';

export class SchemaSyncError extends Error {}

export interface SyncReport {
  /**
   * `created`: the database was empty and got Strapi's schema; `migrated`: this server's own database was
   * brought to the models; `verified`: the tables were there and fit the models (nothing was changed).
   */
  outcome: 'created' | 'migrated' | 'verified';
  /** Tables created (none when verified). */
  tables: string[];
  /** Locale codes added to an empty i18n_locale. */
  locales: string[];
  /** What a migration changed, one line each. */
  changes: string[];
  /** What a migration left as it was to keep its data, one line each. */
  kept: string[];
}

/** `auto`: manage a database this server created, verify one Strapi made. */
export type SchemaMode = 'auto' | 'manage' | 'verify';

/** This server's record that the database is its own, and of the tables it made (kept ones included). */
const STATE = `${OWN_SCHEMA}.schema_state`;

const INTERNAL_SQL = readFileSync(new URL('./strapi-internal.sql', import.meta.url), 'utf8');

/** The internal tables' columns, read from the CREATE TABLE statements of strapi-internal.sql. */
function internalTables(): NeededTable[] {
  const out: NeededTable[] = [];
  for (const m of INTERNAL_SQL.matchAll(/^CREATE TABLE (\S+) \(\n([\s\S]*?)\n\);/gm)) {
    const columns = m[2].split(',\n').map((line: string) => {
      const c = /^\s*("?)(.+?)\1 (.+?)(?: NOT NULL)?(?: DEFAULT .*)?$/.exec(line)!;
      return { name: c[2], catalogType: c[3] };
    });
    out.push({ name: m[1], columns });
  }
  return out;
}
const INTERNAL = internalTables();
/** Strapi's own tables this server reads or writes (users-permissions, API tokens, media, locales). */
const USED_INTERNAL = new Set([
  'admin_users', 'files', 'files_related_mph', 'i18n_locale', 'up_users', 'up_roles', 'up_permissions',
  'up_users_role_lnk', 'up_permissions_role_lnk', 'strapi_api_tokens', 'strapi_api_token_permissions',
  'strapi_api_token_permissions_token_lnk', 'strapi_core_store_settings',
]);

/** One lock for every node of every deployment on this database: creating twice must not interleave. */
const LOCK_KEY = 7215004113;

export async function syncSchema(sql: Sql, schema: Schema, allowDestructive: boolean, mode: SchemaMode = 'auto'): Promise<SyncReport> {
  const models = modelTables(schema);
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${LOCK_KEY}::bigint)`;
    const db = tx as unknown as Sql;
    const existing = await currentTables(db);
    const known = [...INTERNAL, ...models].filter((t) => existing.has(t.name)).map((t) => t.name);
    const report: SyncReport = { outcome: 'verified', tables: [], locales: [], changes: [], kept: [] };
    if (known.length === 0) {
      await tx.unsafe(withExtendedTables(INTERNAL_SQL, models)).simple();
      for (const s of createStatements(models)) await tx.unsafe(s);
      report.tables = [...INTERNAL, ...models].map((t) => t.name);
      report.outcome = 'created';
      await setDefaultLocale(tx, schema.defaultLocale);
      await markInternalMigrations(tx);
      await writeStrapiRecord(db, models);
      await writeState(tx, models.map(trackedOf), flagsOf(schema));
    } else {
      const state = await readState(tx);
      // Strapi writes its record on every start: a database without one (nor ours) was made by an earlier
      // version of this server, which kept no record of its own.
      const owned = state !== null || (existing.has('strapi_database_schema') && await storedRecordHash(db) === null);
      if (mode === 'manage' || (mode === 'auto' && owned)) {
        const flags = state ? state.flags : await strapiFlags(tx);
        await migrate(tx, schema, models, state?.tables ?? await strapiTracked(tx), flags, allowDestructive, report);
      } else {
        if (allowDestructive) log.warn('ALLOW_DESTRUCTIVE_SCHEMA is ignored: the schema is Strapi\'s (DATABASE_SCHEMA=verify, or a database Strapi made), this server never drops or alters it');
        const problems = await schemaProblems(db, [...INTERNAL.filter((t) => USED_INTERNAL.has(t.name)), ...models]);
        if (problems.length) {
          throw new SchemaSyncError(`the database does not fit the models (it is Strapi's: used as Strapi made it, never altered; DATABASE_SCHEMA=manage would migrate it):\n  ${problems.join('\n  ')}`);
        }
      }
    }
    report.locales = await addLocales(tx, schema);
    return report;
  });
}

/**
 * Brings this server's own database to the models (migrate.ts), in the caller's transaction, with the
 * data migrations of content-types whose draft & publish or i18n was switched (content-migrations.ts)
 * around the schema change, in Strapi's order.
 */
async function migrate(tx: TransactionSql, schema: Schema, models: TableDef[], tracked: TrackedTable[], flags: FlagRecord | null, allowDestructive: boolean, report: SyncReport): Promise<void> {
  const db = tx as unknown as Sql;
  const problems = await schemaProblems(db, INTERNAL.filter((t) => USED_INTERNAL.has(t.name)));
  if (problems.length) throw new SchemaSyncError(`the database misses Strapi's own tables this server needs:\n  ${problems.join('\n  ')}`);
  const plan = planMigration(models, await readTables(db), tracked, allowDestructive);
  const switches = switchesOf(flags, schema);
  const data: string[] = [];
  const step = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    try { return await run(); } catch (e) {
      throw new SchemaSyncError(`the schema migration failed (the database is left as it was): ${(e as Error).message}\n  at: ${what}`);
    }
  };
  data.push(...await step('the data migrations before the schema change', () => beforeSchemaChange(tx, schema, switches)));
  for (const s of plan.statements) await step(s, () => tx.unsafe(s));
  data.push(...await step('the data migrations after the schema change', () => afterSchemaChange(tx, schema, switches)));
  if (switches.length) {
    await recordInStrapiStore(tx, switches);
    await dropRenderCache(tx, switches);
  }
  if (await storedRecordHash(db) !== recordHash(strapiRecord(models))) await writeStrapiRecord(db, models);
  const newFlags = flagsOf(schema);
  if (JSON.stringify(plan.tracked) !== JSON.stringify(tracked) || JSON.stringify(newFlags) !== JSON.stringify(flags)) await writeState(tx, plan.tracked, newFlags);
  report.changes = [...data, ...plan.changes];
  report.kept = plan.kept;
  report.tables = models.filter((t) => plan.changes.includes(`created table ${t.name}`)).map((t) => t.name);
  if (plan.statements.length || data.length) {
    report.outcome = 'migrated';
    log.info('schema migrated to the models', { changes: report.changes });
  }
  for (const k of plan.kept) log.warn(`schema: ${k}`);
}

interface State { tables: TrackedTable[]; flags: FlagRecord | null }

async function readState(tx: TransactionSql): Promise<State | null> {
  const [{ exists }] = await tx<{ exists: boolean }[]>`select to_regclass(${STATE}) is not null as exists`;
  if (!exists) return null;
  // content_types came after tables: a record written before has none (no data migration at its first start).
  const rows = await tx.unsafe<Array<{ tables: unknown; content_types: unknown }>>(`select tables, to_jsonb(s) -> 'content_types' as content_types from ${STATE} s`);
  if (!rows.length) return null;
  if (!TrackedShape.Check(rows[0].tables)) throw new SchemaSyncError(`${STATE} holds an unknown form of record: this server will not guess what it made`);
  const flags = rows[0].content_types ?? null;
  if (flags !== null && !FlagsShape.Check(flags)) throw new SchemaSyncError(`${STATE} holds an unknown form of content-type record: this server will not guess what the models were`);
  return { tables: rows[0].tables, flags };
}

async function writeState(tx: TransactionSql, tables: TrackedTable[], flags: FlagRecord): Promise<void> {
  await tx.unsafe(`create schema if not exists ${OWN_SCHEMA}`);
  await tx.unsafe(`create table if not exists ${STATE} (one boolean primary key default true check (one), created_at timestamptz not null default now(), updated_at timestamptz not null default now(), tables jsonb not null)`);
  await tx.unsafe(`alter table ${STATE} add column if not exists content_types jsonb`);
  const json = (v: unknown) => tx.json(v as Parameters<typeof tx.json>[0]);
  await tx.unsafe(`insert into ${STATE} (tables, content_types) values ($1, $2) on conflict (one) do update set tables = excluded.tables, content_types = excluded.content_types, updated_at = now()`, [json(tables), json(flags)]);
}

const Named = Type.Object({ name: Type.String() }, { additionalProperties: true });
/** The part of Strapi's record of the schema read here (a row another program wrote). */
const StrapiRecordShape = Compile(Type.Object({
  tables: Type.Array(Type.Object({
    name: Type.String(), columns: Type.Array(Named), foreignKeys: Type.Array(Named),
    indexes: Type.Array(Type.Object({ name: Type.String(), type: Type.Optional(Type.Union([Type.String(), Type.Null()])) }, { additionalProperties: true })),
  }, { additionalProperties: true })),
}, { additionalProperties: true }));
const FlagsShape = Compile(Type.Record(Type.String(), Type.Object({ draftAndPublish: Type.Boolean(), localized: Type.Boolean() })));
const TrackedShape = Compile(Type.Array(Type.Object({
  name: Type.String(), columns: Type.Array(Type.String()), indexes: Type.Array(Type.String()), uniques: Type.Array(Type.String()), foreignKeys: Type.Array(Type.String()),
})));

/** Taking over a database Strapi made (DATABASE_SCHEMA=manage): what Strapi's record lists of the models' tables is what may be removed. */
async function strapiTracked(tx: TransactionSql): Promise<TrackedTable[]> {
  const rows = await tx<{ schema: unknown }[]>`select schema from strapi_database_schema order by time desc limit 1`;
  if (!rows.length) return [];
  const raw = rows[0].schema;
  const record: unknown = typeof raw === 'string' ? JSON.parse(raw) : raw;
  // A record of another shape (another Strapi version): nothing is taken as this server's to remove.
  if (!StrapiRecordShape.Check(record)) return [];
  const internal = new Set(strapiRecord([]).tables.map((t) => t.name));
  return record.tables.filter((t) => !internal.has(t.name)).map((t) => ({
    name: t.name, columns: t.columns.map((c) => c.name),
    indexes: t.indexes.filter((i) => i.type !== 'unique' && i.type !== 'primary').map((i) => i.name),
    uniques: t.indexes.filter((i) => i.type === 'unique').map((i) => i.name),
    foreignKeys: t.foreignKeys.map((f) => f.name),
  }));
}

const displayNames = new Intl.DisplayNames(['en'], { type: 'language', languageDisplay: 'standard' });
/** Strapi's locale names: `English (en)`, `French (Canada) (fr-CA)`. */
export function localeName(code: string): string {
  let language = code;
  try { language = displayNames.of(code) ?? code; } catch { /* not a BCP 47 tag: keep the code */ }
  return `${language} (${code})`;
}

/** The configured locales, default first, when i18n_locale is empty (Strapi creates its default locale the same way). */
async function addLocales(tx: TransactionSql, schema: Schema): Promise<string[]> {
  const [{ n }] = await tx<{ n: number }[]>`select count(*)::int as n from i18n_locale`;
  if (n > 0) return [];
  const codes = [schema.defaultLocale, ...schema.locales.filter((c) => c !== schema.defaultLocale)];
  for (const code of codes) {
    await tx`insert into i18n_locale (document_id, name, code, created_at, updated_at, published_at)
             values (${newDocumentId()}, ${localeName(code)}, ${code}, now() at time zone 'utc', now() at time zone 'utc', now() at time zone 'utc')`;
  }
  return codes;
}

/** Strapi's i18n keeps its default locale in the core store; a fresh database gets the configured one. */
async function setDefaultLocale(tx: TransactionSql, code: string): Promise<void> {
  await tx`insert into strapi_core_store_settings (key, value, type) values ('plugin_i18n_default_locale', ${JSON.stringify(code)}, 'string')`;
}

/**
 * Strapi's internal migrations (v4 → v5 upgrades), recorded as done as Strapi records them on its first
 * start. Unrecorded, Strapi would run them over tables that already exist, and 5.0.0-05 then aborts
 * its own transaction (it drops a unique index that a v5 table never had) and Strapi stops.
 */
export const STRAPI_INTERNAL_MIGRATIONS = [
  '5.0.0-rename-identifiers-longer-than-max-length', '5.0.0-02-created-document-id', '5.0.0-03-created-locale',
  '5.0.0-04-created-published-at', '5.0.0-05-drop-slug-fields-index', '5.0.0-06-add-document-id-indexes',
  'core::5.0.0-discard-drafts', 'admin::migrate-prefered-language-dk-to-da',
] as const;

async function markInternalMigrations(tx: TransactionSql): Promise<void> {
  for (const name of STRAPI_INTERNAL_MIGRATIONS) {
    await tx`insert into strapi_migrations_internal (name, time) values (${name}, now() at time zone 'utc')`;
  }
}
