// Query parameters (the nested object from compiler/querystring.ts) → validated ReadQuery AST, with
// Strapi v5 semantics and error messages. Values are coerced by attribute type and pushed onto a
// parameter vector; only their positions enter the AST.
import type { QueryValue } from './querystring.ts';
import type {
  Attribute, ComponentAttr, ContentType, MorphAttr, RelationAttr, ScalarAttr, ScalarType, Schema, Component,
} from './schema.ts';
import { morphLinkable, visibleScalars, zoneComponents } from './schema.ts';
import type { ComponentSelection, FieldRef, Filter, LeadKey, MorphTarget, Operator, Pagination, Populate, PublicationMode, ReadQuery, Selection, SortTerm, SystemKey } from './ast.ts';
import { PUBLICATION_MODES, pageBounds } from './ast.ts';
import { ApiError, invalidKey, validation } from './errors.ts';
import { parseDate, parseDateTime, parseTime } from './dates.ts';
import { TEXT_TYPES, numericSearch, searchedFields } from './search.ts';
import type { DeferredError, LevelStep } from './deferred.ts';

export interface ReadLimits {
  defaultLimit: number;
  maxLimit: number;
  withCount: boolean;
  maxPopulateDepth: number;
  /** Most populated attributes in one read, every level counted (each morph type too); unset = no limit. */
  maxPopulate?: number;
  /**
   * Reads as Strapi's Query Engine (`strapi.db.query`) makes them: rows of every status and locale (no
   * default filter on either), private and password attributes selected and filtered on, populated
   * relations whatever their status.
   */
  rows?: boolean;
  /**
   * A request of the content API (REST, or a project controller's validateQuery): Strapi's controller
   * validates and sanitizes its query first, which refuses what its document service, called from project
   * code, webhooks or core services, takes — a nested `*` it expands (PopulateParser.wildcard), a populate
   * object under an attribute named `populate`, an indexed populate list past qs's arrayLimit. Per call
   * (Compiler.read's `contentApi`): the same compiler serves both.
   */
  contentApi?: boolean;
}

/** How many populates (lateral joins) a selection asks for, at every level. */
export function populateCount(sel: Selection | ComponentSelection): number {
  return countOf(sel.populate);
}

function countOf(list: Populate[]): number {
  let n = 0;
  for (const p of list) {
    n++;
    switch (p.kind) {
      case 'relation': case 'morphBy': case 'localizations': n += populateCount(p.select); break;
      case 'component': n += populateCount(p.select); break;
      case 'dynamiczone': for (const c of p.on.values()) n += 1 + populateCount(c); break;
      case 'morphTo': for (const t of [...p.types.map((x) => x.select), ...p.components?.values() ?? []]) n += 1 + populateCount(t); break;
      case 'media': n += countOf(p.populate ?? []); break;
    }
  }
  return n;
}

type Obj = { [key: string]: QueryValue };
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const OPERATORS = new Set<Operator>([
  '$eq', '$eqi', '$ne', '$nei', '$lt', '$lte', '$gt', '$gte', '$in', '$notIn', '$contains', '$notContains',
  '$containsi', '$notContainsi', '$null', '$notNull', '$between', '$startsWith', '$startsWithi', '$endsWith', '$endsWithi',
]);

/** users-permissions' user: its routes read as Strapi's database query does (PopulateParser.anyStatus). */
const USERS_TYPE = 'plugin::users-permissions.user';

/** Attributes Strapi has on every type but never exposes to the Content API. */
const HIDDEN = new Set(['createdBy', 'updatedBy']);
/** The attributes of Strapi's admin user, which createdBy/updatedBy relate to. */
const ADMIN_USER_KEYS = new Set(['id', 'documentId', 'firstname', 'lastname', 'username', 'email', 'password', 'resetPasswordToken',
  'registrationToken', 'isActive', 'roles', 'blocked', 'preferedLanguage', 'createdAt', 'updatedAt', 'publishedAt', 'createdBy', 'updatedBy', 'locale']);

/**
 * A hidden creator relation (createdBy/updatedBy) named in a query, refused as Strapi 5.54's validators
 * refuse it (checked live): a key the admin user lacks is named under the relation first, then its
 * password by its path, then the relation itself.
 */
function creatorKey(param: string, rel: string, path: string, under: string[]): ApiError {
  const unknown = under.find((k) => !k.startsWith('$') && !ADMIN_USER_KEYS.has(k));
  if (unknown !== undefined) return invalidKey(param, unknown, path);
  if (under.includes('password')) return invalidKey(param, 'password', `${path}.password`);
  return invalidKey(param, rel, path);
}

const SYSTEM_FIELDS: Record<string, FieldRef> = {
  id: { column: 'id', type: 'id' },
  documentId: { column: 'document_id', type: 'documentId' },
  createdAt: { column: 'created_at', type: 'systemDate' },
  updatedAt: { column: 'updated_at', type: 'systemDate' },
  publishedAt: { column: 'published_at', type: 'systemDate' },
};

/** The media library's file record as a filterable pseudo-type. */
export const FILE_FIELDS: Record<string, FieldRef> = {
  ...SYSTEM_FIELDS,
  name: { column: 'name', type: 'string' }, alternativeText: { column: 'alternative_text', type: 'string' },
  caption: { column: 'caption', type: 'string' }, width: { column: 'width', type: 'integer' },
  height: { column: 'height', type: 'integer' }, hash: { column: 'hash', type: 'string' }, ext: { column: 'ext', type: 'string' },
  mime: { column: 'mime', type: 'string' }, size: { column: 'size', type: 'decimal' }, url: { column: 'url', type: 'string' },
  previewUrl: { column: 'preview_url', type: 'string' }, provider: { column: 'provider', type: 'string' },
};
export const FILE_RECORD_KEYS = [
  'id', 'documentId', 'name', 'alternativeText', 'caption', 'focalPoint', 'width', 'height', 'formats', 'hash', 'ext', 'mime',
  'size', 'url', 'previewUrl', 'provider', 'provider_metadata', 'createdAt', 'updatedAt', 'publishedAt',
];

const EXTENDED_FILE = new WeakMap<Schema, { fields: Record<string, FieldRef>; keys: string[] }>();
/** The file's fields and record keys with the public scalars a project's extension added (schema.pluginRecords). */
function extendedFile(schema: Schema): { fields: Record<string, FieldRef>; keys: string[] } {
  const added = schema.pluginRecords?.file ? visibleScalars(schema.pluginRecords.file.added) : [];
  if (!added.length) return { fields: FILE_FIELDS, keys: FILE_RECORD_KEYS };
  let e = EXTENDED_FILE.get(schema);
  if (!e) {
    e = { fields: { ...FILE_FIELDS, ...Object.fromEntries(added.map((a) => [a.name, { column: a.column, type: a.type }])) }, keys: [...FILE_RECORD_KEYS, ...added.map((a) => a.name)] };
    EXTENDED_FILE.set(schema, e);
  }
  return e;
}
/** The file fields a filter or sort on files may name. */
export const fileFields = (schema: Schema): Record<string, FieldRef> => extendedFile(schema).fields;
/** The keys a populated media's `fields` may pick. */
export const fileRecordKeys = (schema: Schema): string[] => extendedFile(schema).keys;

export class ParamBuilder {
  readonly values: unknown[] = [];
  push(v: unknown): number { this.values.push(v); return this.values.length; }
}

// ---------------------------------------------------------------- value coercion

const INT = /^-?\d+$/;

function badValue(field: string, value: unknown): ApiError {
  return validation(`Invalid value ${JSON.stringify(value)} for ${field}`, { key: field, source: 'query', param: 'filters' });
}

/** Converts one query-string value to what PostgreSQL will receive for a column of this type. */
export function coerce(field: string, ref: FieldRef, raw: QueryValue): unknown {
  if (typeof raw !== 'string') throw badValue(field, raw);
  // Numbers and booleans as Strapi's database fields cast them (NumberField, BigIntegerField, BooleanField
  // toDB; checked live): what they cannot cast is Strapi's 500, a 400 here.
  switch (ref.type) {
    case 'id':
      if (!INT.test(raw)) throw badValue(field, raw);
      return raw;
    case 'integer': {
      const n = raw.trim() === '' ? NaN : Number(raw.trim());
      if (!Number.isInteger(n) || Math.abs(n) > 2147483647) throw badValue(field, raw);
      return String(n);
    }
    case 'biginteger': {
      const t = raw.trim();
      if (!/^[+-]?\d+$/.test(t)) throw badValue(field, raw);
      return BigInt(t).toString();
    }
    case 'float': case 'decimal': {
      const n = raw.trim() === '' ? NaN : Number(raw.trim());
      if (!Number.isFinite(n)) throw badValue(field, raw);
      return String(n);
    }
    case 'boolean':
      if (raw === 'true' || raw === 't' || raw === '1') return true;
      if (raw === 'false' || raw === 'f' || raw === '0') return false;
      // Any other text by JavaScript's truth: `x` and `FALSE` are true, only '' is false.
      return raw !== '';
    // Dates and times as Strapi's database layer parses them (its messages; checked live).
    case 'date': return parseDate(raw);
    case 'time': return parseTime(raw);
    case 'datetime': case 'timestamp': case 'systemDate': return parseDateTime(raw);
    default:
      return raw;
  }
}

const DATE_TYPES: ReadonlySet<string> = new Set(['date', 'time', 'datetime', 'timestamp', 'systemDate']);

/**
 * A list's values, converted in order. An object among them is refused, but only once every value is
 * converted: Strapi's database layer parses a date (the object's own values too) before the object
 * reaches its query, so an invalid date anywhere in the list is the error it answers (checked live).
 */
function coerceList(field: string, ref: FieldRef, list: QueryValue[]): unknown[] {
  let refused: ApiError | null = null;
  const leaves = (x: QueryValue): void => {
    if (typeof x === 'string') coerce(field, ref, x);
    else if (Array.isArray(x)) for (const y of x) leaves(y);
    else if (x && typeof x === 'object') for (const [k, y] of Object.entries(x)) if (k.startsWith('$')) leaves(y as QueryValue);
  };
  const out = list.map((x) => {
    if (typeof x === 'string') return coerce(field, ref, x);
    if (DATE_TYPES.has(ref.type)) leaves(x);
    refused ??= badValue(field, x);
    return null;
  });
  if (refused) throw refused;
  return out;
}

