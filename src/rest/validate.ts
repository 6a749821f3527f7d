// Validates a create/update body against the model, with Strapi's (yup's) messages, and turns it into
// storable values: column values, component JSON, relation operations and media ids.
import { yupBoolean, yupEnumeration, yupNumber } from './yup-cast.ts';
import type { Attribute, Component, ComponentAttr, ContentType, DynamicZoneAttr, ScalarAttr, Schema, RelationAttr, MediaAttr, MorphAttr } from '../../compiler/schema.ts';
import { registryOrder } from '../../compiler/schema.ts';
import { ApiError, fieldErrors, type FieldError } from '../../compiler/errors.ts';
import type { RouteParams } from './route-params.ts';
import { blocksErrors, blocksValue } from './blocks.ts';
import { show, yupPath } from './yup-print.ts';
import { fileReadType } from '../plugin-types.ts';
import { castList, strapiEntry, type EntryContext } from './strapi-entry.ts';

export interface RelationOp {
  attr: RelationAttr;
  set?: RelRef[];
  connect: RelRef[];
  disconnect: RelRef[];
  /**
   * `options.strict` (Strapi's default: true): a connect positioned before/after a document that is
   * neither linked nor connected in the same request fails; not strict, it goes last.
   */
  strict?: boolean;
}
/**
 * A relation target: a document (`documentId`), or an entry row by its numeric id (`entityId`, Strapi's
 * older form), which the writer turns into its document before anything else.
 */
export interface RelRef { documentId: string; entityId?: number; locale?: string; status?: string; position?: { before?: string; after?: string; start?: boolean; end?: boolean } }

/** A file named by its id, or by its documentId (resolved to the id by the writer). */
export interface MediaRef { id?: number; documentId?: string }

/**
 * The files of a media attribute: a whole new list (`ids`; `refs` when some are named by documentId,
 * the writer fills `ids` from them), or, with `ops`, Strapi's connect/disconnect on the links kept
 * (a new row takes none of them, as Strapi's createRelations).
 */
export interface MediaValue { attr: MediaAttr; ids: number[]; refs?: MediaRef[]; ops?: { connect: MediaRef[]; disconnect: MediaRef[] }; /** The body's key it is under (a component's media: the component's). */ bodyKey?: string }

/** One component instance to store: a kept one (`id`, its row updated) or a new row. */
export interface ComponentValue {
  component: Component;
  id: number | null;
  /** Scalar columns given (a kept instance keeps the ones not given). */
  columns: Map<string, unknown>;
  media: MediaValue[];
  components: ComponentField[];
  relations: RelationOp[];
}

/** The new content of a component or dynamic-zone attribute, in order (a single component: 0 or 1 item). */
export interface ComponentField { attr: ComponentAttr | DynamicZoneAttr; items: ComponentValue[] }

/** What a row holds of the body: its columns, media, components, relations; where they go is the writer's business. */
export interface RowValues { columns: Map<string, unknown>; media: MediaValue[]; components: ComponentField[]; relations: RelationOp[] }

export interface Normalized extends RowValues {
  /** File ids referenced anywhere (checked to exist by the writer). */
  fileIds: Set<number>;
  /** Every media value of the body, components' included (their documentIds resolved by the writer). */
  mediaValues: MediaValue[];
  /** Media attributes with an `allowedTypes` restriction and the files given to them (checked by the writer). */
  mediaTypes: Array<{ path: string[]; allowed: string[]; ids: number[]; refs?: MediaRef[] }>;
  /** Values of unique attributes to look up among other documents' published rows (top level, or in components: `chain`). */
  uniques: UniqueValue[];
  /** morphToMany operations (morph relations exist on content-types only). */
  morphs: MorphOp[];
}

/** The components from the row down to a component's attribute (Strapi's pathToComponent). */
export type ComponentChain = ReadonlyArray<{ attr: ComponentAttr | DynamicZoneAttr; comp: Component }>;
/** A unique attribute's value: at the row (`chain` empty) or in a component instance; `path` is where its error points. */
export interface UniqueValue { attr: ScalarAttr; value: unknown; chain: ComponentChain; path: string[] }

/** A morphToMany target: a row of content-type `type`, named by documentId or by its entry id. */
export interface MorphRef extends RelRef { type: string }
export interface MorphOp { attr: MorphAttr; set?: MorphRef[]; connect: MorphRef[]; disconnect: MorphRef[] }

/** The component instances a row holds now, per attribute, with theirs (an update may keep them by id). */
export interface ExistingComponent { id: number; uid: string; fields: ExistingComponents }
export type ExistingComponents = Map<string, ExistingComponent[]>;

/** Strapi's varchar(255) columns: longer values are refused here rather than by PostgreSQL. */
const VARCHAR_TYPES = new Set(['string', 'email', 'password', 'uid', 'enumeration']);

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const UID = /^[A-Za-z0-9-_.~]*$/;
const PARTIAL_DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(\.\d{1,3})?$/;

const YUP_TYPE: Record<string, string> = {
  string: 'string', text: 'string', richtext: 'string', email: 'string', password: 'string', uid: 'string', enumeration: 'string',
  integer: 'number', biginteger: 'string', float: 'number', decimal: 'number', boolean: 'boolean', date: 'date', time: 'string',
  datetime: 'date', timestamp: 'date', blocks: 'array', json: 'mixed',
};

/** Types whose yup schema refuses null with a type error (the others are mixed, or nullable booleans). */
const NULL_TYPE_ERROR: Partial<Record<string, string>> = {
  string: 'string', text: 'string', richtext: 'string', email: 'string', password: 'string', uid: 'string', enumeration: 'string',
  integer: 'number', float: 'number', decimal: 'number', blocks: 'array',
};

/** Strapi's own attributes no client writes (timestamps, creator fields, i18n's localizations), whatever the model. */
export const STRAPI_READ_ONLY: ReadonlySet<string> = new Set(['createdAt', 'updatedAt', 'createdBy', 'updatedBy', 'localizations']);

/** Attributes every Strapi 5 content type has besides its own (a relation payload may name them: passed over). */
const SYSTEM_ATTRIBUTES: ReadonlySet<string> = new Set(['documentId', 'createdAt', 'updatedAt', 'publishedAt', 'createdBy', 'updatedBy', 'locale', 'localizations']);
/** The upload file's attributes, by name (a media payload may name them), once per schema. */
const fileAttributesOf = new WeakMap<Schema, ReadonlyMap<string, Attribute>>();
function fileAttributes(schema: Schema): ReadonlyMap<string, Attribute> {
  let m = fileAttributesOf.get(schema);
  if (!m) fileAttributesOf.set(schema, m = fileReadType(schema).byName);
  return m;
}
/** A relation or media payload's own keys (Strapi's RELATION_OPERATION_KEYS and ID_FIELDS). */
const RELATION_KEYS: ReadonlySet<string> = new Set(['connect', 'disconnect', 'set', 'options', 'id', 'documentId']);

