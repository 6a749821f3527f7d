// Strapi's core controller and core service of a content-type, as `super.find(ctx)` and
// `strapi.service(uid).find(params)` reach them from a project's code: the same steps (validateQuery,
// sanitizeQuery, the service's read, sanitizeOutput, transformResponse) on this server's reads and writes.
// The runtime skips all of it for a route whose action and service are these very functions (it answers
// the compiled read's bytes directly); these run when project code calls them or overrides a step.
import type { ContentType, Schema, Attribute } from '../../compiler/schema.ts';
import { validation } from '../../compiler/errors.ts';
import { findMany, findOne } from '../rest/read.ts';
import { createDocument, deleteDocument, putSingle, updateDocument } from '../rest/write.ts';
import { bodyText, type Reply } from '../rest/reply.ts';
import type { RestContext } from '../rest/router.ts';
import type { Task } from '../task.ts';
import type { KoaContext } from './ctx.ts';
import { orNull, type Params } from './documents.ts';
import { stringifyQuery } from './query.ts';

/** What a request's ctx carries for the core actions: its REST context and what the caller may read. */
export interface RequestLink { rest: RestContext; task: Task; canRead: (uid: string) => boolean }
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
export function sanitizeOutput(schema: Schema, attrs: Attribute[], data: unknown, canRead: (uid: string) => boolean): unknown {
  if (Array.isArray(data)) return data.map((d) => sanitizeOutput(schema, attrs, d, canRead));
  if (!data || typeof data !== 'object') return data;
  const out: Record<string, unknown> = { ...(data as Record<string, unknown>) };
  for (const a of attrs) {
    const v = out[a.name];
    if (v === undefined) continue;
    if (a.kind === 'relation') {
      if (!canRead(a.target)) { delete out[a.name]; continue; }
      const t = schema.contentTypes.get(a.target);
      if (t) out[a.name] = sanitizeOutput(schema, t.attributes, v, canRead);
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

/** The query the core service reads: what the controller was given, as a query string. */
const qs = (params: Params | undefined) => stringifyQuery(params ?? {});

/**
 * The core service of `ct`: find/findOne (collection types), find (single types), with REST's
 * parameters (default status published, default page), no permission checks. Writes are the REST routes'
 * own here: called from project code they say so.
 */
export function coreService(ct: ContentType, base: () => RestContext): Methods {
  const unsupported = (m: string) => () => { throw new TypeError(`strapi.service('${ct.uid}').${m} is not supported by this server`); };
  if (ct.kind === 'singleType') {
    return {
      async find(params?: Params) { return orNull(findOne(base(), ct, qs(params)).then((r) => json(r).data)); },
      createOrUpdate: unsupported('createOrUpdate'), delete: unsupported('delete'),
    };
  }
  return {
    async find(params?: Params) {
      const r = json(await findMany(base(), ct, qs(params)));
      return { results: r.data, pagination: (r.meta as { pagination?: unknown }).pagination };
    },
    async findOne(documentId: string, params?: Params) { return orNull(findOne(base(), ct, qs(params), documentId).then((r) => json(r).data)); },
    create: unsupported('create'), update: unsupported('update'), delete: unsupported('delete'),
  };
}

/** A Task for the REST writers from a ctx: its current query and body. */
function writeTask(ctx: LinkedContext, l: RequestLink): Task {
  const body = ctx.request.body;
  return { ...l.task, query: ctx.querystring, body: body === undefined ? null : Buffer.from(JSON.stringify(body)) };
}

/** The core controller of `ct` (its prototype holds the helpers, as Strapi's createController). */
export function coreController(schema: Schema, ct: ContentType, service: () => Methods): Methods {
  const proto: Methods = {
    async transformResponse(data: unknown, meta: Record<string, unknown> = {}) {
      if (data === null || data === undefined) return data;
      if (typeof data !== 'object') throw new Error('Entry must be an object or an array of objects');
      return { data, meta };
    },
    async sanitizeOutput(data: unknown, ctx: LinkedContext) { return sanitizeOutput(schema, ct.attributes, data, link(ctx).canRead); },
    async sanitizeInput(data: unknown) { return data; },
    async sanitizeQuery(ctx: LinkedContext) { return structuredClone(ctx.query); },
    async validateQuery(ctx: LinkedContext) {
      const l = link(ctx);
      const id = ct.kind === 'collectionType' ? ctx.params.id : undefined;
      l.rest.compiler.read(ct, id === undefined && ct.kind === 'collectionType' ? 'list' : 'one', ctx.querystring, id, l.rest.access);
    },
    async validateInput(data: unknown) {
      if (!data || typeof data !== 'object' || Array.isArray(data)) throw validation('Missing "data" payload in the request body');
    },
  };
  type Self = { validateQuery(c: LinkedContext): Promise<void>; sanitizeQuery(c: LinkedContext): Promise<Params>; sanitizeOutput(d: unknown, c: LinkedContext): Promise<unknown>; transformResponse(d: unknown, m?: unknown): Promise<unknown> };
  const read = async (self: Self, ctx: LinkedContext, one: boolean) => {
    await self.validateQuery(ctx);
    const q = await self.sanitizeQuery(ctx);
    const s = service() as { find(p: Params): Promise<unknown>; findOne(id: string, p: Params): Promise<unknown> };
    if (ct.kind === 'singleType') return self.transformResponse(await self.sanitizeOutput(await s.find(q), ctx));
    if (one) return self.transformResponse(await self.sanitizeOutput(await s.findOne(ctx.params.id, q), ctx));
    const { results, pagination } = await s.find(q) as { results: unknown; pagination: unknown };
    return self.transformResponse(await self.sanitizeOutput(results, ctx), { pagination });
  };
  const write = async (ctx: LinkedContext, run: (rest: RestContext, task: Task) => Promise<Reply>) => {
    const l = link(ctx);
    const r = await run(l.rest, writeTask(ctx, l));
    ctx.status = r.status;
    return r.status === 204 ? undefined : json(r);
  };
  const actions: Methods = ct.kind === 'singleType'
    ? {
      async find(this: Self, ctx: LinkedContext) { return read(this, ctx, true); },
      async update(ctx: LinkedContext) { return write(ctx, (rest, task) => putSingle(rest, ct, task)); },
      async delete(ctx: LinkedContext) { await write(ctx, (rest, task) => deleteDocument(rest, ct, task, undefined)); },
    }
    : {
      async find(this: Self, ctx: LinkedContext) { return read(this, ctx, false); },
      async findOne(this: Self, ctx: LinkedContext) { return read(this, ctx, true); },
      async create(ctx: LinkedContext) { return write(ctx, (rest, task) => createDocument(rest, ct, task)); },
      async update(ctx: LinkedContext) { return write(ctx, (rest, task) => updateDocument(rest, ct, task, ctx.params.id)); },
      async delete(ctx: LinkedContext) { await write(ctx, (rest, task) => deleteDocument(rest, ct, task, ctx.params.id)); },
    };
  return Object.assign(Object.create(proto) as Methods, actions);
}