/** `{"a","b"}`: a PostgreSQL array literal of text elements, cast to the column's array type in SQL. */
export function pgArray(values: unknown[]): string {
  return `{${values.map((v) => `"${String(v).replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}

/** Operators that take a list themselves; any other given a list matches any of its values. */
const LIST_OPERATORS: ReadonlySet<Operator> = new Set<Operator>(['$in', '$notIn', '$between', '$eq']);
const TRUTHY = new Set(['true', 't', '1']);
const FALSY = new Set(['false', '0', 'f', '']);
/** Strapi's isBooleanLike (no empty string). */
const BOOLEAN_LIKE = new Set([...TRUTHY, 'false', 'f', '0']);

function bool(v: QueryValue, field: string): boolean {
  if (TRUTHY.has(v as string)) return true;
  if (FALSY.has(v as string)) return false;
  throw badValue(field, v);
}

// ---------------------------------------------------------------- filters

interface FilterScope {
  /** Fields addressable at this level. */
  field(name: string): FieldRef | null;
  attr(name: string): Attribute | null;
  path: string | null;
  /** Private and password attributes are addressable (the Query Engine's `where`; ReadLimits.rows). */
  open?: boolean;
  /** The content-type whose rows these are (a localized one's `localizations` are filterable). */
  ct?: ContentType;
}

/** A scalar a query may name: any with `open` (ReadLimits.rows), else one the Content API shows. */
const nameable = (a: Attribute | undefined, open: boolean): a is ScalarAttr => !!a && a.kind === 'scalar' && (open || (!a.private && a.type !== 'password'));
const scalarsOf = (attrs: Attribute[], open: boolean): ScalarAttr[] => (open ? attrs.filter((a): a is ScalarAttr => a.kind === 'scalar') : visibleScalars(attrs));

function typeScope(ct: ContentType, path: string | null, open = false): FilterScope {
  return {
    path, open,
    field: (name) => {
      if (Object.hasOwn(SYSTEM_FIELDS, name)) return SYSTEM_FIELDS[name];
      // Every content-type's row has its locale column (null without i18n): the Query Engine's `where` names it.
      if (name === 'locale' && (ct.localized || open)) return { column: 'locale', type: 'locale' };
      const a = ct.byName.get(name);
      return nameable(a, open) ? { column: a.column, type: a.type } : null;
    },
    attr: (name) => ct.byName.get(name) ?? null,
    ct,
  };
}

function componentScope(comp: Component, path: string | null, open = false): FilterScope {
  return {
    path, open,
    field: (name) => {
      if (name === 'id') return { column: 'id', type: 'id' };
      const a = comp.byName.get(name);
      return nameable(a, open) ? { column: a.column, type: a.type } : null;
    },
    attr: (name) => comp.byName.get(name) ?? null,
  };
}

function fileScope(schema: Schema, path: string | null): FilterScope {
  const fields = fileFields(schema);
  // Beyond its fields, the file's attributes that filters go through (a project's added relations, media and
  // components) or that Strapi names by their path (private ones); its other scalars stay unknown keys, as before.
  const attr = (n: string) => {
    const a = schema.files?.byName.get(n);
    return a && (a.kind !== 'scalar' || a.private) ? a : null;
  };
  return { path, field: (n) => (Object.hasOwn(fields, n) ? fields[n] : null), attr };
}

const join = (path: string | null, key: string) => (path ? `${path}.${key}` : key);

function listOf(v: QueryValue): QueryValue[] {
  if (Array.isArray(v)) return v;
  if (isObj(v)) return Object.values(v);
  return [v];
}

/**
 * An operand object Strapi drops: no key of it is an operator or something `scope` can filter on. Such an
 * object is what qs makes of a list past its array limit (`$in[0]…$in[100]`: 101 values, or an index over 100)
 * and of stray keys (`$eq[x]=y`). Strapi's validator passes it as an opaque operand and its filter converter
 * (convertAndSanitizeFilters) then removes its keys one by one, and with them the emptied operator and
 * attribute: the condition is gone, not refused (checked live: `filters[id][$in][101]=5` lists every row).
 */
function droppedOperand(v: QueryValue, scope: FilterScope): boolean {
  if (!isObj(v)) return false;
  return !Object.keys(v).some((k) => k.startsWith('$') || scope.field(k) !== null || scope.attr(k) !== null);
}

export class FilterParser {
  /**
   * `canRead`: relations to content-types the caller may not read are no filter keys (Strapi's validator).
   * `onValue`: where a value the database layer would refuse goes instead of being thrown (a populate's
   * filters: compiler/deferred.ts); it then stands as null, which matches nothing, and the parse goes on.
   */
  constructor(private schema: Schema, private params: ParamBuilder, private param = 'filters', private canRead: CanRead = () => true,
    private onValue?: (e: ApiError) => void) {}

  /** A parameter made from a value (`make` throws when the value is refused). */
  private value(make: () => unknown): number {
    if (!this.onValue) return this.params.push(make());
    let v: unknown;
    try { v = make(); } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      this.onValue(e);
      v = null;
    }
    return this.params.push(v);
  }

  private refused(e: ApiError): void {
    if (!this.onValue) throw e;
    this.onValue(e);
  }

  parse(value: QueryValue, scope: FilterScope): Filter | null {
    // A list is a group of its own whose conditions all hold, wherever it stands: `$or[1][0]…&$or[1][1]…`
    // is one alternative of the `$or` (Strapi's where builder, @strapi/database query/helpers/where.js).
    if (Array.isArray(value)) {
      const items = value.map((x) => this.parse(x, scope)).filter((x): x is Filter => x !== null);
      return items.length === 0 ? null : items.length === 1 ? items[0] : { t: 'and', items };
    }
    if (!isObj(value)) {
      if (value === '') return null;
      throw validation(`Invalid ${this.param} parameter: expected an object`, { source: 'query', param: this.param });
    }
    const items: Filter[] = [];
    for (const [key, v] of Object.entries(value)) {
      const f = this.entry(key, v, scope);
      if (f) items.push(f);
    }
    return items.length === 0 ? null : items.length === 1 ? items[0] : { t: 'and', items };
  }

  private entry(key: string, v: QueryValue, scope: FilterScope): Filter | null {
    if (key === '$and' || key === '$or') {
      if (droppedOperand(v, scope)) return null;
      const subs = listOf(v).map((x) => this.parse(x, scope)).filter((x): x is Filter => x !== null);
      if (subs.length === 0) return null;
      return { t: key === '$and' ? 'and' : 'or', items: subs };
    }
    if (key === '$not') {
      const sub = this.parse(v, scope);
      return sub ? { t: 'not', item: sub } : null;
    }
    if (key.startsWith('$')) throw invalidKey(this.param, key, scope.path);
    const field = scope.field(key);
    if (field) return this.fieldFilter(key, field, v, join(scope.path, key), scope);
    const attr = scope.attr(key);
    const path = join(scope.path, key);
    // i18n's `localizations` relation of a localized type to itself, joined by document: Strapi 5.54 filters
    // through every row of the document, the row itself and its other status too (checked live:
    // `filters[localizations][id][$eq]=<own id>` finds the row, `[publishedAt][$null]=true` every published one).
    // On a content-type without i18n the key is known and refused by its whole path, once the keys under it
    // passed as a relation to the type itself; their values are not read (checked live).
    if (!attr && key === 'localizations' && scope.ct) {
      const ct = scope.ct;
      const sub = () => this.relationSub(v, typeScope(ct, path, scope.open), key);
      if (!ct.localized) {
        try { sub(); } catch (e) {
          if (e instanceof ApiError && e.message.startsWith('Invalid key ')) throw e;
        }
        throw invalidKey(this.param, key, path);
      }
      const f = sub();
      return f ? { t: 'localizations', ct, sub: f, nullRowMatches: false } : null;
    }
    if (!attr && HIDDEN.has(key)) throw creatorKey(this.param, key, path, isObj(v) ? Object.keys(v) : []);
    // A private attribute is named by its whole path (checked live); an unknown key by its scope's.
    if (!attr || (attr.private && !scope.open)) throw invalidKey(this.param, key, attr || HIDDEN.has(key) ? path : scope.path);
    if ((attr.kind === 'relation' || attr.kind === 'morph') && attr.target && !this.canRead(attr.target) && !(attr.kind === 'relation' && attr.creator)) throw invalidKey(this.param, key, path);
    if (attr.kind === 'relation') {
      const target = this.schema.contentTypes.get(attr.target)!;
      const sub = this.relationSub(v, typeScope(target, path, scope.open), key);
      return sub ? { t: 'relation', attr, target, sub, nullRowMatches: matchesNullRow(sub) } : null;
    }
    if (attr.kind === 'morph' && attr.target) {
      // morphOne/morphMany filter through the rows linked back to this one (checked live); the
      // morphTo sides name no target type, so Strapi refuses them as keys.
      const target = this.schema.contentTypes.get(attr.target)!;
      const sub = this.relationSub(v, typeScope(target, path, scope.open), key);
      return sub ? { t: 'morph', attr, target, by: morphBy(this.schema, attr), sub, nullRowMatches: matchesNullRow(sub) } : null;
    }
    if (attr.kind === 'media') {
      const sub = this.relationSub(v, fileScope(this.schema, path), key);
      return sub ? { t: 'media', attr, sub, nullRowMatches: matchesNullRow(sub) } : null;
    }
    if (attr.kind === 'component') {
      const component = this.schema.components.get(attr.component)!;
      const sub = this.relationSub(v, componentScope(component, path, scope.open), key);
      return sub ? { t: 'component', attr, component, sub, nullRowMatches: matchesNullRow(sub) } : null;
    }
    // Dynamic zones (and anything else without columns) cannot be filtered, as in Strapi.
    throw invalidKey(this.param, key, path);
  }

  /** `filters[author]=3` means the related id, as in Strapi; objects are nested filters. */
  private relationSub(v: QueryValue, scope: FilterScope, key: string): Filter | null {
    // Operators alone (`filters[image][$notNull]=true`, `filters[author][$in][0]=3`) apply to the related
    // row's id, through the same LEFT JOIN (Strapi's processRelationWhere; `$and`/`$or`/`$not` stay groups
    // of the target's conditions).
    const ops = isObj(v) ? Object.keys(v) : [];
    const onId = ops.length > 0 && ops.every((k) => k.startsWith('$') && k !== '$and' && k !== '$or' && k !== '$not');
    if (isObj(v) && !onId) return this.parse(v, scope);
    const idRef = scope.field('id');
    if (!idRef) throw invalidKey(this.param, key, scope.path);
    return this.fieldFilter('id', idRef, v, join(scope.path, 'id'), scope);
  }

  /** `scope`: where the field is, which says what an operand object may name (droppedOperand). */
  private fieldFilter(name: string, field: FieldRef, v: QueryValue, path: string, scope: FilterScope): Filter | null {
    if (!isObj(v)) {
      // A list's objects (qs makes `[{$ne: 'a'}, 'b']` of `x[$ne]=a&x=b`) match no text in Strapi's where
      // (checked live: the list's other values still match); for other types Strapi answers 500, here a 400.
      if (Array.isArray(v)) return this.op(name, field, '$in', TEXT_TYPES.has(field.type) ? v.filter((x) => !isObj(x)) : v, path);
      return this.op(name, field, '$eq', v, path);
    }
    const items: Filter[] = [];
    for (const [op, val] of Object.entries(v)) {
      if (op === '$not') {
        const sub = this.fieldFilter(name, field, val, path, scope);
        if (sub) items.push({ t: 'not', item: sub });
      } else if (op === '$and' || op === '$or') {
        if (droppedOperand(val, scope)) continue;
        const subs = listOf(val).map((x) => this.fieldFilter(name, field, x, path, scope)).filter((x): x is Filter => x !== null);
        if (subs.length) items.push({ t: op === '$and' ? 'and' : 'or', items: subs });
      } else if (OPERATORS.has(op as Operator)) {
        // `$null`/`$notNull` cast any object to true before Strapi's converter looks at objects.
        if (op !== '$null' && op !== '$notNull' && droppedOperand(val, scope)) continue;
        const f = this.op(name, field, op as Operator, val, path);
        if (f) items.push(f);
      } else {
        // `id` is no attribute in Strapi's schema: under it, an unknown key is named at its parent's path (checked live).
        throw invalidKey(this.param, op, name === 'id' ? (path === 'id' ? null : path.slice(0, -'.id'.length)) : path);
      }
    }
    return items.length === 0 ? null : items.length === 1 ? items[0] : { t: 'and', items };
  }

  private op(name: string, field: FieldRef, op: Operator, v: QueryValue, path: string): Filter {
    if (op === '$null' || op === '$notNull') {
      // Strapi casts the value to a boolean first (parseType with forceCast): `true|t|1` and `false|f|0`
      // as they say, any other text by JavaScript's truth (only '' is false), and any list or object is
      // true. The boolean decides the SQL (IS NULL / IS NOT NULL), so it is part of the plan's shape.
      const yes = typeof v === 'string' ? !FALSY.has(v) : true;
      const isNull = op === '$null' ? yes : !yes;
      return { t: 'cmp', field, op: isNull ? '$null' : '$notNull', param: 0 };
    }
    // Strapi's where builder: a list given to an operator that takes one value means any of them.
    if (Array.isArray(v) && !LIST_OPERATORS.has(op)) {
      const items = v.map((x) => this.op(name, field, op, x, path));
      return items.length === 1 ? items[0] : { t: 'or', items };
    }
    switch (op) {
      case '$in': case '$notIn': {
        const list = listOf(v);
        // Sent as one PostgreSQL array literal (text): the driver never guesses the element type.
        return { t: 'cmp', field, op, param: this.value(() => pgArray(coerceList(path, field, list))) };
      }
      case '$between': {
        if (!Array.isArray(v) || v.length !== 2) {
          this.refused(validation(`$between on ${name} expects an array of two values`, { key: '$between', path, source: 'query', param: this.param }));
          const a = this.params.push(null);
          this.params.push(null);
          return { t: 'cmp', field, op, param: a };
        }
        const a = this.value(() => coerce(path, field, v[0]));
        this.value(() => coerce(path, field, v[1]));
        return { t: 'cmp', field, op, param: a };
      }
      case '$contains': case '$notContains': case '$containsi': case '$notContainsi':
      case '$startsWith': case '$startsWithi': case '$endsWith': case '$endsWithi': {
        return { t: 'cmp', field, op, param: this.value(() => {
          if (typeof v !== 'string') throw badValue(path, v);
          const esc = v.replace(/[\\%_]/g, '\\$&');
          return op.startsWith('$startsWith') ? `${esc}%` : op.startsWith('$endsWith') ? `%${esc}` : `%${esc}%`;
        }) };
      }
      case '$eqi': case '$nei':
        return { t: 'cmp', field, op, param: this.value(() => { if (typeof v !== 'string') throw badValue(path, v); return v; }) };
      default: {
        // `$eq` with a list is any of them: `$in`, one array parameter whatever the list's length.
        if (Array.isArray(v)) return this.op(name, field, '$in', v, path);
        return { t: 'cmp', field, op, param: this.value(() => coerce(path, field, v)) };
      }
    }
  }
}

