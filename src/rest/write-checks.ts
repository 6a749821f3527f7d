// Strapi 5.54's checks of a write body that need the database, as its validation runs them: the relations
// store (entries named by id must exist: its buildRelationsStore and checkRelationsExist over the entry its
// validation saw, src/rest/strapi-entry.ts) and unique values (a yup test, so reported among yup's errors in
// the model's key order). src/rest/write.ts calls them in Strapi's order.
import type { Attribute, ContentType, Schema } from '../../compiler/schema.ts';
import { missingEntries, uniqueError, type FieldError } from '../../compiler/errors.ts';
import { FILES } from '../../compiler/layout.ts';
import { rowsById } from '../../compiler/write-sql.ts';
import { FILE_UID } from '../plugin-types.ts';
import type { UniqueValue } from './validate.ts';
import { uniqueLookup } from './writer.ts';

/** A statement run on the write's connection (its transaction's when it has one). */
export type Run = <T>(text: string, params?: unknown[]) => Promise<T[]>;

/** The unique values a draft holds (`stored`: its row's values by column) for the attributes the body leaves as they are. */
export function storedUniques(ct: ContentType, stored: Record<string, unknown>, data: Record<string, unknown>): UniqueValue[] {
  return ct.attributes.flatMap((a) => {
    if (a.kind !== 'scalar' || !a.unique || a.name in data) return [];
    const value = stored[a.column];
    return value === null || value === undefined || value === '' ? [] : [{ attr: a, value, chain: [], path: [a.name] }];
  });
}

/** Unique values in the model's order of their attributes (the order Strapi reports them in). */
export const byPlace = (ct: ContentType) => {
  const at = new Map(ct.attributes.map((a, i) => [a.name, i]));
  return (x: UniqueValue, y: UniqueValue) => (at.get(x.path[0]) ?? 0) - (at.get(y.path[0]) ?? 0);
};

/**
 * Strapi's unique check is one of yup's tests (a published row of another document holding the value), so
 * a body with other faults reports it with them, in the model's attribute order (yup sorts an object's
 * errors by its keys; a field's own tests first). A body without other faults has its values checked under
 * their locks as it is written (Writer.check); this lookup only reports.
 */
export async function withUniqueErrors(schema: Schema, ct: ContentType, errors: FieldError[], uniques: readonly UniqueValue[], documentId: string, locale: string | null, run: Run): Promise<void> {
  for (const u of uniques) {
    const [text, params] = uniqueLookup(ct, u, documentId, locale);
    if (!(await run(text, params)).length) continue;
    // After every error at or before its place in the model's order (a field's own tests first).
    const e = uniqueError(u.path, u.value);
    const at = errors.findIndex((x) => compareRanks(errorRank(schema, ct, x.path), errorRank(schema, ct, e.path)) > 0);
    errors.splice(at < 0 ? errors.length : at, 0, e);
  }
}

/** Where an error's path falls in yup's key order: each attribute's place in its owner's model, list indexes as they are. */
function errorRank(schema: Schema, ct: ContentType, path: string[]): number[] {
  const rank: number[] = [];
  let attrs: Attribute[] | null = ct.attributes;
  for (const seg of path) {
    if (/^\d+$/.test(seg)) { rank.push(Number(seg)); continue; }
    const i: number = attrs ? attrs.findIndex((a) => a.name === seg) : -1;
    rank.push(i < 0 ? Infinity : i);
    const a: Attribute | undefined = attrs?.[i];
    // A zone entry's component is not known from the path: the first of the zone's components naming the next key is taken.
    attrs = a?.kind === 'component' ? schema.components.get(a.component)?.attributes ?? null
      : a?.kind === 'dynamiczone' ? a.components.flatMap((c) => schema.components.get(c)?.attributes ?? []) : null;
  }
  return rank;
}

/** Lexicographic order of ranks (a path before the paths below it). */
function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length;
}

/**
 * Strapi's check that the entries a body names by id exist (its relations store over `entry`: the targets in
 * the order the model's attributes, components and zone entries first name them, each checked at once; the
 * first lacking some is the one error, with the count of distinct ids it lacks). `mapped`: the rows each
 * target's documentIds were mapped to (checkReferences), found already.
 */
export async function storeCheck(schema: Schema, ct: ContentType, entry: Record<string, unknown>, mapped: Map<string, Map<string, number[]>>, run: Run): Promise<FieldError[]> {
  for (const [uid, ids] of relationsStore(schema, ct.attributes, entry)) {
    // lodash's uniqBy: "4" and 4 are two ids (both name row 4, counted once there: one is missing).
    const unique = [...new Set(ids)];
    const rows = [...new Set(unique.map(Number).filter((n) => Number.isInteger(n) && Math.abs(n) <= 2147483647))];
    // Rows a documentId was just mapped to count as found without a second look: a concurrent publish may
    // have replaced one since (its document's new row is what the write links), which is no missing entry.
    const known = new Set([...(mapped.get(uid)?.values() ?? [])].flat());
    const asked = rows.filter((n) => !known.has(n));
    const table = uid === FILE_UID ? FILES.table : schema.contentTypes.get(uid)?.table;
    const found = rows.length - asked.length + (asked.length && table ? (await run(rowsById(table), [asked])).length : 0);
    if (unique.length > found) return [missingEntries(unique.length - found, uid)];
  }
  return [];
}

/**
 * Strapi's relations store (its buildRelationsStore) over the entry its validation saw: the ids each
 * target is named by, in the order the model's attributes (components' and zone entries' inline) name
 * them; a payload's `connect` counted before its `set`, a list as it is.
 */
function relationsStore(schema: Schema, attributes: ContentType['attributes'], entry: Record<string, unknown>, out = new Map<string, unknown[]>()): Map<string, unknown[]> {
  for (const a of attributes) {
    const v = entry[a.name];
    if (v === null || v === undefined) continue;
    if (a.kind === 'media' || a.kind === 'relation') {
      const list = (x: unknown) => (Array.isArray(x) ? x : [x]);
      const o = v && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : null;
      const source = Array.isArray(v) ? v : o ? (o.connect != null ? list(o.connect) : o.set != null ? list(o.set) : []) : [v];
      const uid = a.kind === 'media' ? FILE_UID : a.target;
      out.set(uid, [...(out.get(uid) ?? []), ...source.map((x) => (x && typeof x === 'object' ? (x as { id?: unknown }).id : x))]);
    } else if (a.kind === 'component' || a.kind === 'dynamiczone') {
      for (const item of Array.isArray(v) ? v : [v]) {
        if (!item || typeof item !== 'object') continue;
        const uid = a.kind === 'component' ? a.component : (item as { __component?: unknown }).__component;
        const comp = typeof uid === 'string' ? schema.components.get(uid) : undefined;
        if (comp) relationsStore(schema, comp.attributes, item as Record<string, unknown>, out);
      }
    }
  }
  return out;
}
