// The database is Strapi 5's. At start, under an advisory lock (several nodes may start together):
// - an empty database gets exactly what Strapi 5.54 creates: its own tables (strapi-internal.sql,
//   extracted from a database Strapi made) and the models' tables (strapi-ddl.ts), in one
//   transaction, plus the configured locales in i18n_locale;
// - a database that already has Strapi's tables is never altered: the tables and columns the models
//   and this server need must be there with a compatible type, otherwise the start is refused with
//   the table and column named.
import { readFileSync } from 'node:fs';
import { newDocumentId } from './document-id.ts';
import type { Sql, TransactionSql } from 'postgres';
import type { Schema } from '../../compiler/schema.ts';
import { createStatements, modelTables, withExtendedTables, type TableDef } from './strapi-ddl.ts';
import { currentTables, schemaProblems } from './verify.ts';
import { log } from '../log.ts';

export class SchemaSyncError extends Error {}

export interface SyncReport {
  /** `created`: the database was empty and got Strapi's schema; `verified`: Strapi's tables were there and fit the models. */
  outcome: 'created' | 'verified';
  /** Tables created (none when verified). */
  tables: string[];
  /** Locale codes added to an empty i18n_locale. */
  locales: string[];
}

const INTERNAL_SQL = readFileSync(new URL('./strapi-internal.sql', import.meta.url), 'utf8');

/** The internal tables' columns, read from the CREATE TABLE statements of strapi-internal.sql. */
function internalTables(): TableDef[] {
  const out: TableDef[] = [];
  for (const m of INTERNAL_SQL.matchAll(/^CREATE TABLE (\S+) \(\n([\s\S]*?)\n\);/gm)) {
    const columns = m[2].split(',\n').map((line) => {
      const c = /^\s*("?)(.+?)\1 (.+?)(?: NOT NULL)?(?: DEFAULT .*)?$/.exec(line)!;
      return { name: c[2], sqlType: c[3], catalogType: c[3] };
    });
    out.push({ name: m[1], columns, indexes: [], uniques: [], foreignKeys: [] });
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

export async function syncSchema(sql: Sql, schema: Schema, allowDestructive: boolean): Promise<SyncReport> {
  if (allowDestructive) log.warn('ALLOW_DESTRUCTIVE_SCHEMA is ignored: the schema is Strapi\'s, this server never drops or alters it');
  const models = modelTables(schema);
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${LOCK_KEY}::bigint)`;
    const existing = await currentTables(tx as unknown as Sql);
    const expected = [...INTERNAL.filter((t) => USED_INTERNAL.has(t.name)), ...models];
    const known = [...INTERNAL, ...models].filter((t) => existing.has(t.name)).map((t) => t.name);
    let outcome: SyncReport['outcome'];
    let tables: string[] = [];
    if (known.length === 0) {
      await tx.unsafe(withExtendedTables(INTERNAL_SQL, models)).simple();
      for (const s of createStatements(models)) await tx.unsafe(s);
      tables = [...INTERNAL, ...models].map((t) => t.name);
      outcome = 'created';
      await setDefaultLocale(tx, schema.defaultLocale);
      await markInternalMigrations(tx);
    } else {
      const problems = await schemaProblems(tx as unknown as Sql, expected);
      if (problems.length) {
        throw new SchemaSyncError(`the database does not fit the models (it is used as Strapi made it, never altered):\n  ${problems.join('\n  ')}`);
      }
      outcome = 'verified';
    }
    const locales = await addLocales(tx, schema);
    return { outcome, tables, locales };
  });
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
