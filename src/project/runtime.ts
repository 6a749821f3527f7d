// The one module the request path calls for a Strapi project's own code. At start it builds the routes
// Strapi would register from the project's routers (core routers with prefix/only/except and per-action
// config, custom routers), resolving handlers, route middlewares and policies by name as Strapi does; a
// route that names something missing stops the start, naming its file. At each request match() tells the
// app whether a project route answers it: routes whose action, service and config are Strapi's defaults
// are left to the core router (src/rest/router.ts), so they pay nothing. handle() runs Strapi's chain:
// authorization (the route's scope, or none with auth: false), policies, route middlewares, the action.
// A built-in plugin's routes (users-permissions, upload, i18n) join them when the project extends it
// (src/extensions/<plugin>/strapi-server): built-in routes it left alone stay the native plugin's, the rest run here.
import { loadLifecycles, type Lifecycles } from './lifecycles.ts';
import { dirname, relative } from 'node:path';
import type { Config } from '../../config.ts';
import type { ContentType, Schema } from '../../compiler/schema.ts';
import { Compiler } from '../../compiler/index.ts';
import { ApiError, forbidden, notFound, unauthorized } from '../../compiler/errors.ts';
import type { Caller } from '../auth/permissions.ts';
import { toApiError } from '../db/errors.ts';
import { log } from '../log.ts';
import { findMany, findOne } from '../rest/read.ts';
import { errorReply, methodNotAllowed, type Reply } from '../rest/reply.ts';
import type { DocumentCalls, RestContext, UserDocumentChain } from '../rest/router.ts';
import { toV4, wantsV4 } from '../rest/v4-format.ts';
import { createDocument, deleteDocument, putSingle, updateDocument } from '../rest/write.ts';
import { jsonBody, type Task } from '../task.ts';
import { LINK, type LinkedContext, type Methods } from './core.ts';
import { KoaContext, type KoaState } from './ctx.ts';
import { compose, type Middleware, type Next } from './compose.ts';
import { GlobalChain } from './global.ts';
import { v4Format } from './request-format.ts';
import { hasHook, runHook } from './boot.ts';
import { PolicyError } from './errors.ts';
import { createCoreRouter, isCoreRouter, type CoreRouterSpec, type RouteConfig } from './factories.ts';
import { documentsClosed } from './document-paths.ts';
import { loadProject, ProjectLoadError, type LoadedFile, type ProjectCode } from './load.ts';
import type { Plugin } from '../plugins/types.ts';
import { UP_NAME } from './up-plugin.ts';
import { NATIVE_ACTIONS } from './up-routes.ts';
import type { ExtendedPlugin } from './plugin-extension.ts';
import { extendPlugins } from './extend-plugins.ts';
import { UsersQuery } from '../users/users-query.ts';
import { routeShapeError } from './route-schema.ts';
import { compilePath, firstSegment, matchPath, safeDecode, type CompiledPath } from './path.ts';
import { CORE_FUNCTIONS, ProjectStrapi, type MiddlewareFactory, type PolicyHandler, type StrapiDeps } from './strapi.ts';

interface Policy { name: string; handler: (policyContext: object, config: Record<string, unknown>, opts: { strapi: unknown }) => unknown; config: Record<string, unknown> }

/** A core action answered straight from the compiled statement (the controller's and service's own are Strapi's). */
type CoreAction = 'find' | 'findOne' | 'create' | 'update' | 'delete';

export interface ProjectRoute {
  method: string;
  /** The full path: /api, the router's prefix, the route's path. */
  path: string;
  /** The route's path as its router declares it (ctx.state.route.path, as Strapi's). */
  declared: string;
  /** The full path compiled as Strapi's router compiles it (path-to-regexp 6). */
  compiled: CompiledPath;
  /** The first segment after /api every match starts with (lower-cased), or null when the pattern decides. */
  first: string | null;
  file: string;
  apiName: string;
  handler: string | Function;
  /** null: `auth: false`; else every permission the caller needs (none listed: any authenticated caller). */
  scope: string[] | null;
  policies: Policy[];
  middlewares: Middleware[];
  /** The controller action, or a function/list given as the handler. */
  action: Middleware;
  /** A plugin's route (src/extensions/<plugin>/strapi-server): its name (ctx.state.route.info.pluginName). */
  plugin?: string;
  /** The plugin's own action this route's handler still is ('user.me'), when the extension left it. */
  native?: string;
  /** Set when the action is a core one on Strapi's own controller and service: answered from bytes. */
  core?: { ct: ContentType; action: CoreAction };
  /**
   * A core route with nothing of the project's on it at its standard path (Strapi's own action and service,
   * no policy or middleware, its default permission, no prefix): the core router answers it, untouched.
   */
  plain?: boolean;
  /** Why this route cannot run here (a feature this server lacks): it answers 501 naming the file. */
  closed?: string;
  config: RouteConfig;
}

export type Match = { route: ProjectRoute; params: Record<string, string> } | { route: null; status: 404 | 405 };

