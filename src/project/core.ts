// Strapi's core controller and core service of a content-type, as `super.find(ctx)` and
// `strapi.service(uid).find(params)` reach them from a project's code: the same steps (validateQuery,
// sanitizeQuery, the service's read, sanitizeOutput, transformResponse) on this server's reads and writes.
// The runtime skips all of it for a route whose action and service are these very functions (it answers
// the compiled read's bytes directly); these run when project code calls them or overrides a step.
import { v4Format } from './request-format.ts';
import { v4Data } from '../rest/v4-format.ts';
import type { ContentType, Schema, Attribute } from '../../compiler/schema.ts';
import { validation } from '../../compiler/errors.ts';
import { findMany, findOne } from '../rest/read.ts';
import { createDocument, deleteDocument, putSingle, updateDocument } from '../rest/write.ts';
import { bodyText, type Reply } from '../rest/reply.ts';
import type { RestContext } from '../rest/router.ts';
import { dataWriteTask, type Task } from '../task.ts';
import type { Caller } from '../auth/permissions.ts';
import type { KoaContext } from './ctx.ts';
import { orNull, type Params } from './documents.ts';
import { stringifyQuery } from './query.ts';
import { STRAPI_READ_ONLY, routeBody } from '../rest/validate.ts';
import { strictQuery } from './content-api-params.ts';

/** What a request's ctx carries for the core actions: its REST context and what the caller may read. */
export interface RequestLink {
  rest: RestContext; task: Task; canRead: (uid: string) => boolean;
  /** Whom a plugin's native actions run as: the request's caller, or behind `auth: false` no one they check (route-handler.ts). */
  caller?: Caller | null;
}
export const LINK = Symbol.for('fastrapi.request-link');
export type LinkedContext = KoaContext & { [LINK]?: RequestLink };

export type Methods = Record<string, unknown>;

function link(ctx: LinkedContext): RequestLink {
  const l = ctx[LINK];
  if (!l) throw new TypeError('a core controller action needs the request\'s ctx');
  return l;
}

const json = (r: Reply): { data: unknown; meta: Record<string, unknown> } => JSON.parse(bodyText(r)) as { data: unknown; meta: Record<string, unknown> };

/**
 * Strapi's sanitizeOutput: relations to content-types the caller may not `find` are removed at every level
 * (components, dynamic zones, populated relations); with `auth: false` there is no caller, so every relation
 * goes, as Strapi's removeRestrictedRelations does with an empty auth. Private attributes never leave the
 * compiler.
 */
export function sanitizeOutput(schema: Schema, attrs: Attribute[], data: unknown, canRead: (uid: string) => boolean, ct?: ContentType): unknown {
  if (Array.isArray(data)) return data.map((d) => sanitizeOutput(schema, attrs, d, canRead, ct));
  if (!data || typeof data !== 'object') return data;
  const out: Record<string, unknown> = { ...(data as Record<string, unknown>) };
  // The document service's `locale: null` of a type without i18n is no field of it: Strapi's sanitizer drops it.
  if (ct && !ct.localized && 'locale' in out) delete out.locale;
  for (const a of attrs) {
    const v = out[a.name];
    if (v === undefined) continue;
    if (a.kind === 'relation') {
      if (!canRead(a.target)) { delete out[a.name]; continue; }
      const t = schema.contentTypes.get(a.target);
      if (t) out[a.name] = sanitizeOutput(schema, t.attributes, v, canRead, t);
    } else if (a.kind === 'component') {
      const c = schema.components.get(a.component);
      if (c) out[a.name] = sanitizeOutput(schema, c.attributes, v, canRead);
    } else if (a.kind === 'dynamiczone' && Array.isArray(v)) {
      out[a.name] = v.map((item) => {
        const c = schema.components.get(String((item as { __component?: unknown })?.__component));
        return c ? sanitizeOutput(schema, c.attributes, item, canRead) : item;
      });
    }
  }
  return out;
}

/** Strapi's own attributes no client writes, whatever the model (`writable: false` or ids and timestamps). */
const NON_WRITABLE = new Set(['id', 'documentId', ...STRAPI_READ_ONLY]);

/** The query the core service reads: what the controller was given, as a query string. */
const qs = (params: Params | undefined) => stringifyQuery(params ?? {});