/**
 * Whether a filter holds for a missing related row (all fields null): Strapi's LEFT JOIN semantics,
 * evaluated in SQL's three-valued logic (null = unknown, which does not match).
 */
export function matchesNullRow(f: Filter): boolean {
  return nullRow(f) === true;
}

function nullRow(f: Filter): boolean | null {
  switch (f.t) {
    case 'and': {
      const v = f.items.map(nullRow);
      return v.includes(false) ? false : v.every((x) => x === true) ? true : null;
    }
    case 'or': {
      const v = f.items.map(nullRow);
      return v.includes(true) ? true : v.every((x) => x === false) ? false : null;
    }
    case 'not': { const v = nullRow(f.item); return v === null ? null : !v; }
    case 'cmp': return f.op === '$null' ? true : f.op === '$notNull' ? false : null;
    case 'const': return f.value;
    // On the row itself: a null related row is no row of this type.
    case 'publication': return false;
    default: return f.nullRowMatches;
  }
}

/**
 * Strapi applies `$not` to the rows its LEFT JOINs produce, so a negated condition on a relation holds
 * when some related row fails it (and, with no related row, when the condition is false on nulls): the
 * negation is pushed into relations, components and media (De Morgan through and/or).
 */
export function joinedNot(f: Filter): Filter {
  switch (f.t) {
    case 'and': case 'or': return { t: f.t, items: f.items.map(joinedNot) };
    case 'not': return negateJoined(f.item);
    case 'relation': case 'media': case 'component': case 'morph': case 'localizations': return { ...f, sub: joinedNot(f.sub) };
    default: return f;
  }
}

function negateJoined(f: Filter): Filter {
  switch (f.t) {
    case 'and': return { t: 'or', items: f.items.map(negateJoined) };
    case 'or': return { t: 'and', items: f.items.map(negateJoined) };
    case 'not': return joinedNot(f.item);
    case 'relation': case 'media': case 'component': case 'morph': {
      const sub = negateJoined(f.sub);
      return { ...f, sub, nullRowMatches: matchesNullRow(sub) };
    }
    case 'localizations': return { ...f, sub: negateJoined(f.sub) };
    default: return { t: 'not', item: f };
  }
}

// ---------------------------------------------------------------- sort

const DIRECTIONS = new Set(['asc', 'desc', 'ASC', 'DESC']);

function badOrder(): ApiError {
  return validation('Invalid order. order can only be one of asc|desc|ASC|DESC');
}

export function parseSort(schema: Schema, ct: ContentType, value: QueryValue | undefined, open = false): SortTerm[] {
  return parseSortIn(schema, typeScope(ct, null, open), ct.draftAndPublish ? ct.table : null, value, open);
}

/** A sort in `scope` (a content-type's, or the media library file's); `statusTable`: where the virtual `status` key sorts. */
function parseSortIn(schema: Schema, scope: FilterScope, statusTable: string | null, value: QueryValue | undefined, open = false): SortTerm[] {
  if (value === undefined || value === '') return [];
  const terms: Array<[string[], boolean]> = [];
  const known = (name: string): boolean => !!(scope.field(name) || scope.attr(name) || HIDDEN.has(name) || (name === 'status' && statusTable));
  const visit = (v: QueryValue) => {
    if (typeof v === 'string') {
      for (const part of v.split(',')) {
        const s = part.trim();
        if (!s) continue;
        const [name, dir = 'asc', extra] = s.split(':');
        if (extra !== undefined || !DIRECTIONS.has(dir)) throw badOrder();
        terms.push([name.split('.'), dir.toLowerCase() === 'desc']);
      }
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (isObj(v)) {
      // An object's keys are attributes, its numeric ones too (qs makes an object of `sort[0]=a&sort[x]=asc`
      // or of an index over 100): Strapi names the first unknown key before it reads any direction (checked live).
      const unknownKey = Object.keys(v).find((k) => !known(k));
      if (unknownKey !== undefined) throw invalidKey('sort', unknownKey, null);
      for (const [k, sub] of Object.entries(v)) objectSort(k, sub, []);
    }
  };
  const objectSort = (key: string, v: QueryValue, prefix: string[]) => {
    if (typeof v === 'string') {
      if (!DIRECTIONS.has(v)) throw badOrder();
      terms.push([[...prefix, key], v.toLowerCase() === 'desc']);
    } else if (isObj(v)) {
      for (const [k, sub] of Object.entries(v)) objectSort(k, sub, [...prefix, key]);
    } else throw badOrder();
  };
  visit(value);
  // Strapi 5.54 refuses a key the type does not have before a private or password one (checked live:
  // `sort[0]=password&sort[2]=nope` names `nope`).
  const unknown = terms.find(([names]) => !known(names[0]));
  if (unknown) throw invalidKey('sort', unknown[0][0], null);
  return terms.map(([names, desc]) => sortTerm(schema, scope, statusTable, names, desc, open));
}

/** GraphQL's `sort` of a repeatable component's instances: its own fields (`name`, `red:desc`). */
export function parseComponentSort(comp: Component, value: QueryValue | undefined): SortTerm[] {
  const out: SortTerm[] = [];
  const scope = componentScope(comp, null);
  for (const v of value === undefined ? [] : Array.isArray(value) ? value : [value]) {
    if (typeof v !== 'string') continue;
    for (const part of v.split(',')) {
      const s = part.trim();
      if (!s) continue;
      const [name, dir = 'asc', extra] = s.split(':');
      if (extra !== undefined || !DIRECTIONS.has(dir)) throw badOrder();
      const field = scope.field(name);
      if (!field) throw invalidKey('sort', name, null);
      out.push({ path: [], field, desc: dir.toLowerCase() === 'desc' });
    }
  }
  return out;
}

function sortTerm(schema: Schema, root: FilterScope, statusTable: string | null, names: string[], desc: boolean, open: boolean): SortTerm {
  // Strapi 5.54's virtual sort key of a draft & publish type (its validator and order-by helper).
  if (names.length === 1 && names[0] === 'status' && statusTable) {
    return { path: [], field: { column: 'id', type: 'id', status: { table: statusTable } }, desc };
  }
  const path: SortTerm['path'] = [];
  let scope: FilterScope = root;
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    const field = scope.field(name);
    if (field && i === names.length - 1) return { path, field, desc };
    const attr = scope.attr(name);
    const p = i === 0 ? null : names.slice(0, i).join('.');
    if (!attr && HIDDEN.has(name)) throw creatorKey('sort', name, names.slice(0, i + 1).join('.'), names.slice(i + 1, i + 2));
    // A private attribute exists: Strapi names its own path; an unknown one the path it was looked up in.
    if (!attr || (attr.private && !open)) throw invalidKey('sort', name, attr ? names.slice(0, i + 1).join('.') : p);
    if (attr.kind === 'relation') {
      // Through a to-many relation an entry sorts by its first value in the direction asked (checked live).
      path.push(attr);
      scope = typeScope(schema.contentTypes.get(attr.target)!, names.slice(0, i + 1).join('.'), open);
    } else if (attr.kind === 'component' && !attr.repeatable) {
      path.push(attr);
      scope = componentScope(schema.components.get(attr.component)!, names.slice(0, i + 1).join('.'), open);
    } else if (attr.kind === 'media') {
      // Through a media field to its file's fields, as through a relation (checked live: `sort=image.name`).
      path.push(attr);
      scope = fileScope(schema, names.slice(0, i + 1).join('.'));
    } else throw invalidKey('sort', name, names.slice(0, i + 1).join('.'));
  }
  // A relation is not a field: Strapi reads `owner:asc` as a field `asc` of the relation (checked live).
  const last = path[path.length - 1];
  if (last?.kind === 'relation' || last?.kind === 'media') throw invalidKey('sort', desc ? 'desc' : 'asc', names.join('.'));
  return { path, field: { column: 'id', type: 'id' }, desc };
}

// ---------------------------------------------------------------- pagination

/** lodash's toNumber, as Strapi's pagination reads its values: blank is 0 (`pagination[pageSize]=` is one row). */
function toNumber(v: QueryValue | undefined): number {
  if (typeof v !== 'string') return NaN;
  return Number(v);
}

/**
 * `pagination.withCount` as Strapi's services read it (the document service's shouldCount, the upload
 * service's findPage): a boolean, or one of its six spellings; anything else is refused in their words.
 */
export function serviceWithCount(w: unknown): boolean {
  if (typeof w === 'boolean') return w;
  if (['true', 't', '1', 1].includes(w as string | number)) return true;
  if (['false', 'f', '0', 0].includes(w as string | number)) return false;
  throw validation('Invalid withCount parameter. Expected "t","1","true","false","0","f"');
}