const COLLECTION: Array<[CoreAction, string, boolean]> = [['find', 'GET', false], ['findOne', 'GET', true], ['create', 'POST', false], ['update', 'PUT', true], ['delete', 'DELETE', true]];
const SINGLE: Array<[CoreAction, string, boolean]> = [['find', 'GET', false], ['update', 'PUT', false], ['delete', 'DELETE', false]];
const NO_ACCESS = { key: 'project:no-auth', canRead: () => false };
/** The pseudo-route of a path closed by a plugin extension. */
const CLOSED: ProjectRoute = { method: '', path: '', declared: '', compiled: { regexp: /$^/, keys: [], tokens: [] }, first: null, file: '', apiName: '', handler: '', scope: null, policies: [], middlewares: [], action: () => undefined, config: {} };
/** Reads ctx.state.user with its role whatever the caller may read (the strategy reads it so). */
const FULL: Caller = { kind: 'token', grant: { all: true, perms: new Set() } };

/** A route's path compiled as Strapi's router does; a pattern it refuses stops the start with Strapi's message. */
function parsePath(path: string, method: string, given: string, file: string): CompiledPath {
  if (!path.startsWith('/api/')) throw new ProjectLoadError(`${file}: route path ${given} must start with /`);
  // @koa/router compiles the route's own path before prefixing it: an error's position is within that path.
  try { compilePath(given.trim()); return compilePath(path); } catch (e) {
    throw new ProjectLoadError(`${file}: Error creating endpoint ${method} ${given}: ${(e as Error)?.message ?? String(e)}`);
  }
}

export class ProjectRuntime {
  readonly strapi: ProjectStrapi;
  /** Every route in Strapi's order (the first that matches answers). */
  private routes: ProjectRoute[] = [];
  /** Routes a path whose first segment after /api is the key may match, in order (built at first use). */
  private byFirst = new Map<string, ProjectRoute[]>();
  /** Routes whose pattern decides the first segment: any path may match them. */
  private anyFirst: ProjectRoute[] = [];
  /** First segments of content-types whose api has routers: a path there no route takes is 404/405, as in Strapi. */
  private routed = new Set<string>();

  /** Reads ctx.state.user (the user with its role, as users-permissions' strategy fetches it). */
  private users: UsersQuery;

  /** Plugin name → the project file that changes it (src/extensions) when this server cannot run it: its routes are closed. */
  private extensions: Map<string, string>;
  /** Built-in plugins as the project's strapi-server files left them (their routes are among `routes`), by name. */
  private extended: Map<string, ExtendedPlugin>;
  /** The plugins' controllers (`<plugin>/<controller>`), instantiated as Strapi's registry does (a factory gets { strapi }). */
  private pluginControllers = new Map<string, Methods | undefined>();
  /** The thread's plugins (bindPlugins): what the plugin object's actions answer through. */
  readonly natives: Map<string, Plugin>;
  private src: string;
  /** src/index (register ran before the routes were built; bootstrap runs once per node, see bootstrap()). */
  private index: LoadedFile | null;
  /** The project's own global middlewares (config/middlewares), or null: requests then go straight to routing. */
  readonly global: GlobalChain | null;
  /** Lifecycle hook files, not run (said at start). */
  readonly lifecycles: string[];
  /** The project's lifecycle hooks (the writers call them; a type with hooks on reads is closed). */
  readonly hooks: Lifecycles;
  get extensionFiles(): Map<string, string> { return this.extensions; }
  /**
   * The project registered document service middlewares (register()): core routes run Strapi's controller
   * and service through strapi.documents (never the compiled bytes), paths that cannot run them are closed.
   */
  readonly viaDocuments: boolean;
  /** GraphQL's v4-shaped Shadow CRUD, which cannot run the middlewares: its 501 naming the file, or null. */
  readonly shadowCrudClosed: ApiError | null;
  /** strapi.documents(uid) with the middlewares, for GraphQL's Shadow CRUD in Strapi 5's shape (null without middlewares). */
  readonly shadowDocuments: ((uid: string) => DocumentCalls) | null;
  /** users-permissions' user writes through the middlewares, as Strapi's plugin makes them (null without middlewares). */
  readonly userDocuments: UserDocumentChain | null;
  /** The strapi-server files this runtime runs, by plugin name. */
  get extendedFiles(): Map<string, string> { return new Map([...this.extended].map(([name, ext]) => [name, ext.file])); }
  /** users-permissions as the project's strapi-server left it, or null. */
  private get up(): ExtendedPlugin | null { return this.extended.get(UP_NAME) ?? null; }

