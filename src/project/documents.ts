// strapi.documents(uid): the Document Service API's reads with Strapi's parameters, each one compiled
// statement through the same compiler and plan caches as a REST read (a compiler of its own: the document
// service has no default or maximum page and never counts unless asked). Its default status is `draft`, as
// Strapi's; there are no permission checks (the caller's code sanitizes, as in Strapi).
import type { ContentType } from '../../compiler/schema.ts';
import { ApiError } from '../../compiler/errors.ts';
import { findMany, findOne, type ReadContext } from '../rest/read.ts';
import { bodyText, type Reply } from '../rest/reply.ts';
import { stringifyQuery } from './query.ts';

export type Params = Record<string, unknown>;

const QUERY_KEYS = ['filters', 'populate', 'fields', 'sort', 'locale', 'status', '_q'];
/** Keys Strapi's document service takes that change nothing here. */
const IGNORED = new Set(['lookup', 'hasPublishedVersion', 'withCount']);

export interface DocumentService {
  findMany(params?: Params): Promise<unknown[]>;
  findFirst(params?: Params): Promise<unknown>;
  findOne(params: Params): Promise<unknown>;
  count(params?: Params): Promise<number>;
}

function parsed(r: Reply): { data: unknown; meta?: { pagination?: { total?: number } } } {
  return JSON.parse(bodyText(r)) as { data: unknown };
}

/** A read's JSON, or null for Strapi's "no such document" (this server's 404). */
export async function orNull<T>(p: Promise<T>): Promise<T | null> {
  try { return await p; } catch (e) { if (e instanceof ApiError && e.status === 404) return null; throw e; }
}

export function documentQuery(uid: string, method: string, p: Params, extra: Params = {}): string {
  const q: Params = {};
  for (const [k, v] of Object.entries(p)) {
    if (v === undefined || IGNORED.has(k)) continue;
    if (QUERY_KEYS.includes(k)) q[k] = v;
    else if (k === 'start' || k === 'limit' || k === 'page' || k === 'pageSize' || k === 'pagination' || k === 'documentId') continue;
    else throw new TypeError(`strapi.documents('${uid}').${method}: the parameter "${k}" is not supported by this server`);
  }
  q.status ??= 'draft';
  const pg = (p.pagination && typeof p.pagination === 'object' ? p.pagination : {}) as Params;
  const pick = (k: string) => p[k] ?? pg[k];
  const pagination: Params = {};
  if (pick('start') !== undefined || pick('limit') !== undefined) {
    if (pick('start') !== undefined) pagination.start = pick('start');
    if (pick('limit') !== undefined) pagination.limit = pick('limit');
  } else if (pick('page') !== undefined || pick('pageSize') !== undefined) {
    if (pick('page') !== undefined) pagination.page = pick('page');
    if (pick('pageSize') !== undefined) pagination.pageSize = pick('pageSize');
  }
  Object.assign(q, extra);
  q.pagination = { ...pagination, ...(extra.pagination as Params | undefined) };
  return stringifyQuery(q);
}

/** `ctx` reads with the document compiler (no default limit). */
export function documentService(ctx: ReadContext, ct: ContentType): DocumentService {
  const uid = ct.uid;
  const list = async (p: Params, method: string, extra: Params = {}) => parsed(await findMany(ctx, ct, documentQuery(uid, method, p, extra)));
  const service: DocumentService = {
    async findMany(p = {}) {
      if (ct.kind === 'singleType') { const one = await service.findFirst(p); return one === null ? [] : [one]; }
      return (await list(p, 'findMany')).data as unknown[];
    },
    async findFirst(p = {}) {
      if (ct.kind === 'singleType') return orNull(findOne(ctx, ct, documentQuery(uid, 'findFirst', p)).then((r) => parsed(r).data));
      const rows = (await list(p, 'findFirst', { pagination: { start: 0, limit: 1 } })).data as unknown[];
      return rows[0] ?? null;
    },
    async findOne(p) {
      const documentId = p?.documentId;
      if (typeof documentId !== 'string') throw new TypeError(`strapi.documents('${uid}').findOne: documentId is required`);
      return orNull(findOne(ctx, ct, documentQuery(uid, 'findOne', p), documentId).then((r) => parsed(r).data));
    },
    async count(p = {}) {
      const { fields: _f, populate: _p, sort: _s, ...rest } = p;
      const r = await list(rest, 'count', { fields: ['id'], pagination: { start: 0, limit: 1, withCount: true } });
      return Number(r.meta?.pagination?.total ?? 0);
    },
  };
  // Writes and anything else: an error naming the method at its first use, never undefined.
  return new Proxy(service, {
    get(target, prop, receiver) {
      if (typeof prop === 'symbol' || prop in target) return Reflect.get(target, prop, receiver);
      if (prop === 'then') return undefined;
      return () => { throw new TypeError(`strapi.documents('${uid}').${prop} is not supported by this server`); };
    },
  });
}
