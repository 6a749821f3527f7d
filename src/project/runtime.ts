// The one object the request path calls for a Strapi project's own code. Built at start from the
// project's routers (api-routes.ts) and the built-in plugins its src/extensions/<plugin>/strapi-server
// files extend (plugin-routes.ts): routes whose action, service and config are Strapi's defaults are left
// to the core router (src/rest/router.ts) or the native plugin, so they pay nothing. At each request
// match() tells the app whether a project route answers it, handle() runs it (route-handler.ts).
import { dirname, relative } from 'node:path';
import type { ApiError } from '../../compiler/errors.ts';
import type { Schema } from '../../compiler/schema.ts';
import type { Caller } from '../auth/permissions.ts';
import type { Plugin } from '../plugins/types.ts';
import type { Reply } from '../rest/reply.ts';
import type { DocumentCalls, RestContext, UserDocumentChain } from '../rest/router.ts';
import type { Task } from '../task.ts';
import { UsersQuery } from '../users/users-query.ts';
import { apiRoutes } from './api-routes.ts';
import { hasHook, runHook } from './boot.ts';
import type { KoaState } from './ctx.ts';
import { documentsClosed } from './document-paths.ts';
import { GlobalChain } from './global.ts';
import type { Lifecycles } from './lifecycles.ts';
import { ProjectLoadError, type LoadedFile, type ProjectCode } from './load.ts';
import { PluginControllers } from './plugin-controllers.ts';
import type { ExtendedPlugin } from './plugin-extension.ts';
import type { GraphqlExtension } from './graphql-extension.ts';
import { GRAPHQL_NAME } from './graphql-plugin-object.ts';
import { pluginRoutes, usersGuard } from './plugin-routes.ts';
import type { Match, ProjectRoute } from './project-route.ts';
import { coreRouteObjects, RouteBuilder } from './route-builder.ts';
import { strapiRoute } from './content-api-params.ts';
import type { CoreAction, RouteParams } from '../rest/route-params.ts';
import { RouteHandler } from './route-handler.ts';
import { RouteTable } from './route-table.ts';
import type { ProjectStrapi, StrapiDeps } from './strapi.ts';
import { UP_NAME } from './up-plugin.ts';

/** The pseudo-route of a path closed by a plugin extension. */
const CLOSED: ProjectRoute = { method: '', path: '', declared: '', compiled: { regexp: /$^/, keys: [], tokens: [] }, first: null, file: '', apiName: '', handler: '', scope: null, policies: [], middlewares: [], action: () => undefined, config: {} };

/**
 * The database access of a project's `strapi`: none while register() runs (as in Strapi, whose database is
 * not ready then), else through `base` once the thread's app is there.
 */
export interface DbSlot { base: (() => RestContext) | null; registering: boolean }

export class ProjectRuntime {
  readonly strapi: ProjectStrapi;
  private table: RouteTable;
  private handler: RouteHandler;
  /** The plugins' controllers, instantiated as Strapi's registry does (a factory gets { strapi }). */
  private controllers: PluginControllers;

  /** Plugin name → the project's file that changes it (src/extensions) in a way this server cannot run, and why: its routes answer 501. */
  readonly closedPlugins: Map<string, { file: string; why: string }>;
  /** GraphQL's strapi-server, when the project has one this server honours (its extension service has what it registered). */
  private graphqlFile: string | null;
  /** Built-in plugins as the project's strapi-server files left them (their routes are in the table), by name. */
  private extended: Map<string, ExtendedPlugin>;
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
  /**
   * The project registered document service middlewares (register()): core routes run Strapi's controller
   * and service through strapi.documents (never the compiled bytes), paths that cannot run them are closed.
   */
  readonly viaDocuments: boolean;
  /** The project's own Content API params of the core routes answered without its code (none registered: null). */
  readonly coreRouteParams: ((uid: string, action: CoreAction) => RouteParams | null) | null;
  /** GraphQL's v4-shaped Shadow CRUD, which cannot run the middlewares: its 501 naming the file, or null. */
  readonly shadowCrudClosed: ApiError | null;
  /** strapi.documents(uid) with the middlewares, for GraphQL's Shadow CRUD in Strapi 5's shape (null without middlewares). */
  readonly shadowDocuments: ((uid: string) => DocumentCalls) | null;
  /** users-permissions' user writes through the middlewares, as Strapi's plugin makes them (null without middlewares). */
  readonly userDocuments: UserDocumentChain | null;
  /** The strapi-server files this runtime runs, by plugin name. */
  get extendedFiles(): Map<string, string> {
    const out = new Map([...this.extended].map(([name, ext]) => [name, ext.file]));
    if (this.graphqlFile) out.set(GRAPHQL_NAME, this.graphqlFile);
    return out;
  }