  /** `strapi` has run the project's register(); `db` gives it database access once bound (see bind()). */
  constructor(private schema: Schema, deps: StrapiDeps, code: ProjectCode, strapi: ProjectStrapi, private db: DbSlot, extended: { plugins: Map<string, ExtendedPlugin>; natives: Map<string, Plugin> } = { plugins: new Map(), natives: new Map() }) {
    this.extended = extended.plugins;
    this.natives = extended.natives;
    this.extensions = new Map([...code.extensions].filter(([p]) => !this.extended.has(p)));
    this.src = code.src;
    this.index = code.index;
    this.lifecycles = code.lifecycles.map((f) => relative(dirname(code.src), f));
    this.strapi = strapi;
    this.hooks = strapi.hooks;
    this.users = new UsersQuery(schema, deps.config);
    this.viaDocuments = strapi.documentMiddlewares.size > 0;
    this.shadowCrudClosed = this.viaDocuments ? documentsClosed(strapi.documentMiddlewares.file, 'GraphQL\'s Shadow CRUD in the v4 shape runs without them') : null;
    this.shadowDocuments = this.viaDocuments ? (uid) => strapi.documents(uid) : null;
    this.userDocuments = this.viaDocuments ? strapi.userDocuments() : null;
    this.global = code.globalMiddlewares ? new GlobalChain(strapi, code.globalMiddlewares, code.src, (rest, caller, state) => this.fillState(rest, caller, state)) : null;
    for (const [apiName, api] of code.apis) {
      if (api.routes.length) for (const ct of schema.contentTypes.values()) if (ct.uid.startsWith(`api::${apiName}.`)) this.routed.add(ct.kind === 'singleType' ? ct.singularName : ct.pluralName);
      for (const loaded of api.routes) {
        // Named relative to the project's root in start errors and 501 answers (no server path goes out).
        const f = { ...loaded, file: relative(dirname(code.src), loaded.file) };
        let v = f.value;
        if (typeof v === 'function') v = (v as (o: { strapi: unknown }) => unknown)({ strapi: this.strapi.api });
        if (isCoreRouter(v)) for (const r of this.coreRoutes(v, apiName, f.file)) this.add(r);
        else if (v && typeof v === 'object' && Array.isArray((v as { routes?: unknown }).routes)) {
          const router = v as { prefix?: string; routes: Array<Record<string, unknown>> };
          for (const r of router.routes) this.add(this.route(r, router.prefix ?? '', apiName, f.file));
        } else throw new ProjectLoadError(`${f.file}: a routes file must export createCoreRouter(…) or { routes: [...] }`);
      }
    }
    // The core router answers the types of apis without routers; with document middlewares their core
    // routes become Strapi's core controller and service here, which run them.
    if (this.viaDocuments) {
      for (const ct of schema.contentTypes.values()) {
        if (ct.builtin || this.routed.has(ct.kind === 'singleType' ? ct.singularName : ct.pluralName)) continue;
        const apiName = ct.uid.slice('api::'.length, ct.uid.indexOf('.'));
        for (const r of this.coreRoutes(createCoreRouter(ct.uid), apiName, `src/api/${apiName}`)) this.add(r);
      }
    }
    // Strapi registers the plugins' routes after the apis'.
    for (const ext of this.extended.values()) this.pluginRoutes(ext);
  }

  /**
   * A plugin's content-api routes as the extension left them. A built-in route still as Strapi declares it,
   * on the plugin's own action, with the plugin's own middlewares, is `plain`: the native handler answers it,
   * untouched. With a service replaced, native actions cannot honour it: their routes are closed, naming the file.
   */
  private pluginRoutes(ext: ExtendedPlugin): void {
    const builtins = ext.originals.builtins;
    const closed = ext.replacedServices.length
      ? `it replaces the plugin's service ${ext.replacedServices.join(', ')}, which this server's own users-permissions handlers do not run through`
      : null;
    const sameMiddlewares = Object.entries(ext.originals.middlewares).every(([k, v]) => ext.plugin.middlewares[k] === v);
    for (const spec of ext.plugin.routes['content-api'].routes as unknown as Array<Record<string, unknown>>) {
      const r = this.route(spec, '', '', ext.file, ext);
      const b = builtins.find((x) => x.method === spec.method && x.path === spec.path && x.handler === spec.handler);
      if (r.native && closed) r.closed ??= closed;
      r.plain = !!b && r.native === b.handler && !r.closed && sameMiddlewares
        && JSON.stringify(spec.config ?? {}) === JSON.stringify(b.config ?? {});
      this.add(r);
    }
  }

  /** The plugin's controller `name`, instantiated once (Strapi's registry calls a factory with { strapi }). */
  private pluginController(ext: ExtendedPlugin, name: string): Methods | undefined {
    const key = `${ext.name}/${name}`;
    if (!this.pluginControllers.has(key)) {
      const c = ext.plugin.controllers[name];
      let made: unknown;
      try { made = typeof c === 'function' ? (c as (o: { strapi: unknown }) => unknown)({ strapi: this.strapi.api }) : c; } catch (e) {
        throw new ProjectLoadError(`${ext.file}: controller ${name}: ${(e as Error)?.stack ?? String(e)}`);
      }
      this.pluginControllers.set(key, made && typeof made === 'object' ? made as Methods : undefined);
    }
    return this.pluginControllers.get(key);
  }

  private add(r: ProjectRoute): void {
    this.routes.push(r);
    if (r.first === null) this.anyFirst.push(r);
    this.byFirst.clear();
  }

  /** The routes a path starting with segment `first` may match, in Strapi's order. */
  private candidates(first: string): ProjectRoute[] {
    let list = this.byFirst.get(first);
    if (!list) {
      list = this.routes.filter((r) => r.first === null || r.first === first);
      if (this.byFirst.size > 10_000) this.byFirst.clear();
      this.byFirst.set(first, list);
    }
    return list;
  }

