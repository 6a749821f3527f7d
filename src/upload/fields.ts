// `fields` of the upload plugin's file reads, checked as Strapi 5.54's content-api query validator checks
// them on the file model (recorded in test/fixtures/upload-files): a string is a comma-separated list, a
// list holds single names; id and documentId always answer, `*` is every field.
import type { QueryValue } from '../../compiler/querystring.ts';
import type { Schema } from '../../compiler/schema.ts';
import { fileRecordKeys } from '../../compiler/params.ts';
import { invalidKey, validation } from '../../compiler/errors.ts';

/**
 * Attributes of Strapi's file model no `fields` may pick (private ones, relations, and those every model
 * carries): Strapi's error names them as their own path, where an unknown name has none.
 */
const UNPICKABLE = ['folderPath', 'folder', 'related', 'createdBy', 'updatedBy', 'locale', 'localizations'];

const badFields = () => validation('Invalid fields parameter. Expected a string or an array of strings');

/** The named fields in the order named (duplicates, id and documentId left out), or null for every field. */
export function fileFieldNames(schema: Schema, value: QueryValue | undefined): string[] | null {
  if (value === undefined) return null;
  let items: string[];
  if (typeof value === 'string') items = value.split(',');
  else if (Array.isArray(value) && value.every((v): v is string => typeof v === 'string' && !v.includes(','))) items = value;
  else throw badFields();
  const names = items.map((s) => s.trim());
  const keys = fileRecordKeys(schema);
  const known = new Set([...UNPICKABLE, ...(schema.pluginRecords?.file?.order ?? [])]);
  // Every name is checked, those beside `*` too.
  for (const n of names) if (n !== '*' && !keys.includes(n)) throw invalidKey('fields', n, known.has(n) ? n : null);
  if (names.includes('*')) return null;
  return [...new Set(names)].filter((n) => n !== 'id' && n !== 'documentId');
}
