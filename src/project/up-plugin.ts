// The users-permissions plugin object a project's src/extensions/users-permissions/strapi-server receives,
// shaped as Strapi 5.54's (after its config is resolved, as Strapi's loader hands it over): the common shape
// of src/project/plugin-object.ts, with `auth` a factory ({ strapi }) => controller as in 5.54, users/me's
// unauthorized answer, the rateLimit middleware and the plugin's resolved config.
import type { Config } from '../../config.ts';
import type { Schema } from '../../compiler/schema.ts';
import { ApiError } from '../../compiler/errors.ts';
import type { KoaContext } from './ctx.ts';
import type { Next } from './compose.ts';
import { RateLimiter, authRateKey } from '../users/rate-limit.ts';
import { pluginContentTypes, pluginObject, type NativeCall, type Originals, type PluginObject, type PluginSpec } from './plugin-object.ts';
import { NATIVE_ACTIONS, SERVICE_NAMES, usersPermissionsRoutes } from './up-routes.ts';

export const UP_NAME = 'users-permissions';

const SPEC: PluginSpec = {
  name: UP_NAME, actions: NATIVE_ACTIONS, factories: ['auth'], routes: usersPermissionsRoutes, services: SERVICE_NAMES,
  // Strapi's me answers ctx.unauthorized() (no throw) without a user: an override then goes on.
  wrap: (name, call) => (name === 'user.me'
    ? async (ctx: KoaContext) => { if (!ctx.state.user) { ctx.unauthorized(); return; } await call(ctx); }
    : undefined),
};

/** Strapi's resolved plugin config, as far as this server has it. */
function pluginConfig(config: Config): Record<string, unknown> {
  return {
    jwtSecret: config.auth.jwtSecret, jwt: { expiresIn: config.auth.jwtExpiresIn },
    ratelimit: { interval: 60000, max: config.auth.authRateLimit },
    register: { allowedFields: [...config.usersPermissions.registerAllowedFields] },
  };
}

export function usersPermissionsObject(schema: Schema, config: Config, native: NativeCall): { plugin: PluginObject; originals: Originals } {
  const limiter = new RateLimiter(config.auth.authRateLimit, 60_000);
  const middlewares: Record<string, unknown> = {
    rateLimit: () => async (ctx: KoaContext, next: Next) => {
      if (!limiter.take(authRateKey(ctx.path, () => (ctx.request as { body?: unknown }).body, ctx.ip ?? 'unknown'))) throw new ApiError(429, 'RateLimitError', 'Too many requests, please try again later.', {});
      await next();
    },
  };
  return pluginObject(SPEC, native, { config: pluginConfig(config), middlewares, contentTypes: pluginContentTypes(schema, UP_NAME, ['permission', 'role', 'user']) });
}