  private coreRoutes(spec: CoreRouterSpec, apiName: string, file: string): ProjectRoute[] {
    const ct = this.schema.contentTypes.get(spec.uid);
    if (!ct || ct.builtin) throw new ProjectLoadError(`${file}: createCoreRouter names ${spec.uid}, which is no content-type of the project`);
    const segment = ct.kind === 'singleType' ? ct.singularName : ct.pluralName;
    const out: ProjectRoute[] = [];
    for (const [action, method, withId] of ct.kind === 'singleType' ? SINGLE : COLLECTION) {
      if (spec.except?.includes(action) || (spec.only && !spec.only.includes(action))) continue;
      const r = this.route({ method, path: `/${segment}${withId ? '/:id' : ''}`, handler: `${spec.uid}.${action}`, config: spec.config[action] ?? {} }, spec.prefix ?? '', apiName, file);
      r.plain = !this.viaDocuments && !!r.core && !r.policies.length && !r.middlewares.length && !r.closed && !spec.prefix
        && r.scope?.length === 1 && r.scope[0] === `${spec.uid}.${action}`;
      out.push(r);
    }
    return out;
  }

  /** One route as Strapi's compose-endpoint builds it: scope, policies, middlewares and action resolved now. */
  private route(r: Record<string, unknown>, prefix: string, apiName: string, file: string, plugin?: ExtendedPlugin): ProjectRoute {
    const shape = routeShapeError(r);
    if (shape) throw new ProjectLoadError(`${file}: ${shape}`);
    const method = String(r.method);
    if (typeof r.path !== 'string') throw new ProjectLoadError(`${file}: a route needs a path`);
    const config = (r.config ?? {}) as RouteConfig & { prefix?: unknown };
    // A plugin's route is under /<plugin name> unless its config sets a prefix ('' included).
    if (plugin) prefix = typeof config.prefix === 'string' ? config.prefix : `/${plugin.name}`;
    // Strapi trims the path (compose-endpoint's getPath) and the router prefixes it; @koa/router makes a plugin
    // route's '/' its prefix itself (upload's POST / is POST /api/upload, with or without the final slash).
    const own = r.path.trim();
    const path = `/api${prefix}${plugin && prefix && own === '/' ? '' : own}`;
    const compiled = parsePath(path, method, r.path, file);
    const handler = r.handler as string | Function;
    const where = `${file} (${method} ${r.path})`;
    const route: ProjectRoute = {
      method, path, declared: r.path, compiled, first: firstSegment(compiled), file, apiName, handler, config,
      scope: this.scope(config, handler, plugin ? `plugin::${plugin.name}.` : `api::${apiName}.`), policies: [], middlewares: [], action: () => undefined,
      ...(plugin ? { plugin: plugin.name } : {}),
    };
    try {
      route.policies = this.policies(config.policies ?? [], apiName, route, plugin);
      route.middlewares = this.middlewares(config.middlewares ?? [], route, plugin);
      if (plugin) this.pluginAction(route, handler, plugin);
      else this.action(route, handler, apiName);
    } catch (e) {
      if (e instanceof ProjectLoadError) throw e;
      throw new ProjectLoadError(`${where}: ${(e as Error)?.message ?? String(e)}`);
    }
    return route;
  }

  /** Strapi's createRouteScopeGenerator: a string handler's own permission unless config.auth says otherwise. */
  private scope(config: RouteConfig, handler: unknown, prefix: string): string[] | null {
    if (config.auth === false) return null;
    const given = config.auth?.scope;
    if (given !== undefined) return Array.isArray(given) ? given : [given];
    if (typeof handler !== 'string') return [];
    return [handler.startsWith(prefix) ? handler : prefix + handler];
  }

  private policies(list: unknown[], apiName: string, route: ProjectRoute, plugin?: ExtendedPlugin): Policy[] {
    return list.map((p) => {
      const name = typeof p === 'string' ? p : (p as { name?: unknown })?.name;
      const config = (typeof p === 'object' && p && (p as { config?: unknown }).config) as Record<string, unknown> || {};
      if (typeof name !== 'string') throw new ProjectLoadError(`${route.file}: Policy ${typeof p === 'function' ? (p as Function).name : String(name)} not found.`);
      const own = plugin ? pluginPolicy(plugin, name) : undefined;
      const found = own ?? this.strapi.policies.get(name) ?? (plugin ? undefined : this.strapi.policies.get(`api::${apiName}.${name}`));
      if (!found) {
        if (/^(plugin|admin|strapi)::/.test(name)) { route.closed ??= `the policy ${name} is Strapi's own, which this server does not run`; return { name, handler: () => true, config }; }
        throw new ProjectLoadError(`${route.file}: Policy ${name} not found.`);
      }
      if (found.validator) {
        try { found.validator(config); } catch { throw new ProjectLoadError(`${route.file}: Invalid config passed to "${name}" policy.`); }
      }
      return { name, handler: found.handler, config };
    });
  }

