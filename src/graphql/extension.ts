// The extension service of Strapi's GraphQL plugin. A module named by `graphql.extensions` gets it:
//   export default (extensionService) => {
//     extensionService.shadowCRUD('api::article.article').disableMutations();
//     extensionService.shadowCRUD('api::tag.tag').field('name').disableFilters();
//     extensionService.use({ typeDefs, resolvers, resolversConfig });
//   };
// shadowCRUD(uid) switches parts of the generated schema off (applied to its AST, see shadow.ts);
// use() adds type definitions, graphql-js types, resolvers, schema transforms ("plugins") and the
// per-resolver configuration (auth, policies, middlewares) applied by wrapResolvers below.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import {
  GraphQLEnumType, GraphQLInterfaceType, GraphQLObjectType, GraphQLScalarType, GraphQLUnionType, Kind, defaultFieldResolver,
  isEnumType, isInputObjectType, isInterfaceType, isObjectType, isScalarType, isUnionType, printType,
  type DocumentNode, type GraphQLFieldResolver, type GraphQLNamedType, type GraphQLResolveInfo, type GraphQLSchema,
} from 'graphql';
import type { Config } from '../../config.ts';
import type { Component, ContentType, Schema } from '../../compiler/schema.ts';
import { ApiError } from '../../compiler/errors.ts';
import { ACTIONS, type Action } from '../auth/permissions.ts';
import { log } from '../log.ts';
import type { AuthCheck, GqlContext, TypeConfig } from './context.ts';

// ---------------------------------------------------------------- public types (the module's API)

/** Parameters checked both ways (as method parameters are), so resolvers may narrow `parent`. */
type Bivariant<A extends unknown[], R> = { bivarianceHack(...args: A): R }['bivarianceHack'];

export type ResolverArgs = Record<string, unknown>;
export type FieldResolver = Bivariant<[parent: unknown, args: ResolverArgs, context: GqlContext, info: GraphQLResolveInfo], unknown>;
export interface FieldResolverConfig { resolve?: FieldResolver; subscribe?: FieldResolver }
/** Field resolvers of one type (`__resolveType`/`__isTypeOf` too), or enum value → internal value. */
export type TypeResolvers = Record<string, FieldResolver | FieldResolverConfig | string | number | boolean>;
export type Resolvers = Record<string, TypeResolvers | GraphQLScalarType>;

export type NextResolver = (parent: unknown, args: ResolverArgs, context: GqlContext, info: GraphQLResolveInfo) => unknown;
/** Strapi's resolver middleware: `async (next, parent, args, context, info) => next(parent, args, context, info)`. */
export type ResolverMiddleware = Bivariant<[next: NextResolver, parent: unknown, args: ResolverArgs, context: GqlContext, info: GraphQLResolveInfo], unknown>;

export interface PolicyContext {
  type: 'graphql';
  parent: unknown;
  args: ResolverArgs;
  context: GqlContext;
  info: GraphQLResolveInfo;
  state: GqlContext['state'];
  is(type: string): boolean;
}
/** Anything but `true` or `undefined` (or a throw) refuses the call with a PolicyError (FORBIDDEN). */
export type Policy = (context: PolicyContext, config: Record<string, unknown>, opts: { strapi: StrapiLike }) => unknown;

export interface ResolverConfig {
  /** false: no permission check; `{scope}`: the caller needs every listed permission (`api::article.article.find`). */
  auth?: false | { scope: string | string[] };
  /** Functions, or (from a Strapi project's code) policies by name: `'global::x'`, `{ name: 'api::a.x', config }`. */
  policies?: Array<Policy | NamedPolicy>;
  middlewares?: ResolverMiddleware[];
}
export type NamedPolicy = string | { name: string; config?: Record<string, unknown> };
/** A named policy's function, or undefined when there is no such policy. */
export type PolicyResolver = (name: string) => Policy | undefined;

/** Keyed by resolver path: `Query.articles`, `Mutation.createTag`, `Article.title`. */
export type ResolversConfig = Record<string, ResolverConfig>;

/** A schema transform, run on the built schema in registration order (nexus plugins are not supported). */
export type SchemaPlugin = (schema: GraphQLSchema) => GraphQLSchema | void;