/**
 * An id as Strapi's relations store counts it (relations and media alike): an int4 integer, or a string of
 * one (0 and negative ones name no entry: counted missing); `invalid` for any other number or a boolean, a
 * query its store cannot make ('Invalid relations'; checked live: 1.5, true, {id: 1.5}, 99999999999,
 * "99999999999"); undefined for anything else.
 */
function storeId(id: unknown): number | 'invalid' | undefined {
  const n = typeof id === 'string' && /^-?\d+$/.test(id) ? Number(id) : id;
  if (typeof n === 'number') return Number.isInteger(n) && Math.abs(n) <= 2147483647 ? n : 'invalid';
  return typeof n === 'boolean' ? 'invalid' : undefined;
}

/** Keys of a body that are no attribute but that checkKeys knows by name (taken, or refused naming themselves). */
const NAMED_KEYS = new Set(['id', 'documentId', 'publishedAt', 'locale', 'localizations', 'createdAt', 'updatedAt', 'createdBy', 'updatedBy']);

/** `data` without the keys `drop` names (the same object when it names none). */
export function omitKeys(data: Record<string, unknown>, drop: (key: string) => boolean): Record<string, unknown> {
  let out: Record<string, unknown> | null = null;
  for (const k of Object.keys(data)) {
    if (!drop(k)) continue;
    out ??= { ...data };
    delete out[k];
  }
  return out ?? data;
}

/**
 * `data` without the keys that are nothing of the type: Strapi's document service (project code's writes)
 * passes over them where its content API refuses them (checked live).
 */
export function withoutUnknownKeys(ct: ContentType, data: Record<string, unknown>): Record<string, unknown> {
  return omitKeys(data, (k) => !ct.byName.has(k) && !NAMED_KEYS.has(k));
}

/**
 * Strapi's validateInput of a content-API body whose route's body schema has keys of its own (a project's
 * params; on a core create or update, `data`): the body's other keys checked as always, then the params'
 * values. Answers `data` without those keys, but for one named as an attribute, whose value it is too
 * (Strapi reserves only id and documentId).
 */
export function routeBody(schema: Schema, ct: ContentType, data: Record<string, unknown>, own: RouteParams | null, coreBody: boolean): Record<string, unknown> {
  const rest = omitKeys(data, (k) => !ct.byName.has(k) && (!!own?.inputKeys.has(k) || (coreBody && k === 'data')));
  new BodyValidator(schema, ct, true).checkKeys(rest);
  own?.checkInput(data);
  return rest;
}

export class BodyValidator {
  errors: FieldError[] = [];
  private unknownComponent = false;
  /** Errors whose value is the entry as Strapi's validation saw it (its relations store's): the caller maps its references. */
  readonly entryErrors: FieldError[] = [];
  /** A relation reference Strapi's relations store cannot count (an id that is no int4 integer, a boolean): its 'Invalid relations'. */
  private invalidReference = false;
  private missingComponent = false;
  /** Whether Strapi's relations store could not be built (a zone entry without a known component): its error replaces the check that the entries named by id exist. */
  get storeFailed(): boolean { return this.unknownComponent || this.missingComponent || this.invalidReference; }
  /** The component instances being validated, from the row down (Strapi's pathToComponent), with the root list or zone they belong to. */
  private chain: Array<{ attr: ComponentAttr | DynamicZoneAttr; comp: Component }> = [];
  private rootList: unknown[] | null = null;
  /** Inside a new component instance, ids are ignored (Strapi creates its nested instances afresh). */
  private insideNew = 0;
  /** A value Strapi's database layer refuses after validation passed: answered only when nothing else failed. */
  private parseError: ApiError | null = null;
  /**
   * A value only PostgreSQL refuses, as the row is written (a 500 in Strapi): after every parseError, which
   * Strapi's query layer raises before it sends anything (checked live: an int4 overflow and a bad date in one
   * body answer the date's error).
   */
  private dbError: ApiError | null = null;
  /** An update's component instance the row does not hold: Strapi finds it as it writes components, before the row's own values reach the database (parseError). */
  private componentError: ApiError | null = null;
  /** With deferParse, run() leaves a value it could not parse in `deferred` for the caller to throw (after Strapi's earlier checks). */
  deferParse = false;
  deferred: ApiError | null = null;
  /**
   * `draft`: Strapi's rules for a draft (its document service validates the draft it writes, and the
   * published copy only when publishing): no required scalars or single components, no min, minLength,
   * regex, email or uid format, no item counts — max, maxLength, types and required zones still apply.
   */
  constructor(private schema: Schema, private ct: ContentType, private creating: boolean, private locale: string | null = null, private draft = false) {}

  /**
   * `api.documents.strictRelations`: a required relation or media must hold something when the entry is
   * written as published. A type without draft & publish is checked here, on the body (the document
   * service's validation of what it writes); a draft & publish type's published copy is checked on the
   * draft as written, by the writer (src/rest/required-links.ts). Without it they are never required.
   */
  strictRelations = false;
  /** Values of failed required links that name documents: their ids are filled in by the caller (src/rest/required-links.ts showLinkIds). */
  readonly unresolved: ShownLink[] = [];

  /** Whether a required relation or media is checked here (see strictRelations). */
  private linkRequired(a: Attribute): boolean {
    return this.strictRelations && !this.draft && !this.ct.draftAndPublish && a.required && (a.kind === 'relation' || a.kind === 'media');
  }

  /** A required relation or media given a value that writes nothing (Strapi's relationRequiredFails). */
  private requiredLink(a: RelationAttr | MediaAttr, v: unknown, path: string[]): void {
    if (!this.linkRequired(a)) return;
    const toOne = a.kind === 'relation' ? !a.toMany : !a.multiple;
    if (!linkRequiredFails(this.creating, v, toOne)) return;
    this.err(path, `${a.name} must be defined.`, this.shownLink(a, v));
  }

  /**
   * The value as Strapi's error shows it, after its document service turned the payload into its
   * relation form: a list is `{ set: [...] }`, every entry `{ id }` (a document named by documentId is
   * resolved later: `unresolved`).
   */
  private shownLink(a: RelationAttr | MediaAttr, v: unknown): unknown {
    if (v === null || v === undefined) return v;
    const entry = (e: unknown): unknown => {
      if (typeof e === 'number') return { id: e };
      const o = isRecord(e) ? e : null;
      const documentId = typeof e === 'string' ? e : typeof o?.documentId === 'string' ? o.documentId : null;
      if (documentId === null) return o && o.id !== undefined ? { id: o.id } : e;
      const shown: Record<string, unknown> = { id: null };
      if (a.kind === 'relation') this.unresolved.push({ target: a.target, documentId, shown });
      return shown;
    };
    if (Array.isArray(v)) return { set: v.map(entry) };
    if (!isRecord(v)) return { set: [entry(v)] };
    return Object.fromEntries(Object.entries(v).map(([k, list]) => [k, Array.isArray(list) && ['connect', 'disconnect', 'set'].includes(k) ? list.map(entry) : list]));
  }

