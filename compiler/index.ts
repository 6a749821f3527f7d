// The compiler's entry: raw query string → SQL text + parameter vector, cached twice:
// by the exact query string (a hit does no work at all) and by the query's shape (values masked) and
// page, so queries that differ only in values share one SQL text and one prepared statement.
import type { Schema, ContentType } from './schema.ts';
import { parseQueryString, type QueryValue, QueryStringError, PrototypeKeyError } from './querystring.ts';
import { QS_ARRAY_LIMIT, buildReadQuery, checkStrictKeys, onlyLocale, refuseTopLevelPage, type ReadLimits, type CanRead, type RouteQueryParams } from './params.ts';
import { numericSearch } from './search.ts';
import { compileRead, filterSql, type CompiledRead } from './sql.ts';
import { Lru, StatementCache } from './cache.ts';
import { checkQueryParams } from './query-schema.ts';
import { checkStrictDocumentParams } from './document-params.ts';
import { ApiError, invalidKey, validation } from './errors.ts';
import { pageBounds, type Pagination, type ReadQuery } from './ast.ts';
import type { DeferredError } from './deferred.ts';

export interface CompilerOptions extends ReadLimits {
  maxRelationRows: number;
  /** Reads copy default renders from the render cache where current (compiler/render-cache.ts). */
  renderCache?: boolean;
  /**
   * With renderCache: whether the cache may be read now. It stays closed while the cache is first filled,
   * where a read would look for entries it does not find and cost more than without the cache. Unset: open.
   */
  renderCacheGate?: () => boolean;
  /** Tables without render cache entries (compiler/sql.ts SqlOptions.uncached). */
  uncached?: ReadonlySet<string>;
  planCacheSize: number;
  /** Pages of one statement shape run as prepared statements; later pages are sent unprepared (compiler/cache.ts). */
  preparedPages: number;
  maxParameters: number;
  /**
   * `api.rest.strictParams`: the content API's requests (`contentApi` calls) refuse a top-level query key
   * Strapi 5.54 does not know (checkStrictKeys); project code's reads and writes do not.
   */
  strictKeys?: boolean;
  /**
   * `api.documents.strictParams`: a status or locale the document service cannot use is a 400, after the
   * query's own checks (compiler/document-params.ts). Set on the compilers whose reads are the document
   * service's (REST routes, project code's `strapi.documents`), not users-permissions' or upload's.
   */
  strictDocuments?: boolean;
  /** Largest list index a query string's arrays keep (qs's arrayLimit; 100, Strapi's REST parser's). */
  arrayLimit?: number;
  /** Largest response data in bytes (bigger → 400 naming http.maxResponseSize); unset = none. */
  maxResponseSize?: number;
  /** Most populated attributes (joins) in one read, all levels counted; unset = none. */
  maxPopulate?: number;
  /** List totals from the tables' row counters where installed (compiler/counts.ts; `fastrapi.row_counts` exists). */
  rowCounters?: boolean;
  /** Whether a table is large (src/db/table-sizes.ts): its filtered lists are planned with their values (`planFor`). */
  largeTable?: (table: string) => boolean;
  /** Whether a table is known to be small (src/db/table-sizes.ts): relation filters read its matching ids first (SqlOptions.smallTable). */
  smallTable?: (table: string) => boolean;
  /** Changes when a table's size class does: part of every plan's cache key. */
  sizeEpoch?: () => number;
  /** JSON members after each root row's own (compiler/sql.ts SqlOptions.rowTail). */
  rowTail?: string;
  /** Link columns whose targets a foreign key keeps (compiler/foreign-keys.ts; read at start by src/server.ts). */
  keyedColumns?: ReadonlySet<string>;
  /** Deep list reads come with their halves as two statements too (compiler/sql.ts SqlOptions.splitReads). */
  splitReads?: boolean;
  /** Unsorted lists in the table's own order (compiler/sql.ts SqlOptions.physicalOrder). */
  physicalOrder?: boolean;
}

/**
 * A filtered list on a large table is planned at each execution with the filter's values (on connections
 * whose plan_cache_mode is force_custom_plan: src/rest/read.ts `readerFor`).
 * Under a generic plan PostgreSQL guesses how many rows a filter keeps (at 100k articles, a category
 * prefix matching 44,000 links was walked by 44,000 index probes: 250 ms, where the plan made for the
 * values hashes them: 65 ms + 3 ms planning); on a small table planning would cost more than it saves.
 */
export function planFor(sql: CompiledRead, query: { shape: 'list' | 'one'; where: unknown; ct: { table: string } }, largeTable?: (table: string) => boolean): CompiledRead {
  return query.shape === 'list' && query.where && largeTable?.(query.ct.table) ? { ...sql, customPlan: true } : sql;
}