  private middlewares(list: unknown[], route: ProjectRoute, plugin?: ExtendedPlugin): Middleware[] {
    if (!Array.isArray(list)) throw new ProjectLoadError(`${route.file}: Route middlewares config must be an array`);
    return list.map((m) => {
      if (typeof m === 'function') return m as Middleware;
      const name = typeof m === 'string' ? m : (m as { name?: unknown })?.name;
      const config = (typeof m === 'object' && m && (m as { config?: unknown }).config) as Record<string, unknown> || {};
      if (typeof m === 'object' && m && (m as { resolve?: unknown }).resolve) {
        route.closed ??= `the middleware resolved from ${String((m as { resolve: unknown }).resolve)} is not loaded by this server`;
        return (_c: KoaContext, next: Next) => next();
      }
      if (typeof name !== 'string') throw new ProjectLoadError(`${route.file}: Middleware config must either be a string or an object {name?: string, resolve?: string, config: any}.`);
      const own = plugin ? pluginMember(plugin.name, plugin.plugin.middlewares, name) : undefined;
      const found = typeof own === 'function' ? { file: plugin!.file, factory: own as MiddlewareFactory } : this.strapi.middlewares.get(name);
      if (!found) {
        if (/^(plugin|admin|strapi)::/.test(name)) { route.closed ??= `the middleware ${name} is Strapi's own, which this server does not run`; return (_c: KoaContext, next: Next) => next(); }
        throw new ProjectLoadError(`${route.file}: Middleware ${name} not found.`);
      }
      let mw: unknown;
      try { mw = found.factory(config, { strapi: this.strapi.api }); } catch (e) { throw new ProjectLoadError(`${found.file}: Middleware "${name}": ${(e as Error)?.message}`); }
      return (typeof mw === 'function' ? mw : (_c: KoaContext, next: Next) => next()) as Middleware;
    });
  }

  /** A plugin route's handler: `<controller>.<action>` (or `plugin::<plugin>.<controller>.<action>`) of the plugin's controllers. */
  private pluginAction(route: ProjectRoute, handler: unknown, ext: ExtendedPlugin): void {
    if (typeof handler !== 'string') { this.action(route, handler, ''); return; }
    const h = handler.trim().replace(`plugin::${ext.name}.`, '');
    const dot = h.lastIndexOf('.');
    const controller = dot > 0 && !h.includes('::') ? this.pluginController(ext, h.slice(0, dot)) : undefined;
    const fn = controller?.[h.slice(dot + 1)];
    if (typeof fn !== 'function') throw new ProjectLoadError(`${route.file}: Handler not found "${handler}"`);
    route.action = (ctx) => (fn as (c: KoaContext) => unknown).call(controller, ctx);
    route.native = ext.originals.actions.get(fn);
  }

  /** Strapi's getAction: `<controller>.<action>` in the route's api, else a full controller uid; or a function. */
  private action(route: ProjectRoute, handler: unknown, apiName: string): void {
    if (typeof handler === 'function') { route.action = handler as Middleware; return; }
    if (Array.isArray(handler)) { const c = compose(handler as Middleware[]); route.action = (ctx) => c(ctx, async () => undefined); return; }
    if (typeof handler !== 'string') throw new ProjectLoadError(`${route.file}: a route needs a handler`);
    const h = handler.trim();
    const controllerName = h.slice(0, h.lastIndexOf('.'));
    const actionName = h.slice(h.lastIndexOf('.') + 1);
    const controller: Methods | undefined = this.strapi.controller(`api::${apiName}.${controllerName}`) ?? this.strapi.controller(controllerName);
    const fn = controller?.[actionName];
    if (!controller || typeof fn !== 'function') throw new ProjectLoadError(`${route.file}: Handler not found "${handler}"`);
    route.action = (ctx) => (fn as (c: KoaContext) => unknown).call(controller, ctx);
    const uid = controller === this.strapi.controller(controllerName) ? controllerName : `api::${apiName}.${controllerName}`;
    const ct = this.schema.contentTypes.get(uid);
    const service = ct ? this.strapi.service(uid) : undefined;
    // The core action on Strapi's own controller, reading through Strapi's own service: the compiled bytes answer.
    // The service method the core action calls (a single type's update is its createOrUpdate).
    const serviceMethod = ct?.kind === 'singleType' && actionName === 'update' ? 'createOrUpdate' : actionName;
    if (ct && !this.viaDocuments && CORE_FUNCTIONS.has(fn as object) && ['find', 'findOne', 'create', 'update', 'delete'].includes(actionName)
      && (ct.kind === 'collectionType' || actionName !== 'findOne')
      && service && CORE_FUNCTIONS.has(service[serviceMethod] as object)) {
      route.core = { ct, action: actionName as CoreAction };
    }
  }

  /**
   * Strapi's route for a request, or null when the core router (or the plugin `plugin`, which claimed the
   * path) answers it as it would without project code.
   */
  match(method: string, path: string, plugin?: string): Match | null {
    if (plugin && !this.extended.has(plugin)) {
      const file = this.extensions.get(plugin);
      return file ? { route: { ...CLOSED, method, path, file: relative(dirname(this.src), file), closed: `the project changes the ${plugin} plugin (src/extensions), which this server does not run` }, params: {} } : null;
    }
    if (!path.startsWith('/api/')) return null;
    const slash = path.indexOf('/', 5);
    const first = (slash < 0 ? path.slice(5) : path.slice(5, slash)).toLowerCase();
    let pathMatched = false;
    for (const r of this.candidates(first)) {
      if (!r.compiled.regexp.test(path)) continue;
      if (r.method !== method && r.method !== 'ALL') { pathMatched = true; continue; }
      if (r.plain) return null;
      // Strapi's public-files route (GET /((?!uploads/).+)) matches every GET too: @koa/router gives its
      // capture, the path without its first slash, as ctx.params[0] (a route's own unnamed group wins).
      const params: Record<string, string> = method === 'GET' || method === 'HEAD' ? { 0: safeDecode(path.slice(1)) } : {};
      return { route: r, params: matchPath(r.compiled, path, params)! };
    }
    // A GET no route takes is still matched by Strapi's public-files route: 404, never 405.
    if (pathMatched && method !== 'GET' && method !== 'HEAD') return { route: null, status: 405 };
    // An extended plugin's path no route takes (the extension may remove some): Strapi's router answers.
    if (pathMatched || this.routed.has(first) || plugin) return { route: null, status: 404 };
    return null;
  }

