// strapi.documents(uid): the Document Service API's reads with Strapi's parameters, each one compiled
// statement through the same compiler and plan caches as a REST read (a compiler of its own: the document
// service has no default or maximum page and never counts unless asked). Its default status is `draft`, as
// Strapi's; there are no permission checks (the caller's code sanitizes, as in Strapi).
import type { Attribute, Component, ContentType, Schema } from '../../compiler/schema.ts';
import { ApiError, validation } from '../../compiler/errors.ts';
import { checkStrictDocumentParams } from '../../compiler/document-params.ts';
import { findMany, findOne } from '../rest/read.ts';
import { bodyText, type Reply } from '../rest/reply.ts';
import type { RestContext } from '../rest/router.ts';
import { createDocument, deleteDocument, putSingle, dropUnpublishedDrafts, publishDocument, unpublishDocument, updateDocument, type Locales } from '../rest/write.ts';
import { BodyValidator, throwIfErrors } from '../rest/validate.ts';
import { dataWriteTask, type Task } from '../task.ts';
import { stringifyQuery } from './query.ts';

export type Params = Record<string, unknown>;

/** An ApiError as the project's code sees Strapi's errors: `name` is Strapi's error name. */
function strapiNamed(e: unknown): unknown {
  if (e instanceof ApiError && e.name === 'Error') Object.defineProperty(e, 'name', { value: e.errorName, configurable: true, writable: true });
  return e;
}

const QUERY_KEYS = ['filters', 'populate', 'fields', 'sort', 'locale', 'status', '_q', 'publicationFilter', 'hasPublishedVersion'];
/** Keys Strapi's document service takes that change nothing here. */
const IGNORED = new Set(['withCount']);

export interface DocumentService {
  findMany(params?: Params): Promise<unknown[]>;
  findFirst(params?: Params): Promise<unknown>;
  findOne(params: Params): Promise<unknown>;
  count(params?: Params): Promise<number>;
  create(params: Params): Promise<unknown>;
  update(params: Params): Promise<unknown>;
  delete(params: Params): Promise<{ documentId: string; entries: unknown[] }>;
  /** Draft & publish types only (undefined otherwise, as Strapi's repository leaves them). */
  publish?(params: Params): Promise<{ documentId: string; entries: unknown[] }>;
  unpublish?(params: Params): Promise<{ documentId: string; entries: unknown[] }>;
  discardDraft?(params: Params): Promise<{ documentId: string; entries: unknown[] }>;
}

/**
 * A populate of everything nested an entry holds: its components and zones in full, and with `links` its
 * relations and media too (fullPopulate: a whole entry; without: a draft read back as a body).
 */
function nestedPopulate(schema: Schema, attrs: Attribute[], links: boolean, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (depth > 8) return out;
  const inside = (uid: string) => {
    const c = schema.components.get(uid);
    const inner = c ? nestedPopulate(schema, c.attributes, links, depth + 1) : {};
    return Object.keys(inner).length ? { populate: inner } : true;
  };
  for (const a of attrs) {
    if (links && (a.kind === 'relation' || a.kind === 'media')) out[a.name] = true;
    else if (a.kind === 'component') out[a.name] = inside(a.component);
    else if (a.kind === 'dynamiczone') out[a.name] = { on: Object.fromEntries(a.components.map((uid) => [uid, inside(uid)])) };
  }
  return out;
}
const componentPopulate = (schema: Schema, attrs: Attribute[]) => nestedPopulate(schema, attrs, false);
const fullPopulate = (schema: Schema, attrs: Attribute[]) => nestedPopulate(schema, attrs, true);

/**
 * A stored entry as a body: scalars, and components and zones as new instances (no ids). With `links`
 * (an entry read with fullPopulate, written again) media by id and relations `set` to the same documents
 * (the writer links a draft to their drafts); without, what Strapi's validator sees at publish.
 */