export interface ExtensionConfig {
  /** graphql-js named types (their resolve functions are kept) or SDL; nexus types are not supported. */
  types?: Array<GraphQLNamedType | string | DocumentNode>;
  typeDefs?: string | DocumentNode | Array<string | DocumentNode>;
  plugins?: SchemaPlugin[];
  resolvers?: Resolvers;
  resolversConfig?: ResolversConfig;
}
export type ExtensionFactory = (opts: { strapi: StrapiLike; nexus: undefined }) => ExtensionConfig;

/**
 * The little of Strapi's global object that extension code commonly reads (a project's own code registering
 * from its src/index gets the project's whole `strapi` object instead, src/project/strapi.ts).
 */
export interface StrapiLike {
  config: { get(path: string, fallback?: unknown): unknown };
  contentTypes: Record<string, object>;
  components: Record<string, object>;
  log: Pick<typeof log, 'debug' | 'info' | 'warn' | 'error'>;
  plugin(name: string): { service(name: string): unknown };
}

/** The default export of an extensions module (a Strapi `register({ strapi })` export works too). */
export type ExtensionModule = (extensionService: ExtensionService, opts: { strapi: StrapiLike }) => void | Promise<void>;

/** Errors for resolvers and policies, answered as Strapi's (`extensions.error` {name, message, details}). */
export const errors = {
  ApplicationError: class extends ApiError { constructor(message = 'An application error occured', details: Record<string, unknown> = {}) { super(400, 'ApplicationError', message, details); } },
  ValidationError: class extends ApiError { constructor(message: string, details: Record<string, unknown> = {}) { super(400, 'ValidationError', message, details); } },
  NotFoundError: class extends ApiError { constructor(message = 'Entity not found', details: Record<string, unknown> = {}) { super(404, 'NotFoundError', message, details); } },
  ForbiddenError: class extends ApiError { constructor(message = 'Forbidden access', details: Record<string, unknown> = {}) { super(403, 'ForbiddenError', message, details); } },
  UnauthorizedError: class extends ApiError { constructor(message = 'Unauthorized', details: Record<string, unknown> = {}) { super(401, 'UnauthorizedError', message, details); } },
  PolicyError: class extends ApiError { constructor(message = 'Policy Failed', details: Record<string, unknown> = {}) { super(403, 'PolicyError', message, details); } },
};

// ---------------------------------------------------------------- shadowCRUD

export type { AuthCheck, TypeConfig };

export interface FieldExtension {
  isEnabled(): boolean;
  isDisabled(): boolean;
  hasInputEnabled(): boolean;
  hasOutputEnabled(): boolean;
  hasFiltersEnabled(): boolean;
  /** Strapi's spelling of hasFiltersEnabled. */
  hasFiltersEnabeld(): boolean;
  /** Removes the field from the output type, the input and the filters. */
  disable(): FieldExtension;
  disableInput(): FieldExtension;
  disableOutput(): FieldExtension;
  disableFilters(): FieldExtension;
}

export interface ContentTypeExtension {
  isEnabled(): boolean;
  isDisabled(): boolean;
  areQueriesEnabled(): boolean;
  areQueriesDisabled(): boolean;
  areMutationsEnabled(): boolean;
  areMutationsDisabled(): boolean;
  isQueriesEnabled(): boolean;
  isMutationsEnabled(): boolean;
  isActionEnabled(action: string): boolean;
  isActionDisabled(action: string): boolean;
  /** No types, queries or mutations for the content-type; relations to it disappear too. */
  disable(): ContentTypeExtension;
  disableQueries(): ContentTypeExtension;
  disableMutations(): ContentTypeExtension;
  disableAction(action: string): ContentTypeExtension;
  disableActions(actions?: string[]): ContentTypeExtension;
  field(name: string): FieldExtension;
}

/** What a project's code gets from `strapi.plugin('graphql').service('extension')`. */
export interface ExtensionApi {
  shadowCRUD(uid: string): ContentTypeExtension;
  use(config: ExtensionConfig | ExtensionFactory): ExtensionApi;
}