  /** Runs a matched route. Errors become Strapi's envelope (a thrown non-API error: 500, logged with the route). */
  async handle(rest: RestContext, task: Task, caller: Caller | null, m: Match, state?: KoaState): Promise<Reply> {
    if (!m.route) return m.status === 405 ? methodNotAllowed() : errorReply(notFound());
    const r = m.route;
    if (r.closed) return errorReply(new ApiError(501, 'NotImplementedError', `This route's project code cannot run on this server (${r.file}: ${r.closed})`, {}));
    try {
      if (r.scope !== null) {
        if (!caller) throw unauthorized();
        if (r.scope.length === 0 && caller.kind === 'public') throw unauthorized();
        if (!r.scope.every((s) => caller.grant.all || caller.grant.perms.has(s))) throw forbidden();
      }
      rest.access = r.scope === null ? NO_ACCESS : rest.auth.access(caller!);
      // One statement more for a logged-in user, as Strapi's strategy reads the user on every request.
      const user = r.scope !== null && caller?.kind === 'user' ? await this.readUser(rest, caller, state) : null;
      const ctx = this.context(rest, task, r.scope === null ? null : caller, m.params, r, user, state, caller);
      if (wantsV4(task.headers)) await v4Format.run(true, () => this.run(r, ctx));
      else await this.run(r, ctx);
      return reply(ctx, r, rest, task);
    } catch (e) {
      // Strapi's errors and the database's (503…) answer as everywhere; anything else is the project's bug: 500, logged with its route.
      if (e instanceof ApiError || typeof (e as { code?: unknown })?.code === 'string') return errorReply(toApiError(e));
      log.error('project code failed', { route: `${r.method} ${r.path}`, file: r.file, error: String((e as Error)?.stack ?? e) });
      // Strapi's formatInternalError: an http-errors 500, whose envelope has no details.
      return errorReply(new ApiError(500, 'InternalServerError', 'Internal Server Error', null));
    }
  }

  /** ctx.state.user: the user with its role, read once per request (a global middleware's ctx may have it already). */
  private async readUser(rest: RestContext, caller: Caller, state?: KoaState): Promise<Record<string, unknown> | null> {
    if (state?.user) return state.user;
    const user = await this.users.one(rest, FULL, caller.userId!, 'populate=role');
    return user ? JSON.parse(user.toString('utf8')) as Record<string, unknown> : null;
  }

  /** ctx.state of an authenticated caller, as Strapi's authentication leaves it (global middlewares read it after next()). */
  private fillState(rest: RestContext, caller: Caller | null, state: KoaState): Promise<void> | void {
    if (!caller || state.auth) return;
    // Only a users-permissions caller costs a read (and a promise).
    if (caller.kind !== 'user') return setState(state, caller, null);
    return this.readUser(rest, caller, state).then((user) => setState(state, caller, user));
  }

  /** Runs src/index's bootstrap() (once per node: see checkProject), with database access (bind() first). */
  async bootstrap(): Promise<void> { await runHook(this.index, 'bootstrap', this.strapi.api, this.src); }
  get hasBootstrap(): boolean { return hasHook(this.index, 'bootstrap'); }

  /**
   * Why GraphQL may not answer the users-permissions action served natively at `method path` (its mutations
   * call the plugin's controller actions, as Strapi's): the extension replaced that action or a service.
   */
  readonly usersGuard = (method: string, path: string): string | null => {
    const ext = this.up;
    if (!ext) return null;
    if (ext.replacedServices.length) return `${ext.file}: it replaces the plugin's service ${ext.replacedServices.join(', ')}`;
    // Literal paths first: GET /api/users/me is me's, not findOne's (/api/users/:id).
    const entries = [...ext.originals.actions].sort(([, a], [, b]) => Number(nativePath(a).includes(':')) - Number(nativePath(b).includes(':')));
    for (const [fn, name] of entries) {
      const [controller, action] = name.split('.');
      const [m, p] = NATIVE_ACTIONS[controller][action];
      if (m !== method || !new RegExp(`^${p.replace(/:\w+/g, '[^/]+')}$`).test(path)) continue;
      return this.pluginController(ext, controller)?.[action] === fn ? null : `${ext.file}: it replaces ${name}`;
    }
    return null;
  };

  /** The thread's plugins, which the extended plugin's own actions answer through. */
  bindPlugins(plugins: Plugin[]): void { for (const p of plugins) this.natives.set(p.name, p); }