/**
 * The core service of `ct` with REST's parameters (default status published, default page), no permission
 * checks: find/findOne/create/update/delete (collection types), find/createOrUpdate/delete (single types).
 * Writes run the REST writers (one transaction, the document's lock, cache invalidation).
 */
export function coreService(ct: ContentType, base: () => RestContext): Methods {
  const writeTask = (params: Params | undefined): Task => {
    const { data, ...rest } = params ?? {};
    return dataWriteTask(qs(rest), data);
  };
  const deleteQuery = (params: Params | undefined) => qs(params?.locale === undefined ? {} : { locale: params.locale });
  if (ct.kind === 'singleType') {
    return {
      async find(params?: Params) { return orNull(findOne(base(), ct, qs(params)).then((r) => json(r).data)); },
      async createOrUpdate(params?: Params) { return json(await putSingle(base(), ct, writeTask(params))).data; },
      async delete(params?: Params) { await deleteDocument(base(), ct, { ...writeTask(undefined), query: deleteQuery(params) }, undefined); return null; },
    };
  }
  return {
    async find(params?: Params) {
      const r = json(await findMany(base(), ct, qs(params)));
      return { results: r.data, pagination: (r.meta as { pagination?: unknown }).pagination };
    },
    async findOne(documentId: string, params?: Params) { return orNull(findOne(base(), ct, qs(params), documentId).then((r) => json(r).data)); },
    async create(params?: Params) { return json(await createDocument(base(), ct, writeTask(params))).data; },
    async update(documentId: string, params?: Params) { return orNull(updateDocument(base(), ct, writeTask(params), documentId).then((r) => json(r).data)); },
    async delete(documentId: string, params?: Params) {
      await deleteDocument(base(), ct, { ...writeTask(undefined), query: deleteQuery(params) }, documentId);
      return { documentId, entries: [] };
    },
  };
}