  private err(path: string[], message: string, value?: unknown, withValue = true): void {
    this.errors.push(withValue ? { path, message, name: 'ValidationError', value } : { path, message, name: 'ValidationError' });
  }

  run(data: Record<string, unknown>, existing: ExistingComponents): Normalized {
    const out: Normalized = { columns: new Map(), media: [], components: [], relations: [], morphs: [], fileIds: new Set(), mediaValues: [], mediaTypes: [], uniques: [] };
    this.checkKeys(data);
    for (const a of this.ct.attributes) {
      const present = Object.prototype.hasOwnProperty.call(data, a.name);
      let v = data[a.name];
      if (!present) {
        if (!this.creating) continue;
        if (a.kind === 'scalar' && a.default !== undefined) v = a.default;
        else {
          if (a.required) this.missing(a);
          continue;
        }
      }
      this.attribute(a, v, [a.name], out, out, existing.get(a.name) ?? [], true);
    }
    if (this.missingComponent) this.err([], 'Cannot build relations store from dynamiczone, component identifier is undefined', this.strapiEntry(data));
    else if (this.unknownComponent || this.invalidReference) this.err([], 'Invalid relations', this.strapiEntry(data));
    if (this.storeFailed) this.entryErrors.push(this.errors[this.errors.length - 1]);
    const later = this.componentError ?? this.parseError ?? this.dbError;
    if (later && !this.errors.length) {
      if (!this.deferParse) throw later;
      this.deferred = later;
    }
    return out;
  }

  /** The body's top-level keys as Strapi's controller checks them: an unknown or read-only one is a 400 naming it. */
  checkKeys(data: Record<string, unknown>): void {
    // Strapi's validateInput, pass by pass over the whole body: id and documentId at the root; then the
    // attributes no body writes (timestamps, creator fields, localizations, writable: false); then every key
    // that is no attribute, depth first in the body's order (checked live: an unknown key beside a
    // documentId, a createdAt or a component's unknown key earlier in the body answers the latter).
    for (const key of ['id', 'documentId']) {
      if (Object.prototype.hasOwnProperty.call(data, key)) throw new ApiError(400, 'ValidationError', `Invalid key ${key}`, { key, source: 'body' });
    }
    for (const key of Object.keys(data)) {
      const a = this.ct.byName.get(key);
      // Strapi's content API takes no morphToOne in a body (checked live): its link is set by plugins.
      if (a?.readOnly || (a?.kind === 'morph' && a.relation === 'morphToOne') || (!a && STRAPI_READ_ONLY.has(key))) {
        throw new ApiError(400, 'ValidationError', `Invalid key ${key}`, { key, path: key, source: 'body' });
      }
    }
    for (const key of Object.keys(data)) {
      const a = this.ct.byName.get(key);
      // Checked live: Strapi drops publishedAt (status decides) and takes locale from the query.
      if (!a && (key === 'publishedAt' || key === 'locale')) continue;
      if (!a) throw new ApiError(400, 'ValidationError', `Invalid key ${key}`, { key, path: null, source: 'body' });
      this.nestedKeys(a, data[key], [key]);
    }
  }

  /** The unknown-key pass inside one attribute's value (Strapi's traverseEntity): components, zone entries, relation and media payloads. */
  private nestedKeys(a: Attribute, v: unknown, path: string[]): void {
    if (v === null || v === undefined) return;
    if (a.kind === 'component' || a.kind === 'dynamiczone') {
      for (const item of Array.isArray(v) ? v : [v]) {
        if (!isRecord(item)) continue;
        const uid = a.kind === 'component' ? a.component : item.__component;
        // A zone entry of no known component is not looked into (Strapi's traversal has no schema for it).
        const comp = typeof uid === 'string' ? this.schema.components.get(uid) : undefined;
        if (!comp) continue;
        for (const k of Object.keys(item)) {
          const ca = comp.byName.get(k);
          if (ca) this.nestedKeys(ca, item[k], [...path, k]);
          else if (k !== 'id' && !(a.kind === 'dynamiczone' && k === '__component')) throw invalidBodyKey(k, path);
        }
      }
      return;
    }
    if (a.kind !== 'relation' && a.kind !== 'media') return;
    // A relation's or a media's items and payload are read as its target's entries: an operation, an id, or
    // one of the target's attributes (passed over) may be named; an operation's own list is not looked into.
    const target = a.kind === 'relation' ? this.schema.contentTypes.get(a.target)?.byName : fileAttributes(this.schema);
    for (const item of Array.isArray(v) ? v : [v]) {
      if (!isRecord(item)) continue;
      for (const k of Object.keys(item)) {
        if (!RELATION_KEYS.has(k) && !SYSTEM_ATTRIBUTES.has(k) && !target?.has(k)) throw invalidBodyKey(k, path);
      }
    }
  }

  /** The entry as Strapi's validation saw it (src/rest/strapi-entry.ts), its references not mapped yet: `entryErrors` get it again once they are. */
  private strapiEntry(data: Record<string, unknown>): Record<string, unknown> {
    return strapiEntry(this.entryContext, this.ct, data, this.locale);
  }

  private get entryContext(): EntryContext { return { schema: this.schema, creating: this.creating, ids: () => [] }; }

  /**
   * A repeatable component's or a dynamic zone's value as Strapi's validation errors echo it: the value
   * yup cast (src/rest/strapi-entry.ts castList).
   */
  private echo(a: ComponentAttr | DynamicZoneAttr, v: unknown): unknown {
    return Array.isArray(v) ? castList(this.entryContext, a, v) : v;
  }

  /** A value the stored draft holds, checked with the publish's rules (storedDraftErrors). */
  checkStored(a: ScalarAttr, value: unknown): void { this.scalar(a, value, [a.name], yupPath([a.name])); }

  /** A required value the stored draft lacks (storedDraftErrors). */
  requireStored(a: Attribute): void { this.requiredMessage(a, [a.name]); }
  requireStoredAt(a: Attribute, at: string[]): void { this.requiredMessage(a, at); }

  private missing(a: Attribute, path: string[] = [a.name]): void {
    // Relations and media are required only under strictRelations (absent: no value shown).
    if (a.kind === 'relation' || a.kind === 'media' || a.kind === 'morph') {
      if (this.linkRequired(a)) this.err(path, `${a.name} must be defined.`, undefined, false);
      return;
    }
    // A draft skips required attributes, except lists (zones, repeatable components) that have no default.
    if (this.draft && !(a.kind === 'dynamiczone' || (a.kind === 'component' && a.repeatable))) return;
    this.requiredMessage(a, path);
  }

