// What `_q` searches (Strapi 5.54's @strapi/database query/helpers/search.js, checked live) and the
// single text a trigram index can serve it from. Strapi ORs one ILIKE per column, which no index can
// answer unless every column has its own; the search document joins the same columns with a separator,
// so `document ILIKE '%q%'` holds whenever one of the columns does: ANDed before the OR it changes no
// answer (the OR still decides), and with the advised index (compiler/indexes.ts) PostgreSQL reads only
// the rows whose document contains the text instead of every row of the table.
import type { ContentType, ScalarType } from './schema.ts';
import type { FieldRef } from './ast.ts';
import { quoted } from './layout.ts';

/** Attribute types Strapi compares as text (`_q` searches them; a filter list's objects match none of them). */
export const TEXT_TYPES: ReadonlySet<string> = new Set<ScalarType>(['string', 'text', 'richtext', 'enumeration', 'email', 'uid']);
const SEARCHED_NUMBERS = new Set<ScalarType>(['integer', 'biginteger', 'float', 'decimal']);

/** Whether `_q` also searches numbers (the search key's shape: which columns the OR lists). */
export const numericSearch = (q: string) => q.trim() !== '' && !Number.isNaN(Number(q));

/**
 * The columns `_q` compares, in order: the row id, documentId and locale (checked live), then every
 * text attribute, and the number attributes when `numbers`. Private attributes are searched too;
 * passwords (no text type for it) and `searchable: false` attributes never.
 */
export function searchedFields(ct: ContentType, numbers: boolean): FieldRef[] {
  const fields: FieldRef[] = [{ column: 'id', type: 'id' }, { column: 'document_id', type: 'documentId' }, { column: 'locale', type: 'locale' }];
  for (const a of ct.attributes) {
    if (a.kind !== 'scalar' || a.searchable === false) continue;
    if (TEXT_TYPES.has(a.type) || (numbers && SEARCHED_NUMBERS.has(a.type))) fields.push({ column: a.column, type: a.type });
  }
  return fields;
}

const TEXTUAL = new Set(['string', 'text', 'richtext', 'enumeration', 'email', 'uid', 'documentId', 'locale']);

/**
 * Every column `_q` may compare (numbers included), as one text: `alias.col` references, or bare column
 * names for the index definition (the two parse to the same expression, which is what lets PostgreSQL
 * match the index). chr(1) separates the columns so that a text without it matches across no boundary.
 */
export function searchDocument(ct: ContentType, alias: string | null): string {
  const col = (c: string) => `${alias ? `${alias}.` : ''}${quoted(c)}`;
  return `(${searchedFields(ct, true).map((f) => `coalesce(${TEXTUAL.has(f.type) ? col(f.column) : `${col(f.column)}::text`}, '')`).join(` || chr(1) || `)})`;
}