function entryBody(schema: Schema, model: ContentType | Component, v: Record<string, unknown>, links: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const a of model.attributes) {
    if (!(a.name in v) || a.kind === 'morph' || (!links && (a.kind === 'relation' || a.kind === 'media'))) continue;
    const x = v[a.name];
    const nested = (c: Component, i: unknown) => entryBody(schema, c, i as Record<string, unknown>, links);
    if (a.kind === 'relation') {
      const target = schema.contentTypes.get(a.target);
      const ref = (e: unknown) => {
        const r = e as { documentId?: string; locale?: string | null };
        return target?.localized && r.locale ? { documentId: r.documentId, locale: r.locale } : { documentId: r.documentId };
      };
      out[a.name] = { set: (Array.isArray(x) ? x : x ? [x] : []).map(ref) };
    } else if (a.kind === 'media') {
      out[a.name] = Array.isArray(x) ? x.map((f) => (f as { id: number }).id) : x ? (x as { id: number }).id : null;
    } else if (a.kind === 'component') {
      const c = schema.components.get(a.component)!;
      out[a.name] = Array.isArray(x) ? x.map((i) => nested(c, i)) : x && typeof x === 'object' ? nested(c, x) : x;
    } else if (a.kind === 'dynamiczone') {
      out[a.name] = Array.isArray(x) ? x.map((i) => {
        const item = i as Record<string, unknown>;
        const c = schema.components.get(String(item.__component));
        return c ? { __component: item.__component, ...nested(c, item) } : item;
      }) : x;
    } else out[a.name] = x;
  }
  return out;
}

/**
 * The document service answers database entries, not the REST API's sanitized ones: an entry of a type
 * without i18n carries `locale: null` (after its timestamps), here as there, at every level a relation's
 * entries are populated, unless `fields` chose the attributes.
 */
function asEntries(schema: Schema, ct: ContentType, v: unknown, fields: boolean): unknown {
  if (Array.isArray(v)) return v.map((x) => asEntries(schema, ct, x, fields));
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const a = ct.byName.get(k);
    const target = a?.kind === 'relation' ? schema.contentTypes.get(a.target) : undefined;
    out[k] = target && !target.builtin ? asEntries(schema, target, x, false) : x;
    if (k === 'publishedAt' && !ct.localized && !fields) out.locale = null;
  }
  return out;
}

export function parsed(r: Reply): { data: unknown; meta?: { pagination?: { total?: number } } } {
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
    // Strapi's document service keeps `lookup` for itself.
    else if (k === 'lookup') throw validation("Invalid params: 'lookup'");
    // Pagination is read below; anything else is nothing to the document service (a route's own
    // Content API params, say, which its middlewares may read): passed over, as Strapi's (checked live).
  }
  // The document service reads drafts unless told otherwise; a delete takes no default (Strapi refuses
  // only an explicit `status: 'draft'` there).
  if (method !== 'delete') q.status ??= 'draft';
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

/**
 * `ctx` reads with the document compiler (no default limit) and writes with the REST writers (one
 * transaction each, the document's lock, cache invalidation); `clone` is not run here and says so.
 */
/** Runs an action's call inside the project's document middlewares (./document-middlewares.ts). */
export type Around = (action: string, params: Params, call: (p: Params) => Promise<unknown>) => Promise<unknown>;

/** Reads that transform `fields` in place, as Strapi's (documentId added): a later call given the same array sees it. */
const FIELD_READS = new Set(['findMany', 'findFirst', 'findOne']);