  /**
   * A required value that is absent. A draft & publish type validates the stored draft when it
   * publishes, where the value is null: yup's typed schemas (strings, numbers, blocks) word it as a
   * type error, its mixed ones (dates, json, bigintegers) and booleans as "must be defined" — with the
   * null value either way. Other types see the body, where it is undefined.
   */
  private requiredMessage(a: Attribute, at: string[], nullGiven = false): void {
    const typed = a.kind === 'scalar' ? NULL_TYPE_ERROR[a.type] : a.kind === 'component' && !a.repeatable ? 'object' : undefined;
    // A null sent in the body is the same null to yup (Strapi 5.54: `{"name": null}` on a type without
    // draft & publish answers the type error, an absent name "must be defined.").
    const isNull = nullGiven || (this.ct.draftAndPublish && !this.draft);
    if (isNull && typed) this.err(at, `${yupPath(at)} must be a \`${typed}\` type, but the final value was: \`null\`.`, null);
    // An update's required value is yup's notNull, a create's notNil (@strapi/core entity-validator).
    else if (nullGiven && !this.creating && a.kind === 'scalar') this.err(at, `${yupPath(at)} cannot be null.`, null);
    else if (isNull && a.kind === 'scalar') this.err(at, `${yupPath(at)} must be defined.`, null);
    else this.err(at, `${yupPath(at)} must be defined.`, undefined, false);
  }

  /** Validates one attribute's value into `row` (the content row or a component instance). */
  private attribute(a: Attribute, v: unknown, path: string[], row: RowValues, out: Normalized, existing: ExistingComponent[], top: boolean): void {
    const label = yupPath(path);
    switch (a.kind) {
      case 'scalar': {
        const value = this.scalar(a, v, path, label);
        // json and blocks travel as values: the driver serializes parameters of jsonb columns itself.
        row.columns.set(a.column, value);
        // Strapi's unique validator skips null and '', and every draft (only published rows must differ).
        if (a.unique && value !== null && value !== undefined && value !== '' && !this.draft) this.unique(a, v, value, path, out);
        return;
      }
      case 'media': {
        this.requiredLink(a, v, path);
        const m = this.mediaValue(a, v, path);
        if (!m) return;
        // Ids a list or connect names must exist (a disconnect's need not: checked live).
        const given: MediaRef[] = m.ops ? m.ops.connect : m.refs ?? m.ids.map((id) => ({ id }));
        const ids = given.flatMap((r) => (r.id === undefined ? [] : [r.id]));
        ids.forEach((i) => out.fileIds.add(i));
        // Files named by documentId are checked once the writer has their ids (`refs`).
        const byDoc = given.some((r) => r.documentId !== undefined);
        if (a.allowedTypes && given.length) out.mediaTypes.push({ path, allowed: a.allowedTypes, ids, ...(byDoc ? { refs: given } : {}) });
        m.bodyKey = path[0];
        out.mediaValues.push(m);
        row.media.push(m);
        return;
      }
      case 'relation': {
        this.requiredLink(a, v, path);
        const op = this.relation(a, v, path);
        if (op) row.relations.push(op);
        return;
      }
      case 'morph': {
        const op = this.morph(a, v, path);
        if (op) out.morphs.push(op);
        return;
      }
      case 'component': {
        const comp = this.schema.components.get(a.component)!;
        const field: ComponentField = { attr: a, items: [] };
        if (v === null && a.repeatable) {
          // A repeatable component is a list, never null (checked live).
          this.err(path, `${label} must be a \`array\` type, but the final value was: \`null\`.`, null);
          return;
        }
        if (v === null) {
          // yup's object type refuses null when required (checked live on Strapi 5.54, create and update).
          if (a.required && !this.draft) this.err(path, `${label} must be a \`object\` type, but the final value was: \`null\`.`, null);
        } else if (a.repeatable) {
          if (!Array.isArray(v)) { this.err(path, `${label} must be a \`array\` type, but the final value was: \`${show(v)}\`.`, v); return; }
          v.forEach((item, i) => { const c = this.within(a, comp, v, () => this.component(comp, item, [...path, String(i)], out, existing, a.name)); if (c) field.items.push(c); });
          // Strapi checks `min` on a repeatable that is required or not empty.
          if (!this.draft && a.min !== undefined && v.length < a.min && (a.required || v.length > 0)) this.err(path, `${label} field must have at least ${a.min} items`, this.echo(a, v));
          if (!this.draft && a.max !== undefined && v.length > a.max) this.err(path, `${label} field must have less than or equal to ${a.max} items`, this.echo(a, v));
        } else {
          const c = this.within(a, comp, null, () => this.component(comp, v, path, out, existing, a.name));
          if (c) field.items.push(c);
        }
        row.components.push(field);
        return;
      }
      case 'dynamiczone': {
        const field: ComponentField = { attr: a, items: [] };
        // A zone is a list, never null (Strapi 5.54, checked live), as a repeatable component; [] clears it.
        const given = v;
        if (!Array.isArray(given)) { this.err(path, `${label} must be a \`array\` type, but the final value was: \`${show(v)}\`.`, v); return; }
        given.forEach((item, i) => {
          if (!isRecord(item)) {
            // yup's object cast makes anything else null (Strapi's entry then holds null there, and its
            // relation processing fails on it; checked live).
            const at = [...path, String(i)];
            this.err(at, `${yupPath(at)} must be a \`object\` type, but the final value was: \`null\`${item === null ? '' : ` (cast from the value \`${show(item)}\`)`}.`, null);
            given[i] = null;
            this.unknownComponent = true;
            return;
          }
          // yup's string cast: a number or boolean uid is its text (in the errors and the entry too).
          if (typeof item.__component === 'number' || typeof item.__component === 'boolean') item.__component = String(item.__component);
          const uid = item.__component;
          if (uid === null) {
            const at = [...path, String(i), '__component'];
            this.err(at, `${yupPath(at)} must be a \`string\` type, but the final value was: \`null\`.`, null);
            this.err(at, `${yupPath(at)} must be one of the following values: ${registryOrder(this.schema).join(', ')}`, null);
            this.missingComponent = true;
            return;
          }
          // Any component of the app is taken, as Strapi 5.54's validator (yup `oneOf` every registered
          // component): one outside the zone's list is stored on the draft and read back, and its publish
          // leaves it out (checked live; see Writer.cloneOwned).
          const comp = typeof uid === 'string' ? this.schema.components.get(uid) : undefined;
          if (uid === undefined) {
            // Checked live: Strapi names the missing key, then fails building its relation store.
            this.err([...path, String(i), '__component'], `${yupPath(path)}[${i}].__component is a required field`, undefined, false);
            this.missingComponent = true;
            return;
          }
          if (!comp) {
            // Strapi checks an unknown uid against every component of the app (in its registry's order),
            // then fails its relation processing on it: see run().
            const names = registryOrder(this.schema);
            this.err([...path, String(i), '__component'], `${yupPath(path)}[${i}].__component must be one of the following values: ${names.join(', ')}`, uid);
            this.unknownComponent = true;
            return;
          }
          // Strapi validates such a component as the draft's only: its publish reads the draft through the
          // zone's list, so a publish never checks it (checked live: a missing required value passes).
          const draft = this.draft;
          if (this.ct.draftAndPublish && !a.components.includes(comp.uid)) this.draft = true;
          let c: ComponentValue | null;
          try {
            c = this.within(a, comp, given, () => this.component(comp, item, [...path, String(i)], out, existing.filter((p) => p.uid === uid), a.name, ['__component']));
          } finally {
            this.draft = draft;
          }
          if (c) field.items.push(c);
        });
        if (!this.draft && a.min !== undefined && given.length < a.min && (a.required || given.length > 0)) this.err(path, `${label} field must have at least ${a.min} items`, this.echo(a, v));
        if (!this.draft && a.max !== undefined && given.length > a.max) this.err(path, `${label} field must have less than or equal to ${a.max} items`, this.echo(a, v));
        row.components.push(field);
        return;
      }
    }
  }