/** The core controller of `ct` (its prototype holds the helpers, as Strapi's createController). */
export function coreController(schema: Schema, ct: ContentType, service: () => Methods): Methods {
  const proto: Methods = {
    async transformResponse(data: unknown, meta: Record<string, unknown> = {}) {
      if (data === null || data === undefined) return data;
      if (typeof data !== 'object') throw new Error('Entry must be an object or an array of objects');
      return { data: v4Format.getStore() ? v4Data(schema, ct, data) : data, meta };
    },
    async sanitizeOutput(data: unknown, ctx: LinkedContext) { return sanitizeOutput(schema, ct.attributes, data, link(ctx).canRead, ct); },
    async sanitizeInput(data: unknown, ctx: LinkedContext) {
      if (!data || typeof data !== 'object' || Array.isArray(data)) return data;
      const own = link(ctx).rest.route ?? null;
      const out = { ...(data as Record<string, unknown>) };
      // Strapi always leaves out what is not writable (its getNonWritableAttributes: ids, timestamps, the
      // `writable: false` attributes, among them the creator fields and i18n's localizations); strictParams
      // also what is no attribute (locale and publishedAt are Strapi's attributes; the route's own params aside).
      const strict = link(ctx).rest.config.api.rest.strictParams;
      for (const k of Object.keys(out)) {
        const a = ct.byName.get(k);
        if (NON_WRITABLE.has(k) || a?.readOnly || (strict && !a && k !== 'locale' && k !== 'publishedAt' && !own?.inputKeys.has(k))) delete out[k];
      }
      own?.sanitizeInput(out);
      return out;
    },
    async sanitizeQuery(ctx: LinkedContext) {
      const l = link(ctx);
      const own = l.rest.route ?? null;
      const q = structuredClone(ctx.query) as Record<string, unknown>;
      own?.sanitizeQuery(q);
      return (l.rest.config.api.rest.strictParams ? strictQuery(q, own) : q) as Params;
    },
    async validateQuery(ctx: LinkedContext) {
      const l = link(ctx);
      const id = ct.kind === 'collectionType' ? ctx.params.id : undefined;
      l.rest.compiler.read(ct, id === undefined && ct.kind === 'collectionType' ? 'list' : 'one', ctx.querystring, id, l.rest.access, undefined, l.rest.route ?? true);
    },
    /** Strapi's validateInput: the body's keys (the route's own params aside), then those params' values. */
    async validateInput(data: unknown, ctx?: LinkedContext) {
      if (!data || typeof data !== 'object') throw validation('Missing "data" payload in the request body');
      // A list is refused by the document service's cast (src/rest/write.ts), in Strapi's words.
      if (Array.isArray(data)) return;
      // A core create's or update's body schema has its `data` key too.
      const handler = ctx?.state.route?.handler;
      routeBody(schema, ct, data as Record<string, unknown>, ctx?.[LINK]?.rest.route ?? null, handler === `${ct.uid}.create` || handler === `${ct.uid}.update`);
    },
  };
  type Self = {
    validateQuery(c: LinkedContext): Promise<void>; sanitizeQuery(c: LinkedContext): Promise<Params>; sanitizeOutput(d: unknown, c: LinkedContext): Promise<unknown>; transformResponse(d: unknown, m?: unknown): Promise<unknown>;
    validateInput(d: unknown, c: LinkedContext): Promise<void>; sanitizeInput(d: unknown, c: LinkedContext): Promise<unknown>;
  };
  const read = async (self: Self, ctx: LinkedContext, one: boolean) => {
    await self.validateQuery(ctx);
    const q = await self.sanitizeQuery(ctx);
    const s = service() as { find(p: Params): Promise<unknown>; findOne(id: string, p: Params): Promise<unknown> };
    if (ct.kind === 'singleType') return self.transformResponse(await self.sanitizeOutput(await s.find(q), ctx));
    if (one) return self.transformResponse(await self.sanitizeOutput(await s.findOne(ctx.params.id, q), ctx));
    const { results, pagination } = await s.find(q) as { results: unknown; pagination: unknown };
    return self.transformResponse(await self.sanitizeOutput(results, ctx), { pagination });
  };
  type WriteService = {
    create(p: Params): Promise<unknown>; update(id: string, p: Params): Promise<unknown>; delete(id: string | Params, p?: Params): Promise<unknown>;
    createOrUpdate(p: Params): Promise<unknown>;
  };
  /** Strapi's core write actions: the body's data (validated), the query, through the (possibly overridden) service. */
  const write = async (self: Self, ctx: LinkedContext, run: (s: WriteService, p: Params) => Promise<unknown>, status = 200) => {
    await self.validateQuery(ctx);
    const q = await self.sanitizeQuery(ctx);
    const body = (ctx.request.body ?? {}) as { data?: unknown };
    if (!body.data || typeof body.data !== 'object') throw validation('Missing "data" payload in the request body');
    await self.validateInput(body.data, ctx);
    const entity = await run(service() as WriteService, { ...q, data: await self.sanitizeInput(body.data, ctx) });
    if (entity === null || entity === undefined) return undefined;
    if (status !== 200) ctx.status = status;
    return self.transformResponse(await self.sanitizeOutput(entity, ctx));
  };
  const remove = async (self: Self, ctx: LinkedContext, run: (s: WriteService, p: Params) => Promise<unknown>) => {
    await self.validateQuery(ctx);
    await run(service() as WriteService, await self.sanitizeQuery(ctx));
    ctx.status = 204;
  };
  const actions: Methods = ct.kind === 'singleType'
    ? {
      async find(this: Self, ctx: LinkedContext) { return read(this, ctx, true); },
      async update(this: Self, ctx: LinkedContext) { return write(this, ctx, (s, p) => s.createOrUpdate(p)); },
      async delete(this: Self, ctx: LinkedContext) { await remove(this, ctx, (s, p) => s.delete(p)); },
    }
    : {
      async find(this: Self, ctx: LinkedContext) { return read(this, ctx, false); },
      async findOne(this: Self, ctx: LinkedContext) { return read(this, ctx, true); },
      async create(this: Self, ctx: LinkedContext) { return write(this, ctx, (s, p) => s.create(p), 201); },
      async update(this: Self, ctx: LinkedContext) { return write(this, ctx, (s, p) => s.update(ctx.params.id, p)); },
      async delete(this: Self, ctx: LinkedContext) { await remove(this, ctx, (s, p) => s.delete(ctx.params.id, p)); },
    };
  return Object.assign(Object.create(proto) as Methods, actions);
}