/**
 * A read or write of the content API (its request checked as Strapi's controller checks it: true, or the
 * route's own params when the project added some), or of project code (false).
 */
export type ContentApi = boolean | RouteQueryParams;
const ownParams = (c: ContentApi): RouteQueryParams | undefined => (typeof c === 'object' ? c : undefined);
/** A plan's content-API part of its cache key: a route's own params only matter where strictParams checks them. */
const apiKey = (c: ContentApi, strict: boolean): string => (typeof c === 'object' && strict ? `c${c.id}` : c ? 'c' : '-');

/**
 * Turns a route's own query parameters into the content API's before validation (the users routes take
 * Strapi's database-query spelling: top-level `start`/`limit`, no default limit). Deterministic: plans
 * are cached by the raw text, so one Compiler instance must always use the same rewrite for a type.
 */
export type QueryRewrite = (q: { [k: string]: QueryValue }) => { [k: string]: QueryValue };

export interface ReadPlan {
  sql: CompiledRead;
  params: unknown[];
  pagination: Pagination;
  shape: 'list' | 'one';
  /** Errors that stand once the answer shows their level has rows (compiler/deferred.ts `standingError`). */
  deferred?: DeferredError[];
}

/** Values that change the SQL text stay in the key; every other leaf value under filters is masked. */
const STRUCTURAL_OPS = new Set(['$null', '$notNull']);
/** Operators whose list is one parameter; any other operator given a list ORs its values (its length is structure). */
const ONE_PARAM_LISTS = new Set(['$in', '$notIn', '$between', '$eq']);

function mask(v: QueryValue, inFilters: boolean, key: string): unknown {
  if (typeof v === 'string') return inFilters && !STRUCTURAL_OPS.has(key) ? '?' : v;
  if (Array.isArray(v)) {
    // A list of plain values after a field name ($in) or a list operator is one parameter; lists of
    // objects ($and, $or) and lists given to other operators are structure.
    const oneParam = !key.startsWith('$') || ONE_PARAM_LISTS.has(key);
    if (inFilters && oneParam && v.every((x) => typeof x === 'string')) return '[?]';
    return v.map((x) => mask(x, inFilters, key));
  }
  const out: Record<string, unknown> = {};
  for (const [k, sub] of Object.entries(v)) out[k] = mask(sub, inFilters || k === 'filters', k);
  return out;
}

export function shapeKey(ct: ContentType, kind: string, q: { [k: string]: QueryValue }): string {
  const { pagination, locale, _q, ...rest } = q;
  // `_q`'s text is a parameter; only whether it is a number changes which columns it searches.
  if (_q !== undefined) (rest as Record<string, QueryValue>)._q = typeof _q === 'string' ? (numericSearch(_q) ? '#' : '?') : _q;
  // The locale is a parameter; pagination numbers pick the shape's page (StatementCache), its mode and
  // withCount shape the SQL.
  const p = pagination && typeof pagination === 'object' && !Array.isArray(pagination) ? pagination : {};
  const pmode = ['page', 'pageSize', 'start', 'limit'].filter((k) => k in p).join() + ':' + String((p as Record<string, unknown>).withCount ?? '');
  // A list of locales is one `in` of that many (a list of one real locale reads as it: buildReadQuery).
  const lk = locale === '*' ? '*' : Array.isArray(locale) && onlyLocale(locale) === null ? `[${locale.length}]` : '';
  return `${ct.uid}|${kind}|${pmode}|${lk}|${JSON.stringify(mask(rest, false, ''))}`;
}

export class Compiler {
  private exact: Lru<ReadPlan>;
  private shapes: StatementCache<CompiledRead>;
  constructor(private schema: Schema, private opts: CompilerOptions) {
    this.exact = new Lru(opts.planCacheSize);
    this.shapes = new StatementCache(opts.planCacheSize, opts.preparedPages);
  }

  parse(raw: string): { [k: string]: QueryValue } {
    try {
      return parseQueryString(raw, { depth: 20, arrayLimit: this.opts.arrayLimit ?? QS_ARRAY_LIMIT, parameterLimit: this.opts.maxParameters, prototypeKeys: 'reject' });
    } catch (e) {
      if (e instanceof QueryStringError) throw validation(e.message, { source: 'query' });
      // `filters[constructor]=…` would otherwise be dropped silently (qs's rule): refused by name instead.
      if (e instanceof PrototypeKeyError) throw invalidKey(e.path[0], e.key, e.path.slice(1).join('.'));
      throw e;
    }
  }

  /** The limits a call parses with: a content-API request's add Strapi's controller checks (ReadLimits.contentApi). */
  private limitsFor(contentApi: boolean): CompilerOptions {
    return contentApi ? { ...this.opts, contentApi } : this.opts;
  }

