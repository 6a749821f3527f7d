// strapi.entityService, the v4 API Strapi 5 keeps for older project code, on the document service as Strapi
// 5.54's own compatibility layer runs it (services/entity-service): findMany (a single type's is its
// findFirst), findOne/update/delete by a row's numeric id (the row, in any status and locale, names the
// document; the call then acts on the document in the default locale, as Strapi's), create (published
// unless `data.publishedAt` is null), count, and findPage (`{ results, pagination: { page, pageSize,
// pageCount, total } }`, page 1 of 10 by default; Strapi runs it on the query layer: no default status or
// locale, every locale is read). v4's `publicationState` is dropped, as Strapi 5.54 drops it (checked live).
// findPage of a draft & publish type without `status` (Strapi reads drafts and published rows together)
// is not run here and says so.
import type { DocumentService, Params } from './documents.ts';

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

export function entityService(documents: (uid: string) => DocumentService, model: (uid: string) => Model | undefined): EntityService {
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
      const { page: pg = 1, pageSize: ps = 10, start: _s, limit: _l, locale: _loc, pagination: _p, ...rest } = v5(params);
      if (m?.draftAndPublish && rest.status === undefined) {
        throw new TypeError(`strapi.entityService.findPage of ${uid} without status (drafts and published entries together) is not supported by this server`);
      }
      const page = Number(pg);
      const pageSize = Number(ps);
      const q: Params = { ...rest, status: rest.status ?? 'published', ...(m?.localized ? { locale: '*' } : {}) };
      const { fields: _f, populate: _pp, sort: _so, ...counted } = q;
      const [results, total] = await Promise.all([
        documents(uid).findMany({ ...q, start: Math.max(page - 1, 0) * pageSize, limit: pageSize }),
        documents(uid).count(counted),
      ]);
      return { results, pagination: { page, pageSize, pageCount: Math.ceil(total / pageSize), total } };
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