export function parsePagination(value: QueryValue | undefined, limits: ReadLimits): Pagination {
  const p = isObj(value) ? value : {};
  const has = (k: string) => p[k] !== undefined;
  // Read as Strapi's REST service reads it (shouldCount), in its words; its own check runs after the
  // page's (below), as Strapi counts after reading the page.
  const counted = () => (p.withCount === undefined ? limits.withCount : serviceWithCount(p.withCount));
  const pageMode = has('page') || has('pageSize');
  const offsetMode = has('start') || has('limit');
  if (pageMode && offsetMode) throw new ApiError(400, 'PaginationError', 'Cannot use both page & offset pagination in the same query', {});
  if (offsetMode) {
    let start = has('start') ? toNumber(p.start) : 0;
    let limit = has('limit') ? toNumber(p.limit) : limits.defaultLimit;
    if (!Number.isInteger(start)) throw validation(`convertStartQueryParams expected a positive integer got ${start}`);
    if (!Number.isInteger(limit)) throw validation(`convertLimitQueryParams expected a positive integer got ${limit}`);
    start = Math.max(0, start);
    // Strapi 5.54 answers one row for a limit below 1, -1 too (checked live; v4 read -1 as "no limit").
    limit = Math.min(Math.max(limit, 1), limits.maxLimit);
    if (start > Number.MAX_SAFE_INTEGER) throw offsetOutOfRange();
    return { mode: 'offset', start, limit, withCount: counted() };
  }
  // Strapi's withDefaultPagination: the page size bounded (a size that is no number takes the maximum),
  // the page turned into an offset; the document service then wants integers, naming the offset.
  const page = has('page') ? toNumber(p.page) : 1;
  const size = has('pageSize') ? Math.max(1, toNumber(p.pageSize)) : limits.defaultLimit;
  const pageSize = size < limits.maxLimit ? size : limits.maxLimit;
  const offset = Math.max((page - 1) * pageSize, 0);
  if (!Number.isInteger(offset)) throw validation(`convertStartQueryParams expected a positive integer got ${offset}`);
  if (!Number.isInteger(pageSize)) throw validation(`convertLimitQueryParams expected a positive integer got ${pageSize}`);
  if (offset > Number.MAX_SAFE_INTEGER) throw offsetOutOfRange();
  return { mode: 'page', page: offset / pageSize + 1, pageSize, withCount: counted() };
}

/**
 * A page whose offset is no exact integer (`pagination[page]=1e300`, which Strapi's integer check lets
 * through): refused as the database refused it when the offset was a parameter (a 400 naming a number out of
 * range), since the offset is written into the statement's text (pageBounds()).
 */
const offsetOutOfRange = () => new ApiError(400, 'ValidationError', 'A number is out of range', {});

// ---------------------------------------------------------------- fields & populate

const TIMESTAMP_FIELDS = ['createdAt', 'updatedAt', 'publishedAt'] as const;

function fieldList(v: QueryValue | undefined, path: string | null = null): string[] | null {
  if (v === undefined) return null;
  const out: string[] = [];
  for (const item of listOf(v)) {
    if (typeof item !== 'string') throw validation('Invalid fields parameter', { source: 'query', param: 'fields' });
    // An empty name is no field (Strapi 5.54 refuses `fields[0]=` so; `fields=` failed there with a 500).
    if (item === '') throw invalidKey('fields', '', path);
    for (const s of item.split(',')) if (s.trim()) out.push(s.trim());
  }
  return out;
}

/**
 * Whether Strapi's select for a query's `fields` holds `locale` (its convertFieldsQueryParams: none or `*` is
 * every column). For a query already checked (fieldList refuses what it cannot read).
 */
export function selectsLocale(fieldsRaw: QueryValue | undefined): boolean {
  const names = fieldList(fieldsRaw);
  return names === null || names.includes('*') || names.includes('locale');
}

function selection(ct: ContentType, fieldsRaw: QueryValue | undefined, path: string | null, open = false): Selection {
  const names = fieldList(fieldsRaw, path);
  const all = scalarsOf(ct.attributes, open);
  // Beside `*` the other names are still checked (a password or private attribute is a 400; checked live).
  if (names?.includes('*')) for (const n of names) if (n !== '*') fieldName(ct, all, n, path);
  if (names === null || names.includes('*')) {
    return {
      fields: all, withLocale: ct.localized, populate: [],
      withTimestamps: { createdAt: true, updatedAt: true, publishedAt: true },
    };
  }
  const fields: ScalarAttr[] = [];
  const ts = { createdAt: false, updatedAt: false, publishedAt: false };
  let withLocale = false;
  const named: string[] = [];
  for (const n of names) {
    if (n === 'id' || n === 'documentId') continue;
    if (!named.includes(n)) named.push(n);
    if ((TIMESTAMP_FIELDS as readonly string[]).includes(n)) { ts[n as keyof typeof ts] = true; continue; }
    if (n === 'locale' && ct.localized) { withLocale = true; continue; }
    const a = fieldName(ct, all, n, path)!;
    if (!fields.includes(a)) fields.push(a);
  }
  return { fields, withLocale, withTimestamps: ts, populate: [], named };
}

/** The attribute a `fields` name selects (null for a system field); a 400 for any other name. */
function fieldName(ct: ContentType, all: ScalarAttr[], n: string, path: string | null): ScalarAttr | null {
  if (n === 'id' || n === 'documentId' || (TIMESTAMP_FIELDS as readonly string[]).includes(n) || (n === 'locale' && ct.localized)) return null;
  const a = all.find((x) => x.name === n);
  // Checked live: an attribute that is no field (a relation, a password) is named by its path, an unknown key by its parent's.
  if (!a) throw invalidKey('fields', n, ct.byName.has(n) || HIDDEN.has(n) ? (path ? `${path}.${n}` : n) : path);
  return a;
}

function componentSelection(comp: Component, fieldsRaw: QueryValue | undefined, path: string | null, open = false): ComponentSelection {
  const names = fieldList(fieldsRaw, path);
  const all = scalarsOf(comp.attributes, open);
  const field = (n: string) => {
    const a = all.find((x) => x.name === n);
    if (!a) throw invalidKey('fields', n, comp.byName.has(n) ? (path ? `${path}.${n}` : n) : path);
    return a;
  };
  if (names?.includes('*')) for (const n of names) if (n !== '*' && n !== 'id') field(n);
  if (names === null || names.includes('*')) return { component: comp, fields: all, populate: [] };
  const fields: ScalarAttr[] = [];
  for (const n of names) if (n !== 'id') fields.push(field(n));
  return { component: comp, fields, populate: [] };
}

/** `populate` in any of its forms → a map of attribute name → nested spec (true = defaults). */
/** Populate maps written in the object form (`populate[seo][populate]=…`): Strapi orders their nested entries by the model. */
const OBJECT_FORM = new WeakSet<Map<string, QueryValue | true>>();

/**
 * A populate given as dotted paths (`a.b,c` or a list of such strings), which Strapi checks up front.
 * Any string but `*` is one, at every level: `populate=true` (or `[populate]=true` under a relation, a
 * component, a zone's fragment) names an attribute `true`, which Strapi 5.54 refuses (checked live);
 * `true` is a populate entry's value only (`populate[seo]=true`).
 */
function isDotNotation(v: QueryValue | undefined): v is string | string[] {
  // What normalizePopulate reads as none or everything is no path.
  if (v === undefined || v === '*' || v === '') return false;
  if (typeof v === 'string') return true;
  return Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string');
}

/**
 * Strapi 5.54's check of dotted populate paths (@strapi/utils validate/validators.js,
 * validatePopulateDotPathSegments): each segment names a populatable attribute; only components,
 * relations (not morphTo sides) and dynamic zones lead further; through a zone, the next segment must
 * lead on in one of its components. Errors name the path from the start of the string.
 */
function checkDotPaths(schema: Schema, model: ContentType | Component, v: string | string[], parent: string | null = null): void {
  for (const item of Array.isArray(v) ? v : [v]) {
    for (const part of item.split(',').map((x) => x.trim()).filter(Boolean)) {
      checkDotSegments(schema, model, part.split('.').map((x) => x.trim()).filter(Boolean), '', parent);
    }
  }
}

function checkDotSegments(schema: Schema, model: ContentType | Component, segments: string[], prefix: string, parent: string | null = null): void {
  if (!segments.length) return;
  const [head, ...tail] = segments;
  const full = prefix ? `${prefix}.${head}` : head;
  // A private relation passes the path check and fails Strapi's private check, which names the whole path.
  if ('privateRelations' in model && model.privateRelations?.has(head)) throw invalidKey('populate', head, parent ? `${parent}.${full}` : full);
  // A localized type's `localizations` is a relation to itself in Strapi's model.
  if (head === 'localizations' && 'localized' in model && model.localized) return checkDotSegments(schema, model, tail, full);
  const a = model.byName.get(head);
  if (!a || a.kind === 'scalar') throw invalidKey('populate', head, full);
  if (!tail.length) return;
  switch (a.kind) {
    case 'component': return checkDotSegments(schema, schema.components.get(a.component)!, tail, full);
    case 'relation': return checkDotSegments(schema, schema.contentTypes.get(a.target)!, tail, full);
    case 'morph':
      if (!a.target) throw invalidKey('populate', head, full);
      return checkDotSegments(schema, schema.contentTypes.get(a.target)!, tail, full);
    case 'dynamiczone': {
      const [next, ...rest] = tail;
      const nextPath = `${full}.${next}`;
      const candidates = a.components.map((uid) => schema.components.get(uid)!).filter((c) => c.byName.has(next));
      for (const c of candidates) {
        const n = c.byName.get(next)!;
        if (!rest.length) return;
        try {
          if (n.kind === 'component') return checkDotSegments(schema, schema.components.get(n.component)!, rest, nextPath);
          if (n.kind === 'relation') return checkDotSegments(schema, schema.contentTypes.get(n.target)!, rest, nextPath);
        } catch { /* the next component of the zone may lead on */ }
      }
      throw invalidKey('populate', next, nextPath);
    }
    default: throw invalidKey('populate', head, full);
  }
}

/** Where a parse keeps the first error of Strapi's query conversion (null: a part its sanitizer removes first). */
interface Conversion {
  error: ApiError | null;
  /** The document service's own check of the sanitized query (validateParams), which comes before its conversion. */
  params?: ApiError | null;
}

/** Nested populates made from a dotted path (`a.b`): their errors keep naming the whole path. */
const DOTTED = new WeakSet<Obj>();

/**
 * The path errors of a nested populate name: an object populate (or one made from a dotted path) goes
 * on from its parent's; a string or list is validated from scratch (null), as Strapi does.
 */
function nestedPath(parent: Obj, path: string): string | null {
  return isObj(parent.populate) || DOTTED.has(parent) ? path : null;
}

/** A populate entry's check kept in its place among the entries (PopulateParser.forType). */
type Later = () => void;

/** The keys a populated attribute's object takes beside attribute names (Strapi's populate keywords). */
const POPULATE_KEYWORDS = new Set(['populate', 'fields', 'filters', 'sort', 'count', 'on']);

/**
 * A type or component with an attribute named `populate`: Strapi 5.54's populate traversal then takes a
 * nested `populate` object there for that attribute, not for its keyword, and its validator refuses the
 * object's first key as an unknown operator, by its attribute path through `populate` (checked live).
 */
function checkPopulateNamedAttribute(owner: ContentType | Component, populate: QueryValue | undefined, parent: Obj, path: string): void {
  if (!owner.byName.has('populate') || !isObj(populate) || DOTTED.has(parent)) return;
  for (const key of Object.keys(populate)) {
    if (POPULATE_KEYWORDS.has(key) || BOOLEAN_LIKE.has(key)) continue;
    throw invalidKey('populate', key, owner.byName.has(key) ? `${path}.populate.${key}` : `${path}.populate`);
  }
}

/**
 * A key of a populate object that is no attribute but boolean-like (`populate[true]=…`): Strapi's
 * validator passes it over as a keyword and its conversion finds nothing to populate (checked live).
 */
