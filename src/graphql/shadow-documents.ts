// GraphQL's Shadow CRUD through a project's document service middlewares, as @strapi/plugin-graphql 5.54
// calls `strapi.documents(uid)` (services/builders/resolvers/query.js, pagination.js, mutations/*.js):
// the parameters each root field passes (transformArgs: `start`/`limit` from the pagination, GraphQL
// filters as Strapi's `$` operators, a non-empty `sort`; then `status` defaulted to published and put last),
// and the merge of what the chain answered with the rows this server's compiled read renders. Nested
// relations, media and components are not the chain's business: Strapi loads them with
// `strapi.db.query(uid).load(...)` (resolvers/association.js), so the compiled read serves them.
import type { Component, ContentType, Schema } from '../../compiler/schema.ts';
import { paginationInfo } from '../project/core-service-documents.ts';
import type { Args } from './plan.ts';

export type Params = Record<string, unknown>;
type Row = Record<string, unknown>;

/** GraphQL filter operators (Strapi's graphQLFiltersToStrapiQuery prefixes them with `$`). */
const OPERATORS = new Set(['and', 'or', 'not', 'eq', 'eqi', 'ne', 'nei', 'startsWith', 'startsWithi', 'endsWith', 'endsWithi',
  'contains', 'notContains', 'containsi', 'notContainsi', 'gt', 'gte', 'lt', 'lte', 'null', 'notNull', 'in', 'notIn', 'between']);
const SYSTEM = new Set(['id', 'documentId', 'createdAt', 'updatedAt', 'publishedAt', 'locale']);

/** GraphQL filters → the document service's (attributes by the model, operators with `$`). */
export function strapiFilters(schema: Schema, model: ContentType | Component, v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => strapiFilters(schema, model, x));
  if (!v || typeof v !== 'object') return v;
  const out: Row = {};
  for (const [k, x] of Object.entries(v as Row)) {
    const a = model.byName.get(k);
    if (a?.kind === 'relation') {
      const t = schema.contentTypes.get(a.target);
      out[k] = t ? strapiFilters(schema, t, x) : x;
    } else if (a?.kind === 'component') {
      const c = schema.components.get(a.component);
      out[k] = c ? strapiFilters(schema, c, x) : x;
    } else if (a || SYSTEM.has(k)) out[k] = strapiFilters(schema, model, x);
    else if (OPERATORS.has(k)) out[`$${k}`] = k === 'and' || k === 'or' || k === 'not' ? strapiFilters(schema, model, x) : x;
    else out[k] = x;
  }
  return out;
}

const statusOf = (args: Args): 'draft' | 'published' => (args.status === 'DRAFT' ? 'draft' : 'published');

/** The publication filter Strapi's mergePublicationFilterFromGraphQLArgs adds (only when asked). */
function publication(args: Args): Params {
  if (args.publicationFilter !== undefined && args.publicationFilter !== null) return { publicationFilter: args.publicationFilter };
  if (typeof args.hasPublishedVersion === 'boolean') return { publicationFilter: args.hasPublishedVersion ? 'has-published-version-document' : 'never-published-document' };
  return {};
}

/** A list's parameters (findMany, and pageInfo's count): recorded `{ sort, locale, start, limit, filters, status }`. */
export function listParams(schema: Schema, ct: ContentType, args: Args, limits: { defaultLimit: number; maxLimit: number }): Params {
  const out: Params = {};
  for (const [k, v] of Object.entries(args)) {
    if (k === 'pagination' || k === 'filters' || k === 'status' || k === 'publicationFilter' || k === 'hasPublishedVersion' || v === undefined) continue;
    if (k === 'sort') {
      const sort = Array.isArray(v) ? v : [v];
      if (sort.length) out.sort = sort;
      continue;
    }
    out[k] = v;
  }
  Object.assign(out, paginationInfo((args.pagination ?? {}) as Params, { ...limits, withCount: false }));
  if (args.filters) out.filters = strapiFilters(schema, ct, args.filters);
  return { ...out, status: statusOf(args), ...publication(args) };
}

/** findOne's (`{ locale, status, documentId }`) and a single type's findFirst (`{ locale, status }`). */
export function oneParams(args: Args, documentId?: string): Params {
  const out: Params = {};
  if (args.locale !== undefined) out.locale = args.locale;
  out.status = statusOf(args);
  Object.assign(out, publication(args));
  if (documentId !== undefined) out.documentId = documentId;
  return out;
}

/** A write's: `{ documentId?, status, locale?, data }` (Strapi's `{ ...args, data: sanitizedInput }`). */
export function writeParams(args: Args, data: Row, documentId?: string): Params {
  const out: Params = {};
  if (documentId !== undefined) out.documentId = documentId;
  out.status = statusOf(args);
  if (args.locale !== undefined) out.locale = args.locale;
  out.data = data;
  return out;
}

/** Strapi's resolvePagination from the list's start/limit and the count. */
export function pageInfoOf(start: number, limit: number, total: number): { page: number; pageSize: number; pageCount: number; total: number } {
  const safe = Math.max(limit, 1);
  if (limit === -1) return { total, page: safe, pageSize: total - start, pageCount: safe };
  return { total, page: Math.floor(start / safe) + 1, pageSize: safe, pageCount: Math.ceil(total / safe) };
}

/**
 * The entries the chain answered, rendered: each one's compiled row (relations, media, components as the
 * selection asks) under the entry's own scalar values (what a middleware changed shows, as in Strapi,
 * whose GraphQL reads scalars off the result); an entry without a row keeps its scalars alone.
 */
export function mergeEntries(ct: ContentType, entries: unknown[], rows: unknown[]): Row[] {
  const byId = new Map<unknown, Row>();
  for (const r of rows) if (r && typeof r === 'object') byId.set((r as Row).id, r as Row);
  return entries.filter((e): e is Row => !!e && typeof e === 'object').map((e) => {
    const row = { ...(byId.get(e.id) ?? byId.get(String(e.id)) ?? {}) };
    for (const [k, v] of Object.entries(e)) {
      const a = ct.byName.get(k);
      if (SYSTEM.has(k) || (a && a.kind !== 'relation' && a.kind !== 'media' && a.kind !== 'component' && a.kind !== 'dynamiczone' && a.kind !== 'morph')) row[k] = v;
    }
    return row;
  });
}
