// strapi.entityService, the v4 API Strapi 5 keeps for older project code, on the document service as Strapi
// 5.54's own compatibility layer runs it (services/entity-service): findMany (a single type's is its
// findFirst), findOne/update/delete by a row's numeric id (the row, in any status and locale, names the
// document; the call then acts on the document in the default locale, as Strapi's), create (published
// unless `data.publishedAt` is null), count, and findPage (`{ results, pagination: { page, pageSize,
// pageCount, total } }`, page 1 of 10 by default; Strapi runs it on the Query Engine — strapi.db.query's
// findPage, here too —: no default status or locale, drafts and published rows together unless `status`
// says). v4's `publicationState` is dropped, as Strapi 5.54 drops it (checked live).
import type { DocumentService, Params } from './documents.ts';
import type { QueryRepository } from './query-engine.ts';

export interface EntityService {
  findMany(uid: string, params?: Params): Promise<unknown>;
  findOne(uid: string, entityId: number | string, params?: Params): Promise<unknown>;
  count(uid: string, params?: Params): Promise<number>;
  create(uid: string, params?: Params): Promise<unknown>;
  update(uid: string, entityId: number | string, params?: Params): Promise<unknown>;
  delete(uid: string, entityId: number | string, params?: Params): Promise<unknown>;
  findPage(uid: string, params?: Params): Promise<{ results: unknown[]; pagination: { page: number; pageSize: number; pageCount: number; total: number } }>;
}

interface Model { kind: string; draftAndPublish: boolean; localized: boolean }

function v5(params: Params = {}): Params {
  const { publicationState: _ignored, ...rest } = params;
  return rest;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `fields` as the transform's select: the row's ids first (a component has no documentId: the select skips it). */
const withIds = (fields: unknown): string[] | undefined => (fields === undefined ? undefined
  : [...new Set(['id', 'documentId', ...(Array.isArray(fields) ? fields : String(fields).split(',')).map((f) => String(f).trim())])]);

/** A Content API populate in the Query Engine's words (Strapi's query-params transform): fields → select, filters → where, sort → orderBy. */
function enginePopulate(p: unknown): unknown {
  // The entity service converts before its Query Engine call: `*` is every relation, a string its names.
  if (p === '*') return true;
  if (typeof p === 'string') return p.split(',').map((s) => s.trim());
  return isObj(p) ? Object.fromEntries(Object.entries(p).map(([k, v]) => [k, isObj(v) ? engineSpec(v) : v])) : p;
}

/** One attribute's populate spec in the Query Engine's words (a zone's or morph's `on` per type). */
function engineSpec(v: Obj): Obj {
  const spec: Obj = {};
  for (const [key, x] of Object.entries(v)) {
    if (key === 'fields') spec.select = withIds(x);
    else if (key === 'filters') spec.where = x;
    else if (key === 'sort') spec.orderBy = x;
    else if (key === 'populate') spec.populate = enginePopulate(x);
    else if (key === 'on') spec.on = enginePopulate(x);
    else spec[key] = x;
  }
  return spec;
}

export function entityService(documents: (uid: string) => DocumentService, model: (uid: string) => Model | undefined, rows: (uid: string) => QueryRepository): EntityService {
  /** The row with this id whatever its status and locale, as Strapi's db.query(uid).findOne({ where: { id } }). */
  const row = async (uid: string, id: number | string): Promise<Record<string, unknown> | null> => {
    const m = model(uid);
    for (const status of m?.draftAndPublish ? ['draft', 'published'] : ['published']) {
      const found = await documents(uid).findFirst({ filters: { id: { $eq: id } }, status, ...(m?.localized ? { locale: '*' } : {}) });
      if (found) return found as Record<string, unknown>;
    }
    return null;
  };
  const service: EntityService = {
    async findMany(uid, params) {
      return model(uid)?.kind === 'singleType' ? documents(uid).findFirst(v5(params)) : documents(uid).findMany(v5(params));
    },
    async findOne(uid, entityId, params) {
      const found = await row(uid, entityId);
      return found ? documents(uid).findOne({ ...v5(params), documentId: found.documentId }) : null;
    },
    async count(uid, params) { return documents(uid).count(v5(params)); },
    async create(uid, params = {}) {
      const p = v5(params);
      const data = p.data as Record<string, unknown> | undefined;
      if (!data) throw new Error('cannot create');
      // Strapi's contentTypes.isDraft: a draft only when publishedAt is given as null.
      const draft = !!model(uid)?.draftAndPublish && data.publishedAt === null;
      return documents(uid).create({ ...p, status: draft ? 'draft' : 'published' });
    },
    async update(uid, entityId, params = {}) {
      const found = await row(uid, entityId);
      if (!found) return null;
      // The status of the row the id names: its draft is edited, or the document published again.
      const draft = !!model(uid)?.draftAndPublish && found.publishedAt === null;
      return documents(uid).update({ ...v5(params), status: draft ? 'draft' : 'published', documentId: found.documentId });
    },
    async delete(uid, entityId, params = {}) {
      const found = await row(uid, entityId);
      if (!found) return null;
      const { fields: _f, populate: _p, ...rest } = v5(params);
      await documents(uid).delete({ ...rest, documentId: found.documentId });
      // Strapi answers the row it found by id (every scalar, whatever fields asked for).
      return found;
    },
    async findPage(uid, params = {}) {
      const m = model(uid);
      // Strapi's query-params transform: status a publishedAt condition, fields a select with the row's ids;
      // `locale` changes nothing there (recorded: every locale's rows answer).
      const { page = 1, pageSize = 10, filters, fields, sort, populate, status, locale: _locale, start: _s, limit: _l, pagination: _p, ...rest } = v5(params);
      const conds: unknown[] = [];
      if (filters !== undefined) conds.push(filters);
      if (m?.draftAndPublish && (status === 'published' || status === 'draft')) conds.push({ publishedAt: status === 'published' ? { $notNull: true } : { $null: true } });
      const select = withIds(fields);
      const query: Params = {
        ...rest,
        ...(conds.length ? { where: conds.length === 1 ? conds[0] : { $and: conds } } : {}),
        ...(select ? { select } : {}),
        ...(sort !== undefined ? { orderBy: sort } : {}),
        ...(populate !== undefined ? { populate: enginePopulate(populate) } : {}),
        page, pageSize,
      };
      return rows(uid).findPage(query);
    },
  };
  return new Proxy(service, {
    get(target, prop, receiver) {
      if (typeof prop === 'symbol' || prop in target) return Reflect.get(target, prop, receiver);
      if (prop === 'then') return undefined;
      return () => { throw new TypeError(`strapi.entityService.${prop} is not supported by this server`); };
    },
  });
}