  /**
   * A list read's checks alone, as `read` makes them: what the parameters name is refused at once, a value
   * that does not cast is returned (the caller throws it once its other checks passed; nothing is compiled).
   */
  check(ct: ContentType, raw: string, access: { key: string; canRead: CanRead }, rewrite: QueryRewrite): ApiError | null {
    const q = this.documentParams(rewrite(this.parse(raw)));
    checkQueryParams(q);
    return buildReadQuery(this.schema, ct, q, { shape: 'list' }, this.limitsFor(false), access.canRead).valueError;
  }

  /**
   * A read plan for a list ('list') or one document ('one', by documentId or the single type's row).
   * `access` names what the caller may read (its key is part of the cache keys: plans differ by it);
   * `contentApi`: a request of the content API, validated as Strapi's controller validates it (ReadLimits.contentApi).
   */
  read(ct: ContentType, shape: 'list' | 'one', raw: string, documentId?: string, access?: { key: string; canRead: CanRead }, rewrite?: QueryRewrite, contentApi: ContentApi = false, internal = false): ReadPlan {
    const rc = this.renderCacheNow();
    // The content API's key differs: a plan made for project code must not skip its checks (nor one made
    // for a route with its own params another route's, nor one of this server's own reads a caller's).
    // A rewrite (by its function's name) reads the same text otherwise: its plans are kept apart.
    const key = `${rc ? 'r' : '-'}${this.sizeEpoch()}:${internal ? 'i' : apiKey(contentApi, !!this.opts.strictKeys)}|${access?.key ?? '*'}|${ct.uid}|${shape}|${documentId ?? ''}|${rewrite ? `${rewrite.name}~` : ''}${raw}`;
    if (key) {
      const hit = this.exact.get(key);
      if (hit) return hit;
    }
    const parsed = this.parse(raw);
    if (contentApi && this.opts.strictKeys) checkStrictKeys(parsed, ownParams(contentApi));
    const q = this.documentParams(rewrite ? rewrite(parsed) : parsed);
    checkQueryParams(q);
    const { query, params, localeError, valueError } = buildReadQuery(this.schema, ct, q, { shape, documentId }, this.limitsFor(!!contentApi), access?.canRead);
    checkDocumentParams(q, shape);
    if (!internal) this.documentChecks(q, localeError);
    if (valueError) throw valueError;
    const sk = `${rc ? 'r' : '-'}${this.sizeEpoch()}:|${access?.key ?? '*'}|${shapeKey(ct, shape + (documentId === undefined ? '' : '#id'), q)}`;
    const sql = planFor(this.shapes.get(sk, pageBounds(query.pagination), (prepared) =>
      compileRead(this.schema, query, { maxRelationRows: this.opts.maxRelationRows, bareList: true, renderCache: rc, uncached: this.opts.uncached, maxBytes: this.opts.maxResponseSize, keyOrder: true, rowCounters: this.opts.rowCounters, rowTail: this.opts.rowTail, keyedColumns: this.opts.keyedColumns, smallTable: this.opts.smallTable, splitReads: this.opts.splitReads && prepared, physicalOrder: this.opts.physicalOrder })), query, this.opts.largeTable);
    const plan: ReadPlan = { sql, params, pagination: query.pagination, shape, ...(query.deferred ? { deferred: query.deferred } : {}) };
    if (key) this.exact.set(key, plan);
    return plan;
  }

  /**
   * One version row as this server reads it for itself (webhooks' and lifecycles' entries): the row's own
   * stored locale, which `api.documents.strictParams` would refuse in a caller's query (`en_US`), is read.
   */
  readRow(ct: ContentType, raw: string, documentId?: string): ReadPlan {
    return this.read(ct, 'one', raw, documentId, undefined, undefined, false, true);
  }

  /**
   * Refuses a write's query as Strapi's controller and document service do before writing (its
   * populate, fields, filters, `lookup`): a bad one is a 400 with nothing written, not after the write.
   * Answers the parsed query (the write reads its status and locale there).
   */
  checkWriteQuery(ct: ContentType, raw: string, contentApi: ContentApi = false): { query: { [key: string]: QueryValue }; documentChecks: () => void } {
    const q = this.documentParams(this.parse(raw));
    if (contentApi && this.opts.strictKeys) checkStrictKeys(q, ownParams(contentApi));
    checkQueryParams(q);
    const { localeError, valueError } = buildReadQuery(this.schema, ct, q, { shape: 'one', documentId: '' }, this.limitsFor(!!contentApi));
    if (valueError) throw valueError;
    checkDocumentParams(q, 'one');
    // Strapi's document service checks its status and locale after the controller's checks of the body.
    return { query: q, documentChecks: () => this.documentChecks(q, localeError) };
  }

