// One route as Strapi's compose-endpoint builds it, at start: its full path compiled as Strapi's router
// compiles it, its scope (createRouteScopeGenerator), policies, middlewares and action resolved by name as
// Strapi resolves them. Something named that does not exist stops the start naming the file; something of
// Strapi's own that this server does not run closes the route (it answers 501 naming the file).
import type { ContentType, Schema } from '../../compiler/schema.ts';
import type { KoaContext } from './ctx.ts';
import type { Methods } from './core.ts';
import { compose, type Middleware, type Next } from './compose.ts';
import type { CoreRouterSpec, RouteConfig } from './factories.ts';
import { ProjectLoadError } from './load.ts';
import { compilePath, firstSegment, type CompiledPath } from './path.ts';
import type { ExtendedPlugin } from './plugin-extension.ts';
import type { PluginControllers } from './plugin-controllers.ts';
import type { CoreAction, Policy, ProjectRoute } from './project-route.ts';
import { routeShapeError } from './route-schema.ts';
import { strapiRoute } from './content-api-params.ts';
import { CORE_FUNCTIONS, type MiddlewareFactory, type PolicyHandler, type ProjectStrapi } from './strapi.ts';

const COLLECTION: Array<[CoreAction, string, boolean]> = [['find', 'GET', false], ['findOne', 'GET', true], ['create', 'POST', false], ['update', 'PUT', true], ['delete', 'DELETE', true]];
const SINGLE: Array<[CoreAction, string, boolean]> = [['find', 'GET', false], ['update', 'PUT', false], ['delete', 'DELETE', false]];

/** The routes Strapi's createCoreRouter makes for a type, by action (path as its router declares it). */
export function coreRouteObjects(ct: ContentType): Array<[CoreAction, { method: string; path: string; handler: string; config: RouteConfig; request: Record<string, unknown> }]> {
  const segment = ct.kind === 'singleType' ? ct.singularName : ct.pluralName;
  // `request` as Strapi's core routes have one (their query's and body's schemas; a matchRoute may look).
  return (ct.kind === 'singleType' ? SINGLE : COLLECTION).map(([action, method, withId]) => [action, {
    method, path: `/${segment}${withId ? '/:id' : ''}`, handler: `${ct.uid}.${action}`, config: {},
    request: method === 'POST' || method === 'PUT' ? { query: {}, body: { 'application/json': {} } } : { query: {} },
  }]);
}

export class RouteBuilder {
  /**
   * `viaDocuments`: the project registered document service middlewares, so core actions run Strapi's
   * controller and service (never the compiled bytes) and no core route is left to the core router.
   */
  constructor(private schema: Schema, private strapi: ProjectStrapi, private viaDocuments: boolean, private controllers: PluginControllers) {}

  /** The routes of createCoreRouter(uid, …): Strapi's core actions of the type, `only`/`except` and per-action config applied. */
  coreRoutes(spec: CoreRouterSpec, apiName: string, file: string): ProjectRoute[] {
    const ct = this.schema.contentTypes.get(spec.uid);
    if (!ct || ct.builtin) throw new ProjectLoadError(`${file}: createCoreRouter names ${spec.uid}, which is no content-type of the project`);
    const out: ProjectRoute[] = [];
    for (const [action, route] of coreRouteObjects(ct)) {
      if (spec.except?.includes(action) || (spec.only && !spec.only.includes(action))) continue;
      const r = this.route({ ...route, config: spec.config[action] ?? {} }, spec.prefix ?? '', apiName, file);
      r.plain = !this.viaDocuments && !!r.core && !r.policies.length && !r.middlewares.length && !r.closed && !spec.prefix
        && r.scope?.length === 1 && r.scope[0] === `${spec.uid}.${action}`;
      out.push(r);
    }
    return out;
  }

  /** One route as Strapi's compose-endpoint builds it: scope, policies, middlewares and action resolved now. */
  route(r: Record<string, unknown>, prefix: string, apiName: string, file: string, plugin?: ExtendedPlugin): ProjectRoute {
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
      scope: scope(config, handler, plugin ? `plugin::${plugin.name}.` : `api::${apiName}.`), policies: [], middlewares: [], action: () => undefined,
      ...(plugin ? { plugin: plugin.name } : {}),
    };
    try {
      // The project's own Content API params this route takes (its matchRoute sees the route as Strapi's does).
      route.params = this.strapi.contentApiParams.forRoute(plugin ? strapiRoute(r, { pluginName: plugin.name }, `plugin::${plugin.name}`) : strapiRoute(r, { apiName }, `api::${apiName}`));
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
    const controller = dot > 0 && !h.includes('::') ? this.controllers.get(ext, h.slice(0, dot)) : undefined;
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
}

/** A route's path compiled as Strapi's router does; a pattern it refuses stops the start with Strapi's message. */
function parsePath(path: string, method: string, given: string, file: string): CompiledPath {
  if (!path.startsWith('/api/')) throw new ProjectLoadError(`${file}: route path ${given} must start with /`);
  // @koa/router compiles the route's own path before prefixing it: an error's position is within that path.
  try { compilePath(given.trim()); return compilePath(path); } catch (e) {
    throw new ProjectLoadError(`${file}: Error creating endpoint ${method} ${given}: ${(e as Error)?.message ?? String(e)}`);
  }
}

/** Strapi's createRouteScopeGenerator: a string handler's own permission unless config.auth says otherwise. */
function scope(config: RouteConfig, handler: unknown, prefix: string): string[] | null {
  if (config.auth === false) return null;
  const given = config.auth?.scope;
  if (given !== undefined) return Array.isArray(given) ? given : [given];
  if (typeof handler !== 'string') return [];
  return [handler.startsWith(prefix) ? handler : prefix + handler];
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
