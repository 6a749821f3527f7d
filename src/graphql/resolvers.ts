// Resolvers of the Shadow CRUD schema (v5 or v4 shape). Root fields do all the work: each plans its
// whole selection set into one ReadQuery and runs one statement; nested fields only read the parsed
// result (and slice the page of a nested list out of the rows the statement returned).
import { GraphQLError, GraphQLScalarType, Kind, print, valueFromASTUntyped, type GraphQLResolveInfo, type ValueNode } from 'graphql';
import type { Config } from '../../config.ts';
import type { Attribute, ContentType, RelationAttr, Schema } from '../../compiler/schema.ts';
import { pageBounds, type Pagination } from '../../compiler/ast.ts';
import { ParamBuilder, type ReadLimits } from '../../compiler/params.ts';
import { compileRead, type CompiledRead } from '../../compiler/sql.ts';
import { planFor } from '../../compiler/index.ts';
import { StatementCache } from '../../compiler/cache.ts';
import { ApiError } from '../../compiler/errors.ts';
import type { RestContext } from '../rest/router.ts';
import { graphqlLimits } from './context.ts';
import { statementRow } from '../rest/read.ts';
import { ACTIONS, type Caller, type Action } from '../auth/permissions.ts';
import type { Task } from '../task.ts';
import type { Plugin } from '../plugins/types.ts';
import { createDocument, deleteDocument, putSingle, updateDocument } from '../rest/write.ts';
import { bodyText, type Reply } from '../rest/reply.ts';
import { Planner, astKey, buildRootRead, pageWindow, planEnv, relKey, type Args, type PlanModels } from './plan.ts';
import { componentTypeName, nameIndex, pluralQuery, singularQuery, typeName } from './names.ts';
import { FILE_UID, LOCALE_UID, fillRecordTarget, filesType, localeReadType, recordTarget, usersPermissionsTypes, withTypes, type PluginTypes } from '../plugin-types.ts';
import { usersPermissionsMutations } from './users-mutations.ts';
import { listLocales } from '../i18n/locales.ts';
import { ISO_LOCALE_CODES } from '../i18n/iso-locale-codes.ts';
import { isUsersPlugin } from '../users/plugin.ts';
import type { SdlResult } from './sdl.ts';
import type { AuthCheck, GqlContext } from './context.ts';
import { crudRootPaths } from './shadow.ts';
import { FILES, quoted as q } from '../../compiler/layout.ts';
import { listParams, mergeEntries, oneParams, pageInfoOf, writeParams } from './shadow-documents.ts';

export type { GqlContext };

type Row = Record<string, unknown>;
type Resolver = (source: unknown, args: Args, ctx: GqlContext, info: GraphQLResolveInfo) => unknown;
export type ResolverMap = Record<string, Record<string, Resolver | string> | GraphQLScalarType>;

export const forbidden = () => new ApiError(403, 'ForbiddenError', 'Forbidden access', {});

const asRow = (v: unknown): Row => (v && typeof v === 'object' ? (v as Row) : {});

function scalar(name: string, description: string, specifiedByURL?: string): GraphQLScalarType {
  return new GraphQLScalarType({
    name, description, specifiedByURL,
    serialize: (v) => v,
    parseValue: (v) => v,
    parseLiteral: (ast: ValueNode, variables?: { [key: string]: unknown } | null) => valueFromASTUntyped(ast, variables ?? undefined),
  });
}

/**
 * A dynamic zone's input, as Strapi's: an object naming its component by `__typename` (any component of
 * the app, as its REST validator takes: src/rest/validate.ts), else refused with Strapi's words, which
 * list the zone's own components (checked live: `__component` is refused here).
 */
function zoneInputScalar(name: string, members: string[], known: ReadonlySet<string>): GraphQLScalarType {
  // A plain error, which graphql-js words as Strapi's answers do (checked side by side): a variable's
  // `…; Expected type "XDynamicZoneInput". Component not found…`, a literal's `Expected value of type…`.
  const parse = (v: unknown): unknown => {
    const t = v && typeof v === 'object' && !Array.isArray(v) ? (v as Row).__typename : undefined;
    if (typeof t !== 'string' || !known.has(t)) throw new Error(`Component not found. expected one of: ${members.join(', ')}`);
    return v;
  };
  return new GraphQLScalarType({
    name, serialize: (v) => v, parseValue: parse,
    parseLiteral: (ast: ValueNode, variables?: { [key: string]: unknown } | null) => (ast.kind === Kind.OBJECT ? parse(valueFromASTUntyped(ast, variables ?? undefined)) : undefined),
  });
}

/**
 * Strapi's `Long` (graphql-scalars' GraphQLLong, a BigInt): answered as a JSON number when it is a safe
 * integer, as a string beyond (checked live: `"77"` → `77`, 9007199254740993 stays `"9007199254740993"`);
 * its input is an integer or a string of one, made a string of digits here (what the writes store).
 */
function longScalar(): GraphQLScalarType {
  const big = (v: unknown): bigint => {
    const b = BigInt(String(v)); // a SyntaxError for a non-integer: graphql-js words it as Strapi's
    if (b.toString() !== String(v)) throw new GraphQLError(`BigInt cannot represent value: ${String(v)}`);
    return b;
  };
  return new GraphQLScalarType({
    name: 'Long',
    description: 'The `BigInt` scalar type represents non-fractional signed whole numeric values.',
    serialize: (v) => {
      if (typeof v !== 'string' && typeof v !== 'bigint' && typeof v !== 'number') return v;
      const b = BigInt(v);
      return b <= BigInt(Number.MAX_SAFE_INTEGER) && b >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(b) : b.toString();
    },
    parseValue: (v) => big(v).toString(),
    parseLiteral: (ast: ValueNode) => {
      if (!('value' in ast)) throw new GraphQLError(`BigInt cannot represent non-integer value: ${print(ast)}`, { nodes: ast });
      return big(ast.value).toString();
    },
  });
}

/**
 * RFC 3339 date-time as graphql-scalars' DateTime (Strapi's scalar) checks it: `YYYY-MM-DDThh:mm:ss`,
 * optional fraction, `Z` or `±hh:mm` (case-insensitive), a day the month has.
 */
function validDateTime(s: string): boolean {
  const v = s.toUpperCase();
  const m = /^(\d{4})-(0[1-9]|1[012])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/.exec(v);
  if (!m || Number.isNaN(Date.parse(v))) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  return day <= days;
}

/**
 * Strapi's DateTime input (graphql-scalars 1.22): an RFC 3339 date-time string, refused otherwise with
 * its words (a literal: GRAPHQL_VALIDATION_FAILED; a variable: graphql-js prefixes it, BAD_USER_INPUT).
 * The value goes on as given (the writer and filters read it as a date-time).
 */