function passedOver(name: string, spec: Map<string, QueryValue | true>): boolean {
  return BOOLEAN_LIKE.has(name) && OBJECT_FORM.has(spec);
}

/** Runs a nested validation whose errors Strapi reports under the parameter `populate`. */
function asPopulate<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw e instanceof ApiError ? populateError(e) : e;
  }
}

/** An error of a populate's fields, sort or filters names the parameter `populate`, as Strapi's. */
function populateError(e: ApiError): ApiError {
  const d = e.details as { param?: unknown } | undefined;
  if (d && (d.param === 'fields' || d.param === 'sort' || d.param === 'filters')) d.param = 'populate';
  return e;
}

/** qs's arrayLimit in Strapi's query parser (strapi::query), and its populate traversal's own limit. */
export const QS_ARRAY_LIMIT = 100;

function normalizePopulate(v: QueryValue | undefined, path: string | null, contentApi: boolean): Map<string, QueryValue | true> | '*' | null {
  if (v === undefined || v === '' || v === 'false') return null;
  if (v === '*' || v === 'true') return '*';
  const out = new Map<string, QueryValue | true>();
  const addDotted = (s: string) => {
    for (const item of s.split(',')) {
      const name = item.trim();
      if (!name) continue;
      if (name === '*') { out.set('*', true); continue; }
      const [head, ...rest] = name.split('.');
      if (rest.length === 0) { if (!out.has(head)) out.set(head, true); continue; }
      // `seo.shareImage` = populate[seo][populate][shareImage]; merge with siblings of the same head. A
      // later path goes before the earlier ones, as Strapi's populate processing prepends it
      // (@strapi/database query/helpers/populate/process.js): `header.logoText,header.ctaButton`
      // populates, and answers, ctaButton first (checked live).
      const prev = out.get(head);
      const nested: Obj = isObj(prev) ? prev : {};
      const inner = nested.populate;
      const list: string[] = typeof inner === 'string' ? [inner] : Array.isArray(inner) ? inner.filter((x): x is string => typeof x === 'string') : [];
      if (isObj(inner)) { (inner as Obj)[rest.join('.')] = 'true'; nested.populate = inner; }
      else nested.populate = [rest.join('.'), ...list];
      DOTTED.add(nested);
      out.set(head, nested);
    }
  };
  if (typeof v === 'string') addDotted(v);
  else if (Array.isArray(v)) {
    for (const item of v) {
      if (typeof item === 'string') addDotted(item);
      else throw invalidKey('populate', JSON.stringify(item), path);
    }
  } else {
    const entries = Object.entries(v);
    // qs makes an object of an indexed list past its arrayLimit; Strapi 5.54 then names the cause
    // rather than reading `0`, `1`… as attributes (its populate traversal's own limit of 100).
    if (contentApi && entries.length > QS_ARRAY_LIMIT && entries.every(([k, x], i) => k === String(i) && typeof x === 'string')) {
      throw validation(`Too many populate entries (${entries.length}). The maximum number of populate entries when using array notation is ${QS_ARRAY_LIMIT}. Consider using object notation (populate[field]=true), nested population, or reducing the number of fields.`, { source: 'query', param: 'populate' });
    }
    // Any other object's keys are attribute names, numbers included (qs's object for an index past its
    // limit, or beside a named key): `0` and `1` are boolean-like and passed over, `2`… are unknown keys
    // (Strapi 5.54, checked live: populate[0]=nope&populate[category]=true populates the category only,
    // populate[2]=author&populate[category]=true is "Invalid key 2").
    OBJECT_FORM.add(out);
    for (const [k, sub] of entries) {
      // `*` is a populate value, never an attribute's key (checked live: populate[*]=true is a 400).
      if (k === '*' && contentApi) throw invalidKey('populate', '*', path);
      // Strapi reads a populate entry's value as a boolean (`true|false|t|f|1|0`) or `*`.
      if (sub === 'false' || sub === 'f' || sub === '0' || sub === false as unknown) continue;
      // `*` stays itself: it populates like true, except a morphTo side, which Strapi then leaves out.
      out.set(k, sub === 'true' || sub === 't' || sub === '1' ? true : sub);
    }
  }
  if (out.size === 1 && out.has('*')) return '*';
  return out;
}

/** Which content-types the caller may read: populated relations to the others are left out, as Strapi. */
export type CanRead = (uid: string) => boolean;

/** Whether a filter reaches other tables (Strapi joins them). */
function joinsIn(f: Filter | null): boolean {
  if (!f) return false;
  if (f.t === 'and' || f.t === 'or') return f.items.some(joinsIn);
  if (f.t === 'not') return joinsIn(f.item);
  return f.t !== 'cmp' && f.t !== 'const';
}

const SYSTEM_KEYS: Record<string, SystemKey> = { id: 'id', document_id: 'documentId', created_at: 'createdAt', updated_at: 'updatedAt', published_at: 'publishedAt', locale: 'locale' };

/**
 * A DISTINCT query of Strapi's (a populated relation's; a list whose filters join) selects its sort columns
 * first, selected or not (its query builder's processSelect), and the answer keeps them, in that order
 * (checked live). A sort through a relation or component takes Strapi's other path, which selects none.
 * (The `status` sort is an expression, selected last and never answered.)
 */
function leadWithSort(select: Selection, sort: SortTerm[], ct: ContentType, open: boolean): void {
  if (sort.some((t) => t.path.length > 0)) return;
  const leading: LeadKey[] = [];
  for (const t of sort) {
    if (t.field.status) continue;
    const key = t.field.type === 'id' || t.field.type === 'documentId' || t.field.type === 'systemDate' || t.field.type === 'locale'
      ? SYSTEM_KEYS[t.field.column] ?? null
      : scalarsOf(ct.attributes, open).find((f) => f.column === t.field.column) ?? null;
    if (key && !(key === 'locale' && !ct.localized) && !leading.includes(key)) leading.push(key);
  }
  if (leading.length) select.leading = leading;
}

/** A media populate's leading keys (leadWithSort's rule): the file record keys its plain sort names. */
function fileLeading(schema: Schema, sort: SortTerm[]): string[] {
  if (sort.some((t) => t.path.length > 0)) return [];
  const fields = Object.entries(fileFields(schema));
  return [...new Set(sort.flatMap((t) => fields.filter(([, f]) => f.column === t.field.column).map(([k]) => k).slice(0, 1)))];
}

/** The morphTo attribute a morphOne/morphMany reads its links through. */
function morphBy(schema: Schema, a: MorphAttr): MorphAttr {
  return schema.contentTypes.get(a.target!)!.byName.get(a.morphBy!) as MorphAttr;
}

export class PopulateParser {
  /**
   * `converting`: where the first error of Strapi's query conversion is kept (it converts only a query it
   * validated whole); null for a populate it validates and then removes (its sanitizer runs before the
   * conversion, whose errors it then never reaches).
   */
  constructor(private schema: Schema, private params: ParamBuilder, private limits: ReadLimits, private canRead: CanRead = () => true, private converting: Conversion | null = { error: null }) {}

  /**
   * Levels under a morphOne/morphMany: Strapi's output sanitizer does not go into its value, so the rows
   * there keep their `locale` column, `null` on a non-localized type, unless `fields` names what they answer
   * (checked live: a tag's comments, and their subject rendered as a tag). Rows, not components or files.
   */
  private unsanitized = 0;
  private keepLocale(select: Selection): Selection {
    if (this.unsanitized && !select.named) select.withLocale = true;
    return select;
  }
  /** `parse` of a level under a morphOne/morphMany (unsanitized above). */
  private unsanitizedLevel<T>(parse: () => T): T {
    this.unsanitized++;
    try { return parse(); } finally { this.unsanitized--; }
  }

  /**
   * Populated relations read every linked row, drafts included: users-permissions' user routes read with
   * Strapi's database query, which knows no status (checked live: a user's links to both versions of a
   * draft & publish document answer both).
   */
  anyStatus = false;

  /** Private and password attributes selected and filtered on at every level (ReadLimits.rows). */
  private get open(): boolean { return !!this.limits.rows; }

  /** `publicationFilter`: Strapi applies its cohort to every populated draft & publish type too. */
  publication: PublicationMode | null = null;

  /**
   * Populate filter values Strapi's database layer refuses only where the level above has rows
   * (compiler/deferred.ts), in the order met.
   */
  deferred: DeferredError[] = [];
  /**
   * What a refused populate filter value does: `defer` it (a populate that is read); `drop` it (one Strapi
   * validates and then removes or passes over, never converting its values: under a relation the caller
   * may not read, a zone's fragment for a component it cannot hold; checked live); `throw` it (a
   * populate under a `count`, which Strapi converts and fails on with a 500; here a 400).
   */
  values: 'defer' | 'drop' | 'throw' = 'defer';
  /** Where the parse is: the keys from the answer's rows down to the attribute being parsed. */
  private at: LevelStep[] = [];


  /** Strapi converts a query only once it validated all of it: the first conversion error, for after. */
  get conversionError(): ApiError | null { return this.converting?.params ?? this.converting?.error ?? null; }

  /**
   * `populate[author]=*`: Strapi 5.54's sanitizer expands the `*` into `{ avatar: true, articles: true }`
   * (no `populate` around it), drops what the caller may not see (private attributes, relations to types
   * it may not read), and the document service refuses the first key left as an unknown operator
   * ("Invalid key avatar at author.avatar", without source or param). Nothing left: populated as `true`.
   */
  private wildcard(target: ContentType | Component | undefined, path: string): void {
    if (!this.converting || !this.limits.contentApi || this.open || !target) return;
    const key = this.expanded(target)[0];
    if (key) this.converting.params ??= validation(`Invalid key ${key} at ${path}.${key}`, { key, path: `${path}.${key}` });
  }

  /** What a `*` under an attribute of this kind expands into: its target's attributes (a file's for media). */
  private targetOf(a: Attribute): ContentType | Component | undefined {
    if (a.kind === 'component') return this.schema.components.get(a.component);
    if (a.kind === 'media') return this.schema.files;
    return (a.kind === 'relation' || a.kind === 'morph') && a.target ? this.schema.contentTypes.get(a.target) : undefined;
  }

  /** The attributes the sanitizer's expansion of `*` keeps, in the schema's order (a content-type's creators, then localizations, come last). */
  private expanded(t: ContentType | Component): string[] {
    const names = t.attributes.filter((x) => this.survives(x)).map((x) => x.name);
    if (!('kind' in t)) return names;
    for (const c of t.creators ?? []) names.push(c.name);
    if (t.localized && this.canRead(t.uid)) names.push('localizations');
    return names;
  }

  /** Left after the sanitizer: no private attribute, no relation to a type the caller may not read (creators always). */
  private survives(x: Attribute): boolean {
    if (x.kind === 'scalar' || x.private) return false;
    if (x.kind === 'relation') return x.creator || this.canRead(x.target);
    if (x.kind === 'morph' && x.target) return this.canRead(x.target);
    return true;
  }

