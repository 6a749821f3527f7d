// `GET /api/upload/files` and `/files/page` query parameters → SQL clauses over the files table: `filters`
// (parsed by the compiler's FilterParser over the file fields), `sort`, and the rows read (the list's
// start/limit, the page's pagination). Without a sort, oldest first.
import type { QueryValue } from '../../compiler/querystring.ts';
import { FilterParser, ParamBuilder, fileFields, fileScope, parsePagination, pushPage, type ReadLimits } from '../../compiler/params.ts';
import type { Schema } from '../../compiler/schema.ts';
import { ApiError, invalidKey, validation } from '../../compiler/errors.ts';
import type { Pagination } from '../../compiler/ast.ts';
import { filterSql } from '../../compiler/sql.ts';

export interface ListSql { where: string; orderBy: string; limit: string; params: unknown[] }

const DIRS = new Set(['asc', 'desc']);

function sortOf(schema: Schema, value: QueryValue | undefined, a: string): string[] {
  const out: string[] = [];
  const fields = fileFields(schema);
  const term = (name: string, dir: string) => {
    const f = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (!f) throw invalidKey('sort', name, null);
    if (!DIRS.has(dir.toLowerCase())) throw validation('Invalid order. order can only be one of asc|desc|ASC|DESC');
    out.push(`${a}.${f.column} ${dir.toLowerCase()}`);
  };
  const visit = (v: QueryValue) => {
    if (typeof v === 'string') {
      for (const s of v.split(',').map((x) => x.trim()).filter(Boolean)) { const [n, d = 'asc'] = s.split(':'); term(n, d); }
    } else if (Array.isArray(v)) v.forEach(visit);
    else for (const [k, d] of Object.entries(v)) { if (/^\d+$/.test(k)) visit(d); else if (typeof d === 'string') term(k, d); else throw validation('Invalid sort parameter'); }
  };
  if (value !== undefined && value !== '') visit(value);
  return out;
}

/** Filters and sort of a files query (the list's and the page's), their parameters pushed on `params`. */
function filesWhere(schema: Schema, q: { [k: string]: QueryValue }, params: ParamBuilder, alias: string): { where: string; orderBy: string } {
  const filter = q.filters === undefined ? null : new FilterParser(schema, params).parse(q.filters, fileScope(schema, null));
  const order = [...sortOf(schema, q.sort, alias), `${alias}.id asc`];
  return { where: filter ? `where ${filterSql(schema, filter, alias)}` : '', orderBy: `order by ${order.join(', ')}` };
}

/** A top-level `start` or `limit`, as Strapi's query-params transform converts it (null: not given). */
function offsetParam(v: QueryValue | undefined, name: 'Start' | 'Limit'): number | null {
  if (v === undefined) return null;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  // -1 is Strapi's "no limit".
  if (name === 'Limit' && n === -1) return null;
  if (!Number.isSafeInteger(n) || n < 0) throw validation(`convert${name}QueryParams expected a positive integer got ${n}`);
  return n;
}

/**
 * The list (the upload service's findMany through Strapi's query-params transform): `pagination` is none of
 * its parameters and is ignored, top-level `start` and `limit` apply (checked live); no limit means every file.
 */
export function listSql(schema: Schema, q: { [k: string]: QueryValue }, alias = 'f'): ListSql {
  const params = new ParamBuilder(schema.defaultLocale);
  const { where, orderBy } = filesWhere(schema, q, params, alias);
  const start = offsetParam(q.start, 'Start');
  const limit = offsetParam(q.limit, 'Limit');
  const lim = `${limit === null ? '' : ` limit $${params.push(limit)}::bigint`}${start === null ? '' : ` offset $${params.push(start)}::bigint`}`;
  return { where, orderBy, limit: lim, params: params.values };
}

export interface PageSql extends ListSql { page: Pagination }

const WITH_COUNT = new Set(['true', 't', '1', 'false', 'f', '0']);

/**
 * The page (findPage: the upload service's findAndCountPage): `pagination` as on any REST collection (page or
 * offset, defaultLimit, maxLimit, withCount), with the upload service's own withCount check; top-level page
 * parameters are refused as Strapi's transform refuses them beside the start and limit it is given.
 */
export function pageSql(schema: Schema, q: { [k: string]: QueryValue }, limits: ReadLimits, alias = 'f'): PageSql {
  if (q.page !== undefined || q.pageSize !== undefined) {
    throw new ApiError(400, 'PaginationError', 'Invalid pagination attributes. The page parameters are incorrect and must be in the pagination object', {});
  }
  const p = q.pagination;
  const withCount = p && typeof p === 'object' && !Array.isArray(p) ? p.withCount : undefined;
  if (withCount !== undefined && !(typeof withCount === 'string' && WITH_COUNT.has(withCount))) {
    throw validation('Invalid withCount parameter. Expected "t","1","true","false","0","f"');
  }
  const params = new ParamBuilder(schema.defaultLocale);
  const { where, orderBy } = filesWhere(schema, q, params, alias);
  const page = parsePagination(p, limits);
  const [lp, op] = pushPage(params, page);
  return { where, orderBy, limit: ` limit $${lp}::bigint offset $${op}::bigint`, params: params.values, page };
}