  /** `f` run inside an instance of `comp` (under `attr`; `list`: the repeatable's or zone's items, the root one kept for unique checks). */
  private within<T>(attr: ComponentAttr | DynamicZoneAttr, comp: Component, list: unknown[] | null, f: () => T): T {
    const root = this.rootList;
    if (!this.chain.length) this.rootList = list;
    this.chain.push({ attr, comp });
    try { return f(); } finally { this.chain.pop(); this.rootList = root; }
  }

  /**
   * A unique attribute's value (Strapi's unique validator): at the row, or in a component, where the value
   * must also be the only one of its root repeatable component (the items' values at the same path) or of
   * its zone (the entries of the same component); then no other document's published row may hold it.
   * A component nested in a zone entry is never found (Strapi looks for the entry's own component).
   */
  private unique(a: ScalarAttr, raw: unknown, value: unknown, path: string[], out: Normalized): void {
    const [first] = this.chain;
    const list = this.rootList;
    if (first?.attr.kind === 'dynamiczone') {
      if (this.chain.length > 1) return;
      const same = (list ?? []).filter((e) => isRecord(e) && e.__component === first.comp.uid && e[a.name] === raw).length;
      if (same > 1) { this.err(path, 'This attribute must be unique', raw); return; }
    } else if (list) {
      const names = [...this.chain.slice(1).map((c) => c.attr.name), a.name];
      const same = list.filter((item) => names.reduce<unknown>((acc, k) => (isRecord(acc) ? acc[k] : undefined), item) === raw).length;
      if (same > 1) { this.err(path, 'This attribute must be unique', raw); return; }
    }
    out.uniques.push({ attr: a, value, chain: [...this.chain], path });
  }

  /**
   * One component instance. Sent with the id of an instance the row holds, it is that instance: only
   * the attributes given change. Otherwise it is a new instance: defaults apply, required ones are checked.
   */
  private component(comp: Component, v: unknown, path: string[], out: Normalized, previous: ExistingComponent[], field: string, allow: string[] = []): ComponentValue | null {
    const label = yupPath(path);
    if (!v || typeof v !== 'object' || Array.isArray(v)) { this.err(path, `${label} must be a \`object\` type, but the final value was: \`${show(v)}\`.`, v); return null; }
    const data = v as Record<string, unknown>;
    for (const k of Object.keys(data)) {
      if (k !== 'id' && !allow.includes(k) && !comp.byName.has(k)) {
        throw invalidBodyKey(k, path);
      }
    }
    const prev = data.id !== undefined && data.id !== null ? previous.find((p) => p.uid === comp.uid && p.id === Number(data.id)) : undefined;
    if (!this.creating && this.insideNew === 0 && data.id !== undefined && data.id !== null && !prev) {
      // An update may only keep instances the row holds (checked live: a zone answers a bare Error). Strapi's
      // entity layer finds it after the body's validation: a validation error (a list's min) comes first.
      const message = `Some of the provided components in ${field} are not related to the entity`;
      this.componentError ??= allow.includes('__component') ? new ApiError(400, 'Error', message, null) : new ApiError(400, 'ApplicationError', message, {});
      return null;
    }
    const result: ComponentValue = { component: comp, id: prev?.id ?? null, columns: new Map(), media: [], components: [], relations: [] };
    if (!prev) this.insideNew++;
    try {
      for (const a of comp.attributes) {
        const nested = prev?.fields.get(a.name) ?? [];
        if (Object.prototype.hasOwnProperty.call(data, a.name)) {
          this.attribute(a, data[a.name], [...path, a.name], result, out, nested, false);
          continue;
        }
        if (prev) continue;
        if (a.kind === 'scalar' && a.default !== undefined) { this.attribute(a, a.default, [...path, a.name], result, out, [], false); continue; }
        // As for the entry's own attributes, but an update's required values are yup's notNull (@strapi/core
        // entity-validator), in a new component too: an absent one passes where the type has no draft &
        // publish (with it, the publish checks the stored draft with a create's rules). Checked live.
        const absentPasses = !this.creating && !this.ct.draftAndPublish && a.kind !== 'relation' && a.kind !== 'media' && a.kind !== 'morph';
        if (a.required && !absentPasses) this.missing(a, [...path, a.name]);
      }
    } finally { if (!prev) this.insideNew--; }
    return result;
  }

