// The entry as Strapi 5.54's validation sees it, which its errors echo as `value`: the body its document
// service prepared (publishedAt and locale set, relation and media references mapped to entries by its
// mapRelation), then cast by yup (@strapi/core entity-validator). yup returns the object it was given
// unless casting changed something — a default added on a create, "5" become 5 — and then a new object
// in its own key order: the model's writable attributes in reverse, then the keys it does not know.
// Pure: the ids a documentId names are asked of the caller.
import { yupBoolean, yupEnumeration, yupNumber } from './yup-cast.ts';
import type { Attribute, Component, ComponentAttr, ContentType, DynamicZoneAttr, RelationAttr, Schema } from '../../compiler/schema.ts';
import { FILE_UID } from '../plugin-types.ts';

export interface EntryContext {
  schema: Schema;
  /** A create (defaults apply) or an update. */
  creating: boolean;
  /** The row ids `documentId` of `target` names for this write (Strapi's getRelationIds: a draft's before a published one's). */
  ids: (target: string, documentId: string) => number[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * `data` as Strapi's relations check sees it: `locale` (written; kept where the body had it) and
 * `publishedAt` (a draft's null, now for a type without draft & publish) set, references mapped, cast;
 * `documentId` for a new localization (created with its document's id).
 */
export function strapiEntry(ctx: EntryContext, ct: ContentType, data: Record<string, unknown>, locale: string | null, documentId = ''): Record<string, unknown> {
  const prepared: Record<string, unknown> = {};
  for (const key of Object.keys(data)) {
    if (key === 'publishedAt') continue;
    const a = ct.byName.get(key);
    prepared[key] = a ? processed(ctx, a, data[key]) : data[key];
  }
  prepared.publishedAt = ct.draftAndPublish ? null : new Date().toISOString();
  if (ct.localized) prepared.locale = locale;
  // A new localization of a document is created with the document's id.
  if (documentId) prepared.documentId = documentId;
  // Strapi's model lists publishedAt, then i18n's locale and localizations, after the type's own attributes.
  const system = ['publishedAt', ...(ct.localized ? ['locale', 'localizations'] : [])];
  return castObject(ctx, [...ct.attributes.map((a) => a.name), ...system], ct.byName, prepared);
}

/** A component instance as yup casts it (a zone's entry knows `__component` too). */
export function castInstance(ctx: EntryContext, comp: Component, item: unknown, inZone: boolean): unknown {
  if (!isRecord(item)) return item;
  return castObject(ctx, [...comp.attributes.map((a) => a.name), ...(inZone ? ['__component'] : [])], comp.byName, item);
}

/** A repeatable component's or a zone's list as yup casts it: the same list unless an instance changed. */
export function castList(ctx: EntryContext, a: ComponentAttr | DynamicZoneAttr, v: unknown[]): unknown[] {
  const cast = v.map((item) => {
    const uid = a.kind === 'dynamiczone' ? (isRecord(item) ? item.__component : undefined) : a.component;
    const comp = typeof uid === 'string' ? ctx.schema.components.get(uid) : undefined;
    return comp ? castInstance(ctx, comp, item, a.kind === 'dynamiczone') : item;
  });
  return cast.every((x, i) => x === v[i]) ? v : cast;
}

/** yup's object cast: `fields` in reverse (its sorted nodes), then the keys it does not know, in the object's order. */
function castObject(ctx: EntryContext, fields: string[], byName: ReadonlyMap<string, Attribute>, given: Record<string, unknown>): Record<string, unknown> {
  const known = [...fields].reverse();
  const out: Record<string, unknown> = {};
  let changed = false;
  for (const key of [...known, ...Object.keys(given).filter((k) => !known.includes(k))]) {
    const attr = byName.get(key);
    const value = attr && known.includes(key) ? castValue(ctx, attr, given[key]) : given[key];
    if (value !== undefined || Object.hasOwn(given, key)) out[key] = value;
    if (out[key] !== given[key]) changed = true;
  }
  return changed ? out : given;
}

function castValue(ctx: EntryContext, a: Attribute, v: unknown): unknown {
  if (v === undefined) {
    if (!ctx.creating) return undefined;
    if ((a.kind === 'dynamiczone' || (a.kind === 'component' && a.repeatable)) && !a.required) return [];
    return a.kind === 'scalar' ? a.default : undefined;
  }
  if ((a.kind === 'component' && a.repeatable) || a.kind === 'dynamiczone') return Array.isArray(v) ? castList(ctx, a, v) : v;
  if (a.kind === 'component') return castInstance(ctx, ctx.schema.components.get(a.component)!, v, false);
  if (a.kind !== 'scalar' || v === null) return v;
  switch (a.type) {
    case 'integer': case 'float': case 'decimal':
      return yupNumber(v);
    case 'boolean':
      return yupBoolean(v) ?? v;
    // yup's array (blocks): a string is parsed as JSON; anything but a list becomes null.
    case 'blocks': {
      let parsed: unknown = v;
      if (typeof v === 'string') { try { parsed = JSON.parse(v); } catch { parsed = null; } }
      return Array.isArray(parsed) ? (parsed === v ? v : parsed) : null;
    }
    case 'enumeration':
      return yupEnumeration(v);
    default:
      return v;
  }
}

/** An attribute's value with its references mapped (relations and media, also inside components and zone entries). */
function processed(ctx: EntryContext, a: Attribute, v: unknown): unknown {
  if (a.kind === 'relation') return mapRelation(ctx, a.target, xToOne(a, v), false);
  if (a.kind === 'media') return mapRelation(ctx, FILE_UID, v, false);
  if (a.kind === 'component' || a.kind === 'dynamiczone') {
    const one = (item: unknown): unknown => {
      if (!isRecord(item)) return item;
      const uid = a.kind === 'component' ? a.component : item.__component;
      const comp = typeof uid === 'string' ? ctx.schema.components.get(uid) : undefined;
      if (!comp) return item;
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(item)) {
        const ca = comp.byName.get(k);
        out[k] = ca ? processed(ctx, ca, x) : x;
      }
      return out;
    };
    return Array.isArray(v) ? v.map(one) : one(v);
  }
  return v;
}

/** Strapi's normalizeXToOneRelationValue: a to-one payload keeps its last entry. */
function xToOne(a: RelationAttr, v: unknown): unknown {
  if (a.toMany || v === null || v === undefined) return v;
  if (Array.isArray(v)) return v.length > 1 ? [v[v.length - 1]] : v;
  if (isRecord(v) && Array.isArray(v.set) && v.set.length > 1) return { ...v, set: [v.set[v.set.length - 1]] };
  return v;
}

/** Strapi's mapRelation: shorthands wrapped in `set`, each documentId replaced by its rows' ids. */
function mapRelation(ctx: EntryContext, target: string, v: unknown, inner: boolean): unknown {
  const wrap = (x: unknown) => (inner ? x : { set: x === null || x === undefined || Array.isArray(x) ? x : [x] });
  const entry = (r: unknown): unknown => {
    if (!isRecord(r) || !r.documentId) return r;
    const ids = ctx.ids(target, String(r.documentId));
    const position = isRecord(r.position) ? { ...r.position } : undefined;
    if (position && position.before !== undefined) position.before = ctx.ids(target, String(position.before))[0];
    if (position && position.after !== undefined) position.after = ctx.ids(target, String(position.after))[0];
    return ids.map((id) => (r.position ? { id, position } : { id }));
  };
  if (v === null || v === undefined) return entry(v);
  if (Array.isArray(v)) return wrap(v.map((r) => mapRelation(ctx, target, r, true)).flat().filter(Boolean));
  if (isRecord(v)) {
    if ('id' in v || 'documentId' in v) return wrap(entry(v));
    if (!v.set && !v.disconnect && !v.connect) return entry(v);
    let out: Record<string, unknown> = v;
    for (const op of ['set', 'disconnect', 'connect'] as const) {
      if (!v[op]) continue;
      const mapped = mapRelation(ctx, target, v[op], true);
      out = { ...out, [op]: mapped === null || mapped === undefined || Array.isArray(mapped) ? mapped : [mapped] };
    }
    return out;
  }
  // A number, or a string of one, is an id; another string a documentId (Strapi's isNumeric also reads an id
  // from a string that only starts with digits, which none of its documentIds does: read as src/rest/validate.ts does).
  if (typeof v === 'number' || (typeof v === 'string' && /^-?\d+$/.test(v))) return wrap(entry({ id: v }));
  if (typeof v === 'string') return wrap(entry({ documentId: v }));
  return entry(v);
}
