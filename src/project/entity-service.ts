// strapi.entityService, the v4 API Strapi 5 keeps for older project code: its reads on the document service
// as Strapi 5's own compatibility layer does them (findMany, findOne by numeric id, count; a single type's
// findMany is its findFirst). v4's `publicationState` is dropped, as Strapi 5.54 drops it (checked live: a
// 'live' list still holds drafts: the document service's default status is draft). Writes (create, update,
// delete by numeric id) and findPage name themselves as not supported.
import type { DocumentService, Params } from './documents.ts';

export interface EntityService {
  findMany(uid: string, params?: Params): Promise<unknown>;
  findOne(uid: string, entityId: number | string, params?: Params): Promise<unknown>;
  count(uid: string, params?: Params): Promise<number>;
}

function v5(params: Params = {}): Params {
  const { publicationState: _ignored, ...rest } = params;
  return rest;
}

export function entityService(documents: (uid: string) => DocumentService, kind: (uid: string) => string | undefined): EntityService {
  const service: EntityService = {
    async findMany(uid, params) {
      return kind(uid) === 'singleType' ? documents(uid).findFirst(v5(params)) : documents(uid).findMany(v5(params));
    },
    async findOne(uid, entityId, params) {
      // Strapi reads the row by id whatever its status, then the document it belongs to.
      let row: unknown = null;
      for (const status of ['draft', 'published']) {
        row = await documents(uid).findFirst({ filters: { id: { $eq: entityId } }, fields: ['documentId'], status });
        if (row) break;
      }
      const documentId = (row as { documentId?: string } | null)?.documentId;
      return documentId ? documents(uid).findOne({ ...v5(params), documentId }) : null;
    },
    async count(uid, params) { return documents(uid).count(v5(params)); },
  };
  return new Proxy(service, {
    get(target, prop, receiver) {
      if (typeof prop === 'symbol' || prop in target) return Reflect.get(target, prop, receiver);
      if (prop === 'then') return undefined;
      return () => { throw new TypeError(`strapi.entityService.${prop} is not supported by this server`); };
    },
  });
}