  private scalar(a: ScalarAttr, v: unknown, path: string[], label: string): unknown {
    const before = this.errors.length;
    const typeErr = (final: string, cast = '') =>
      this.err(path, `${label} must be a \`${YUP_TYPE[a.type]}\` type, but the final value was: \`${final}\`${cast}.`, a.type === 'integer' || a.type === 'float' || a.type === 'decimal' ? null : v);
    if (v === null || v === undefined) {
      if (a.required && !this.draft) this.requiredMessage(a, path, v === null);
      return null;
    }
    let value: unknown = v;
    switch (a.type) {
      case 'enumeration':
        value = yupEnumeration(v);
        if (typeof value !== 'string') { typeErr(show(v)); return null; }
        break;
      case 'string': case 'text': case 'richtext': case 'email': case 'password': case 'uid':
        // Strapi's string validator keeps the value as sent (transform to the original value): a number
        // or a boolean is refused as not a string (checked live on Strapi 5.54), before any regex.
        if (typeof v !== 'string') { typeErr(show(v)); return null; }
        break;
      case 'integer': case 'float': case 'decimal': {
        const n = yupNumber(v);
        if (Number.isNaN(n)) { typeErr('NaN', ` (cast from the value \`${show(v)}\`)`); return null; }
        // Infinity (1e400, "Infinity"): yup's integer test, or Strapi's own finite test (checked live).
        if (!Number.isFinite(n)) { this.err(path, a.type === 'integer' ? `${label} must be an integer` : `${label} must be a finite number`, null); return null; }
        if (a.type === 'integer' && !Number.isInteger(n)) { this.err(path, `${label} must be an integer`, v); return null; }
        // Strapi's validation has no bound: PostgreSQL refuses the value as the row is written (a 500 there),
        // after the relations and components were checked. Refused here at that point, as a 400.
        // The model's own bounds are yup's and come first (checked live: 9007199254740993 for `max: 100` is
        // "must be less than or equal to 100").
        const modelRefuses = (a.max !== undefined && n > a.max) || (!this.draft && a.min !== undefined && n < a.min);
        if (a.type === 'integer' && !modelRefuses && (n > 2147483647 || n < -2147483648)) {
          const message = n > 0 ? `${label} must be less than or equal to 2147483647` : `${label} must be greater than or equal to -2147483648`;
          this.dbError ??= new ApiError(400, 'ValidationError', message, { errors: [{ path, message, name: 'ValidationError', value: v }] });
          return null;
        }
        value = n;
        break;
      }
      case 'biginteger': {
        // Strapi's own validator (a mixed schema): an integer, or a string of digits with a sign and white
        // space around; anything else "must be a valid integer", reported as sent (checked live).
        const t = typeof v === 'string' ? v.trim() : '';
        if (typeof v === 'number' ? !Number.isInteger(v) : !(typeof v === 'string' && /^[+-]?\d+$/.test(t))) { this.err(path, `${label} must be a valid integer`, v); return null; }
        value = typeof v === 'number' ? String(v) : BigInt(t).toString();
        break;
      }
      case 'boolean': {
        const b = yupBoolean(v);
        if (b === undefined) { typeErr(show(v)); return null; }
        value = b;
        break;
      }
      case 'date': {
        // Strapi's date parser (its database layer, after validation): the yyyy-MM-dd a string starts
        // with, or one error without details (checked live).
        const d = typeof v === 'string' ? PARTIAL_DATE.exec(v)?.[0] : undefined;
        if (!d) { this.parseError ??= new ApiError(400, 'ValidationError', 'Invalid format, expected yyyy-MM-dd', {}); return null; }
        // Date.parse accepts 2024-02-30 (rolling over to March): the date must round-trip.
        if (Number.isNaN(Date.parse(d)) || new Date(d).toISOString().slice(0, 10) !== d) { this.parseError ??= new ApiError(400, 'ValidationError', 'Invalid date', {}); return null; }
        value = d;
        break;
      }
      case 'time': {
        const m = typeof v === 'string' ? TIME.exec(v) : null;
        // Strapi's own time parser (checked live): seconds required, one message, no field details.
        if (!m || Number(m[1]) > 23 || Number(m[2]) > 59 || Number(m[3]) > 59) throw new ApiError(400, 'ValidationError', 'Invalid time format, expected HH:mm:ss.SSS', {});
        value = `${m[1]}:${m[2]}:${m[3]}${(m[4] ?? '.000').padEnd(4, '0')}`;
        break;
      }
      case 'datetime': case 'timestamp': {
        const t = typeof v === 'string' || typeof v === 'number' ? new Date(v).getTime() : NaN;
        if (Number.isNaN(t)) { this.parseError ??= new ApiError(400, 'ValidationError', 'Invalid format, expected a timestamp or an ISO date', {}); return null; }
        value = new Date(t).toISOString();
        break;
      }
      case 'blocks': {
        value = blocksValue(v);
        if (value === null) return null;
        for (const e of blocksErrors(value as unknown[], path)) this.err(e.path, e.message, e.value, e.withValue);
        break;
      }
      case 'json':
        // Strapi's JSON field hands text to the database as it is, which PostgreSQL reads as JSON (checked
        // live: "{\"a\":1}" is stored and answered as {"a":1}; text that is no JSON fails its insert, a 500).
        if (typeof v === 'string') {
          try { value = JSON.parse(v); } catch {
            const message = `${label} must be JSON text: a string given to a json attribute is read as JSON`;
            this.dbError ??= new ApiError(400, 'ValidationError', message, { errors: [{ path, message, name: 'ValidationError', value: v }] });
            return null;
          }
        }
        break;
    }
    if (typeof value === 'string' && ['string', 'text', 'richtext', 'email', 'password', 'uid', 'enumeration'].includes(a.type)) {
      const s = value;
      // Reported as yup cast it (1 is "1": checked live).
      if (a.type === 'enumeration' && !a.enum!.includes(s)) this.err(path, `${label} must be one of the following values: ${a.enum!.join(', ')}, `, s);
      // Strapi's string validator's tests in its order: minLength, maxLength, regex; then an email's format and
      // a uid's. minLength only when set and not 0, never on a draft, and never on an email: its validator
      // ends with yup's min(1) (`cannot be empty`), which replaces the min test (checked live: a 5-character
      // email of a type asking 6 is stored).
      if (!this.draft && a.minLength && a.type !== 'email' && s.length < a.minLength) this.err(path, `${label} must be at least ${a.minLength} characters`, v);
      if (a.maxLength !== undefined && s.length > a.maxLength) this.err(path, `${label} must be at most ${a.maxLength} characters`, v);
      else if (VARCHAR_TYPES.has(a.type) && s.length > 255) this.err(path, `${label} must be at most 255 characters`, v);
      if (!this.draft && a.regex !== undefined && s !== '' && !new RegExp(a.regex).test(s)) this.err(path, `${label} must match the following: "/${a.regex}/"`, v);
      if (!this.draft && a.type === 'email' && s !== '' && !EMAIL.test(s)) this.err(path, `${label} must be a valid email`, v);
      if (!this.draft && a.type === 'uid' && !UID.test(s)) this.err(path, `${label} must match the following: "/^[A-Za-z0-9-_.~]*$/"`, v);
      // (checked live: `"email": ""` is refused outside a draft).
      if (!this.draft && a.type === 'email' && s === '') this.err(path, `${label} cannot be empty`, v);
      if (a.required && s === '' && this.ct.draftAndPublish === false && a.type !== 'uid') { /* Strapi accepts empty strings */ }
    }
    if (typeof value === 'number') {
      // yup reports the value as cast ("150" is 150).
      if (!this.draft && a.min !== undefined && value < a.min) this.err(path, `${label} must be greater than or equal to ${a.min}`, value);
      if (a.max !== undefined && value > a.max) this.err(path, `${label} must be less than or equal to ${a.max}`, value);
    }
    return this.errors.length === before ? value : null;
  }

