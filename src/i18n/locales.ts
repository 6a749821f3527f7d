// i18n locales as Strapi's `listLocales` answers them: the rows of `i18n_locale` (Strapi's admin adds
// and removes them), each flagged `isDefault` against the default locale of Strapi's core store.
import type { Sql } from 'postgres';
import { isoTs } from '../../compiler/sql.ts';
import { CORE_STORE } from '../auth/tables.ts';

export interface Locale {
  id: number; documentId: string; name: string | null; code: string | null;
  createdAt: string | null; updatedAt: string | null; publishedAt: string | null; isDefault: boolean;
}

// Compact, as Strapi's JSON.stringify (json_agg would separate the items with ", " and a newline).
const SQL = `select '[' || coalesce(string_agg(row_to_json(x)::text, ',' order by x.id), '') || ']' as data from (
  select l.id, l.document_id as "documentId", l.name, l.code,
    ${isoTs('l.created_at')} as "createdAt", ${isoTs('l.updated_at')} as "updatedAt", ${isoTs('l.published_at')} as "publishedAt",
    coalesce(l.code = (select s.value::json #>> '{}' from ${CORE_STORE.table} s where s.key = '${CORE_STORE.i18nDefaultLocale}' order by s.id limit 1), false) as "isDefault"
  from i18n_locale l) x`;

/** The locales as JSON text (an array), one statement. */
export async function localesJson(db: Sql): Promise<string> {
  const rows = await db.unsafe<Array<{ data: string | null }>>(SQL, [], { prepare: true });
  return rows[0]?.data ?? '[]';
}

export async function listLocales(db: Sql): Promise<Locale[]> {
  return JSON.parse(await localesJson(db)) as Locale[];
}