  /** Gives the project's `strapi` database access through `base` (a REST context of the thread's app). */
  bind(base: () => RestContext): void { this.db.base = base; }

  private context(rest: RestContext, task: Task, caller: Caller | null, params: Record<string, string>, r: ProjectRoute, user: Record<string, unknown> | null, state?: KoaState, callerOf: Caller | null = caller): LinkedContext {
    // Without a JSON body, koa-body (strapi::body) leaves `{}`, as Strapi's routes see it.
    const body = task.method === 'GET' || task.method === 'DELETE' || !task.body?.length || !(task.contentType ?? '').includes('json') ? {} : jsonBody(task);
    const ctx: LinkedContext = new KoaContext({
      method: task.method, path: task.path, querystring: task.query, headers: task.headers ?? {}, ip: task.ip, params, body,
      parse: (raw) => rest.compiler.parse(raw), caller, state,
    });
    // The request's own caller, also on an `auth: false` route: the plugin's native actions check their permission with it.
    ctx[LINK] = { rest, task, canRead: rest.access!.canRead, caller: callerOf };
    ctx.state.route = { method: r.method, path: r.declared, handler: r.handler, config: r.config, info: r.plugin ? { pluginName: r.plugin, type: 'content-api' } : { apiName: r.apiName, type: 'content-api' } };
    if (caller) setState(ctx.state, caller, user);
    return ctx;
  }

  /** policies, then middlewares, then the action (its return value becomes the body unless one was set). */
  private async run(r: ProjectRoute, ctx: LinkedContext): Promise<void> {
    if (r.policies.length) {
      const policyContext = Object.assign({ is: (t: string) => t === 'koa', type: 'koa' }, {
        request: ctx.request, response: ctx.response, state: ctx.state, params: ctx.params, query: ctx.query, app: undefined,
      });
      for (const p of r.policies) {
        const result = await p.handler(policyContext, p.config, { strapi: this.strapi.api });
        if (result !== true && result !== undefined) throw new PolicyError();
      }
    }
    const action = async () => {
      const value = r.core ? await core(ctx, r.core) : await r.action(ctx, async () => undefined);
      if (!ctx.bodyIsSet() && value !== undefined && value !== null) ctx.body = value;
    };
    if (r.middlewares.length) await compose(r.middlewares)(ctx, action);
    else await action();
  }
}

/** A core action on the request's own REST context: the compiled statement's bytes become ctx's body. */
async function core(ctx: LinkedContext, c: { ct: ContentType; action: CoreAction }): Promise<undefined> {
  const { rest, task } = ctx[LINK]!;
  const qs = ctx.querystring;
  const id = ctx.params.id;
  const writeTask = (): Task => {
    const body = ctx.request.body;
    // The `{}` of a request without a body, left as it was: still no body for the writer (its own error for that).
    const none = body === undefined || (!task.body?.length && isEmptyObject(body));
    return { ...task, query: qs, body: none ? null : Buffer.from(JSON.stringify(body)) };
  };
  let r: Reply;
  switch (c.action) {
    case 'find': r = c.ct.kind === 'singleType' ? await findOne(rest, c.ct, qs) : await findMany(rest, c.ct, qs); break;
    case 'findOne': r = await findOne(rest, c.ct, qs, id); break;
    case 'create': r = await createDocument(rest, c.ct, writeTask()); break;
    case 'update': r = c.ct.kind === 'singleType' ? await putSingle(rest, c.ct, writeTask()) : await updateDocument(rest, c.ct, writeTask(), id); break;
    case 'delete': r = await deleteDocument(rest, c.ct, writeTask(), c.ct.kind === 'singleType' ? undefined : id); break;
  }
  if (r.status === 204) ctx.status = 204;
  else ctx.setRaw(r.status, typeof r.body === 'string' ? Buffer.from(r.body) : r.body);
  return undefined;
}