export function documentService(ctx: RestContext, ct: ContentType, around?: Around): DocumentService {
  const uid = ct.uid;
  const entries = (v: unknown, p: Params) => asEntries(ctx.schema, ct, v, p.fields !== undefined);
  // A type whose reads have lifecycle hooks is read by nobody here (src/project/lifecycles.ts).
  const open = () => { const e = ctx.lifecycles?.closedError(ct); if (e) throw e; };
  const list = async (p: Params, method: string, extra: Params = {}) => { open(); return parsed(await findMany(ctx, ct, documentQuery(uid, method, p, extra))); };
  const one = (p: Params, method: string, documentId?: string, extra: Params = {}) => {
    open();
    return orNull(findOne(ctx, ct, documentQuery(uid, method, p, extra), documentId).then((r) => entries(parsed(r).data, p)));
  };
  const idOf = (p: Params, method: string): string => {
    if (typeof p?.documentId !== 'string') throw new TypeError(`strapi.documents('${uid}').${method}: documentId is required`);
    return p.documentId;
  };
  /** A write's Task: the body's data, and the document service's status (draft unless `published`) as REST's query. */
  const task = (method: string, p: Params): Task => {
    const { data, status, documentId: _d, ...rest } = p;
    const q = documentQuery(uid, method, rest, { status: ct.draftAndPublish && status !== 'published' ? 'draft' : 'published' });
    return dataWriteTask(q, data);
  };
  /**
   * The locales a publish, unpublish or discardDraft acts on: the asked one (or '*'), a list of them (Strapi's
   * multiLocaleToLookup: `locale in (…)`; under strictParams, its non-empty strings, and when none is left
   * the default locale), else the default one.
   */
  const locales = (p: Params): Locales => {
    if (!ct.localized) return null;
    if (Array.isArray(p.locale)) {
      const list = ctx.compiler.strictDocuments ? p.locale.filter((l) => typeof l === 'string' && l !== '') : p.locale;
      if (list.length || !ctx.compiler.strictDocuments) return list.map(String);
    }
    return typeof p.locale === 'string' && p.locale !== '' ? p.locale : ctx.schema.defaultLocale;
  };
  /** Throws Strapi's ValidationError when the draft in `locale` could not be published (read with every component). */
  const checkPublishable = async (documentId: string, locale: string | null, data?: Record<string, unknown>): Promise<void> => {
    const q = documentQuery(uid, 'publish', { status: 'draft', ...(locale === null ? {} : { locale }), populate: componentPopulate(ctx.schema, ct.attributes) });
    const draft = await orNull(findOne(ctx, ct, q, documentId).then((r) => parsed(r).data as Record<string, unknown>));
    if (!draft) return;
    const v = new BodyValidator(ctx.schema, ct, true, locale);
    // An update that publishes: the body's values over the stored draft's (relations and media are not checked).
    const given = data ? Object.fromEntries(Object.entries(data).filter(([k]) => { const a = ct.byName.get(k); return a && a.kind !== 'relation' && a.kind !== 'media' && a.kind !== 'morph'; })) : {};
    v.run({ ...entryBody(ctx.schema, ct, draft, false), ...given }, new Map());
    throwIfErrors(v.errors);
  };
  /** The document's versions in the asked locale as the document service lists them (published first, then the draft). */
  const versions = async (documentId: string, p: Params, method: string): Promise<unknown[]> => {
    const { status: _s, ...rest } = p;
    const found = [];
    for (const status of ct.draftAndPublish ? ['published', 'draft'] : ['draft']) found.push(await one({ ...rest, status }, method, documentId));
    return found.filter((e) => e !== null);
  };
  const service: DocumentService = {
    async findMany(p = {}) {
      if (ct.kind === 'singleType') { const first = await service.findFirst(p); return first === null ? [] : [first]; }
      return entries((await list(p, 'findMany')).data, p) as unknown[];
    },
    async findFirst(p = {}) {
      if (ct.kind === 'singleType') return one(p, 'findFirst');
      const rows = (await list(p, 'findFirst', { pagination: { start: 0, limit: 1 } })).data as unknown[];
      return entries(rows[0] ?? null, p);
    },
    async findOne(p) { return one(p, 'findOne', idOf(p, 'findOne')); },
    async create(p) {
      // A single type's create, as its REST PUT: under the type's lock, the existing document updated if
      // another write made one meanwhile (Strapi's core service looks for it outside any transaction).
      const r = ct.kind === 'singleType' ? await putSingle(ctx, ct, task('create', p)) : await createDocument(ctx, ct, task('create', p));
      return entries(parsed(r).data, p);
    },
    async update(p) {
      const documentId = idOf(p, 'update');
      // Publishing validates the draft as a published entry, as Strapi's (REST's update checks only the body).
      if (ct.draftAndPublish && p.status === 'published' && p.data && typeof p.data === 'object') {
        const l = locales(p);
        await checkPublishable(documentId, typeof l === 'string' && l !== '*' ? l : ctx.schema.defaultLocale, p.data as Record<string, unknown>);
      }
      return orNull(updateDocument(ctx, ct, task('update', p), documentId).then((r) => entries(parsed(r).data, p)));
    },
    async delete(p) {
      const documentId = idOf(p, 'delete');
      if (ct.draftAndPublish && p.status === 'draft') throw new Error('Cannot delete a draft document');
      const gone = await versions(documentId, p, 'delete');
      const { status: _s, ...rest } = p;
      await deleteDocument(ctx, ct, { ...task('delete', rest), query: documentQuery(uid, 'delete', { locale: rest.locale }) }, documentId);
      return { documentId, entries: gone };
    },
    async publish(p) {
      const documentId = idOf(p, 'publish');
      const { status: _s, locale: _l, ...rest } = p;
      // Strapi validates each draft as a published entry (the rules a draft skips: required values, min…).
      const done = await publishDocument(ctx, ct, documentId, locales(p), (locale) => checkPublishable(documentId, locale));
      const entries: unknown[] = [];
      for (const locale of done) {
        const e = await one({ ...rest, ...(locale === null ? {} : { locale }), status: 'published' }, 'publish', documentId);
        if (e !== null) entries.push(e);
      }
      return { documentId, entries };
    },
    async unpublish(p) {
      const documentId = idOf(p, 'unpublish');
      const { status: _s, locale: _l, ...rest } = p;
      // The published versions as Strapi returns them: read (with the call's fields and populate) before they go.
      const ls = locales(p);
      if (Array.isArray(ls) && !ls.length) return { documentId, entries: [] };
      const before = ls === '*' || Array.isArray(ls) ? await list({ ...rest, filters: { documentId }, locale: ls, status: 'published', sort: 'id:asc' }, 'unpublish') : null;
      const found = before ? entries(before.data, p) as unknown[] : [await one({ ...rest, ...(ls === null ? {} : { locale: ls }), status: 'published' }, 'unpublish', documentId)].filter((e) => e !== null);
      const gone = new Set(await unpublishDocument(ctx, ct, documentId, ls));
      return { documentId, entries: found.filter((e) => gone.has((e as { id: number }).id)) };
    },
    async discardDraft(p) {
      const documentId = idOf(p, 'discardDraft');
      const { status: _s, locale: _l, ...rest } = p;
      const ls = locales(p);
      // In the locales asked, drafts without a published version go (a document never published disappears,
      // as in Strapi); each published version is then copied onto its draft: read (relations, media,
      // components, zones) and written as the draft's new values by the REST writer.
      const published = await dropUnpublishedDrafts(ctx, ct, documentId, ls);
      const entriesOut: unknown[] = [];
      for (const locale of published) {
        const at = locale === null ? {} : { locale };
        const q = documentQuery(uid, 'discardDraft', { ...at, status: 'published', populate: fullPopulate(ctx.schema, ct.attributes) });
        const from = await orNull(findOne(ctx, ct, q, documentId).then((r) => parsed(r).data as Record<string, unknown>));
        if (!from) continue;
        const body = entryBody(ctx.schema, ct, from, true);
        await updateDocument(ctx, ct, { ...task('discardDraft', { ...at, data: body }), query: documentQuery(uid, 'discardDraft', { ...at, status: 'draft' }) }, documentId, 'entry.draft-discard');
        const e = await one({ ...rest, ...at, status: 'draft' }, 'discardDraft', documentId);
        if (e !== null) entriesOut.push(e);
      }
      return { documentId, entries: entriesOut };
    },
    async count(p = {}) {
      const { fields: _f, populate: _p, sort: _s, ...rest } = p;
      const r = await list(rest, 'count', { fields: ['id'], pagination: { start: 0, limit: 1, withCount: true } });
      return Number(r.meta?.pagination?.total ?? 0);
    },
  };
  if (!ct.draftAndPublish) { delete service.publish; delete service.unpublish; delete service.discardDraft; }
  // Anything else (discardDraft, clone…): an error naming the method at its first use, never undefined —
  // except publish, unpublish and discardDraft of a type without draft & publish: undefined, as in Strapi.
  return new Proxy(service, {
    get(target, prop, receiver) {
      if (typeof prop === 'symbol') return Reflect.get(target, prop, receiver);
      if (prop in target) {
        const fn = Reflect.get(target, prop, receiver) as (p: Params) => Promise<unknown>;
        const call = FIELD_READS.has(prop) ? async (p: Params) => {
          const out = await fn(p);
          if (Array.isArray(p?.fields) && !p.fields.includes('documentId')) p.fields.push('documentId');
          return out;
        } : fn;
        // `api.documents.strictParams` refuses the call's status, locale and page before it runs.
        const checked = ctx.compiler.strictDocuments ? async (p: Params) => { checkStrictDocumentParams(p ?? {}); return call(p); } : call;
        // Errors reach the project's code named as Strapi's (`e.name` is 'ValidationError', not 'Error').
        return (p: Params = {}) => (around ? around(prop, p, checked) : checked(p)).catch((e: unknown) => { throw strapiNamed(e); });
      }
      if (prop === 'then') return undefined;
      if (!ct.draftAndPublish && (prop === 'publish' || prop === 'unpublish' || prop === 'discardDraft')) return undefined;
      return () => { throw new TypeError(`strapi.documents('${uid}').${prop} is not supported by this server`); };
    },
  });
}
