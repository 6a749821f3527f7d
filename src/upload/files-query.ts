// Upload's content-API file reads (`GET /api/upload/files`, `/files/page`, `/files/:id`) compiled like any
// content-type read, on the file as these routes see it (plugin-types.ts fileReadType: its `related` morph,
// the private `folder`, what a project's extension added), so `populate`, `filters` and `sort` take Strapi's
// content-API rules (recorded in test/fixtures/upload-files). Each route's own parameters are checked first
// (`fields` as fields.ts, the list's top-level start/limit, the page's pagination) and rewritten into a
// content-API query; every record ends with `"isUrlSigned":false`, as upload's controller sets it.
import type { ContentType, Schema } from '../../compiler/schema.ts';
import { Compiler, type QueryRewrite, type ReadPlan } from '../../compiler/index.ts';
import type { QueryValue } from '../../compiler/querystring.ts';
import type { Config } from '../../config.ts';
import type { RestContext } from '../rest/router.ts';
import { planRow } from '../rest/read.ts';
import type { Caller } from '../auth/permissions.ts';
import { fileReadType, withTypes } from '../plugin-types.ts';
import { fileFieldNames } from './fields.ts';
import { checkPageParams, offsetParam } from './list-query.ts';

type Query = { [k: string]: QueryValue };
/** No limit: the list reads every file (Strapi's upload service queries without one). */
const ALL = 2147483647;
const TAIL = ',"isUrlSigned":false';

/** What a read of files keeps of the route's query: filters, sort, populate, `_q` (checked live), and the checked `fields` (all of them when null). */
function common(schema: Schema, q: Query): Query {
  const names = fileFieldNames(schema, q.fields);
  const out: Query = {};
  for (const k of ['filters', 'sort', 'populate', '_q'] as const) if (q[k] !== undefined) out[k] = q[k];
  // `id` alone selects id and documentId only (fields.ts leaves both out of its list).
  if (names) out.fields = names.length ? names : ['id'];
  return out;
}

/** The list: top-level start and limit (the upload service's findMany), no pagination of its own. */
const listRewrite = (schema: Schema): QueryRewrite => (q) => {
  const out = common(schema, q);
  const start = offsetParam(q.start, 'Start');
  const limit = offsetParam(q.limit, 'Limit');
  // `limit=0` reads every file too, by id (checked live).
  out.pagination = { start: String(start ?? 0), limit: String(limit || ALL), withCount: 'false' };
  return out;
};

/** The page (findPage): `pagination` as a REST collection's, after the upload service's own checks. */
const pageRewrite = (schema: Schema): QueryRewrite => (q) => {
  checkPageParams(q);
  const out = common(schema, q);
  // A pagination that is no object is ignored, as by Strapi's (checked live: `pagination=3` reads the default page).
  const p = q.pagination;
  if (p && typeof p === 'object' && !Array.isArray(p)) out.pagination = p;
  return out;
};

/** One file by id: `fields` checked but not applied (Strapi's findOne takes the populate only). */
const oneRewrite = (schema: Schema, id: number): QueryRewrite => (q) => {
  fileFieldNames(schema, q.fields);
  return { ...(q.populate !== undefined ? { populate: q.populate } : {}), filters: { id: { $eq: String(id) } }, pagination: { start: '0', limit: '1', withCount: 'false' } };
};

/**
 * Strapi's validateQuery, which upload's controllers run before anything of their own (the list's start and
 * limit, findOne's lookup): filters, then sort, then fields, then populate (checked live: `sort=nope` is
 * refused before an invalid `fields`, before `start=-1`, and before a file id that names no file).
 */
const filtersAndSort: QueryRewrite = (q) => ({
  ...(q.filters !== undefined ? { filters: q.filters } : {}), ...(q.sort !== undefined ? { sort: q.sort } : {}),
  pagination: { start: '0', limit: '1', withCount: 'false' },
});
const fieldsThenPopulate = (schema: Schema): QueryRewrite => (q) => {
  fileFieldNames(schema, q.fields);
  return { ...(q.populate !== undefined ? { populate: q.populate } : {}), pagination: { start: '0', limit: '1', withCount: 'false' } };
};