/** The extension service a Strapi project's src/index registered with, and the project's `strapi` its factories get. */
export interface ProjectExtensions {
  service: ExtensionService; strapi: StrapiLike; policy: PolicyResolver;
  /**
   * Why the users-permissions action at `method path` may not be answered natively (a project's
   * src/extensions/users-permissions/strapi-server replaced it; Strapi's GraphQL mutations call those
   * controller actions), or null.
   */
  usersGuard?: (method: string, path: string) => string | null;
}

const EXTENSION_API = new Set(['shadowCRUD', 'use']);

export class ExtensionService {
  private readonly types = new Map<string, TypeConfig>();
  /** Each use() with the `strapi` its factory gets (none: the one generate() is given). */
  private readonly uses: Array<{ config: ExtensionConfig | ExtensionFactory; strapi?: StrapiLike }> = [];

  /**
   * The service as a project's code sees it: use() factories get the project's `strapi`; a method Strapi's
   * service has and this one lacks throws naming itself.
   */
  forProject(strapi: StrapiLike): ExtensionApi {
    const api: ExtensionApi = {
      shadowCRUD: (uid) => this.shadowCRUD(uid),
      use: (config) => { this.add(config, strapi); return api; },
    };
    return new Proxy(api, {
      get(target, prop, receiver) {
        if (typeof prop === 'symbol' || EXTENSION_API.has(prop)) return Reflect.get(target, prop, receiver);
        if (prop === 'then' || prop === 'toJSON' || prop === 'inspect' || prop === 'constructor') return undefined;
        throw new TypeError(`strapi.plugin('graphql').service('extension').${prop} is not supported by this server`);
      },
    });
  }

  /** Strapi's `extensionService.shadowCRUD(uid)`. */
  readonly shadowCRUD = (uid: string): ContentTypeExtension => {
    let cfg = this.types.get(uid);
    if (!cfg) this.types.set(uid, (cfg = { enabled: true, query: true, mutation: true, disabledActions: [], fields: new Map() }));
    const c = cfg;
    const ext: ContentTypeExtension = {
      isEnabled: () => c.enabled,
      isDisabled: () => !c.enabled,
      areQueriesEnabled: () => c.query,
      areQueriesDisabled: () => !c.query,
      areMutationsEnabled: () => c.mutation,
      areMutationsDisabled: () => !c.mutation,
      isQueriesEnabled: () => c.query,
      isMutationsEnabled: () => c.mutation,
      isActionEnabled: (action) => (ACTIONS as string[]).includes(action) && !c.disabledActions.includes(action),
      isActionDisabled: (action) => !ext.isActionEnabled(action),
      disable: () => { c.enabled = false; return ext; },
      disableQueries: () => { c.query = false; return ext; },
      disableMutations: () => { c.mutation = false; return ext; },
      disableAction: (action) => { if (!c.disabledActions.includes(action)) c.disabledActions.push(action); return ext; },
      disableActions: (actions = []) => { for (const a of actions) ext.disableAction(a); return ext; },
      field: (name) => {
        let f = c.fields.get(name);
        if (!f) c.fields.set(name, (f = { enabled: true, input: true, output: true, filters: true }));
        const fc = f;
        const fe: FieldExtension = {
          isEnabled: () => fc.enabled,
          isDisabled: () => !fc.enabled,
          hasInputEnabled: () => fc.input,
          hasOutputEnabled: () => fc.output,
          hasFiltersEnabled: () => fc.filters,
          hasFiltersEnabeld: () => fc.filters,
          disable: () => { fc.enabled = false; return fe; },
          disableInput: () => { fc.input = false; return fe; },
          disableOutput: () => { fc.output = false; return fe; },
          disableFilters: () => { fc.filters = false; return fe; },
        };
        return fe;
      },
    };
    return ext;
  };

  /** Strapi's `extensionService.use(config | ({ strapi, nexus }) => config)`; chainable. */
  use(config: ExtensionConfig | ExtensionFactory): this {
    this.add(config);
    return this;
  }

  private add(config: ExtensionConfig | ExtensionFactory, strapi?: StrapiLike): void {
    if (typeof config !== 'function' && (!config || typeof config !== 'object')) throw new TypeError('extensionService.use expects an object or a function');
    this.uses.push({ config, strapi });
  }

  /** What shadowCRUD was told, by uid (only uids that were named). */
  shadowConfig(): ReadonlyMap<string, TypeConfig> { return this.types; }