function dateTimeScalar(): GraphQLScalarType {
  const invalid = (v: string, nodes?: ValueNode) => new GraphQLError(`DateTime cannot represent an invalid date-time-string ${v}.`, nodes ? { nodes } : {});
  return new GraphQLScalarType({
    name: 'DateTime',
    description: 'A date-time string at UTC, such as 2007-12-03T10:15:30Z, compliant with the `date-time` format outlined in section 5.6 of the RFC 3339 profile of the ISO 8601 standard for representation of dates and times using the Gregorian calendar.',
    serialize: (v) => (v instanceof Date ? v.toISOString() : v),
    parseValue: (v) => {
      if (v instanceof Date) return v.toISOString();
      if (typeof v !== 'string') throw new GraphQLError(`DateTime cannot represent non string or Date type ${JSON.stringify(v)}`);
      if (!validDateTime(v)) throw invalid(v);
      return v;
    },
    parseLiteral: (ast: ValueNode) => {
      if (ast.kind !== Kind.STRING) throw new GraphQLError(`DateTime cannot represent non string or Date type ${'value' in ast ? String(ast.value) : undefined}`, { nodes: ast });
      if (!validDateTime(ast.value)) throw invalid(ast.value, ast);
      return ast.value;
    },
  });
}

/**
 * Strapi's `I18NLocaleCode`: a literal is `*` or a code of its ISO list, refused otherwise with its
 * words (plain errors, which graphql-js prefixes with `Expected value of type…` as Strapi's answers show,
 * checked live: `locale: "all"`); a variable's value passes unchecked, as Strapi's parseValue.
 */
function localeCodeScalar(): GraphQLScalarType {
  return new GraphQLScalarType({
    name: 'I18NLocaleCode',
    description: 'A string used to identify an i18n locale',
    serialize: (v) => v,
    parseValue: (v) => v,
    parseLiteral: (ast: ValueNode) => {
      if (ast.kind !== Kind.STRING) throw new Error('Locale cannot represent non string type');
      if (ast.value !== '*' && !ISO_LOCALE_CODES.has(ast.value)) throw new Error('Unknown locale supplied');
      return ast.value;
    },
  });
}

/** Strapi's GraphQL Time answers `HH:mm:ss.SSS` (REST answers PostgreSQL's `HH:mm:ss[.f]`; checked live). */
function graphqlTime(s: string): string {
  const m = /^(\d\d:\d\d:\d\d)(?:\.(\d+))?$/.exec(s);
  return m ? `${m[1]}.${(m[2] ?? '').padEnd(3, '0').slice(0, 3)}` : s;
}

function stringScalar(name: string, check: (s: string) => boolean, out: (s: string) => string = (s) => s): GraphQLScalarType {
  const parse = (v: unknown) => {
    if (typeof v !== 'string' || !check(v)) throw new TypeError(`${name} cannot represent value: ${JSON.stringify(v)}`);
    return v;
  };
  return new GraphQLScalarType({
    name,
    serialize: (v) => (v instanceof Date ? v.toISOString() : typeof v === 'string' ? out(v) : v),
    parseValue: parse,
    parseLiteral: (ast) => {
      if (ast.kind !== Kind.STRING) throw new TypeError(`${name} cannot represent a non string value`);
      return parse(ast.value);
    },
  });
}

/** A calendar date that exists (graphql-scalars' validateDate: the month's length, leap years). */
function validDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const days = [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= days[mo - 1];
}

/** Strapi's `Date` (graphql-scalars' GraphQLDate): its words for what it refuses, a day that does not exist included. */
function dateScalar(): GraphQLScalarType {
  const parse = (v: unknown, ast?: ValueNode) => {
    if (typeof v !== 'string') throw new GraphQLError(`Date cannot represent non string type ${JSON.stringify(v)}`, ast ? { nodes: ast } : undefined);
    if (!validDate(v)) throw new GraphQLError(`Date cannot represent an invalid date-string ${v}.`, ast ? { nodes: ast } : undefined);
    return v;
  };
  return new GraphQLScalarType({
    name: 'Date',
    description: 'A date string, such as 2007-12-03, compliant with the `full-date` format outlined in section 5.6 of the RFC 3339 profile of the ISO 8601 standard for representation of dates and times using the Gregorian calendar.',
    serialize: (v) => (v instanceof Date ? v.toISOString().slice(0, 10) : v),
    parseValue: (v) => parse(v),
    parseLiteral: (ast) => {
      if (ast.kind !== Kind.STRING) throw new GraphQLError(`Date cannot represent non string type ${'value' in ast ? String(ast.value) : ''}`, { nodes: ast });
      return parse(ast.value, ast);
    },
  });
}

export interface EngineDeps {
  schema: Schema;
  config: Config;
  users: Plugin;
  /** The upload plugin (the `updateUploadFile` and `deleteUploadFile` mutations go through its routes). */
  upload?: Plugin;
  sdl: SdlResult;
  /** users-permissions' types as the models made them (the user possibly extended by the project). */
  plugin?: PluginTypes;
}

export interface BuiltResolvers {
  map: ResolverMap;
  /** Resolver path (`Query.articles`) → the permission the root field needs. */
  auth: Map<string, AuthCheck>;
}

/** GraphQL answers a file's `related` empty (`UploadFile.related` below): nothing of it is read. */
function graphqlFiles(file: ContentType): ContentType {
  const attributes = file.attributes.filter((a) => a.name !== 'related');
  return { ...file, attributes, byName: new Map(attributes.map((a) => [a.name, a])) };
}

/** Whether a content-type or component of `schema` has a relation to `uid`. */
function relatesTo(schema: Schema, uid: string): boolean {
  return [...schema.contentTypes.values(), ...schema.components.values()].some((m) => m.attributes.some((a) => a.kind === 'relation' && a.target === uid));
}