  /** `strapi` has run the project's register(); `db` gives it database access once bound (see bind()). */
  constructor(schema: Schema, deps: StrapiDeps, code: ProjectCode, strapi: ProjectStrapi, private db: DbSlot, extended: { plugins: Map<string, ExtendedPlugin>; natives: Map<string, Plugin>; graphql?: GraphqlExtension | null } = { plugins: new Map(), natives: new Map() }) {
    this.extended = extended.plugins;
    this.natives = extended.natives;
    const graphql = extended.graphql ?? null;
    this.graphqlFile = graphql && !graphql.closed ? graphql.file : null;
    this.closedPlugins = new Map();
    for (const [plugin, path] of code.extensions) {
      if (this.extended.has(plugin) || (plugin === GRAPHQL_NAME && this.graphqlFile)) continue;
      const file = relative(dirname(code.src), path);
      this.closedPlugins.set(plugin, { file, why: plugin === GRAPHQL_NAME && graphql?.closed ? graphql.closed : `the project changes the ${plugin} plugin (src/extensions), which this server does not run` });
    }
    this.src = code.src;
    this.index = code.index;
    this.lifecycles = code.lifecycles.map((f) => relative(dirname(code.src), f));
    this.strapi = strapi;
    this.hooks = strapi.hooks;
    this.viaDocuments = strapi.documentMiddlewares.size > 0;
    this.shadowCrudClosed = this.viaDocuments ? documentsClosed(strapi.documentMiddlewares.file, 'GraphQL\'s Shadow CRUD in the v4 shape runs without them') : null;
    this.shadowDocuments = this.viaDocuments ? (uid) => strapi.documents(uid) : null;
    this.userDocuments = this.viaDocuments ? strapi.userDocuments() : null;
    this.handler = new RouteHandler(strapi.api, new UsersQuery(schema, deps.config));
    this.global = code.globalMiddlewares ? new GlobalChain(strapi, code.globalMiddlewares, code.src, (rest, caller, state) => this.handler.fillState(rest, caller, state)) : null;
    this.controllers = new PluginControllers(strapi.api);
    const build = new RouteBuilder(schema, strapi, this.viaDocuments, this.controllers);
    const apis = apiRoutes(schema, code, build, strapi.api, this.viaDocuments);
    this.coreRouteParams = coreRouteParams(schema, strapi, apis.routes, apis.routed, code.index ? relative(dirname(code.src), code.index.file) : 'src/index');
    this.table = new RouteTable(apis.routed);
    for (const r of apis.routes) this.table.add(r);
    // Strapi registers the plugins' routes after the apis'.
    for (const ext of this.extended.values()) for (const r of pluginRoutes(build, ext)) this.table.add(r);
  }

  /**
   * Strapi's route for a request, or null when the core router (or the plugin `plugin`, which claimed the
   * path) answers it as it would without project code. A plugin the project extends in a way this server
   * cannot run answers 501 naming the file.
   */
  match(method: string, path: string, plugin?: string): Match | null {
    if (plugin && !this.extended.has(plugin)) {
      const closed = this.closedPlugins.get(plugin);
      return closed ? { route: { ...CLOSED, method, path, file: closed.file, closed: closed.why }, params: {} } : null;
    }
    return this.table.match(method, path, plugin);
  }

  /** Runs a matched route. Errors become Strapi's envelope (a thrown non-API error: 500, logged with the route). */
  handle(rest: RestContext, task: Task, caller: Caller | null, m: Match, state?: KoaState): Promise<Reply> {
    return this.handler.handle(rest, task, caller, m, state);
  }

  /** Runs src/index's bootstrap() (once per node: see checkProject), with database access (bind() first). */
  async bootstrap(): Promise<void> { await runHook(this.index, 'bootstrap', this.strapi.api, this.src); }
  get hasBootstrap(): boolean { return hasHook(this.index, 'bootstrap'); }

  /**
   * Why GraphQL may not answer the users-permissions action served natively at `method path` (its mutations
   * call the plugin's controller actions, as Strapi's): the extension replaced that action or a service.
   */
  readonly usersGuard = (method: string, path: string): string | null => {
    const ext = this.extended.get(UP_NAME);
    return ext ? usersGuard(ext, this.controllers, method, path) : null;
  };

  /** The thread's plugins, which the extended plugin's own actions answer through. */
  bindPlugins(plugins: Plugin[]): void { for (const p of plugins) this.natives.set(p.name, p); }

  /** Gives the project's `strapi` database access through `base` (a REST context of the thread's app). */
  bind(base: () => RestContext): void { this.db.base = base; }
}

/**
 * The params each core route answered without the project's code takes: a plain route of the project's
 * routers has its own (built with its router's config); a type whose api has no router, its default core
 * route's. A matchRoute that throws stops the start naming src/index.
 */
function coreRouteParams(schema: Schema, strapi: ProjectStrapi, routes: ProjectRoute[], routed: Set<string>, index: string): ((uid: string, action: CoreAction) => RouteParams | null) | null {
  if (strapi.contentApiParams.empty) return null;
  const found = new Map<string, RouteParams | null>();
  for (const r of routes) if (r.plain && r.core) found.set(`${r.core.ct.uid}.${r.core.action}`, r.params ?? null);
  for (const ct of schema.contentTypes.values()) {
    if (ct.builtin || !ct.uid.startsWith('api::') || routed.has(ct.kind === 'singleType' ? ct.singularName : ct.pluralName)) continue;
    const apiName = ct.uid.slice('api::'.length, ct.uid.indexOf('.'));
    for (const [action, route] of coreRouteObjects(ct)) {
      try {
        found.set(`${ct.uid}.${action}`, strapi.contentApiParams.forRoute(strapiRoute(route, { apiName }, `api::${apiName}`)));
      } catch (e) {
        throw new ProjectLoadError(`${index}: strapi.contentAPI on ${route.method} ${route.path}: ${(e as Error)?.message ?? String(e)}`);
      }
    }
  }
  return (uid, action) => found.get(`${uid}.${action}`) ?? null;
}
