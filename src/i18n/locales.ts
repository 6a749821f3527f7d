// i18n locales as Strapi's `listLocales` answers them: the rows of `i18n_locale` (Strapi's admin adds
// and removes them), each flagged `isDefault` against the default locale of Strapi's core store.
import type { Sql } from 'postgres';
import { isoTs, scalarOut } from '../../compiler/sql.ts';
import { visibleScalars, type Schema } from '../../compiler/schema.ts';
import { CORE_STORE } from '../auth/tables.ts';

export interface Locale {
  id: number; documentId: string; name: string | null; code: string | null;
  createdAt: string | null; updatedAt: string | null; publishedAt: string | null; isDefault: boolean;
}

// Compact, as Strapi's JSON.stringify (json_agg would separate the items with ", " and a newline).
const localesSql = (fields: string) => `select '[' || coalesce(string_agg(row_to_json(x)::text, ',' order by x.id), '') || ']' as data from (
  select l.id, l.document_id as "documentId", ${fields},
    ${isoTs('l.created_at')} as "createdAt", ${isoTs('l.updated_at')} as "updatedAt", ${isoTs('l.published_at')} as "publishedAt",
    coalesce(l.code = (select s.value::json #>> '{}' from ${CORE_STORE.table} s where s.key = '${CORE_STORE.i18nDefaultLocale}' order by s.id limit 1), false) as "isDefault"
  from i18n_locale l) x`;
const SQL = localesSql('l.name, l.code');

/**
 * The statement for `schema`'s locales: a project's extension of the locale (schema.pluginRecords) adds its public
 * scalars in attribute order before the timestamps, as Strapi 5.54's sanitized locales (recorded: plugin-ext-cases).
 */
const EXTENDED = new WeakMap<Schema, string>();
function sqlOf(schema: Schema | undefined): string {
  const ext = schema?.pluginRecords?.locale;
  if (!schema || !ext) return SQL;
  let text = EXTENDED.get(schema);
  if (text === undefined) {
    text = localesSql(visibleScalars(ext.ct.attributes).map((a) => `${scalarOut(a, 'l')} as "${a.name}"`).join(', '));
    EXTENDED.set(schema, text);
  }
  return text;
}

/** The locales as JSON text (an array), one statement. */
export async function localesJson(db: Sql, schema?: Schema): Promise<string> {
  const rows = await db.unsafe<Array<{ data: string | null }>>(sqlOf(schema), [], { prepare: true });
  return rows[0]?.data ?? '[]';
}

export async function listLocales(db: Sql, schema?: Schema): Promise<Locale[]> {
  return JSON.parse(await localesJson(db, schema)) as Locale[];
}

/** The default locale Strapi's i18n keeps in its core store (a JSON string), as a statement of its own. */
export const DEFAULT_LOCALE_SQL = `select value::json #>> '{}' as code from ${CORE_STORE.table} where key = '${CORE_STORE.i18nDefaultLocale}' order by id limit 1`;

/**
 * The locale codes Strapi's admin keeps (`i18n_locale`, in creation order) and its default locale, or
 * null on a database without them (a new one, before schema sync adds the configured locales).
 */
export async function storedLocales(db: Sql): Promise<{ codes: string[]; defaultLocale: string | null } | null> {
  const [t] = await db.unsafe<Array<{ has: boolean }>>(`select to_regclass('public.i18n_locale') is not null and to_regclass('public.${CORE_STORE.table}') is not null as has`);
  if (!t?.has) return null;
  const rows = await db.unsafe<Array<{ code: string | null; dflt: string | null }>>(
    `select l.code, (select d.code from (${DEFAULT_LOCALE_SQL}) d) as dflt
     from i18n_locale l where l.code is not null and l.code <> '' order by l.id`);
  if (!rows.length) return null;
  return { codes: [...new Set(rows.map((r) => r.code!))], defaultLocale: rows[0].dflt };
}
