// Strapi 5.54's core service of a content-type as it is (core-api/service/*.js): every action through
// `strapi.documents(uid)`, so a project's document middlewares see what Strapi's show them — `status:
// 'published'` unless asked, a list's `start`/`limit` from the REST pagination (api.rest defaults and
// maximum), then a `count` with the same parameters. Used instead of ./core.ts's coreService (which reads
// the REST compiler's bytes directly) when the project registered document middlewares.
import type { ContentType } from '../../compiler/schema.ts';
import { serviceWithCount } from '../../compiler/params.ts';
import { validation } from '../../compiler/errors.ts';
import type { Methods } from './core.ts';
import type { DocumentService, Params } from './documents.ts';

export interface RestLimits { defaultLimit: number; maxLimit: number; withCount: boolean }

const isNil = (v: unknown) => v === undefined || v === null;

/** Strapi's getPaginationInfo (utils' withDefaultPagination with the REST defaults): `{ start, limit }`. */
export function paginationInfo(pagination: Params, limits: RestLimits): { start: number; limit: number } {
  const maxLimit = limits.maxLimit > 0 ? limits.maxLimit : -1;
  const capped = (limit: number) => (maxLimit === -1 || limit < maxLimit ? limit : maxLimit);
  const valid = (start: number, limit: number) => ({ start: Math.max(start, 0), limit: capped(limit === -1 ? limit : Math.max(limit, 1)) });
  const paged = !isNil(pagination.page) || !isNil(pagination.pageSize);
  const offset = !isNil(pagination.start) || !isNil(pagination.limit);
  if (!paged && !offset) return valid(0, limits.defaultLimit);
  if (paged && offset) throw validation('Cannot use both page & offset pagination in the same query');
  let start: number;
  let limit: number;
  if (offset) {
    start = isNil(pagination.start) ? 0 : Number(pagination.start);
    limit = isNil(pagination.limit) ? limits.defaultLimit : Number(pagination.limit);
  } else {
    const page = isNil(pagination.page) ? 1 : Number(pagination.page);
    const pageSize = isNil(pagination.pageSize) ? limits.defaultLimit : Math.max(1, Number(pagination.pageSize));
    limit = valid(0, pageSize).limit;
    start = (page - 1) * limit;
  }
  if (limit === -1) limit = maxLimit;
  return valid(start, limit);
}

/** Strapi's shouldCount: `pagination.withCount` when given, else api.rest.withCount. */
function shouldCount(params: Params, limits: RestLimits): boolean {
  const pg = params.pagination as Params | undefined;
  if (!pg || typeof pg !== 'object' || !('withCount' in pg)) return limits.withCount;
  return pg.withCount === undefined ? false : serviceWithCount(pg.withCount);
}

/** Strapi's transformPaginationResponse: paged (`page`, `pageSize`…) unless the query asked start/limit. */
function paginationResponse(info: { start: number; limit: number }, total: number | undefined, paged: boolean): Record<string, number> {
  const out: Record<string, number> = paged
    ? { page: Math.floor(info.start / info.limit) + 1, pageSize: info.limit, pageCount: info.limit > 0 ? Math.ceil((total ?? 0) / info.limit) : 0, total: total ?? 0 }
    : { start: info.start, limit: info.limit, total: total ?? 0 };
  if (total === undefined) { delete out.total; delete out.pageCount; }
  return out;
}

const fetchParams = (params: Params | undefined): Params => ({ status: 'published', ...(params ?? {}) });

/**
 * The core service of `ct` on `docs()` (the project's strapi.documents(uid), middlewares included);
 * `documentId()` finds a single type's document as Strapi's does (a database read outside the chain).
 */
export function documentCoreService(ct: ContentType, docs: () => DocumentService, limits: RestLimits, documentId: () => Promise<string | undefined>): Methods {
  if (ct.kind === 'singleType') {
    return {
      async find(params?: Params) { return docs().findFirst(fetchParams(params)); },
      async createOrUpdate(params?: Params) {
        const id = await documentId();
        return id ? docs().update({ ...fetchParams(params), documentId: id }) : docs().create(fetchParams(params));
      },
      async delete(params?: Params) {
        const id = await documentId();
        if (!id) return { deletedEntries: 0 };
        const { entries } = await docs().delete({ ...fetchParams(params), documentId: id });
        return { deletedEntries: entries.length };
      },
    };
  }
  return {
    async find(params?: Params) {
      const p = fetchParams(params);
      const pg = (p.pagination && typeof p.pagination === 'object' ? p.pagination : {}) as Params;
      const info = paginationInfo(pg, limits);
      const paged = 'page' in pg || 'pageSize' in pg || !('start' in pg || 'limit' in pg);
      const results = await docs().findMany({ ...p, ...info });
      if (!shouldCount(p, limits)) return { results, pagination: paginationResponse(info, undefined, paged) };
      const count = await docs().count({ ...p, ...info });
      return { results, pagination: paginationResponse(info, count, paged) };
    },
    async findOne(id: string, params?: Params) { return docs().findOne({ ...fetchParams(params), documentId: id }); },
    async create(params?: Params) { return docs().create(fetchParams(params ?? { data: {} })); },
    async update(id: string, params?: Params) { return docs().update({ ...fetchParams(params ?? { data: {} }), documentId: id }); },
    async delete(id: string, params?: Params) {
      const { entries } = await docs().delete({ ...fetchParams(params), documentId: id });
      return { deletedEntries: entries.length };
    },
  };
}