/** ctx's answer as a Reply: bytes untouched when no code read them; Strapi's 404 when nothing answered. */
function reply(ctx: KoaContext, r: ProjectRoute, rest: RestContext, task: Task): Reply {
  const headers = [...ctx.responseHeaders].filter(([k]) => k !== 'content-type');
  const contentType = ctx.responseHeaders.get('content-type');
  const withHeaders = (rep: Reply): Reply => ({ ...rep, ...(headers.length ? { headers } : {}), ...(contentType ? { contentType } : {}) });
  const raw = ctx.rawBody();
  if (raw) {
    const out: Reply = { status: ctx.status, body: raw };
    return withHeaders(r.core && wantsV4(task.headers) ? toV4(rest.schema, r.core.ct, out) : out);
  }
  if (!ctx.explicitStatus) return withHeaders(errorReply(notFound()));
  const body = ctx.body;
  if (body === null || body === undefined) return withHeaders({ status: ctx.status, body: '' });
  if (typeof body === 'string') return withHeaders({ status: ctx.status, body, contentType: contentType ?? (body.trimStart().startsWith('<') ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8') });
  if (body instanceof Uint8Array) return withHeaders({ status: ctx.status, body, contentType: contentType ?? 'application/octet-stream' });
  return withHeaders({ status: ctx.status, body: JSON.stringify(body) });
}

/** The path the native handler of `name` ('user.me') serves. */
function nativePath(name: string): string {
  const [controller, action] = name.split('.');
  return NATIVE_ACTIONS[controller][action][1];
}

function isEmptyObject(v: unknown): boolean {
  return !!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;
}

/** A plugin's policy by `plugin::<plugin>.<name>` or its bare name: a function or `{ handler, validator }`. */
function pluginPolicy(ext: ExtendedPlugin, name: string): { file: string; handler: PolicyHandler; validator?: (c: unknown) => void } | undefined {
  const v = pluginMember(ext.name, ext.plugin.policies, name) as { handler?: unknown; validator?: unknown } | Function | undefined;
  if (typeof v === 'function') return { file: ext.file, handler: v as PolicyHandler };
  if (v && typeof v.handler === 'function') return { file: ext.file, handler: v.handler as PolicyHandler, validator: typeof v.validator === 'function' ? v.validator as (c: unknown) => void : undefined };
  return undefined;
}

/** `plugin::<plugin>.<name>` or a bare name in one of the plugin object's registries. */
function pluginMember(plugin: string, registry: Record<string, unknown>, name: string): unknown {
  const local = name.startsWith(`plugin::${plugin}.`) ? name.slice(plugin.length + 9) : name.includes('::') ? null : name;
  return local === null ? undefined : registry[local];
}

/** Strapi's ctx.state of an authenticated caller. */
function setState(state: KoaState, caller: Caller, user: Record<string, unknown> | null): void {
  if (user) state.user = user;
  state.isAuthenticated = true;
  state.auth = { strategy: { name: caller.kind === 'token' ? 'content-api-token' : 'users-permissions' }, credentials: user, ability: null };
}

/**
 * The database access of a project's `strapi`: none while register() runs (as in Strapi, whose database is
 * not ready then), else through `base` once the thread's app is there.
 */
export interface DbSlot { base: (() => RestContext) | null; registering: boolean }

/**
 * Loads the project's code (null when there is none), runs src/index's register() with the project's
 * `strapi` (before the routes are built, as Strapi), then builds the routes.
 */
export async function projectRuntime(schema: Schema, deps: StrapiDeps, load: () => Promise<ProjectCode | null>, db: DbSlot): Promise<ProjectRuntime | null> {
  const code = await load();
  if (!code) return null;
  const strapi = new ProjectStrapi(deps, code);
  // Its content-types' lifecycles files subscribe first (a file that cannot load stops the start, naming it).
  await loadLifecycles(deps.config.modelsDir, strapi.hooks);
  // Strapi's global `strapi` (code often uses it instead of the { strapi } it is given): this thread's project.
  (globalThis as { strapi?: unknown }).strapi = strapi.api;
  // Strapi's loader runs src/extensions/<plugin>/strapi-server before the app's register().
  const natives = new Map<string, Plugin>();
  const plugins = await extendPlugins(schema, deps, code, natives);
  db.registering = true;
  try { await runHook(code.index, 'register', strapi.api, code.src); } finally { db.registering = false; strapi.endRegister(); }
  return new ProjectRuntime(schema, deps, code, strapi, db, { plugins, natives });
}

const ALL = 2147483647;

/**
 * Starts the project runtime of a thread: loads the project's code (once per thread), runs register() and
 * builds its routes. `base` makes a REST context outside any request (core services and strapi.documents
 * read through it); without it the project has no database access until bind().
 */
export function startProject(config: Config, schema: Schema, base?: () => RestContext): Promise<ProjectRuntime | null> {
  const db: DbSlot = { base: base ?? null, registering: false };
  const at = (): RestContext => {
    if (db.registering) throw new Error('the database is not ready while register() runs (as in Strapi): use it in bootstrap()');
    if (!db.base) throw new Error('no database access while the project loads');
    return db.base();
  };
  // The document service has no default or maximum page and counts only when asked.
  const docs = new Compiler(schema, { ...config.api.rest, defaultLimit: ALL, maxLimit: ALL, withCount: false, maxResponseSize: config.http.maxResponseSize,
    renderCacheGate: () => at().compiler.renderCacheNow() });
  if (!config.projectCode) return Promise.resolve(null);
  return projectRuntime(schema, { schema, config, base: at, documents: () => ({ ...at(), compiler: docs }) }, () => loadProject(config.modelsDir), db);
}

/**
 * At start, before any worker: loads the project, runs register() and builds everything in the main thread,
 * so a broken project stops the server naming its file. The runtime it answers runs bootstrap() once the
 * database is there (server.ts): once per node, in the main thread — never once per worker thread, which
 * would repeat what it writes — and serves requests itself when there are no worker threads.
 */
export async function checkProject(config: Config, schema: Schema): Promise<ProjectRuntime | null> {
  const p = await startProject(config, schema);
  for (const [plugin, file] of p?.extensionFiles ?? []) log.warn(`${file}: this server does not run plugin extensions of ${plugin}: its routes answer 501`);
  for (const [plugin, file] of p?.extendedFiles ?? []) log.info(`${file}: ${plugin}'s routes as the project's strapi-server leaves them (what it replaces or adds runs as project code)`);
  if (p?.global) log.info(`the project's global middlewares run around every request: ${p.global.names.join(', ')}`);
  return p;
}