/** Whether a list query names no start and no limit but `-1` (the upload service then orders by its sort alone). */
function unpaged(raw: string): boolean {
  const p = new URLSearchParams(raw);
  const limit = p.get('limit');
  return !p.has('start') && (limit === null || limit.trim() === '-1');
}

export class FilesQuery {
  private readonly file: ContentType;
  /** Without limits (the list, one file) and with the REST limits (the page). */
  private readonly unlimited: Compiler;
  /** The list asked for no start or limit: by its sort alone, else the table's own order (physicalOrder). */
  private readonly unordered: Compiler;
  private readonly paged: Compiler;
  private readonly listRewrite: QueryRewrite;
  private readonly pageRewrite: QueryRewrite;
  private readonly fieldsThenPopulate: QueryRewrite;

  constructor(private readonly schema: Schema, config: Config) {
    this.file = schema.files ?? fileReadType(schema);
    // Rows linking a file may be files (a project's media on the file) or locales (on the locale): types here too.
    const locale = schema.pluginRecords?.locale?.ct;
    const types = withTypes(schema, [this.file, ...(locale ? [locale] : [])]);
    const base = { ...config.api.rest, maxResponseSize: config.http.maxResponseSize, renderCache: false, rowTail: TAIL };
    this.unlimited = new Compiler(types, { ...base, defaultLimit: ALL, maxLimit: ALL, withCount: false });
    this.unordered = new Compiler(types, { ...base, defaultLimit: ALL, maxLimit: ALL, withCount: false, physicalOrder: true });
    this.paged = new Compiler(types, base);
    this.listRewrite = listRewrite(schema);
    this.pageRewrite = pageRewrite(schema);
    this.fieldsThenPopulate = fieldsThenPopulate(schema);
  }

  /** The route's query as Strapi's validateQuery sees it; a value that does not cast only after every key is checked. */
  check(ctx: RestContext, caller: Caller, raw: string): void {
    const access = ctx.auth.access(caller);
    const first = this.unlimited.check(this.file, raw, access, filtersAndSort);
    const second = this.unlimited.check(this.file, raw, access, this.fieldsThenPopulate);
    if (first ?? second) throw first ?? second;
  }

  private async run(ctx: RestContext, caller: Caller, compiler: Compiler, raw: string, rewrite: QueryRewrite, key: string): Promise<{ plan: ReadPlan; row: Array<Buffer | null> }> {
    this.check(ctx, caller, raw);
    // The rewrite differs per id: the exact-text plan cache is keyed by it through the raw text.
    const plan = compiler.read(this.file, 'list', `${key}&${raw}`, undefined, ctx.auth.access(caller), rewrite);
    return { plan, row: (await planRow(ctx, plan))! };
  }

  /**
   * `GET /files`: the records as a JSON array's text. Asked for no start or limit (or `limit=-1`), the upload
   * service's query orders by the sort alone, or not at all: files in the table's own order (an edited one
   * moved to where its new row version lies), ties of a sort as PostgreSQL's sort leaves them (checked live);
   * with a start or limit, by the sort, then by id.
   */
  async list(ctx: RestContext, caller: Caller, raw: string): Promise<string> {
    const { row } = await this.run(ctx, caller, unpaged(raw) ? this.unordered : this.unlimited, raw, this.listRewrite, '');
    return `[${row[0] ? String(row[0]) : ''}]`;
  }

  /** `GET /files/page`: the records and the total when counted. */
  async page(ctx: RestContext, caller: Caller, raw: string): Promise<{ data: string; plan: ReadPlan; total: number | null }> {
    const { plan, row } = await this.run(ctx, caller, this.paged, raw, this.pageRewrite, '');
    return { data: `[${row[0] ? String(row[0]) : ''}]`, plan, total: plan.sql.withTotal ? Number(String(row[1])) : null };
  }

  /** `GET /files/:id`: the record's text, or null. */
  async one(ctx: RestContext, caller: Caller, id: number, raw: string): Promise<string | null> {
    const { row } = await this.run(ctx, caller, this.unlimited, raw, oneRewrite(this.schema, id), `__file=${id}`);
    return row[0] ? String(row[0]) : null;
  }
}
