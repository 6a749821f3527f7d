// What every built-in plugin object a project's src/extensions/<plugin>/strapi-server receives has in common
// (users-permissions, upload, i18n), shaped as Strapi 5.54's loader hands it over: controllers whose actions
// are ctx functions answering through this server's native handlers (so an override can call the original),
// routes['content-api'] Strapi's route list behind its factory-with-`routes` property, services that name
// themselves when used (this server has no JavaScript for them). The originals are kept so the runtime can
// tell what the extension replaced.
import type { ContentType, Schema } from '../../compiler/schema.ts';
import type { KoaContext } from './ctx.ts';
import { strapiModel } from './strapi.ts';

/** One route of a plugin's content API as Strapi declares it (request/response validators left out). */
export interface PluginRouteSpec { method: string; path: string; handler: string; config?: Record<string, unknown> }

/** Answers ctx through the native handler of `action` ('user.me') on `method path` (`:param`s from ctx.params). */
export type NativeCall = (ctx: KoaContext, method: string, path: string, action: string) => Promise<void>;

/** Strapi's content-api routes object: a factory () => { type, routes } with a `routes` property (get and set). */
export type RoutesFactory = (() => { type: string; routes: PluginRouteSpec[] }) & { routes: PluginRouteSpec[] };

export interface PluginObject {
  register: (o: unknown) => void;
  bootstrap: (o: unknown) => void;
  destroy: () => void;
  config: Record<string, unknown>;
  routes: { admin: { type: string; routes: PluginRouteSpec[] }; 'content-api': RoutesFactory } & Record<string, unknown>;
  controllers: Record<string, unknown>;
  services: Record<string, unknown>;
  policies: Record<string, unknown>;
  middlewares: Record<string, unknown>;
  contentTypes: Record<string, { schema: Record<string, unknown> }>;
}

/** What the plugin object held before the extension ran. */
export interface Originals {
  /** Each native action function → its handler name ('user.me'). */
  actions: Map<Function, string>;
  services: Record<string, unknown>;
  middlewares: Record<string, unknown>;
  /** Strapi's own content-api routes of the plugin: a route still equal to one is answered natively. */
  builtins: PluginRouteSpec[];
  /** JSON of contentTypes and config: what this server cannot take from code (it reads them at start). */
  contentTypes: string;
  config: string;
}

/** An action without a native handler here: calling it answers 501. */
export const NO_HANDLER: [string, string] = ['', ''];

/**
 * A plugin as Strapi 5.54 declares it: `actions` maps controller → action → the method and path (`:name`
 * from ctx.params) its native handler serves here (NO_HANDLER for an action without one); `factories` the
 * controllers Strapi declares as ({ strapi }) => controller.
 */
export interface PluginSpec {
  name: string;
  actions: Record<string, Record<string, [string, string]>>;
  factories: string[];
  /** Fresh copies each call: the extension may change them in place. */
  routes: () => PluginRouteSpec[];
  services: string[];
  /** An action needing more than the native call (users/me's unauthorized answer): the function to use. */
  wrap?: (name: string, call: (ctx: KoaContext) => Promise<void>) => ((ctx: KoaContext) => Promise<void>) | undefined;
}

/** The parts of a plugin object that are not read from its spec. */
export interface PluginExtras {
  config: Record<string, unknown>;
  middlewares?: Record<string, unknown>;
  policies?: Record<string, unknown>;
  contentTypes: Record<string, { schema: Record<string, unknown> }>;
}

function routesFactory(initial: PluginRouteSpec[]): RoutesFactory {
  let routes = initial;
  const f = (() => ({ type: 'content-api', routes })) as RoutesFactory;
  Object.defineProperty(f, 'routes', { get: () => routes, set: (next: PluginRouteSpec[]) => { routes = next; }, enumerable: true });
  return f;
}

/** A service this server has no JavaScript for: any member names itself when used. */
function absentService(plugin: string, name: string): () => object {
  return () => new Proxy({}, {
    get(_t, prop) {
      if (typeof prop === 'symbol' || prop === 'then' || prop === 'toJSON') return undefined;
      throw new TypeError(`strapi.plugin('${plugin}').service('${name}').${prop} is not supported by this server`);
    },
  });
}

export function pluginObject(spec: PluginSpec, native: NativeCall, extras: PluginExtras): { plugin: PluginObject; originals: Originals } {
  const actions = new Map<Function, string>();
  const controllers: Record<string, unknown> = {};
  for (const [controller, list] of Object.entries(spec.actions)) {
    const methods: Record<string, (ctx: KoaContext) => Promise<void>> = {};
    for (const [action, [method, path]] of Object.entries(list)) {
      const name = `${controller}.${action}`;
      const call = async (ctx: KoaContext) => native(ctx, method, path, name);
      const fn = spec.wrap?.(name, call) ?? call;
      actions.set(fn, name);
      methods[action] = fn;
    }
    controllers[controller] = spec.factories.includes(controller) ? () => ({ ...methods }) : methods;
  }
  const services = Object.fromEntries(spec.services.map((n) => [n, absentService(spec.name, n)]));
  const middlewares = extras.middlewares ?? {};
  const plugin: PluginObject = {
    register: () => {}, bootstrap: () => {}, destroy: () => {},
    config: extras.config,
    routes: { admin: { type: 'admin', routes: [] }, 'content-api': routesFactory(spec.routes()) },
    controllers, services: { ...services }, policies: { ...extras.policies }, middlewares: { ...middlewares }, contentTypes: extras.contentTypes,
  };
  return {
    plugin,
    originals: { actions, services, middlewares, builtins: spec.routes(), contentTypes: JSON.stringify(extras.contentTypes), config: JSON.stringify(plugin.config) },
  };
}

/**
 * The plugin's content-types as Strapi's plugin object holds them (`{ schema }` per name), from the schema this
 * server serves (`extra`: types it builds outside the schema, as the media library's file).
 */
export function pluginContentTypes(schema: Schema, plugin: string, names: string[], extra: ContentType[] = []): Record<string, { schema: Record<string, unknown> }> {
  const out: Record<string, { schema: Record<string, unknown> }> = {};
  for (const name of names) {
    const ct = schema.contentTypes.get(`plugin::${plugin}.${name}`) ?? extra.find((x) => x.uid === `plugin::${plugin}.${name}`);
    if (ct) out[name] = { schema: { ...strapiModel(ct), plugin } };
  }
  return out;
}