  forType(ct: ContentType, sel: Selection, v: QueryValue | undefined, depth: number, path: string | null, status: 'published' | 'draft', owner: string | null = path): void {
    if (isDotNotation(v)) checkDotPaths(this.schema, ct, v, owner);
    const spec = normalizePopulate(v, path, !!this.limits.contentApi);
    if (!spec) return;
    if (depth > this.limits.maxPopulateDepth) {
      throw validation(`populate is nested deeper than the limit of ${this.limits.maxPopulateDepth}`, { source: 'query', param: 'populate', path });
    }
    // In the object's order, each entry validated in full before the next is looked at (a later unknown key
    // comes after an earlier entry's own error, as in Strapi's traversal): `later` holds a check in its place.
    const entries: Array<[Attribute | 'localizations', QueryValue | true] | Later> = [];
    if (spec === '*') {
      for (const a of ct.attributes) if (a.kind !== 'scalar' && (!a.private || this.open)) entries.push([a, true]);
      // Every content-type has localizations in Strapi's database layer (private without i18n): the Query Engine reads them.
      if (ct.localized || this.open) entries.push(['localizations', true]);
      for (const a of ct.creators ?? []) entries.push([a, true]);
    } else {
      for (const [name, sub] of spec) {
        if (name === '*') { for (const a of [...ct.attributes, ...ct.creators ?? []]) if (a.kind !== 'scalar' && (!a.private || this.open) && !spec.has(a.name)) entries.push([a, true]); continue; }
        if (name === 'localizations' && (ct.localized || this.open)) { entries.push(['localizations', sub]); continue; }
        const a = ct.byName.get(name);
        if (!a && passedOver(name, spec)) continue;
        if (!a && OBJECT_FORM.has(spec) && POPULATE_KEYWORDS.has(name)) { entries.push(() => this.levelKeyword(ct, name, sub, depth, path, status)); continue; }
        // Checked live: an attribute that cannot be populated is named by its path; an unknown key of the
        // object form by its parent's (a dotted path names itself).
        if (!a || (a.private && !this.open) || a.kind === 'scalar') {
          const e = invalidKey('populate', name, !a && OBJECT_FORM.has(spec) ? path : path ? `${path}.${name}` : name);
          entries.push(() => { throw e; });
          continue;
        }
        entries.push([a, sub]);
      }
    }
    for (const entry of entries) {
      if (typeof entry === 'function') { entry(); continue; }
      const [a, sub] = entry;
      const subPath = path ? `${path}.${a === 'localizations' ? a : a.name}` : a === 'localizations' ? a : a.name;
      // Left out of the answer but validated all the same: Strapi refuses an invalid populate under a
      // relation the caller may not read (its sanitizer then removes it, before the query conversion)
      // and under a role's users (removed from the output only: converted too). Checked live.
      if (a !== 'localizations' && (a.kind === 'relation' || a.kind === 'morph') && a.target && !this.canRead(a.target) && !(a.kind === 'relation' && a.creator)) {
        this.validateOnly(ct.uid, a, sub, depth, subPath, status, null);
        continue;
      }
      if (a !== 'localizations' && a.kind === 'relation' && a.neverAnswered) {
        this.validateOnly(ct.uid, a, sub, depth, subPath, status, this.converting);
        continue;
      }
      if (a === 'localizations') {
        // A relation of the type to itself in Strapi's model: its fields, filters, sort and populate apply;
        // a name is read as its keys, as for any relation (attributeAt).
        if (sub !== true && sub !== '*' && !isObj(sub)) throw invalidKey('populate', String(sub), ct.byName.has(String(sub)) ? `${subPath}.${String(sub)}` : subPath);
        const o = isObj(sub) ? sub : {};
        if (sub === '*') this.wildcard(ct, subPath);
        for (const k of Object.keys(o)) if (!['populate', 'fields', 'filters', 'sort'].includes(k)) throw invalidKey('populate', k, subPath);
        this.at.push({ key: 'localizations' });
        try { sel.populate.push({ kind: 'localizations', ...this.related(ct, o, depth, subPath, status, this) }); } finally { this.at.pop(); }
        continue;
      }
      const p = this.attribute(ct.uid, a, sub, depth, subPath, status);
      if (p && a.kind === 'relation' && a.creator && !sel.named) (sel.inlineCreators ??= []).push(p);
      // A morphTo side kept in the row's own columns is read from them: with `fields`, Strapi's database
      // layer selects the fields named, not those columns, and the side is null (checked live).
      else if (p?.kind === 'morphTo' && p.attr.columns && sel.named) sel.populate.push({ ...p, unmatched: true });
      else if (p) sel.populate.push(p);
    }
    // In their columns' order, whatever order the populate named them in.
    sel.inlineCreators?.sort((x, y) => (x.kind === 'relation' && x.attr.name === 'createdBy' ? 0 : 1) - (y.kind === 'relation' && y.attr.name === 'createdBy' ? 0 : 1));
  }

  /**
   * A populate keyword among a type's attribute names (`populate[fields]=…`, `populate[author][populate][sort]=…`):
   * Strapi 5.54's populate traversal validates it as that level's own `fields`, `sort`, `filters`,
   * `populate`, `count` or `on`, and its query conversion then ignores it (checked live: populate[fields][0]=title
   * answers every field, populate[populate]=author populates nothing, populate[sort]=x is "Invalid key x").
   */
  private levelKeyword(model: ContentType | Component, key: string, v: QueryValue | true, depth: number, path: string | null, status: 'published' | 'draft'): void {
    if (v === true) return;
    const comp = 'kind' in model ? null : model;
    switch (key) {
      case 'fields': asPopulate(() => comp ? componentSelection(comp, v, null, this.open) : selection(model as ContentType, v, null, this.open)); return;
      case 'sort': asPopulate(() => comp ? parseComponentSort(comp, v) : parseSort(this.schema, model as ContentType, v, this.open)); return;
      case 'filters':
        // Only the query conversion minds a filters value that is no object, and it skips the keyword.
        if (!isObj(v) && !Array.isArray(v)) return;
        // Validated only: its values are never converted.
        asPopulate(() => new FilterParser(this.schema, new ParamBuilder(), 'filters', this.canRead, () => {})
          .parse(v, comp ? componentScope(comp, null, this.open) : typeScope(model as ContentType, null, this.open)));
        return;
      case 'populate': {
        if (comp) {
          // A component's nested populate string is checked from the component, as a path of its own (checked live).
          if (isDotNotation(v)) checkDotPaths(this.schema, comp, v);
          else if (isObj(v)) this.scratch(this.converting).component(comp, { populate: v }, depth, path ?? '', status);
          return;
        }
        const sel: Selection = { fields: [], withLocale: false, withTimestamps: { createdAt: false, updatedAt: false, publishedAt: false }, populate: [] };
        this.scratch(this.converting).forType(model as ContentType, sel, v, depth + 1, path, status);
        return;
      }
      case 'count': if (!BOOLEAN_LIKE.has(v as string)) throw invalidKey('populate', 'count', path); return;
      case 'on': {
        // Named by the traversal's own path, through the level's `populate` (checked live).
        const at = path ? `${path}.populate.on` : 'on';
        if (!isObj(v)) throw invalidKey('populate', 'on', at);
        for (const uid of Object.keys(v)) {
          if (!this.schema.contentTypes.has(uid) && !this.schema.components.has(uid)) throw invalidKey('populate', uid, `${at}.${uid}`);
        }
      }
    }
  }

  /**
   * A populated attribute's `filters`, validated as a query of its own. A value that is neither an object
   * nor a list passes the validator and fails Strapi 5.54's query conversion, with its own words and no
   * details (checked live: populate[author][filters]=x).
   */
  private populateFilters(f: QueryValue | undefined, scope: () => FilterScope): Filter | null {
    if (f === undefined) return null;
    if (!isObj(f) && !Array.isArray(f) && f !== '') {
      if (this.converting) this.converting.error ??= validation('The filters parameter must be an object or an array', {});
      return null;
    }
    // The attribute's rows are read for the level above it (`at` ends with the attribute).
    const level = this.at.slice(0, -1).map((step) => ({ ...step }));
    const onValue = this.values === 'throw' ? undefined : this.values === 'drop' ? () => {} : (e: ApiError) => { this.deferred.push({ error: populateError(e), level }); };
    return asPopulate(() => new FilterParser(this.schema, this.params, 'filters', this.canRead, onValue).parse(f, scope()));
  }

  /** A parser for populates parsed for their errors only: its parameters go to a builder of its own, not the statement's. */
  private scratch(converting: Conversion | null, values: 'drop' | 'throw' = converting === null || this.values === 'drop' ? 'drop' : 'throw'): PopulateParser {
    const p = new PopulateParser(this.schema, new ParamBuilder(), this.limits, this.canRead, converting);
    p.values = values;
    p.anyStatus = this.anyStatus;
    return p;
  }

  private validateOnly(owner: string, a: Attribute, sub: QueryValue | true, depth: number, path: string, status: 'published' | 'draft', converting: Conversion | null): void {
    this.scratch(converting).attribute(owner, a, sub, depth, path, status);
  }

  /**
   * What a relation (or morphOne/morphMany) to `target` reads: Strapi validates its fields, filters, sort
   * and a populate string or list as queries of their own (errors name the key from there, no parent
   * path, under the parameter `populate`; checked live); an object populate goes on with the path.
   * `nested` parses the populate under it (a scratch parser where no row is answered).
   */
  private related(target: ContentType, o: Obj, depth: number, path: string, status: 'published' | 'draft', nested: PopulateParser): { select: Selection; where: Filter | null; sort: SortTerm[] } {
    const select = this.keepLocale(asPopulate(() => selection(target, o.fields, null, this.open)));
    if (this.limits.contentApi) checkPopulateNamedAttribute(target, o.populate, o, path);
    nested.forType(target, select, o.populate, depth + 1, nestedPath(o, path), status, path);
    const parsed = this.populateFilters(o.filters, () => typeScope(target, null, this.open));
    const sort = asPopulate(() => parseSort(this.schema, target, o.sort, this.open));
    leadWithSort(select, sort, target, this.open);
    return { select, where: parsed && joinedNot(parsed), sort };
  }

  /** The populate of one attribute; null when Strapi leaves the attribute out of the response. */
  /** `owner`: the uid of the content-type or component the attribute belongs to. */
  private attribute(owner: string, a: Attribute, given: QueryValue | true, depth: number, path: string, status: 'published' | 'draft'): Populate | null {
    this.at.push({ key: a.name });
    try { return this.attributeAt(owner, a, given, depth, path, status); } finally { this.at.pop(); }
  }

