// The users-permissions plugin object a project's src/extensions/users-permissions/strapi-server receives,
// shaped as Strapi 5.54's (after its config is resolved, as Strapi's loader hands it over): controllers whose
// actions are ctx functions answering through this server's native handlers (so an override can call the
// original), `auth` a factory ({ strapi }) => controller as in 5.54; routes['content-api'] Strapi's route
// list behind its factory-with-`routes` property; policies, middlewares (rateLimit), services, contentTypes,
// config. The originals are kept so the runtime can tell what the extension replaced.
import type { Config } from '../../config.ts';
import type { Schema } from '../../compiler/schema.ts';
import { ApiError } from '../../compiler/errors.ts';
import type { KoaContext } from './ctx.ts';
import type { Next } from './compose.ts';
import { RateLimiter } from '../users/rate-limit.ts';
import { strapiModel } from './strapi.ts';
import { NATIVE_ACTIONS, SERVICE_NAMES, usersPermissionsRoutes, type PluginRouteSpec } from './up-routes.ts';

export const UP_NAME = 'users-permissions';

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
  /** JSON of contentTypes and config: what this server cannot take from code (it reads them at start). */
  contentTypes: string;
  config: string;
}

function routesFactory(initial: PluginRouteSpec[]): RoutesFactory {
  let routes = initial;
  const f = (() => ({ type: 'content-api', routes })) as RoutesFactory;
  Object.defineProperty(f, 'routes', { get: () => routes, set: (next: PluginRouteSpec[]) => { routes = next; }, enumerable: true });
  return f;
}

/** A service this server has no JavaScript for: any member names itself when used. */
function absentService(name: string): () => object {
  return () => new Proxy({}, {
    get(_t, prop) {
      if (typeof prop === 'symbol' || prop === 'then' || prop === 'toJSON') return undefined;
      throw new TypeError(`strapi.plugin('${UP_NAME}').service('${name}').${prop} is not supported by this server`);
    },
  });
}

/** Strapi's resolved plugin config, as far as this server has it. */
function pluginConfig(config: Config): Record<string, unknown> {
  return {
    jwtSecret: config.auth.jwtSecret, jwt: { expiresIn: config.auth.jwtExpiresIn },
    ratelimit: { interval: 60000, max: config.auth.authRateLimit },
    register: { allowedFields: [...config.usersPermissions.registerAllowedFields] },
  };
}

export function usersPermissionsObject(schema: Schema, config: Config, native: NativeCall): { plugin: PluginObject; originals: Originals } {
  const actions = new Map<Function, string>();
  const controllers: Record<string, unknown> = {};
  for (const [controller, list] of Object.entries(NATIVE_ACTIONS)) {
    const methods: Record<string, (ctx: KoaContext) => Promise<void>> = {};
    for (const [action, [method, path]] of Object.entries(list)) {
      const name = `${controller}.${action}`;
      const fn = name === 'user.me'
        // Strapi's me answers ctx.unauthorized() (no throw) without a user: an override then goes on.
        ? async (ctx: KoaContext) => { if (!ctx.state.user) { ctx.unauthorized(); return; } await native(ctx, method, path, name); }
        : async (ctx: KoaContext) => native(ctx, method, path, name);
      actions.set(fn, name);
      methods[action] = fn;
    }
    // 5.54's auth controller is a factory; the others are objects.
    controllers[controller] = controller === 'auth' ? () => ({ ...methods }) : methods;
  }
  const services = Object.fromEntries(SERVICE_NAMES.map((n) => [n, absentService(n)]));
  const limiter = new RateLimiter(config.auth.authRateLimit, 60_000);
  const middlewares: Record<string, unknown> = {
    rateLimit: () => async (ctx: KoaContext, next: Next) => {
      if (!limiter.take(`${ctx.ip ?? 'unknown'}:${ctx.path}`)) throw new ApiError(429, 'RateLimitError', 'Too many requests, please try again later.', {});
      await next();
    },
  };
  const contentTypes: Record<string, { schema: Record<string, unknown> }> = {};
  for (const name of ['permission', 'role', 'user']) {
    const ct = schema.contentTypes.get(`plugin::${UP_NAME}.${name}`);
    if (ct) contentTypes[name] = { schema: { ...strapiModel(ct), plugin: UP_NAME } };
  }
  const plugin: PluginObject = {
    register: () => {}, bootstrap: () => {}, destroy: () => {},
    config: pluginConfig(config),
    routes: { admin: { type: 'admin', routes: [] }, 'content-api': routesFactory(usersPermissionsRoutes()) },
    controllers, services: { ...services }, policies: {}, middlewares: { ...middlewares }, contentTypes,
  };
  return {
    plugin,
    originals: { actions, services, middlewares, contentTypes: JSON.stringify(contentTypes), config: JSON.stringify(plugin.config) },
  };
}