  /** Whether anything was registered at all. */
  isEmpty(): boolean { return this.types.size === 0 && this.uses.length === 0; }

  /** Every use() evaluated and merged, in registration order (later resolvers and configs win). */
  generate(strapi: StrapiLike): Generated {
    const out: Generated = { typeDefs: [], resolvers: {}, resolversConfig: {}, plugins: [] };
    for (const { config: entry, strapi: own } of this.uses) {
      const c = typeof entry === 'function' ? entry({ strapi: own ?? strapi, nexus: undefined }) : entry;
      if (!c || typeof c !== 'object') throw new TypeError('an extensionService.use() function must return an object');
      if (c.typeDefs !== undefined) {
        for (const t of Array.isArray(c.typeDefs) ? c.typeDefs : [c.typeDefs]) out.typeDefs.push(asTypeDefs(t, 'typeDefs'));
      }
      for (const t of c.types ?? []) {
        if (typeof t === 'string' || isDocument(t)) { out.typeDefs.push(asTypeDefs(t, 'types')); continue; }
        const { sdl, resolvers } = fromGraphqlType(t);
        out.typeDefs.push(sdl);
        mergeResolvers(out.resolvers, resolvers);
      }
      for (const p of c.plugins ?? []) {
        if (typeof p !== 'function') throw new TypeError('extension `plugins` must be functions (schema) => schema; nexus plugins are not supported');
        out.plugins.push(p);
      }
      if (c.resolvers) mergeResolvers(out.resolvers, c.resolvers);
      for (const [path, rc] of Object.entries(c.resolversConfig ?? {})) out.resolversConfig[path] = { ...out.resolversConfig[path], ...rc };
    }
    return out;
  }
}

export interface Generated {
  typeDefs: Array<string | DocumentNode>;
  resolvers: Resolvers;
  resolversConfig: ResolversConfig;
  plugins: SchemaPlugin[];
}

const isDocument = (v: unknown): v is DocumentNode => !!v && typeof v === 'object' && (v as { kind?: unknown }).kind === Kind.DOCUMENT;

function asTypeDefs(t: unknown, key: string): string | DocumentNode {
  if (typeof t === 'string' || isDocument(t)) return t;
  throw new TypeError(`extension \`${key}\` must be SDL strings or parsed documents`);
}

function mergeResolvers(into: Resolvers, from: Resolvers): void {
  for (const [type, r] of Object.entries(from)) {
    const prev = into[type];
    if (r instanceof GraphQLScalarType || prev instanceof GraphQLScalarType || !prev) into[type] = r instanceof GraphQLScalarType ? r : { ...r };
    else into[type] = { ...prev, ...r };
  }
}

/** A graphql-js type as SDL plus the functions it carries (resolve, resolveType, isTypeOf, enum values, scalar). */
function fromGraphqlType(t: unknown): { sdl: string; resolvers: Resolvers } {
  const resolvers: Resolvers = {};
  if (t instanceof GraphQLScalarType) {
    resolvers[t.name] = t;
    return { sdl: printType(t), resolvers };
  }
  if (t instanceof GraphQLObjectType || t instanceof GraphQLInterfaceType) {
    const r: TypeResolvers = {};
    for (const f of Object.values(t.getFields())) {
      if (f.resolve || f.subscribe) r[f.name] = { resolve: f.resolve as FieldResolver | undefined, subscribe: f.subscribe as FieldResolver | undefined };
    }
    if (t instanceof GraphQLObjectType && t.isTypeOf) r.__isTypeOf = t.isTypeOf as unknown as FieldResolver;
    if (t instanceof GraphQLInterfaceType && t.resolveType) r.__resolveType = t.resolveType as unknown as FieldResolver;
    if (Object.keys(r).length) resolvers[t.name] = r;
    return { sdl: printType(t), resolvers };
  }
  if (t instanceof GraphQLUnionType) {
    if (t.resolveType) resolvers[t.name] = { __resolveType: t.resolveType as unknown as FieldResolver };
    return { sdl: printType(t), resolvers };
  }
  if (t instanceof GraphQLEnumType) {
    const values: TypeResolvers = {};
    let differs = false;
    for (const v of t.getValues()) {
      const value = v.value;
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') values[v.name] = value;
      if (value !== v.name) differs = true;
    }
    if (differs) resolvers[t.name] = values;
    return { sdl: printType(t), resolvers };
  }
  if (isInputObjectType(t)) return { sdl: printType(t), resolvers };
  throw new TypeError('extension `types` must be graphql-js types (GraphQLObjectType, …) or SDL strings; nexus types are not supported here');
}

