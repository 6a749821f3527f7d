// strapi.db.query(uid): Strapi's Query Engine reads, which project code calls in its controllers and
// services (a custom login looks a user up by email, a service counts a document's rows). Its parameters
// (`where`, `select`, `orderBy`, `limit`/`offset`, `populate`, `_q`) become a query of the Content API's
// language, compiled by a compiler that reads as the Query Engine does (compiler/params.ts ReadLimits.rows):
// rows of every status and locale, private and password attributes included, populated relations whatever
// their status. Its writes of rows are ./query-engine-writes.ts'.
import type { Component, ContentType, Schema } from '../../compiler/schema.ts';
import { ApiError } from '../../compiler/errors.ts';
import { findMany } from '../rest/read.ts';
import type { RestContext } from '../rest/router.ts';
import { parsed, type Params } from './documents.ts';
import { stringifyQuery } from './query.ts';
import { engineWrites, type EngineWrites } from './query-engine-writes.ts';

export interface QueryRepository extends EngineWrites {
  findOne(params?: Params): Promise<unknown>;
  findMany(params?: Params): Promise<unknown[]>;
  count(params?: Params): Promise<number>;
  findWithCount(params?: Params): Promise<[unknown[], number]>;
  findPage(params?: Params): Promise<{ results: unknown[]; pagination: { page: number; pageSize: number; pageCount: number; total: number } }>;
  /** The entity with `populate` read onto it (`{ ...entity, ...row }`). */
  populate(entity: { id: unknown }, populate: unknown): Promise<unknown>;
  /** A row's relation (or several, `fields` a list: an object of them) read by its id; `params` the relation's own populate spec. */
  load(entity: { id: unknown }, fields: string | string[], params?: Params): Promise<unknown>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** Keys of the Query Engine's parameters this server reads; `filters` and `groupBy` are refused by name. */
const READ_KEYS = new Set(['where', 'select', 'orderBy', 'limit', 'offset', 'populate', '_q']);

/**
 * A `where` as a `filters` value. The two languages share their operators and nesting; they differ where the
 * Query Engine reads a bare value: null is IS NULL, a list is IN, and a relation given an id (or ids) means
 * the related row with that id.
 */
function whereAsFilters(schema: Schema, model: ContentType | Component | null, where: unknown, path = 'where'): unknown {
  if (Array.isArray(where)) return where.map((w, i) => whereAsFilters(schema, model, w, `${path}[${i}]`));
  if (!isObj(where)) return where;
  const out: Obj = {};
  for (const [k, v] of Object.entries(where)) {
    // Dropped on the way into a query string, an undefined value would match every row: Strapi's database
    // layer refuses it (knex: "Undefined binding(s) detected").
    if (v === undefined || (Array.isArray(v) && v.includes(undefined)) || (isObj(v) && Object.values(v).includes(undefined))) {
      throw new Error(`Undefined binding(s) detected: ${path}.${k} is undefined`);
    }
    if (k === '$and' || k === '$or') { out[k] = Array.isArray(v) ? v.map((w, i) => whereAsFilters(schema, model, w, `${path}.${k}[${i}]`)) : v; continue; }
    if (k === '$not') { out[k] = whereAsFilters(schema, model, v, `${path}.$not`); continue; }
    if (k.startsWith('$')) { out[k] = v; continue; }
    const kind = model?.byName.get(k)?.kind;
    if ((kind === 'relation' || kind === 'media') && !isObj(v)) { out[k] = { id: bare(v) }; continue; }
    out[k] = isObj(v) ? (hasOperator(v) ? operatorValues(v) : whereAsFilters(schema, targetOf(schema, model, k), v, `${path}.${k}`)) : bare(v);
  }
  return out;
}

const hasOperator = (v: Obj) => Object.keys(v).some((k) => k.startsWith('$') && k !== '$and' && k !== '$or' && k !== '$not');
/** A bare value: null is `$null`, a list `$in`, anything else equality. */
const bare = (v: unknown): unknown => (v === null ? { $null: true } : Array.isArray(v) ? { $in: v } : { $eq: v });
/** An operator's null is `$null` too (`{ $eq: null }`, `{ $ne: null }`). */
function operatorValues(v: Obj): Obj {
  const out: Obj = {};
  for (const [op, x] of Object.entries(v)) {
    if (x === null && op === '$eq') out.$null = true;
    else if (x === null && op === '$ne') out.$notNull = true;
    else out[op] = x;
  }
  return out;
}

/**
 * `select` as `fields`: a name or a list of names. A type without i18n still has its `locale` column (null),
 * which the Content API's `fields` does not know: left to shapeRow.
 */
function fieldsOf(model: ContentType | Component | null, select: unknown): unknown {
  const names = typeof select === 'string' ? [select] : select;
  if (!Array.isArray(names) || !model) return names;
  // A component has no documentId (a select naming it reads nothing there, as Strapi's).
  if (!('kind' in model)) return names.filter((n) => n !== 'documentId');
  return model.localized ? names : names.filter((n) => n !== 'locale');
}

/** What a populate names: a relation, component, media or zone of the model, or a localized type's `localizations`. */
function isLinked(model: ContentType | Component | null, name: string): boolean {
  const a = model?.byName.get(name);
  // Every content-type's rows have localizations in Strapi's database layer (i18n or not).
  return (!!a && a.kind !== 'scalar') || (name === 'localizations' && !!model && 'kind' in model);
}

/** The model an attribute leads to (a relation's target, a component, a file), for what is nested under it. */
function targetOf(schema: Schema, model: ContentType | Component | null, name: string): ContentType | Component | null {
  const a = model?.byName.get(name);
  if (a?.kind === 'relation') return schema.contentTypes.get(a.target) ?? null;
  if (a?.kind === 'component') return schema.components.get(a.component) ?? null;
  if (a?.kind === 'media') return schema.contentTypes.get('plugin::upload.file') ?? null;
  if (name === 'localizations' && model && 'kind' in model) return model;
  return null;
}

/** `populate` in the Query Engine's forms (true, a list of names or paths, an object of per-attribute specs) as the Content API's. */
function populateOf(schema: Schema, model: ContentType | Component | null, populate: unknown): unknown {
  if (populate === true) return '*';
  // Strapi's database layer takes no string (not `'*'`, not a name): its processPopulate throws this.
  if (typeof populate === 'string') throw new Error('Populate must be an object');
  // What is not a relation, component, media or zone of the model is skipped, as Strapi's processPopulate skips it.
  const linked = (k: string) => isLinked(model, k);
  if (Array.isArray(populate)) return populate.filter((x) => typeof x === 'string' && linked(x.split('.')[0]));
  if (!isObj(populate)) return populate;
  const out: Obj = {};
  for (const [k, v] of Object.entries(populate)) {
    if (v === false || v === undefined || v === null || !linked(k)) continue;
    out[k] = isObj(v) ? specOf(schema, targetOf(schema, model, k), v, k) : v;
  }
  return out;
}

/** One attribute's populate spec: `select`, `where`, `orderBy`, `populate`, `on` (a zone's or morph's per-type specs), `count`. */
function specOf(schema: Schema, target: ContentType | Component | null, v: Obj, path: string): unknown {
  const spec: Obj = {};
  for (const [key, x] of Object.entries(v)) {
    if (x === undefined) continue;
    if (key === 'select') spec.fields = fieldsOf(target, x);
    else if (key === 'where') spec.filters = whereAsFilters(schema, target, x);
    else if (key === 'orderBy') spec.sort = x;
    else if (key === 'populate') spec.populate = populateOf(schema, target, x);
    else if (key === 'count') spec.count = x;
    else if (key === 'on' && isObj(x)) {
      spec.on = Object.fromEntries(Object.entries(x).map(([uid, s]) => {
        const model = schema.components.get(uid) ?? schema.contentTypes.get(uid) ?? null;
        return [uid, isObj(s) ? specOf(schema, model, s, `${path}.on.${uid}`) : s];
      }));
    } else throw new TypeError(`strapi.db.query: populate.${path}.${key} is not supported by this server`);
  }
  return Object.keys(spec).length ? spec : true;
}

/** A Query Engine read as the Content API's query string (`extra`: the pagination the method sets). */
export function engineQuery(schema: Schema, ct: ContentType, method: string, p: Params, extra: Params = {}): string {
  const q: Params = {};
  for (const [k, v] of Object.entries(p)) {
    if (v === undefined) continue;
    if (!READ_KEYS.has(k)) throw new TypeError(`strapi.db.query('${ct.uid}').${method}: the parameter "${k}" is not supported by this server`);
  }
  if (p.where !== undefined && p.where !== null) q.filters = whereAsFilters(schema, ct, p.where);
  if (p._q !== undefined && p._q !== null) q._q = p._q;
  if (p.select !== undefined && p.select !== null) q.fields = fieldsOf(ct, p.select);
  if (p.orderBy !== undefined && p.orderBy !== null) q.sort = p.orderBy;
  if (p.populate !== undefined && p.populate !== null) q.populate = populateOf(schema, ct, p.populate);
  const pagination: Params = {};
  if (p.offset !== undefined && p.offset !== null) pagination.start = p.offset;
  if (p.limit !== undefined && p.limit !== null) pagination.limit = p.limit;
  Object.assign(q, extra);
  q.pagination = { ...pagination, ...(extra.pagination as Params | undefined) };
  if (!('limit' in (q.pagination as Params)) && 'start' in (q.pagination as Params)) (q.pagination as Params).limit = -1;
  return stringifyQuery(q);
}

/** Attributes a `where` reaches through a join (relations, components, media): the Query Engine then selects DISTINCT. */
function joinsIn(model: ContentType | Component | null, where: unknown): boolean {
  if (Array.isArray(where)) return where.some((w) => joinsIn(model, w));
  if (!isObj(where)) return false;
  return Object.entries(where).some(([k, v]) => {
    if (k === '$and' || k === '$or' || k === '$not') return joinsIn(model, v);
    const kind = model?.byName.get(k)?.kind;
    return kind === 'relation' || kind === 'component' || kind === 'media' || kind === 'dynamiczone' || kind === 'morph';
  });
}

/** The row's own columns an `orderBy` names (a relation's field sorts through a join, not a column of the row). */
function orderColumns(model: ContentType | Component | null, orderBy: unknown): string[] {
  const out: string[] = [];
  const own = (k: string) => { const a = model?.byName.get(k); return !a || a.kind === 'scalar'; };
  const visit = (o: unknown) => {
    if (Array.isArray(o)) { o.forEach(visit); return; }
    if (typeof o === 'string') { const k = o.split(':')[0]; if (own(k)) out.push(k); return; }
    if (isObj(o)) for (const [k, v] of Object.entries(o)) if (typeof v === 'string' && own(k)) out.push(k);
  };
  visit(orderBy);
  return out;
}

/** What `populate: true` reads: every relation of the row's table in Strapi's database layer (components, media, zones, creators, localizations). */
function allLinked(model: ContentType | Component | null): string[] {
  if (!model) return [];
  const names = model.attributes.filter((a) => a.kind !== 'scalar').map((a) => a.name);
  if ('kind' in model) names.push(...(model.creators ?? []).map((a) => a.name), 'localizations');
  return names;
}

/** The populated attribute names of a populate parameter, in its order (what the Query Engine populates: relations, components, media, zones). */
function populatedNames(model: ContentType | Component | null, populate: unknown): string[] {
  const names = populate === true || populate === '*' ? allLinked(model)
    : typeof populate === 'string' ? [populate.split('.')[0]]
      : Array.isArray(populate) ? populate.filter((x): x is string => typeof x === 'string').map((x) => x.split('.')[0])
        : isObj(populate) ? Object.keys(populate).filter((k) => populate[k] !== false && populate[k] !== undefined && populate[k] !== null) : [];
  return [...new Set(names)].filter((n) => isLinked(model, n));
}

/** One level's populate spec for an attribute (its own `select`, `orderBy`, `populate`). */
function nestedSpec(populate: unknown, name: string): Params {
  if (isObj(populate) && isObj(populate[name])) return populate[name] as Params;
  if (Array.isArray(populate)) {
    const deeper = populate.filter((x): x is string => typeof x === 'string' && x.startsWith(`${name}.`)).map((x) => x.slice(name.length + 1));
    return deeper.length ? { populate: deeper } : {};
  }
  return {};
}

/**
 * A row as the Query Engine answers it: with `select`, only those columns (and `id` when something is
 * populated, after them); without, every column (a type without i18n has its `locale` column, null).
 * Where the query joined (a `where` through a relation at the top, every populated relation or component)
 * it selected DISTINCT, and its `orderBy` columns lead. Then the populated attributes.
 */
function shapeRow(schema: Schema, model: ContentType | Component | null, row: unknown, p: Params, joined: boolean, first = false): unknown {
  if (Array.isArray(row)) return row.map((r) => shapeRow(schema, model, r, p, joined));
  if (!isObj(row)) return row;
  const populated = populatedNames(model, p.populate);
  const ordered = joined ? orderColumns(model, p.orderBy) : [];
  // A page of a list is made stable by `id` last in its order (Strapi's ensurePaginationOrderStability).
  const paged = !first && ((p.limit !== undefined && p.limit !== null && p.limit !== -1) || (p.offset !== undefined && p.offset !== null));
  if (joined && paged && ordered[ordered.length - 1] !== 'id') ordered.push('id');
  const whole: Obj = {};
  for (const [k, v] of Object.entries(row)) if (!populated.includes(k)) whole[k] = v;
  // The row's last column, there on every content-type (null without i18n).
  if (model && 'kind' in model && !model.localized && !('locale' in whole)) whole.locale = null;
  const select = p.select === undefined || p.select === null ? null : (typeof p.select === 'string' ? [p.select] : p.select as string[]);
  // With a select, what populates need: the id, and the documentId localizations are found by.
  const keys = [...new Set([...ordered, ...(select ?? Object.keys(whole)), ...(select && populated.length ? ['id'] : []), ...(select && populated.includes('localizations') ? ['documentId'] : [])])];
  const out: Obj = {};
  for (const k of keys) if (k in whole) out[k] = whole[k];
  // In the order the statement put them: Strapi's, as its populate queries finish (compiler/sql.ts keyOrder).
  for (const name of Object.keys(row)) {
    if (!populated.includes(name)) continue;
    const target = targetOf(schema, model, name);
    out[name] = shapeRow(schema, target, row[name], nestedSpec(p.populate, name), true);
  }
  return out;
}

/** Errors as the Query Engine throws them: Strapi's database layer raises plain errors, not API errors. */
function asEngineError(e: unknown): unknown {
  if (e instanceof ApiError && e.status !== 404) { const err = new Error(e.message); err.name = 'ValidationError'; return Object.assign(err, { details: e.details }); }
  return e;
}

/**
 * The repository of one model. `ctx` reads with the rows compiler (no default page, every status and
 * locale); a model with lifecycle hooks on its reads is closed as strapi.documents is.
 */
export function queryRepository(ctx: () => RestContext, schema: Schema, ct: ContentType, cached: boolean): QueryRepository {
  const uid = ct.uid;
  const read = async (method: string, p: Params, extra: Params = {}): Promise<{ data: unknown; meta?: { pagination?: { total?: number } } }> => {
    const c = ctx();
    const closed = c.lifecycles?.closedError(ct);
    if (closed) throw closed;
    try {
      return parsed(await findMany(c, ct, engineQuery(schema, ct, method, p, extra)));
    } catch (e) { throw asEngineError(e); }
  };
  const rows = (v: unknown, p: Params) => shapeRow(schema, ct, v, p, joinsIn(ct, p.where)) as unknown[];
  const count = async (p: Params = {}) => {
    // As Strapi's: only `_q` and `where` count.
    const r = await read('count', { where: p.where, _q: p._q }, { fields: ['id'], pagination: { start: 0, limit: 1, withCount: true } });
    return Number(r.meta?.pagination?.total ?? 0);
  };
  const repo: QueryRepository = {
    ...engineWrites(ctx, ct, {
      findOne: (p) => repo.findOne(p),
      query: (where, q) => stringifyQuery({ ...(where === undefined || where === null ? {} : { filters: whereAsFilters(schema, ct, where) }), ...(q === undefined || q === null ? {} : { _q: q }) }),
      cached,
      check: (p) => {
        try { ctx().compiler.read(ct, 'list', engineQuery(schema, ct, 'check', { select: p.select, populate: p.populate }, { pagination: { start: 0, limit: 1 } })); } catch (e) { throw asEngineError(e); }
      },
    }),
    async findOne(p = {}) {
      const found = (await read('findOne', { ...p, limit: undefined }, { pagination: { start: p.offset ?? 0, limit: 1 } })).data as unknown[];
      return found.length ? shapeRow(schema, ct, found[0], p, joinsIn(ct, p.where), true) : null;
    },
    async findMany(p = {}) { return rows((await read('findMany', p)).data, p); },
    count,
    async findWithCount(p = {}) { return Promise.all([repo.findMany(p), count(p)]); },
    async populate(entity, populate) {
      const row = await repo.findOne({ select: ['id'], where: { id: entity.id }, populate });
      return { ...entity, ...(row as Obj | null) };
    },
    async load(entity, fields, params) {
      const names = Array.isArray(fields) ? fields : [fields];
      for (const f of names) {
        if (ct.byName.get(f)?.kind !== 'relation') throw new Error(`Invalid load. Expected ${f} to be a relational attribute`);
      }
      const row = await repo.findOne({ select: ['id'], where: { id: entity.id }, populate: Object.fromEntries(names.map((f) => [f, params ?? true])) }) as Obj | null;
      if (!row) return null;
      return Array.isArray(fields) ? Object.fromEntries(names.filter((f) => f in row).map((f) => [f, row[f]])) : row[fields];
    },
    async findPage(p = {}) {
      const { page: pg = 1, pageSize: ps = 10, ...rest } = p;
      const page = Number(pg);
      const pageSize = Number(ps);
      const query = { ...rest, limit: pageSize, offset: Math.max(page - 1, 0) * pageSize };
      const [results, total] = await Promise.all([repo.findMany(query), count(query)]);
      return { results, pagination: { page, pageSize, pageCount: Math.ceil(total / pageSize), total } };
    },
  };
  return new Proxy(repo, {
    get(target, prop, receiver) {
      if (typeof prop === 'symbol' || prop in target) return Reflect.get(target, prop, receiver);
      if (prop === 'then') return undefined;
      return () => { throw new TypeError(`strapi.db.query('${uid}').${prop} is not supported by this server`); };
    },
  });
}