  /**
   * A media value as Strapi 5.54 takes it (its entity manager writes media as relations to the file):
   * a file id, a documentId, a list of them or `{ id }`: the whole new list; `{ set }` (connect and
   * disconnect then ignored, no error); `{ connect, disconnect }`: links connected (positions ignored)
   * and disconnected, the others kept. Checked live.
   */
  private mediaValue(a: MediaAttr, v: unknown, path: string[]): MediaValue | null {
    if (v && typeof v === 'object' && !Array.isArray(v) && !('id' in v) && !('documentId' in v)) {
      // Its keys were checked with the body's (checkKeys).
      const o = v as Record<string, unknown>;
      if (o.set) {
        const refs = mediaRefs(o.set);
        return refs.every((r) => r.id !== undefined) ? { attr: a, ids: refs.map((r) => r.id!) } : { attr: a, ids: [], refs };
      }
      return { attr: a, ids: [], ops: { connect: mediaRefs(o.connect), disconnect: mediaRefs(o.disconnect) } };
    }
    if (v === null) return { attr: a, ids: [] };
    // A single media given a list takes its first file (Strapi 5.54, checked live: `cover: [2, 1]` is 2).
    const list = Array.isArray(v) ? (a.multiple ? v : v.slice(0, 1)) : [v];
    // Nulls are passed over, a file named twice is linked once, and an id no file has (0, -1) is one that
    // does not exist (Strapi 5.54, checked live).
    const refs: MediaRef[] = [];
    const seen = new Set<string>();
    for (const item of list) {
      if (item === null || item === undefined) continue;
      const o = typeof item === 'object' ? item as Record<string, unknown> : null;
      const doc = o ? o.documentId : item;
      let ref: MediaRef;
      if (typeof doc === 'string' && doc !== '' && !/^-?\d+$/.test(doc) && (!o || o.id === undefined)) ref = { documentId: doc };
      else {
        const n = storeId(o ? o.id : item);
        if (n === 'invalid') { this.invalidReference = true; return null; }
        if (n === undefined) { this.err(path, `${yupPath(path)} must be a file id or a list of file ids`, v); return null; }
        ref = { id: n };
      }
      const key = ref.id !== undefined ? `#${ref.id}` : ref.documentId!;
      if (!seen.has(key)) { seen.add(key); refs.push(ref); }
    }
    return refs.every((r) => r.id !== undefined) ? { attr: a, ids: refs.map((r) => r.id!) } : { attr: a, ids: [], refs };
  }

  /**
   * A morphToMany value: items `{__type, documentId}` or `{__type, id}` (positions name documents of
   * `position.__type`, else the item's type), as a list or with set/connect/disconnect. morphOne and
   * morphMany are written from the other side: only an empty value is accepted (Strapi fails on others).
   */
  private morph(a: MorphAttr, v: unknown, path: string[]): MorphOp | null {
    const label = yupPath(path);
    if (a.target) {
      if (v === null || (Array.isArray(v) && v.length === 0)) return null;
      // `__type` belongs to morphTo payloads: Strapi's unrecognized-key check names it here first (checked live).
      const items = Array.isArray(v) ? v : [v];
      if (items.some((x) => x && typeof x === 'object' && '__type' in x)) {
        throw invalidBodyKey('__type', path);
      }
      this.err(path, `${label} is written through the ${a.morphBy} attribute of ${a.target}, not from this side`, v);
      return null;
    }
    const ref = (x: unknown): MorphRef | null => {
      const o = x && typeof x === 'object' && !Array.isArray(x) ? x as Record<string, unknown> : null;
      const type = o?.__type;
      const ct = typeof type === 'string' ? this.schema.contentTypes.get(type) : undefined;
      if (!o || !ct || ct.builtin) {
        this.err(path, `${label} items need a "__type" naming a content-type${typeof type === 'string' ? ` (${type} is none)` : ''}`, x);
        return null;
      }
      const position = o.position && typeof o.position === 'object' ? o.position as MorphRef['position'] & { __type?: unknown } : undefined;
      if (position?.__type !== undefined && position.__type !== type) {
        this.err(path, `${label}: a position names an item of the same type`, x);
        return null;
      }
      const locale = typeof o.locale === 'string' ? o.locale : undefined;
      if (typeof o.documentId === 'string' && o.documentId) return { type: type as string, documentId: o.documentId, locale, position };
      if (typeof o.id === 'number' && Number.isSafeInteger(o.id) && o.id > 0) return { type: type as string, documentId: '', entityId: o.id, locale, position };
      this.err(path, `${label} has an invalid relation reference`, x);
      return null;
    };
    const refs = (x: unknown): MorphRef[] => (Array.isArray(x) ? x : x === undefined || x === null ? [] : [x]).map(ref).filter((r): r is MorphRef => r !== null);
    if (v === null) return { attr: a, set: [], connect: [], disconnect: [] };
    if (Array.isArray(v)) return { attr: a, set: refs(v), connect: [], disconnect: [] };
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if ('__type' in o) return { attr: a, set: refs(o), connect: [], disconnect: [] };
      // Strapi 5.54 ignores other keys of a morph payload and of its options (its traversal has no schema
      // for an object without `__type`; a relation's options are passed over too: checked live).
      // `set` wins: connect and disconnect beside it are passed over, unread (a relation's are still looked up;
      // no morph payload of Strapi 5.54's was checked with both).
      if (o.set !== undefined) return { attr: a, set: refs(o.set), connect: [], disconnect: [] };
      return { attr: a, set: undefined, connect: refs(o.connect), disconnect: refs(o.disconnect) };
    }
    this.err(path, `${label} has an invalid relation value`, v);
    return null;
  }

  private relation(a: RelationAttr, v: unknown, path: string[]): RelationOp | null {
    // An id names an entry (storeId); one Strapi's relations store cannot count makes its 'Invalid relations'.
    const byId = (id: unknown): RelRef | null | undefined => {
      const n = storeId(id);
      if (n === 'invalid') { this.invalidReference = true; return null; }
      return n === undefined ? undefined : { documentId: '', entityId: n };
    };
    const ref = (x: unknown): RelRef | null => {
      // A number, or a string of digits (documentIds never are), names an entry by its id.
      const id = byId(x);
      if (id !== undefined) return id;
      if (typeof x === 'string' && x) return { documentId: x };
      // A reference's `status` picks the target's version for a source without draft & publish (Strapi's getRelationTargetStatus).
      const status = (r: RelRef) => (typeof r.status === 'string' && r.status ? { status: r.status } : {});
      if (x && typeof x === 'object' && typeof (x as RelRef).documentId === 'string') {
        const r = x as RelRef;
        return { documentId: r.documentId, locale: r.locale ?? undefined, position: r.position, ...status(r) };
      }
      // An id given as a string of digits is that id (Strapi 5.54, checked live: `{ id: "1" }` links entry 1).
      const given = x && typeof x === 'object' ? byId((x as { id?: unknown }).id) : undefined;
      if (given === null) return null;
      if (given) return { ...given, locale: (x as RelRef).locale ?? undefined, position: (x as RelRef).position, ...status(x as RelRef) };
      this.err(path, `${yupPath(path)} has an invalid relation reference`, x);
      return null;
    };
    // A null among the references names nothing and is passed over (Strapi 5.54, checked live: `tags: [null, a]` links a).
    const refs = (x: unknown): RelRef[] => (Array.isArray(x) ? x : [x]).filter((y) => y !== undefined && y !== null).map(ref).filter((r): r is RelRef => r !== null);
    if (v === null) return { attr: a, set: [], connect: [], disconnect: [] };
    if (typeof v === 'string' || typeof v === 'number' || Array.isArray(v)) {
      return { attr: a, set: refs(v), connect: [], disconnect: [] };
    }
    if (typeof v === 'object') {
      const o = v as Record<string, unknown>;
      // Its keys were checked with the body's (checkKeys).
      if ('documentId' in o || 'id' in o) return { attr: a, set: refs(o), connect: [], disconnect: [] };
      // Strapi passes `options.strict` on as its orderer's flag: only a value given and falsy turns it off.
      const strict = isRecord(o.options) && o.options.strict !== undefined ? Boolean(o.options.strict) : true;
      // `set` wins: connect and disconnect beside it link nothing, though their references must name entries
      // (Strapi 5.54, checked live on a create and an update: `{ set: [a], connect: [b] }` links a; `{ set: [],
      // connect: ['zz'] }` is zz's "not found"). The writer reads `connect` only without `set`.
      return { attr: a, set: o.set !== undefined ? refs(o.set) : undefined, connect: refs(o.connect), disconnect: refs(o.disconnect), strict };
    }
    this.err(path, `${yupPath(path)} has an invalid relation value`, v);
    return null;
  }
}