// ---------------------------------------------------------------- loading the module

export function strapiLike(config: Config, schema: Schema, service: ExtensionService): StrapiLike {
  return {
    config: {
      get(path: string, fallback?: unknown) {
        const p = path.replace(/^plugin::graphql\./, 'graphql.').replace(/^plugin\.graphql\./, 'graphql.');
        let node: unknown = config;
        for (const k of p.split('.')) node = node && typeof node === 'object' ? (node as Record<string, unknown>)[k] : undefined;
        return node === undefined ? fallback : node;
      },
    },
    contentTypes: Object.fromEntries(schema.contentTypes),
    components: Object.fromEntries(schema.components),
    log,
    plugin: (name: string) => ({ service: (s: string) => (name === 'graphql' && s === 'extension' ? service : undefined) }),
  };
}

/** Imports the extensions module and lets it register; the service it filled is returned. */
export async function loadExtensions(file: string, strapi: (service: ExtensionService) => StrapiLike, service = new ExtensionService()): Promise<ExtensionService> {
  let mod: { default?: unknown; register?: unknown };
  try {
    mod = await import(pathToFileURL(file).href) as typeof mod;
  } catch (e) {
    // Worker threads run tsx's require hook only (their code is compiled to CommonJS): a .ts module is
    // required there.
    if ((e as { code?: unknown }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw e;
    mod = createRequire(import.meta.url)(file) as typeof mod;
  }
  const s = strapi(service);
  const def = mod.default;
  const register = typeof def === 'object' && def && typeof (def as { register?: unknown }).register === 'function'
    ? (def as { register: (o: { strapi: StrapiLike }) => unknown }).register
    : typeof mod.register === 'function' ? mod.register as (o: { strapi: StrapiLike }) => unknown : null;
  if (typeof def === 'function') await (def as ExtensionModule)(service, { strapi: s });
  else if (register) await register({ strapi: s });
  else throw new TypeError(`${file} must export a default function (extensionService) => void`);
  return service;
}

// ---------------------------------------------------------------- resolvers: validation and wrapping

/** Every user resolver names a type and field of the final schema (a typo would otherwise be ignored). */
export function checkResolvers(schema: GraphQLSchema, resolvers: Resolvers): void {
  for (const [typeName, r] of Object.entries(resolvers)) {
    const type = schema.getType(typeName);
    if (!type) throw new Error(`extension resolvers: type ${typeName} is not in the schema`);
    if (r instanceof GraphQLScalarType) {
      if (!isScalarType(type)) throw new Error(`extension resolvers: ${typeName} is not a scalar`);
      continue;
    }
    if (isObjectType(type) || isInterfaceType(type)) {
      const fields = type.getFields();
      for (const f of Object.keys(r)) {
        if (!f.startsWith('__') && !fields[f]) throw new Error(`extension resolvers: ${typeName}.${f} is not in the schema`);
      }
    } else if (isEnumType(type)) {
      for (const v of Object.keys(r)) if (!type.getValue(v)) throw new Error(`extension resolvers: ${typeName}.${v} is not a value of the enum`);
    } else if (!isUnionType(type) && !isScalarType(type)) {
      throw new Error(`extension resolvers: ${typeName} cannot have resolvers`);
    }
  }
}


export const forbiddenError = () => new ApiError(403, 'ForbiddenError', 'Forbidden access', {});

/** Whether the caller holds one permission: `api::article.article.find` or a plugin action. */
export function allowsScope(ctx: GqlContext, scope: string): boolean {
  const dot = scope.lastIndexOf('.');
  const uid = scope.slice(0, dot);
  const action = scope.slice(dot + 1);
  if (ctx.rest.schema.contentTypes.has(uid) && (ACTIONS as string[]).includes(action)) return ctx.rest.auth.allows(ctx.caller, uid, action as Action);
  return ctx.rest.auth.allowsPlugin(ctx.caller, scope);
}

/**
 * A root field without a permission of its own (a custom query or mutation) is private as in Strapi:
 * answered to logged-in users and full-access tokens; `auth: false` makes it public.
 */
const authenticatedOnly: AuthCheck = (ctx) => ctx.caller.kind === 'user' || (ctx.caller.kind === 'token' && ctx.caller.grant.all);

const ROOTS = new Set(['Query', 'Mutation', 'Subscription']);

/**
 * Wraps field resolvers as Strapi does: auth (the configured scope, or the field's own permission),
 * then the middlewares in order, then the policies, then the resolver. Root fields are always checked.
 */
export function wrapResolvers(schema: GraphQLSchema, defaults: ReadonlyMap<string, AuthCheck>, resolversConfig: ResolversConfig, strapi: StrapiLike, named?: PolicyResolver): void {
  /** Each policy as a function and its config (named ones through the project's policies). */
  const resolvePolicies = (path: string, list: Array<Policy | NamedPolicy>): Array<{ fn: Policy; config: Record<string, unknown> }> => list.map((p) => {
    if (typeof p === 'function') return { fn: p, config: {} };
    const name = typeof p === 'string' ? p : p && typeof p === 'object' && typeof p.name === 'string' ? p.name : null;
    if (name === null || !named) throw new TypeError(`resolversConfig ${path}: policies must be functions${named ? ', names or { name, config }' : ' (named policies are not supported)'}`);
    const fn = named(name);
    if (!fn) throw new TypeError(`resolversConfig ${path}: Policy ${name} not found.`);
    return { fn, config: (typeof p === 'object' && p.config) || {} };
  });
  const resolved = new Map<string, Array<{ fn: Policy; config: Record<string, unknown> }>>();
  for (const path of Object.keys(resolversConfig)) {
    const [typeName, fieldName] = path.split('.');
    const type = schema.getType(typeName);
    if (!fieldName || !type || !(isObjectType(type) || isInterfaceType(type)) || !type.getFields()[fieldName]) {
      throw new Error(`extension resolversConfig: ${path} is not a field of the schema`);
    }
    const rc = resolversConfig[path];
    resolved.set(path, resolvePolicies(path, rc.policies ?? []));
    for (const m of rc.middlewares ?? []) if (typeof m !== 'function') throw new TypeError(`resolversConfig ${path}: middlewares must be functions`);
    const auth = rc.auth;
    if (auth !== undefined && auth !== false && (typeof auth !== 'object' || auth === null || !('scope' in auth))) {
      throw new TypeError(`resolversConfig ${path}: auth must be false or { scope: [...] }`);
    }
  }
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    const root = ROOTS.has(type.name);
    for (const field of Object.values(type.getFields())) {
      const path = `${type.name}.${field.name}`;
      const rc = resolversConfig[path];
      if (!rc && !root) continue;
      const auth = rc?.auth;
      const scopes = auth ? (Array.isArray(auth.scope) ? auth.scope : [auth.scope]) : null;
      const check: AuthCheck | null = auth === false ? null
        : scopes ? (ctx) => scopes.every((s) => allowsScope(ctx, s))
        : root ? defaults.get(path) ?? authenticatedOnly : null;
      let next = (field.resolve ?? defaultFieldResolver) as NextResolver;
      const policies = resolved.get(path) ?? [];
      if (policies.length) {
        const inner = next;
        next = async (parent, args, context, info) => {
          const pctx: PolicyContext = { type: 'graphql', parent, args, context, info, state: context.state, is: (t) => t === 'graphql' };
          for (const p of policies) {
            const result = await p.fn(pctx, p.config, { strapi });
            if (result !== true && result !== undefined) throw new errors.PolicyError();
          }
          return inner(parent, args, context, info);
        };
      }
      for (const m of [...(rc?.middlewares ?? [])].reverse()) {
        const inner = next;
        next = (parent, args, context, info) => m(inner, parent, args, context, info);
      }
      const run = next;
      field.resolve = (check
        ? (parent, args, context, info) => (check(context) ? run(parent, args, context, info) : Promise.reject(forbiddenError()))
        : run) as GraphQLFieldResolver<unknown, GqlContext>;
    }
  }
}