  private attributeAt(owner: string, a: Attribute, given: QueryValue | true, depth: number, path: string, status: 'published' | 'draft'): Populate | null {
    if (given === '*' && a.kind === 'morph' && !a.target) return null;
    if (given === '*' && a.kind !== 'dynamiczone') this.wildcard(this.targetOf(a), path);
    const sub = given === '*' ? true : given;
    const o: Obj = isObj(sub) ? sub : {};
    if (sub !== true && !isObj(sub)) {
      // A name: Strapi's validator reads it as keys of the target (checked live: `populate[category]=articles`
      // is `Invalid key articles at category.articles`, `=nope` `Invalid key nope at category`); a zone's
      // conversion takes it as an object of its characters; a morph with no target populates nothing.
      if (a.kind === 'morph' && !a.target) return null;
      if (a.kind === 'dynamiczone') {
        if (this.converting) this.converting.error ??= validation(`Invalid nested populate for ${owner.split('.').pop()}.${a.name} (${owner}). Expected a fragment ("on") or "count" but found ${JSON.stringify(sub)}`, {});
        return this.attributeAt(owner, a, true, depth, path, status);
      }
      throw invalidKey('populate', String(sub), this.targetOf(a)?.byName.has(String(sub)) ? `${path}.${String(sub)}` : path);
    }
    for (const k of Object.keys(o)) {
      if (!POPULATE_KEYWORDS.has(k)) throw invalidKey('populate', k, path);
    }
    // Strapi 5.54's populate validator, at any populated attribute: `count` is boolean-like, `on` an
    // object whose keys name models (content-types or components).
    if (o.count !== undefined && !BOOLEAN_LIKE.has(o.count as string)) throw invalidKey('populate', 'count', path);
    if (o.on !== undefined) {
      if (!isObj(o.on)) throw invalidKey('populate', 'on', `${path}.on`);
      for (const uid of Object.keys(o.on)) {
        if (!this.schema.contentTypes.has(uid) && !this.schema.components.has(uid)) throw invalidKey('populate', uid, `${path}.on.${uid}`);
      }
      // Then its query conversion: fragments belong to dynamic zones and morphTo sides only.
      if (this.converting && a.kind !== 'dynamiczone' && !(a.kind === 'morph' && !a.target)) {
        this.converting.error ??= validation(`Using fragments is not permitted to populate "${a.name}" in "${owner}"`, {});
      }
    }
    switch (a.kind) {
      case 'relation': {
        const target = this.schema.contentTypes.get(a.target)!;
        const count = o.count !== undefined && TRUTHY.has(o.count as string);
        // A count answers no rows: what is populated under it is validated only (no parameter of the statement's).
        const { select, where, sort } = this.related(target, o, depth, path, status, count ? this.scratch(this.converting) : this);
        return { kind: 'relation', attr: a, target, select, where: withPublication(where, this.publication, status, target), sort, count, status: target.draftAndPublish && !this.anyStatus ? status : null };
      }
      case 'morph': return this.morph(a, sub, o, depth, path, status);
      case 'media': {
        const listed = fieldList(o.fields);
        if (listed) for (const n of listed) if (n !== '*' && !fileRecordKeys(this.schema).includes(n)) throw invalidKey('populate', n, HIDDEN.has(n) ? n : null);
        // `*` picks every field, as no `fields` does (Strapi 5.54, checked live).
        const names = listed?.includes('*') ? null : listed;
        // A nested populate goes through the file's attributes as a relation's through its target's (checked live).
        // Its `filters` keep the files that pass them (Strapi 5.54: a single media failing them reads null; checked live).
        const parsed = this.populateFilters(o.filters, () => fileScope(this.schema, null));
        const where = parsed ? { where: joinedNot(parsed) } : {};
        // Its `sort` orders the files, and as any populate's leads their keys (checked live).
        const sort = asPopulate(() => parseSortIn(this.schema, fileScope(this.schema, null), null, o.sort));
        const sorted = sort.length ? { sort, leading: fileLeading(this.schema, sort) } : {};
        const files = this.schema.files;
        if (o.populate === undefined || !files) return { kind: 'media', attr: a, fields: names, ...where, ...sorted };
        const sel: Selection = { fields: [], withLocale: false, withTimestamps: { createdAt: false, updatedAt: false, publishedAt: false }, populate: [] };
        this.forType(files, sel, o.populate, depth + 1, nestedPath(o, path), status);
        return { kind: 'media', attr: a, fields: names, ...where, ...sorted, ...(sel.populate.length ? { populate: sel.populate } : {}) };
      }
      case 'component': {
        const comp = this.schema.components.get(a.component)!;
        // `count` answers `{"count": n}`, the instances it holds (0 or 1 for a single one; Strapi 5.54, checked
        // live); what is asked under it is validated only.
        if (o.count !== undefined && TRUTHY.has(o.count as string)) {
          return { kind: 'component', attr: a, select: this.scratch(this.converting).component(comp, o, depth, path, status), count: true };
        }
        return { kind: 'component', attr: a, select: this.component(comp, o, depth, path, status) };
      }
      case 'dynamiczone': {
        const on = new Map<string, ComponentSelection>();
        if (o.on !== undefined) {
          for (const [uid, csub] of Object.entries(o.on)) {
            const comp = this.schema.components.get(uid);
            // A fragment for a model the zone cannot hold (another component, a content-type) reads nothing
            // and refuses nothing (Strapi 5.54, checked live: `on[shared.seo]` alone answers `"blocks": []`);
            // a component's fragment is still validated as a query of its own. Only a draft can hold a
            // component outside the zone's list (zoneComponents).
            if (!comp) continue;
            // `on[uid]=*`: the sanitizer's expansion of the component's `*`, refused as for a relation (checked
            // live: "Invalid key point at sections.point", from the zone's path, for the first such fragment;
            // also for a component the zone cannot hold).
            if (csub === '*') this.wildcard(comp, path);
            const held = (status === 'draft' ? zoneComponents(this.schema, a) : a.components).includes(uid);
            // Strapi's error paths skip the fragment (`on.<uid>`): they go on from the zone's.
            const sel = this.inZone(uid, () => (held ? this : this.scratch(this.converting, 'drop')).component(comp, isObj(csub) ? csub : {}, depth, path, status, false, true));
            if (held) on.set(uid, sel);
          }
        } else {
          // Strapi's query conversion takes nothing but `populate`, `on` and `count` for a zone (and reads
          // `*` as a string's keys: checked live).
          if (this.converting && (given === '*' || Object.keys(o).some((k) => !['populate', 'on', 'count'].includes(k)))) {
            this.converting.error ??= validation(`Invalid nested populate for ${owner.split('.').pop()}.${a.name} (${owner}). Expected a fragment ("on") or "count" but found ${JSON.stringify(given === '*' ? given : o)}`, {});
          }
          // Shared strategy: the same nested populate applies to every component of the zone. Strapi
          // 5.54 takes only `*` there (its validator refuses anything else for a dynamic zone or morphTo).
          // (A dotted path through the zone, `blocks.label`, was checked with the whole string: checkDotPaths.)
          if (o.populate !== undefined && o.populate !== '*' && !(DOTTED.has(o) && Array.isArray(o.populate))) throw invalidKey('populate', 'populate', path);
          // Only a draft can hold a component outside the zone's list (a publish leaves them out): a published
          // read names the zone's own, so its statement stays the size of the zone.
          for (const uid of status === 'draft' ? zoneComponents(this.schema, a) : a.components) {
            const comp = this.schema.components.get(uid)!;
            on.set(uid, this.inZone(uid, () => this.component(comp, { ...o, fields: undefined as unknown as QueryValue, filters: undefined as unknown as QueryValue }, depth, path, status, true)));
          }
        }
        return { kind: 'dynamiczone', attr: a, on };
      }
      default:
        throw invalidKey('populate', a.name, path);
    }
  }

  /** A dynamic zone's component: what is populated under it is read for that component's entries only. */
  private inZone<T>(uid: string, f: () => T): T {
    const step = this.at[this.at.length - 1];
    step.component = uid;
    try { return f(); } finally { delete step.component; }
  }

  private component(comp: Component, o: Obj, depth: number, path: string, status: 'published' | 'draft', lenient = false, inZone = lenient): ComponentSelection {
    // As a relation's: fields, filters and a populate string or list are validated as queries of their own.
    const sel = asPopulate(() => componentSelection(comp, o.fields, null, this.open));
    if (o.sort !== undefined) {
      sel.sort = asPopulate(() => parseComponentSort(comp, o.sort));
      // A dynamic zone's fragment (`on`) keeps its keys in place (checked live; its items keep the zone's order).
      sel.leadSort = !inZone;
    }
    const parsed = this.populateFilters(o.filters, () => componentScope(comp, null, this.open));
    if (parsed) sel.where = joinedNot(parsed);
    const at = nestedPath(o, path);
    if (this.limits.contentApi) checkPopulateNamedAttribute(comp, o.populate, o, path);
    if (!lenient && isDotNotation(o.populate)) checkDotPaths(this.schema, comp, o.populate);
    const spec = normalizePopulate(o.populate, at, !!this.limits.contentApi);
    if (!spec) return sel;
    if (depth + 1 > this.limits.maxPopulateDepth) {
      throw validation(`populate is nested deeper than the limit of ${this.limits.maxPopulateDepth}`, { source: 'query', param: 'populate', path });
    }
    const entries: Array<[Attribute, QueryValue | true] | Later> = [];
    if (spec === '*') {
      for (const a of comp.attributes) if (a.kind !== 'scalar' && !a.private) entries.push([a, true]);
    } else {
      for (const [name, sub] of spec) {
        const a = comp.byName.get(name);
        if (!a && passedOver(name, spec)) continue;
        if (!a && !lenient && OBJECT_FORM.has(spec) && POPULATE_KEYWORDS.has(name)) { entries.push(() => this.levelKeyword(comp, name, sub, depth + 1, at, status)); continue; }
        if (!a || a.kind === 'scalar' || a.private) {
          // In a dynamic zone's shared populate a key need only exist on some of its components.
          if (lenient) continue;
          const e = invalidKey('populate', name, !a && OBJECT_FORM.has(spec) ? at : at ? `${at}.${name}` : name);
          entries.push(() => { throw e; });
          continue;
        }
        entries.push([a, sub]);
      }
    }
    for (const entry of entries) {
      if (typeof entry === 'function') { entry(); continue; }
      const [a, sub] = entry;
      const subPath = at ? `${at}.${a.name}` : a.name;
      if (a.kind === 'relation' && !this.canRead(a.target)) { this.validateOnly(comp.uid, a, sub, depth + 1, subPath, status, null); continue; }
      const p = this.attribute(comp.uid, a, sub, depth + 1, subPath, status);
      if (p) sel.populate.push(p);
    }
    return sel;
  }

  /**
   * Polymorphic relations. morphOne/morphMany read like a relation to their target; their default
   * selection includes `locale` even on a non-localized target (Strapi 5.54 answers `"locale": null`
   * there: it reads the target's rows without the relation sanitizer). A morphTo side renders each
   * linked row as its own type's default selection plus `__type`; only `true`/`*` and `on` (per type:
   * `fields`, `populate`) shape it — with anything else Strapi leaves the attribute out (checked live).
   */
  private morph(a: MorphAttr, sub: QueryValue | true, o: Obj, depth: number, path: string, status: 'published' | 'draft'): Populate | null {
    if (a.target) {
      const target = this.schema.contentTypes.get(a.target)!;
      const { select, where, sort } = this.unsanitizedLevel(() => this.related(target, o, depth, path, status, this));
      const by = morphBy(this.schema, a);
      // Checked live: `populate[comments][fields][0]=body` answers `[]` (a morphOne null).
      const unmatched = !!by.columns && !!select.named;
      return { kind: 'morphBy', attr: a, target, by, select, where, sort, status: target.draftAndPublish && !this.anyStatus ? status : null, ...(unmatched ? { unmatched } : {}) };
    }
    // Strapi 5.54's validator refuses a morphTo's nested populate other than `*` (as a dynamic zone's).
    if (o.populate !== undefined && o.populate !== '*') throw invalidKey('populate', 'populate', path);
    if (sub !== true && Object.keys(o).some((k) => k !== 'on')) return null;
    const types: MorphTarget[] = [];
    const components = new Map<string, ComponentSelection>();
    if (o.on !== undefined) {
      for (const [uid, tsub] of Object.entries(o.on)) {
        const comp = this.schema.components.get(uid);
        if (comp) {
          // A component's rows linked to the file (its media): `fields` and `populate` as a zone fragment's.
          const t: Obj = isObj(tsub) ? tsub : {};
          for (const k of Object.keys(t)) if (k !== 'fields' && k !== 'populate') throw invalidKey('populate', k, `${path}.on.${uid}`);
          components.set(uid, this.component(comp, t, depth, path, status));
          continue;
        }
        const ct = this.schema.contentTypes.get(uid);
        if (!ct || !morphLinkable(ct)) throw invalidKey('populate', uid, `${path}.on.${uid}`);
        const t: Obj = isObj(tsub) ? tsub : {};
        for (const k of Object.keys(t)) if (k !== 'fields' && k !== 'populate') throw invalidKey('populate', k, `${path}.on.${uid}`);
        // A type the caller may not read is validated, then left out (with scratch parameters).
        const parser = this.canRead(uid) ? this : this.scratch(null);
        const select = this.keepLocale(asPopulate(() => selection(ct, t.fields, null, this.open)));
        // As a dynamic zone's fragments: error paths go on from the attribute's.
        parser.forType(ct, select, t.populate, depth + 1, nestedPath(t, path), status);
        if (parser === this) types.push({ ct, select });
      }
    } else {
      for (const ct of this.schema.contentTypes.values()) if (morphLinkable(ct) && this.canRead(ct.uid)) types.push({ ct, select: this.keepLocale(selection(ct, undefined, path, this.open)) });
    }
    return { kind: 'morphTo', attr: a, types, ...(components.size ? { components } : {}) };
  }
}