/** Files a media `set`, `connect` or `disconnect` names (Strapi's toIdArray): ids, documentIds, `{ id }`, `{ documentId }`. */
function mediaRefs(x: unknown): MediaRef[] {
  const invalid = () => new ApiError(400, 'ValidationError', 'Invalid relations', { errors: [{ path: [], message: 'Invalid relations', name: 'ValidationError' }] });
  return (Array.isArray(x) ? x : x === undefined || x === null ? [] : [x]).map((item): MediaRef => {
    const o = typeof item === 'object' && item !== null && !Array.isArray(item) ? item as Record<string, unknown> : null;
    const v = o ? (o.id !== undefined ? o.id : o.documentId) : item;
    if (typeof v === 'number') {
      if (!Number.isInteger(v)) throw invalid();
      return { id: v };
    }
    if (typeof v === 'string' && /^-?\d{1,15}$/.test(v)) return { id: Number(v) };
    if (typeof v === 'string' && v !== '' && (!o || o.id === undefined)) return { documentId: v };
    throw invalid();
  });
}

/**
 * An update that publishes a draft & publish type: Strapi validates the stored draft as a whole (checked
 * live), so a required value the body left out and the draft lacks fails the publish, and nothing is
 * written. `missing`: the required attributes the body left out; scalars by their stored value, single
 * components by the draft having one.
 */
export function storedDraftErrors(schema: Schema, ct: ContentType, missing: Attribute[], stored: Record<string, unknown>, existing: ExistingComponents,
  instances: Map<string, Array<Record<string, unknown>>> = new Map()): FieldError[] {
  const v = new BodyValidator(schema, ct, false, null, false);
  for (const a of ct.attributes) {
    if (missing.includes(a)) {
      if (a.kind === 'scalar' && stored[a.column] === null) v.requireStored(a);
      else if (a.kind === 'component' && !a.repeatable && !existing.get(a.name)?.length) v.requireStored(a);
    }
    // A value the draft was written with passes the rules only a publish applies (checked live: a stored
    // slug that is no uid refuses the publish, and the body's update with it).
    if (publishOnly(a) && stored[a.column] !== undefined && stored[a.column] !== null) v.checkStored(a, stored[a.column]);
    // A stored component instance the body left as it was is validated as published too: its required values.
    const rows = a.kind === 'component' ? instances.get(a.name) : undefined;
    if (!rows || a.kind !== 'component') continue;
    const required = requiredScalars(schema.components.get(a.component));
    rows.forEach((row, i) => {
      for (const f of required) if (row[f.column] === null) v.requireStoredAt(f, a.repeatable ? [a.name, String(i), f.name] : [a.name, f.name]);
    });
  }
  return v.errors;
}

/** A scalar with rules a draft skips and its publish applies (min, minLength, regex, an email's or a uid's format). */
export function publishOnly(a: Attribute): a is ScalarAttr {
  return a.kind === 'scalar' && (a.min !== undefined || a.minLength !== undefined || a.regex !== undefined || a.type === 'email' || a.type === 'uid');
}

/** A component's required scalar fields (none for a component the schema lacks). */
export function requiredScalars(c: Component | undefined): ScalarAttr[] {
  return (c?.attributes ?? []).filter((x): x is ScalarAttr => x.kind === 'scalar' && x.required);
}

export function throwIfErrors(errors: FieldError[]): void {
  if (errors.length) throw fieldErrors(errors);
}

/**
 * A body key Strapi's unrecognized-key check refuses (its throwInvalidKey): named at the attribute path,
 * without list positions (`dz`, `block.items`).
 */
function invalidBodyKey(key: string, path: string[]): ApiError {
  const at = path.filter((p) => !/^\d+$/.test(p)).join('.');
  return new ApiError(400, 'ValidationError', `Invalid key ${key}${at && at !== key ? ` at ${at}` : ''}`, { key, path: at, source: 'body' });
}

/** A value of a failed required link naming a document: `shown.id` is its row's id once looked up. */
export interface ShownLink { target: string; documentId: string; shown: Record<string, unknown> }

/**
 * Strapi 5.54's relationRequiredFails: whether a required relation or media value leaves it empty. A
 * create needs something attached; an update fails only on a value that empties it (null, [], `set: []`,
 * or a to-one's disconnect alone); `connect: []` alone changes nothing.
 */
function linkRequiredFails(creating: boolean, v: unknown, toOne: boolean): boolean {
  const disconnectOnly = isRecord(v) && v.set == null && !(v.connect != null && (!Array.isArray(v.connect) || v.connect.length > 0))
    && v.disconnect != null && (!Array.isArray(v.disconnect) || v.disconnect.length > 0);
  if (creating && disconnectOnly) return true;
  if (!creating) {
    if (v === undefined) return false;
    if (disconnectOnly) return toOne;
    if (isRecord(v) && v.connect != null && v.set == null && Array.isArray(v.connect) && v.connect.length === 0) return false;
  }
  if (v === null || v === undefined) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isRecord(v)) {
    if (v.connect != null) return Array.isArray(v.connect) && v.connect.length === 0;
    if (v.set != null) return Array.isArray(v.set) && v.set.length === 0;
  }
  return false;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