  /**
   * A query as `api.documents.strictParams` hands it on (checked live): a locale list keeps its non-empty
   * strings, and an empty locale (or a list left empty) is as if not given. Unchanged without it. (An empty
   * status is dropped there too, which leaves the document service's default, a draft: as '' reads here.)
   */
  private documentParams(q: { [key: string]: QueryValue }): { [key: string]: QueryValue } {
    if (!this.opts.strictDocuments) return q;
    if (Array.isArray(q.locale)) q.locale = q.locale.filter((l) => typeof l === 'string' && l !== '');
    if (q.locale === '' || (Array.isArray(q.locale) && !q.locale.length)) delete q.locale;
    return q;
  }

  /** The document service's last checks of a query: `api.documents.strictParams`, then a locale it cannot look up. */
  private documentChecks(q: { [key: string]: QueryValue }, localeError: ApiError | null): void {
    if (this.opts.strictDocuments) checkStrictDocumentParams({ status: q.status, locale: q.locale });
    if (localeError) throw localeError;
  }

  /**
   * The rows a Query Engine write acts on (strapi.db.query): the query string's `filters` and `_q` as a
   * condition over the row alias `r`, its parameters $1…$n (the statement's own values follow them).
   */
  rowCondition(ct: ContentType, raw: string): { sql: string; params: unknown[] } {
    const q = this.parse(raw);
    checkQueryParams(q);
    const { query, params, valueError } = buildReadQuery(this.schema, ct, q, { shape: 'list' }, { ...this.opts, rows: true });
    if (valueError) throw valueError;
    return { sql: query.where ? filterSql(this.schema, query.where, 'r') : 'true', params };
  }

  /** The validated query a request would read, without its SQL (`npm run indexes -- --for`: compiler/indexes.ts). */
  query(ct: ContentType, shape: 'list' | 'one', raw: string, documentId?: string): ReadQuery {
    const q = this.parse(raw);
    checkQueryParams(q);
    const { query, valueError } = buildReadQuery(this.schema, ct, q, { shape, documentId }, this.opts);
    if (valueError) throw valueError;
    return query;
  }

  /** `api.documents.strictParams` (CompilerOptions.strictDocuments). */
  get strictDocuments(): boolean { return !!this.opts.strictDocuments; }

  /** Whether `table` counts as large now (planFor). */
  largeTable(table: string): boolean { return this.opts.largeTable?.(table) ?? false; }

  /** Whether `table` is known to be small now (SqlOptions.smallTable); `undefined` without size knowledge. */
  get smallTable(): ((table: string) => boolean) | undefined { return this.opts.smallTable; }

  /** The size classes' generation (part of plan cache keys: statements depend on them). */
  sizeEpoch(): number { return this.opts.sizeEpoch?.() ?? 0; }

  /** Whether reads compiled now copy from the render cache (on, and its gate open). */
  renderCacheNow(): boolean {
    return !!this.opts.renderCache && (this.opts.renderCacheGate?.() ?? true);
  }

  stats() { return { exact: { size: this.exact.size, hits: this.exact.hits, misses: this.exact.misses }, shapes: { size: this.shapes.size, hits: this.shapes.hits, misses: this.shapes.misses } }; }
}

/** The `meta` of a list response, built from the plan and the row count PostgreSQL returned. */
export function listMeta(p: Pagination, total: number | null): string {
  if (p.mode === 'page') {
    if (total === null) return `{"pagination":{"page":${p.page},"pageSize":${p.pageSize}}}`;
    return `{"pagination":{"page":${p.page},"pageSize":${p.pageSize},"pageCount":${Math.ceil(total / p.pageSize)},"total":${total}}}`;
  }
  if (total === null) return `{"pagination":{"start":${p.start},"limit":${p.limit}}}`;
  return `{"pagination":{"start":${p.start},"limit":${p.limit},"total":${total}}}`;
}

export { ApiError };

/** The answer a read whose data passed the size limit gets (the statement said so in its last column). */
export function responseTooLarge(max: number): ApiError {
  return new ApiError(400, 'ValidationError', `The response would be larger than ${max} bytes (limit http.maxResponseSize): ask for smaller pages, fewer fields or less populate`, { limit: 'maxResponseSize', max });
}

/**
 * What Strapi 5.54's document service refuses after the query's own validation (checked live): `lookup`
 * (it is internal; GHSA-495j-h493-42q2), and on a list `page`/`pageSize` outside `pagination` (the REST
 * service adds its own start/limit, and the two forms may not meet).
 */
function checkDocumentParams(q: { [key: string]: QueryValue }, shape: 'list' | 'one'): void {
  if (q.lookup !== undefined && q.lookup !== '') throw validation("Invalid params: 'lookup'");
  if (shape === 'list') refuseTopLevelPage(q);
}