// ---------------------------------------------------------------- _q

/** Strapi's `_q`: some searched column contains the text, case-insensitively, escaped as Strapi escapes it (`*`, `%`, `\`). */
function searchFilter(ct: ContentType, v: QueryValue, params: ParamBuilder): Filter {
  if (typeof v !== 'string') throw validation('Invalid _q parameter: expected a string', { source: 'query', param: '_q' });
  const param = params.push(`%${v.replace(/[*%\\]/g, '\\$&')}%`);
  const or: Filter = { t: 'or', items: searchedFields(ct, numericSearch(v)).map((field): Filter => ({ t: 'cmp', field, op: '$containsi', param })) };
  // The search document holds whenever the OR does (compiler/search.ts): a trigram index can answer it.
  return { t: 'and', items: [{ t: 'cmp', field: { column: '', type: 'text', searchOf: ct }, op: '$containsi', param }, or] };
}

// ---------------------------------------------------------------- the whole query

/**
 * Strapi 5.54's `publicationFilter` (and the deprecated `hasPublishedVersion`, true or false: the
 * document-wide cohorts), refused in its words when it names none.
 */
function publicationMode(q: Obj): PublicationMode | null {
  const v = q.publicationFilter;
  if (v !== undefined) {
    if (typeof v === 'string' && (PUBLICATION_MODES as readonly string[]).includes(v)) return v as PublicationMode;
    throw validation(`Invalid value for 'publicationFilter'. Expected one of: ${PUBLICATION_MODES.join(', ')}.`, { source: 'query', param: 'publicationFilter' });
  }
  const h = q.hasPublishedVersion;
  if (h === undefined) return null;
  if (h === 'true') return 'has-published-version-document';
  if (h === 'false') return 'never-published-document';
  throw validation("Invalid value for 'hasPublishedVersion'. Expected boolean or 'true'/'false' string.");
}

/** The top-level query keys Strapi 5.54's content API takes with `api.rest.strictParams` (ALLOWED_QUERY_PARAM_KEYS), in its order. */
export const STRICT_KEYS: readonly string[] = ['filters', 'sort', 'fields', 'populate', 'status', 'locale', 'page', 'pageSize', 'start', 'limit', '_q',
  'publicationFilter', 'hasPublishedVersion', 'pagination', 'count', 'ordering'];
const STRICT_KEY_SET = new Set(STRICT_KEYS);

/**
 * A route's own query params (a project's `strapi.contentAPI.addQueryParams`): `api.rest.strictParams` lets
 * them through, and `check` refuses a value their schema does not take (after the unknown keys, before the
 * rest of the query). `id` names the set in plan cache keys (src/project/content-api-params.ts).
 */
export interface RouteQueryParams {
  readonly id: string;
  readonly keys: ReadonlySet<string>;
  check(q: Obj): void;
}

/**
 * `api.rest.strictParams`: any other top-level key is refused by name before the query is looked at
 * further (its publicationFilter's value alone is checked first; checked live), then the route's own
 * params are checked.
 */
export function checkStrictKeys(q: Obj, own?: RouteQueryParams): void {
  if (q.publicationFilter !== undefined) publicationMode({ publicationFilter: q.publicationFilter });
  for (const key of Object.keys(q)) if (!STRICT_KEY_SET.has(key) && !own?.keys.has(key)) throw invalidKey(key, key, null);
  own?.check(q);
}

/** `where` and a publicationFilter's cohort (a type without draft & publish has none). */
export function withPublication(where: Filter | null, mode: PublicationMode | null, status: 'published' | 'draft', ct: ContentType): Filter | null {
  if (!mode || !ct.draftAndPublish) return where;
  const cohort: Filter = { t: 'publication', mode, status, ct };
  return where ? { t: 'and', items: [where, cohort] } : cohort;
}

/**
 * `page`/`pageSize` outside `pagination`: Strapi's transform refuses them beside the start and limit its
 * services give a list (a REST list, the upload plugin's page).
 */
export function refuseTopLevelPage(q: Obj): void {
  if (q.page !== undefined || q.pageSize !== undefined) {
    throw new ApiError(400, 'PaginationError', 'Invalid pagination attributes. The page parameters are incorrect and must be in the pagination object', {});
  }
}

/** LIMIT and OFFSET pushed as parameters: [limit param, offset param] (the upload plugin's file list; content reads write them into the text). */
export function pushPage(params: ParamBuilder, p: Pagination): [number, number] {
  const { limit, offset } = pageBounds(p);
  return [params.push(limit), params.push(offset)];
}

export interface ReadRequest {
  shape: 'list' | 'one';
  /** documentId for findOne on a collection type. */
  documentId?: string;
}

/** A `locale` list of one real locale (not '' or '*'), which a list read takes as that locale; else null. */
export function onlyLocale(locale: unknown): string | null {
  return Array.isArray(locale) && locale.length === 1 && typeof locale[0] === 'string' && locale[0] !== '' && locale[0] !== '*' ? locale[0] : null;
}

/**
 * `localeError` and `valueError` are for the caller to throw after its own checks of the document service's
 * (Compiler.read): Strapi refuses a locale there, and a filter value only as its query runs.
 */
export function buildReadQuery(schema: Schema, ct: ContentType, q: Obj, req: ReadRequest, limits: ReadLimits, canRead?: CanRead): { query: ReadQuery; params: unknown[]; localeError: ApiError | null; valueError: ApiError | null } {
  const rows = !!limits.rows;
  // A list of locales (`locale[0]=en&locale[1]=fr`) is Strapi's multi-locale lookup on a localized type's
  // list: its rows in any of them (`locale in (…)`; one real locale reads as that locale). One document's
  // lookup takes a string only: refused after every other check of the query, as its document service
  // does (checked live). Other types pass it over.
  const list = ct.localized && !rows && Array.isArray(q.locale) && q.locale.every((l) => typeof l === 'string') ? q.locale as string[] : null;
  const loc = (list && req.shape === 'list' ? onlyLocale(list) : null) ?? q.locale;
  const params = new ParamBuilder();
  // Strapi reads anything but the string `published` (a list, an object) as a draft lookup (checked live).
  const rawStatus = q.status;
  const status: 'published' | 'draft' = rawStatus === undefined || rawStatus === 'published' ? 'published' : 'draft';
  let localeParam: number | null = null;
  let locales: string[] | null = null;
  // A locale of no usable form on a localized type (an object: a 500 in Strapi 5.54) is refused after
  // every other check of the query.
  let badLocale = false;
  // The document service spreads the filters over its lookup ({ ...lookup, ...where }): a top-level
  // `locale` filter replaces the locale lookup, default and `locale` param alike (checked live:
  // `filters[locale]=fr` reads French rows, `locale=en&filters[locale]=fr` too, one document as well).
  const filtersLocale = isObj(q.filters) && Object.hasOwn(q.filters, 'locale');
  if (ct.localized && !rows && !filtersLocale) {
    if (loc === undefined || loc === '') localeParam = params.push(schema.defaultLocale);
    // `*` is every locale for a list; one document (by documentId, or a single type's) looks it up as a
    // locale, which no row has (Strapi's localeToLookup; checked live: a 404).
    else if (typeof loc === 'string') { if (loc !== '*' || req.shape === 'one') localeParam = params.push(loc); }
    else if (list) locales = list;
    else { badLocale = true; localeParam = params.push(schema.defaultLocale); }
  }
  const documentParam = req.documentId !== undefined ? params.push(req.documentId) : null;
  // Strapi's order (checked live): its validator checks the keys of filters, sort, fields and populate in
  // that order; then its converter refuses what it cannot convert (a populate's); a filter value its
  // database layer cannot parse (a date, a number: Strapi's 500) is refused last, as the query runs
  // (`valueError`, thrown by the caller). The first such value is kept; it stands as null meanwhile.
  let valueError: ApiError | null = null;
  const parsed = q.filters !== undefined
    ? new FilterParser(schema, params, 'filters', canRead, (e) => { valueError ??= e; }).parse(q.filters, typeScope(ct, null, rows)) : null;
  const filtered = parsed && joinedNot(parsed);
  const search = q._q !== undefined ? searchFilter(ct, q._q, params) : null;
  const inLocales = locales && req.shape === 'list' ? new FilterParser(schema, params, 'filters').parse({ locale: { $in: locales } }, typeScope(ct, null, rows)) : null;
  const parts = [filtered, search, inLocales].filter((f): f is Filter => !!f);
  const where = parts.length > 1 ? { t: 'and' as const, items: parts } : parts[0] ?? null;
  const sort = parseSort(schema, ct, q.sort, rows);
  const select = selection(ct, q.fields, null, rows);
  // Filters through relations, components or media join tables: Strapi's query is then DISTINCT and
  // selects its sort columns first, and the answer keeps that order (checked live).
  if (joinsIn(filtered)) leadWithSort(select, sort, ct, rows);
  const publication = rows ? null : publicationMode(q);
  const populate = new PopulateParser(schema, params, limits, canRead);
  populate.anyStatus = rows || ct.uid === USERS_TYPE;
  populate.publication = publication;
  populate.forType(ct, select, q.populate, 1, null, status);
  if (populate.conversionError) throw populate.conversionError;
  const deferred = populate.deferred.length ? { deferred: populate.deferred } : {};
  const joins = limits.maxPopulate ? populateCount(select) : 0;
  if (limits.maxPopulate && joins > limits.maxPopulate) {
    throw validation(`populate asks for ${joins} populated attributes, more than the limit of ${limits.maxPopulate} (api.rest.maxPopulate)`, { source: 'query', param: 'populate', limit: 'maxPopulate', max: limits.maxPopulate });
  }
  const pagination = req.shape === 'list' ? parsePagination(q.pagination, limits) : { mode: 'page' as const, page: 1, pageSize: 1, withCount: false };
  // The document service's own refusals of the locale, which its caller makes after its other checks.
  const localeError = locales && req.shape === 'one' ? validation(`Invalid locale param ${String(locales)} provided. Document locales must be strings.`)
    : badLocale ? validation('Invalid locale parameter: expected a string or a list of strings', { source: 'query', param: 'locale' }) : null;
  return {
    localeError,
    valueError,
    query: {
      ct, shape: req.shape, select, where: withPublication(where, publication, status, ct), sort, pagination, localeParam, documentParam, status: rows ? null : status, rows, ...deferred,
    },
    params: params.values,
  };
}

// Filter scopes for callers that build the AST themselves (the GraphQL plugin): the same rules as REST.
export { typeScope, componentScope, fileScope, type FilterScope };