export function buildResolvers(deps: EngineDeps): BuiltResolvers {
  const { schema, config, sdl } = deps;
  const v4 = config.graphql.shape === 'v4';
  const index = nameIndex(schema);
  // The file with what a project's extension added (its relations, media, components: Schema.files), and the locale
  // when its extension added such attributes (read through the compiler then, not from the locale list).
  const files = graphqlFiles(schema.files ?? filesType(schema));
  const localeType = localeReadType(schema);
  const added = (ext: { others: Attribute[] } | undefined) => ext?.others ?? [];
  const { roles, users, permissions } = deps.plugin ?? usersPermissionsTypes(schema);
  const lnk = (users.byName.get('role') as RelationAttr).join;
  // Plugin types reached through relations (a user's role) are targets the compiler must know; the
  // Shadow CRUD loops below keep iterating the models' own types.
  // So are upload's file and i18n's locale when a content-type relates to them (a side of a two-way relation).
  const recordTargets = [FILE_UID, LOCALE_UID].filter((uid) => relatesTo(schema, uid)).map((uid) => {
    if (uid === FILE_UID) return files;
    if (localeType) return localeType;
    const t = recordTarget(uid)!;
    fillRecordTarget(t, schema);
    return t;
  });
  const readSchema = withTypes(schema, [roles, users, permissions, ...recordTargets]);
  const models: PlanModels = {
    schema: readSchema, shape: config.graphql.shape,
    nameOf: (ct) => (ct === files ? 'UploadFile' : ct === localeType ? 'I18NLocale' : ct.builtin?.graphqlName ?? typeName(ct)),
    files: schema.files ? files : null,
  };
  const { defaultList, maxList } = graphqlLimits(config);
  const limits: ReadLimits = { defaultLimit: defaultList, maxLimit: maxList, withCount: false, maxPopulateDepth: 1000 };
  const sqlCache = new StatementCache<CompiledRead>(config.api.rest.planCacheSize, config.api.rest.preparedPages);

  /** The permission each root field needs (checked by wrapResolvers, before middlewares and policies). */
  const authOf = new Map<string, AuthCheck>();
  const can = (ct: ContentType, action: Action): AuthCheck => (ctx) => {
    // A type whose reads have lifecycle hooks is not served (src/project/lifecycles.ts).
    // With document middlewares, Strapi 5's shape runs them (viaChain below); v4's has no Strapi to follow.
    const closed = ctx.rest.lifecycles?.closedError(ct) ?? (v4 ? ctx.rest.shadowCrudClosed : null);
    if (closed) throw closed;
    return ctx.rest.auth.allows(ctx.caller, ct.uid, action);
  };

  interface ReadResult { data: unknown; total: number | null; pagination: Pagination }
  interface Plan { sql: CompiledRead; params: unknown[]; pagination: Pagination }
  /** Plans of a root field node (nodes live as long as their cached operation) by arguments and variables. */
  const plans = new WeakMap<object, Map<string, Plan>>();

  function plan(ctx: GqlContext, ct: ContentType, shape: 'list' | 'one', args: Args, info: GraphQLResolveInfo,
    opts: { documentId?: string; wrapped?: boolean; anyStatus?: boolean }): Plan {
    const granted = ctx.rest.auth.access(ctx.caller);
    // A user's role comes with the user, as in Strapi's users-permissions GraphQL types.
    const access = { key: granted.key, canRead: (uid: string) => uid === roles.uid || granted.canRead(uid) };
    const node = info.fieldNodes[0];
    const vars = info.operation.variableDefinitions?.length ? JSON.stringify(info.variableValues) : '';
    // The render cache is read once its gate opened (the REST compiler's, see compiler/index.ts).
    const renderCache = ctx.rest.compiler.renderCacheNow();
    const epoch = ctx.rest.compiler.sizeEpoch();
    const exact = `${renderCache ? 'r' : '-'}${epoch}|${access.key}|${ct.uid}|${shape}|${opts.documentId ?? ''}|${opts.wrapped ? 1 : 0}${opts.anyStatus ? '*' : ''}|${JSON.stringify(args)}|${vars}`;
    let byNode = plans.get(node);
    const hit = byNode?.get(exact);
    if (hit) return hit;
    const env = planEnv(info);
    const { sets, withCount } = new Planner(models, env, new ParamBuilder(), 'published', access.canRead)
      .rootSets(ct, info.fieldNodes, shape, opts.wrapped ?? false);
    const { query, params } = buildRootRead(models, env, { ct, shape, args, sets, documentId: opts.documentId, withCount, anyStatus: opts.anyStatus }, limits, access.canRead);
    const sql = planFor(sqlCache.get(`${renderCache ? 'r' : '-'}${epoch}|${astKey(query)}`, pageBounds(query.pagination), () =>
      compileRead(readSchema, query, { maxRelationRows: config.api.rest.maxRelationRows, renderCache, maxBytes: config.http.maxResponseSize, rowCounters: config.api.rest.rowCounters, smallTable: ctx.rest.compiler.smallTable })),
    query, (t) => ctx.rest.compiler.largeTable(t));
    const p: Plan = { sql, params, pagination: query.pagination };
    if (!byNode) plans.set(node, (byNode = new Map()));
    if (byNode.size >= 256) byNode.clear();
    byNode.set(exact, p);
    return p;
  }

  /** One statement for the whole selection of a root field. */
  async function read(ctx: GqlContext, ct: ContentType, shape: 'list' | 'one', args: Args, info: GraphQLResolveInfo,
    opts: { documentId?: string; wrapped?: boolean; anyStatus?: boolean } = {}): Promise<ReadResult> {
    const { sql, params, pagination } = plan(ctx, ct, shape, args, info, opts);
    const row = await statementRow(ctx.rest, sql, params);
    return { data: row?.[0] ? JSON.parse(String(row[0])) : null, total: sql.withTotal && row ? Number(String(row[1])) : null, pagination };
  }

  const pageInfo = (p: Pagination, total: number | null) => {
    const t = total ?? 0;
    if (p.mode === 'page') return { page: p.page, pageSize: p.pageSize, pageCount: Math.ceil(t / p.pageSize), total: t };
    return { page: Math.floor(p.start / p.limit) + 1, pageSize: p.limit, pageCount: Math.ceil(t / p.limit), total: t };
  };

  /** A list response: v5 `{nodes, pageInfo, data, meta}`, v4 `{data, meta}` (data: the rows, as entities). */
  const collection = (r: ReadResult) => {
    const nodes = Array.isArray(r.data) ? r.data : [];
    const info = pageInfo(r.pagination, r.total);
    return { nodes, data: nodes, pageInfo: info, meta: { pagination: info } };
  };

  const slice = (list: unknown, args: Args): unknown[] => {
    if (!Array.isArray(list)) return [];
    const w = pageWindow(args.pagination, limits);
    return list.slice(w.start, w.start + w.limit);
  };

  /** v4 root arguments → the planner's (status from publicationState; `id` as a filter). */
  const v4Args = (args: Args, byId: boolean): Args => ({
    ...args,
    status: args.publicationState === 'PREVIEW' ? 'DRAFT' : 'PUBLISHED',
    ...(byId ? { filters: { id: { eq: String(args.id) } } } : {}),
  });

  // ---------------------------------------------------------------- writes

  /** A Float literal past the doubles (`1e400`) is Infinity: kept as its text, which the body's check refuses as Strapi's does (not JSON's null). */
  const keepInfinity = (_: string, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v);

  const fakeTask = (ctx: GqlContext, method: string, query: Record<string, string | undefined>, data?: unknown): Task => {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) qs.set(k, v);
    return {
      method, path: '', query: qs.toString(), authorization: ctx.task.authorization, contentType: 'application/json',
      body: data === undefined ? null : new TextEncoder().encode(JSON.stringify({ data }, keepInfinity)), ip: ctx.task.ip,
    };
  };

  // No `fields`: Strapi's mutations write with none, and a publish whose `fields` leave `locale` out puts the
  // new links last in the other sides' lists (WriteParams.keepsPlaces); a mutation keeps their places.
  const writeQuery = (ct: ContentType, draft: boolean, locale: unknown) => ({
    status: ct.draftAndPublish && draft ? 'draft' : undefined,
    locale: ct.localized && typeof locale === 'string' ? locale : undefined,
  });

  const documentIdOf = (reply: Reply): string => String(asRow(asRow(JSON.parse(bodyText(reply))).data).documentId);

  /** GraphQL input → the REST body's data (dynamic-zone items name their component by __typename). */
  const restData = async (ctx: GqlContext, ct: ContentType, data: unknown): Promise<Row> => {
    const out: Row = {};
    for (const [k, v] of Object.entries(asRow(data))) {
      const a = ct.byName.get(k);
      if (a?.kind === 'dynamiczone' && Array.isArray(v)) {
        out[k] = v.map((item) => {
          const { __typename, ...rest } = asRow(item);
          const comp = typeof __typename === 'string' ? index.components.get(__typename) : undefined;
          return comp ? { __component: comp.uid, ...rest } : asRow(item);
        });
      } else if (v4 && a?.kind === 'relation' && v !== null && v !== undefined) {
        out[k] = await documentIds(ctx, schema.contentTypes.get(a.target)!, v);
      } else if (k !== 'publishedAt') out[k] = v;
    }
    return out;
  };

  /** v4 relation inputs are numeric ids: the documents they are versions of. */
  const documentIds = async (ctx: GqlContext, target: ContentType, v: unknown): Promise<unknown> => {
    const list = (Array.isArray(v) ? v : [v]).map(String);
    const numeric = list.filter((x) => /^\d+$/.test(x));
    const map = new Map<string, string>();
    if (numeric.length) {
      const rows = await ctx.rest.db.unsafe<Array<{ id: string; document_id: string }>>(
        `select id::text, document_id from ${q(target.table)} where id = any($1::bigint[])`, [numeric]);
      ctx.rest.count(1);
      for (const r of rows) map.set(r.id, r.document_id);
    }
    const out = list.map((x) => map.get(x) ?? x);
    return Array.isArray(v) ? out : out[0];
  };

  /** v4: the document a numeric id is a version of, and whether it has a published version. */
  const documentOf = async (ctx: GqlContext, ct: ContentType, id: unknown): Promise<{ documentId: string; published: boolean } | null> => {
    const rows = await ctx.rest.db.unsafe<Array<{ document_id: string; published: boolean }>>(
      `select d.document_id, exists (select 1 from ${q(ct.table)} p where p.document_id = d.document_id and p.published_at is not null) as published
       from ${q(ct.table)} d where d.id = $1::bigint`, [/^\d+$/.test(String(id)) ? String(id) : '0']);
    ctx.rest.count(1);
    return rows[0] ? { documentId: rows[0].document_id, published: rows[0].published } : null;
  };

  /** A mutation's answer: the entry written, the relations of entries without draft & publish in every status (Planner.anyStatus). */
  const readBack = async (ctx: GqlContext, ct: ContentType, status: 'DRAFT' | 'PUBLISHED', locale: unknown, info: GraphQLResolveInfo, documentId: string) =>
    (await read(ctx, ct, 'one', { status, locale }, info, { documentId, anyStatus: true })).data;

  // ---------------------------------------------------------------- the map

  const Query: Record<string, Resolver> = {};
  const Mutation: Record<string, Resolver> = {};
  const map: ResolverMap = {};
  // v4CompatibilityMode's deprecated fields (the document itself): off, they are not in the schema.
  const selfFields: Record<string, Resolver> = config.graphql.v4CompatibilityMode ? { attributes: (p: unknown) => p, data: (p: unknown) => p } : {};
  const one = (v: unknown) => (v4 ? { data: v ?? null } : v ?? null);
  const many = (list: unknown[]) => (v4 ? { data: list } : list);
  const entityOf = (name: string) => { map[`${name}Entity`] = { attributes: (p: unknown) => p }; };

  /** Resolvers of the relation, media and component fields of a content-type or a component. */
  const attributeResolvers = (attributes: Attribute[]): Record<string, Resolver> => {
    const fields: Record<string, Resolver> = v4 ? {} : { ...selfFields };
    for (const a of attributes) {
      if (a.private) continue;
      if ((a.kind === 'relation' && a.toMany) || (a.kind === 'media' && a.multiple)) {
        const get = a.kind === 'relation' ? (p: unknown, args: Args) => asRow(p)[relKey(a.name, args)] : (p: unknown) => asRow(p)[a.name];
        fields[a.name] = (p, args) => many(slice(get(p, args), args));
        if (!v4) fields[`${a.name}_connection`] = (p, args) => { const nodes = slice(get(p, args), args); return { nodes, data: nodes }; };
      } else if (a.kind === 'component' && a.repeatable) {
        fields[a.name] = (p, args) => slice(asRow(p)[relKey(a.name, args)], args);
      } else if (v4 && (a.kind === 'relation' || a.kind === 'media')) {
        fields[a.name] = (p) => one(asRow(p)[a.name]);
      }
    }
    return fields;
  };

  for (const ct of schema.contentTypes.values()) {
    const T = typeName(ct);
    const fields = attributeResolvers(ct.attributes);
    if (ct.localized) {
      fields.localizations = (p, args) => many(slice(asRow(p)[relKey('localizations', args)], args));
      if (!v4) fields.localizations_connection = (p, args) => { const nodes = slice(asRow(p)[relKey('localizations', args)], args); return { nodes, data: nodes }; };
    }
    map[T] = fields;
    if (v4) entityOf(T);

    if (!config.graphql.shadowCRUD) continue;
    if (v4) { v4Root(ct); continue; }
    if (ct.kind === 'singleType') {
      Query[singularQuery(ct)] = async (_s, args, ctx, info) => { return (await read(ctx, ct, 'one', args, info)).data; };
      Mutation[`update${T}`] = async (_s, args, ctx, info) => {
        const reply = await putSingle(ctx.rest, ct, fakeTask(ctx, 'PUT', writeQuery(ct, args.status === 'DRAFT', args.locale), await restData(ctx, ct, args.data)));
        return readBack(ctx, ct, args.status === 'DRAFT' ? 'DRAFT' : 'PUBLISHED', args.locale, info, documentIdOf(reply));
      };
      Mutation[`delete${T}`] = async (_s, args, ctx) => {
        const rows = await ctx.rest.db.unsafe<Array<{ document_id: string }>>(`select document_id from ${q(ct.table)} limit 1`);
        ctx.rest.count(1);
        // No document: Strapi 5's NotFoundError (checked live), as the project-code path answers it.
        if (!rows.length) throw new ApiError(404, 'NotFoundError', 'Document not found', {});
        await deleteDocument(ctx.rest, ct, fakeTask(ctx, 'DELETE', { locale: typeof args.locale === 'string' ? args.locale : undefined }), undefined);
        return { documentId: rows[0].document_id };
      };
      continue;
    }
    Query[singularQuery(ct)] = async (_s, args, ctx, info) => {
      return (await read(ctx, ct, 'one', args, info, { documentId: String(args.documentId) })).data;
    };
    Query[pluralQuery(ct)] = async (_s, args, ctx, info) => { return (await read(ctx, ct, 'list', args, info)).data; };
    Query[`${pluralQuery(ct)}_connection`] = async (_s, args, ctx, info) => {
      return collection(await read(ctx, ct, 'list', args, info, { wrapped: true }));
    };
    Mutation[`create${T}`] = async (_s, args, ctx, info) => {
      const reply = await createDocument(ctx.rest, ct, fakeTask(ctx, 'POST', writeQuery(ct, args.status === 'DRAFT', args.locale), await restData(ctx, ct, args.data)));
      return readBack(ctx, ct, args.status === 'DRAFT' ? 'DRAFT' : 'PUBLISHED', args.locale, info, documentIdOf(reply));
    };
    Mutation[`update${T}`] = async (_s, args, ctx, info) => {
      const id = String(args.documentId);
      try {
        await updateDocument(ctx.rest, ct, fakeTask(ctx, 'PUT', writeQuery(ct, args.status === 'DRAFT', args.locale), await restData(ctx, ct, args.data)), id);
      } catch (e) {
        if (e instanceof ApiError && e.status === 404) return null;
        throw e;
      }
      return readBack(ctx, ct, args.status === 'DRAFT' ? 'DRAFT' : 'PUBLISHED', args.locale, info, id);
    };
    Mutation[`delete${T}`] = async (_s, args, ctx) => {
      const id = String(args.documentId);
      // Strapi 5.54's collection-type delete passes the document id alone: its `locale` argument is taken
      // and unused, the default locale's version goes (checked live), as on the document middlewares' path.
      await deleteDocument(ctx.rest, ct, fakeTask(ctx, 'DELETE', {}), id);
      return { documentId: id };
    };
  }
  if (config.graphql.shadowCRUD && !v4) for (const ct of schema.contentTypes.values()) viaChain(ct);

  // ------------------------------------------ through the project's document middlewares (Strapi 5's shape)

  const chainLimits = { defaultLimit: defaultList, maxLimit: maxList };
  const singleDocumentId = async (ctx: GqlContext, ct: ContentType): Promise<string | null> => {
    const rows = await ctx.rest.db.unsafe<Array<{ document_id: string }>>(`select document_id from ${q(ct.table)} order by id limit 1`);
    ctx.rest.count(1);
    return rows[0]?.document_id ?? null;
  };

  /** The chain's entries rendered: the compiled read of the field's selection, by the entries' ids. */
  const rendered = async (ctx: GqlContext, ct: ContentType, entries: unknown[], args: Args, info: GraphQLResolveInfo, wrapped: boolean): Promise<Row[]> => {
    const ids = entries.map((e) => asRow(e).id).filter((id) => id !== undefined && id !== null).map(String);
    const rows: unknown[] = [];
    for (let i = 0; i < ids.length; i += maxList) {
      const part = ids.slice(i, i + maxList);
      const r = await read(ctx, ct, 'list', { status: args.status, locale: args.locale, filters: { id: { in: part } }, pagination: { start: 0, limit: part.length } }, info, { wrapped });
      if (Array.isArray(r.data)) rows.push(...r.data);
    }
    return mergeEntries(ct, entries, rows);
  };

  /**
   * Once the project registered document middlewares, each root field of `ct` calls strapi.documents(uid)
   * as @strapi/plugin-graphql 5.54 does (./shadow-documents.ts), never the compiled read alone.
   */
  function viaChain(ct: ContentType): void {
    const T = typeName(ct);
    const docs = (ctx: GqlContext) => ctx.rest.shadowDocuments!(ct.uid);
    const one = async (ctx: GqlContext, entry: unknown, args: Args, info: GraphQLResolveInfo) =>
      (entry && typeof entry === 'object' ? (await rendered(ctx, ct, [entry], args, info, false))[0] ?? null : null);
    const list = async (ctx: GqlContext, args: Args, info: GraphQLResolveInfo, wrapped: boolean) => {
      const found = await docs(ctx).findMany(listParams(schema, ct, args, chainLimits));
      return rendered(ctx, ct, Array.isArray(found) ? found : [], args, info, wrapped);
    };
    const chained: Record<string, Resolver> = {};
    const mutations: Record<string, Resolver> = {};
    if (ct.kind === 'singleType') {
      chained[singularQuery(ct)] = async (_s, args, ctx, info) => one(ctx, await docs(ctx).findFirst(oneParams(args)), args, info);
      mutations[`update${T}`] = async (_s, args, ctx, info) => {
        const data = await restData(ctx, ct, args.data);
        // Strapi finds the document with strapi.db.query (outside the chain), then updates or creates.
        const id = await singleDocumentId(ctx, ct);
        return one(ctx, await (id ? docs(ctx).update(writeParams(args, data, id)) : docs(ctx).create(writeParams(args, data))), args, info);
      };
      mutations[`delete${T}`] = async (_s, args, ctx) => {
        const id = await singleDocumentId(ctx, ct);
        if (!id) throw new ApiError(404, 'NotFoundError', 'Document not found', {});
        await docs(ctx).delete({ ...(args.locale !== undefined ? { locale: args.locale } : {}), documentId: id });
        return { documentId: id };
      };
    } else {
      chained[singularQuery(ct)] = async (_s, args, ctx, info) => one(ctx, await docs(ctx).findOne(oneParams(args, String(args.documentId))), args, info);
      chained[pluralQuery(ct)] = async (_s, args, ctx, info) => list(ctx, args, info, false);
      chained[`${pluralQuery(ct)}_connection`] = async (_s, args, ctx, info) => {
        const nodes = await list(ctx, args, info, true);
        // pageInfo (and its v4 alias meta) is Strapi's field resolver: a count only when selected.
        const { withCount } = new Planner(models, planEnv(info), new ParamBuilder(), 'published', () => true).rootSets(ct, info.fieldNodes, 'list', true);
        if (!withCount) return { nodes, data: nodes, pageInfo: null, meta: null };
        const p = listParams(schema, ct, args, chainLimits);
        const info2 = pageInfoOf(Number(p.start), Number(p.limit), Number(await docs(ctx).count(p)));
        return { nodes, data: nodes, pageInfo: info2, meta: { pagination: info2 } };
      };
      mutations[`create${T}`] = async (_s, args, ctx, info) => one(ctx, await docs(ctx).create(writeParams(args, await restData(ctx, ct, args.data))), args, info);
      mutations[`update${T}`] = async (_s, args, ctx, info) =>
        one(ctx, await docs(ctx).update(writeParams(args, await restData(ctx, ct, args.data), String(args.documentId))), args, info);
      mutations[`delete${T}`] = async (_s, args, ctx) => {
        // Strapi's collection-type delete passes the document id alone.
        await docs(ctx).delete({ documentId: String(args.documentId) });
        return { documentId: String(args.documentId) };
      };
    }
    const around = (target: Record<string, Resolver>, own: Record<string, Resolver>) => {
      for (const [name, via] of Object.entries(own)) {
        const compiled = target[name];
        if (compiled) target[name] = (s, a, ctx, i) => (ctx.rest.shadowDocuments ? via(s, a, ctx, i) : compiled(s, a, ctx, i));
      }
    };
    around(Query, chained);
    around(Mutation, mutations);
  }

  /** v4 queries and mutations of a content-type: numeric ids, publicationState, `{data}` responses. */
  function v4Root(ct: ContentType): void {
    const T = typeName(ct);
    if (ct.kind === 'singleType') {
      Query[singularQuery(ct)] = async (_s, args, ctx, info) => { return { data: (await read(ctx, ct, 'one', v4Args(args, false), info)).data }; };
    } else {
      Query[singularQuery(ct)] = async (_s, args, ctx, info) => {
        if (args.id === undefined || args.id === null) return { data: null };
        const found = (await read(ctx, ct, 'one', v4Args(args, true), info)).data;
        if (found || !ct.draftAndPublish) return { data: found };
        // Publishing makes a new version row: an id read before still names its document.
        const doc = await documentOf(ctx, ct, args.id);
        return { data: doc?.published ? (await read(ctx, ct, 'one', v4Args(args, false), info, { documentId: doc.documentId })).data : null };
      };
      Query[pluralQuery(ct)] = async (_s, args, ctx, info) => { return collection(await read(ctx, ct, 'list', v4Args(args, false), info)); };
    }
    /** Writes, then reads back the version a v4 client sees: published when there is one. */
    const write = async (ctx: GqlContext, info: GraphQLResolveInfo, args: Args, documentId: string | null): Promise<unknown> => {
      const data = asRow(args.data);
      const body = await restData(ctx, ct, data);
      let draft = false;
      if (ct.draftAndPublish) {
        if (documentId === null) draft = data.publishedAt === undefined || data.publishedAt === null;
        else draft = data.publishedAt === null || (data.publishedAt === undefined && !(await documentOf(ctx, ct, args.id))?.published);
      }
      const task = fakeTask(ctx, documentId === null ? 'POST' : 'PUT', writeQuery(ct, draft, args.locale), body);
      let doc = documentId;
      if (ct.kind === 'singleType') doc = documentIdOf(await putSingle(ctx.rest, ct, task));
      else if (doc === null) doc = documentIdOf(await createDocument(ctx.rest, ct, task));
      else await updateDocument(ctx.rest, ct, task, doc);
      return { data: await readBack(ctx, ct, draft ? 'DRAFT' : 'PUBLISHED', args.locale, info, doc) };
    };
    if (ct.kind === 'singleType') {
      Mutation[`update${T}`] = async (_s, args, ctx, info) => { return write(ctx, info, args, null); };
      Mutation[`delete${T}`] = async (_s, args, ctx, info) => {
        const before = (await read(ctx, ct, 'one', v4Args({ ...args, publicationState: 'PREVIEW' }, false), info)).data;
        if (!before) return { data: null };
        await deleteDocument(ctx.rest, ct, fakeTask(ctx, 'DELETE', { locale: typeof args.locale === 'string' ? args.locale : undefined }), undefined);
        return { data: before };
      };
      return;
    }
    Mutation[`create${T}`] = async (_s, args, ctx, info) => { return write(ctx, info, args, null); };
    const update: Resolver = async (_s, args, ctx, info) => {
      const doc = await documentOf(ctx, ct, args.id);
      if (!doc) throw new ApiError(404, 'NotFoundError', 'Not Found', {});
      return write(ctx, info, args, doc.documentId);
    };
    Mutation[`update${T}`] = update;
    if (ct.localized) Mutation[`create${T}Localization`] = (s, args, ctx, info) => update(s, { ...args, data: args.data ?? {} }, ctx, info);
    Mutation[`delete${T}`] = async (_s, args, ctx, info) => {
      const doc = await documentOf(ctx, ct, args.id);
      if (!doc) throw new ApiError(404, 'NotFoundError', 'Not Found', {});
      const before = (await read(ctx, ct, 'one', v4Args({ ...args, publicationState: doc.published ? 'LIVE' : 'PREVIEW' }, true), info)).data
        ?? (await read(ctx, ct, 'one', v4Args({ ...args, publicationState: doc.published ? 'LIVE' : 'PREVIEW' }, false), info, { documentId: doc.documentId })).data;
      await deleteDocument(ctx.rest, ct, fakeTask(ctx, 'DELETE', { locale: typeof args.locale === 'string' ? args.locale : undefined }), doc.documentId);
      return { data: before };
    };
  }

  for (const c of schema.components.values()) map[componentTypeName(c)] = attributeResolvers(c.attributes);

  for (const [union, members] of sdl.unions) {
    map[union] = {
      __resolveType: ((obj: unknown) => {
        const o = asRow(obj);
        if (typeof o.__component === 'string') return index.componentByUid.get(o.__component) ?? 'Error';
        // A morph relation's row names its content-type (compiler/sql.ts appends `__type`).
        if (typeof o.__type === 'string') return index.typeByUid.get(o.__type);
        return typeof o.__typename === 'string' && members.includes(o.__typename) ? o.__typename : 'Error';
      }) as Resolver,
    };
  }
  for (const [name, values] of sdl.enums) {
    const m: Record<string, string> = {};
    let differs = false;
    for (const [k, v] of values) { m[k] = v; if (k !== v) differs = true; }
    if (differs) map[name] = m;
  }

  // ---------------------------------------------------------------- plugin types

  // v4's Entity shape shows none of them (sdl4.ts): no resolver for fields its schema lacks.
  map.UploadFile = { ...attributeResolvers(v4 ? [] : added(schema.pluginRecords?.file)), related: () => [] };
  map.I18NLocale = attributeResolvers(v4 ? [] : added(schema.pluginRecords?.locale));
  // A role's users and permissions, a permission's role, a user's role: relations as the models' (v4: wrapped).
  for (const ct of [roles, users, permissions]) map[ct.builtin!.graphqlName] = attributeResolvers(ct.attributes);
  // v4's role type shows the role's own attributes and added scalars only (sdl4.ts).
  if (v4) map.UsersPermissionsRole = attributeResolvers(roles.attributes.filter((a) => a.kind === 'scalar' || a.name === 'permissions' || a.name === 'users'));
  if (v4) for (const n of ['UploadFile', 'I18NLocale', 'UsersPermissionsPermission', 'UsersPermissionsRole', 'UsersPermissionsUser']) entityOf(n);

  /** A plugin type's three root queries (one, list, v5 connection) over a synthetic content-type. */
  const pluginQueries = (ct: ContentType, single: string, plural: string, allowed: (ctx: GqlContext, action: 'find' | 'findOne') => boolean) => {
    authOf.set(`Query.${single}`, (ctx) => allowed(ctx, 'findOne'));
    authOf.set(`Query.${plural}`, (ctx) => allowed(ctx, 'find'));
    authOf.set(`Query.${plural}_connection`, (ctx) => allowed(ctx, 'find'));
    Query[single] = async (_s, args, ctx, info) => {
      if (v4) return { data: args.id == null ? null : (await read(ctx, ct, 'one', v4Args(args, true), info)).data };
      return (await read(ctx, ct, 'one', args, info, { documentId: String(args.documentId) })).data;
    };
    Query[plural] = async (_s, args, ctx, info) => {
      return v4 ? collection(await read(ctx, ct, 'list', v4Args(args, false), info)) : (await read(ctx, ct, 'list', args, info)).data;
    };
    if (!v4) {
      Query[`${plural}_connection`] = async (_s, args, ctx, info) => {
        return collection(await read(ctx, ct, 'list', args, info, { wrapped: true }));
      };
    }
  };
  pluginQueries(files, 'uploadFile', 'uploadFiles', (ctx, action) =>
    ctx.rest.auth.allowsPlugin(ctx.caller, 'plugin::upload.read') || ctx.rest.auth.allowsPlugin(ctx.caller, `plugin::upload.content-api.${action}`));
  pluginQueries(users, 'usersPermissionsUser', 'usersPermissionsUsers', (ctx, action) =>
    ctx.rest.auth.allowsPlugin(ctx.caller, `plugin::users-permissions.user.${action}`));
  pluginQueries(roles, 'usersPermissionsRole', 'usersPermissionsRoles', (ctx, action) =>
    ctx.rest.auth.allowsPlugin(ctx.caller, `plugin::users-permissions.role.${action}`));

  const sortLocales = (list: Row[], sort: unknown) => {
    const terms = (Array.isArray(sort) ? sort : sort ? [sort] : []).flatMap((s) => String(s).split(',')).map((s) => s.trim().split(':'));
    return [...list].sort((x, y) => {
      for (const [k, dir = 'asc'] of terms) {
        const a = String(x[k] ?? ''), b = String(y[k] ?? '');
        if (a !== b) return (a < b ? -1 : 1) * (dir.toLowerCase() === 'desc' ? -1 : 1);
      }
      return 0;
    });
  };
  const canLocales = (ctx: GqlContext) => ctx.caller.kind !== 'public' || ctx.rest.auth.allowsPlugin(ctx.caller, 'plugin::i18n.locales.listLocales');
  // Strapi's i18n reads its locales from `i18n_locale` (its admin adds and removes them).
  const locales = async (ctx: GqlContext): Promise<Row[]> => {
    const list = await listLocales(ctx.rest.db, schema);
    ctx.rest.count(1);
    return list.map(({ isDefault: _d, ...l }) => l);
  };
  const localePage = (list: Row[], args: Args) => {
    const all = sortLocales(list, args.sort);
    const w = pageWindow(args.pagination, limits);
    const nodes = all.slice(w.start, w.start + w.limit);
    const info = { page: Math.floor(w.start / w.limit) + 1, pageSize: w.limit, pageCount: Math.ceil(all.length / w.limit), total: all.length };
    return { nodes, data: nodes, pageInfo: info, meta: { pagination: info } };
  };
  for (const name of ['i18NLocale', 'i18NLocales', 'i18NLocales_connection']) authOf.set(`Query.${name}`, canLocales);
  if (localeType) pluginQueries(localeType, 'i18NLocale', 'i18NLocales', (ctx) => canLocales(ctx));
  // The users-permissions handlers check these actions themselves (as their REST routes do).
  for (const name of ['Mutation.register', 'Mutation.login', 'Query.me', 'Mutation.forgotPassword', 'Mutation.resetPassword',
    'Mutation.changePassword', 'Mutation.emailConfirmation']) authOf.set(name, () => true);
  if (!localeType) Query.i18NLocale = async (_s, args, ctx) => {
    const found = (await locales(ctx)).find((l) => (v4 ? String(l.id) === String(args.id) : l.documentId === args.documentId)) ?? null;
    return v4 ? { data: found } : found;
  };
  if (!localeType) Query.i18NLocales = async (_s, args, ctx) => {
    const page = localePage(await locales(ctx), args);
    return v4 ? { data: page.nodes, meta: page.meta } : page.nodes;
  };
  if (!v4 && !localeType) {
    Query.i18NLocales_connection = async (_s, args, ctx) => {
      return localePage(await locales(ctx), args);
    };
  }

  // ---------------------------------------------------------------- users-permissions

  const authCall = async (ctx: GqlContext, path: string, body: Row, method = 'POST', rateLimitPath?: string): Promise<Row> => {
    const task: Task = {
      method, path, query: '', contentType: 'application/json', ip: ctx.task.ip,
      body: new TextEncoder().encode(JSON.stringify(body)), ...(rateLimitPath ? { rateLimitPath } : {}),
    };
    const reply = await deps.users.handle(ctx.rest, task, ctx.caller);
    return asRow(JSON.parse(bodyText(reply)));
  };
  Mutation.register = async (_s, args, ctx) => {
    const input = asRow(args.input);
    return authCall(ctx, '/api/auth/local/register', { username: input.username, email: input.email, password: input.password });
  };
  Mutation.login = async (_s, args, ctx) => {
    const input = asRow(args.input);
    // Strapi's resolver hands the input's provider to the auth callback (checked live: `github` is its error).
    if (typeof input.provider === 'string' && input.provider !== 'local') return authCall(ctx, `/api/auth/${encodeURIComponent(input.provider)}/callback`, {}, 'GET', '/api/auth/local');
    return authCall(ctx, '/api/auth/local', { identifier: input.identifier, password: input.password });
  };
  Mutation.forgotPassword = async (_s, args, ctx) => authCall(ctx, '/api/auth/forgot-password', { email: args.email });
  Mutation.resetPassword = async (_s, args, ctx) =>
    authCall(ctx, '/api/auth/reset-password', { password: args.password, passwordConfirmation: args.passwordConfirmation, code: args.code });
  Mutation.changePassword = async (_s, args, ctx) => authCall(ctx, '/api/auth/change-password',
    { currentPassword: args.currentPassword, password: args.password, passwordConfirmation: args.passwordConfirmation });
  Mutation.emailConfirmation = async (_s, args, ctx) => {
    if (!isUsersPlugin(deps.users)) throw forbidden();
    return asRow(JSON.parse(bodyText(await deps.users.emailConfirmation(ctx.rest, ctx.caller, args.confirmation))));
  };
  Query.me = async (_s, _args, ctx) => {
    if (ctx.caller.kind !== 'user' || !ctx.caller.userId) throw forbidden();
    const rows = await ctx.rest.db.unsafe<Row[]>(
      `select u.id, u.document_id as "documentId", u.username, u.email, u.confirmed, u.blocked,
         (select json_build_object('id', r.id, 'documentId', r.document_id, 'name', r.name, 'description', r.description, 'type', r.type)
          from ${q(lnk.table)} l join ${q(roles.table)} r on r.id = l.${q(lnk.target)} where l.${q(lnk.source)} = u.id order by l.id limit 1) as role
       from ${q(users.table)} u where u.id = $1::bigint`, [ctx.caller.userId]);
    ctx.rest.count(1);
    return rows[0] ?? null;
  };

  // ---------------------------------------------------------------- upload

  /**
   * The upload plugin's mutations, through its REST routes (the same actions guard them: `upload`,
   * `destroy`): the file record they answer is the mutation's. `updateUploadFile` of an unknown id is
   * Strapi's NotFoundError; `deleteUploadFile` of one answers null (checked live).
   */
  const uploadCall = async (ctx: GqlContext, method: string, path: string, query: string, body?: unknown): Promise<Row> => {
    if (!deps.upload) throw new Error('the upload plugin is not loaded');
    const task: Task = {
      method, path, query, authorization: ctx.task.authorization, contentType: 'application/json', ip: ctx.task.ip,
      body: body === undefined ? null : new TextEncoder().encode(JSON.stringify(body)),
    };
    const reply = await deps.upload.handle(ctx.rest, task, ctx.caller);
    await ctx.rest.onWrite?.([FILES.table, FILES.related]);
    return asRow(JSON.parse(bodyText(reply)));
  };
  const fileIdArg = (v: unknown): string | null => (/^\d{1,9}$/.test(String(v)) ? String(v) : null);
  // (v5 shape, with Shadow CRUD: the schema has them.)
  if (sdl.typeDefs.includes('  updateUploadFile(')) {
    authOf.set('Mutation.updateUploadFile', (ctx) => ctx.rest.auth.allowsPlugin(ctx.caller, 'plugin::upload.content-api.upload'));
    authOf.set('Mutation.deleteUploadFile', (ctx) => ctx.rest.auth.allowsPlugin(ctx.caller, 'plugin::upload.content-api.destroy'));
    Mutation.updateUploadFile = async (_s, args, ctx) => {
      const id = fileIdArg(args.id);
      if (id === null) throw new ApiError(404, 'NotFoundError', 'Entity not found', {});
      const info = asRow(args.info ?? {});
      return uploadCall(ctx, 'POST', '/api/upload', `id=${id}`, { fileInfo: { name: info.name, alternativeText: info.alternativeText, caption: info.caption } });
    };
    Mutation.deleteUploadFile = async (_s, args, ctx) => {
      const id = fileIdArg(args.id);
      if (id === null) return null;
      try {
        return await uploadCall(ctx, 'DELETE', `/api/upload/files/${id}`, '');
      } catch (e) {
        if (e instanceof ApiError && e.status === 404) return null;
        throw e;
      }
    };
  }

  const upMutations = usersPermissionsMutations({
    users: deps.users, usersType: users,
    readOne: async (ctx, ct, args, info) => (await read(ctx, ct, 'one', args, info)).data,
  });
  Object.assign(Mutation, upMutations.Mutation);
  for (const [path, check] of upMutations.auth) authOf.set(path, check);

  map.Query = Query;
  map.Mutation = Mutation;
  if (config.graphql.shadowCRUD) {
    for (const ct of schema.contentTypes.values()) {
      for (const action of ACTIONS) for (const path of crudRootPaths(ct, action)) authOf.set(path, can(ct, action));
    }
  }
  map.JSON = scalar('JSON', 'The `JSON` scalar type represents JSON values as specified by [ECMA-404](http://www.ecma-international.org/publications/files/ECMA-ST/ECMA-404.pdf).', 'http://www.ecma-international.org/publications/files/ECMA-ST/ECMA-404.pdf');
  map.DateTime = dateTimeScalar();
  map.I18NLocaleCode = localeCodeScalar();
  map.Date = dateScalar();
  if (sdl.typeDefs.includes('scalar Time')) map.Time = stringScalar('Time', (s) => /^\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(s), graphqlTime);
  if (sdl.typeDefs.includes('scalar Long')) map.Long = longScalar();
  const componentNames = new Set([...schema.components.values()].map(componentTypeName));
  for (const [union, members] of sdl.unions) if (union !== 'GenericMorph') map[`${union}Input`] = zoneInputScalar(`${union}Input`, members, componentNames);
  return { map, auth: authOf };
}
