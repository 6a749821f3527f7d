// The GraphQL plugin object a project's src/extensions/graphql/strapi-server receives, shaped as Strapi
// 5.54's @strapi/plugin-graphql once its config is resolved (the loader's default plugin spread under the
// package's `{ config, bootstrap, services }`): `register` and `destroy` no-ops, `bootstrap` (Strapi's builds
// the schema and mounts the endpoint there), `services` factories ({ strapi }) => service, `routes` [] and no
// controllers, policies, middlewares or content-types. The originals are kept so that graphql-extension.ts
// can tell what the file replaced.
import type { Config } from '../../config.ts';

export const GRAPHQL_NAME = 'graphql';

/** @strapi/plugin-graphql 5.54's services (server/services/index.ts). */
const SERVICES = ['builders', 'content-api', 'constants', 'extension', 'format', 'internals', 'type-registry', 'utils'];

/** Config keys Strapi's plugin may hold that this server does not keep: reading one names itself. */
const UNKNOWN_CONFIG = new Set(['landingPage', 'playgroundAlways', 'generateArtifacts', 'artifacts']);

type Hook = (o: { strapi: unknown }) => unknown;
export type ServiceFactory = (o: { strapi: unknown }) => unknown;

export interface GraphqlPluginObject {
  register: Hook;
  bootstrap: Hook;
  destroy: Hook;
  config: Record<string, unknown>;
  routes: unknown;
  controllers: Record<string, unknown>;
  services: Record<string, unknown>;
  policies: Record<string, unknown>;
  middlewares: Record<string, unknown>;
  contentTypes: Record<string, unknown>;
}

/** The members as they were: functions by identity, the rest as JSON. */
export interface GraphqlOriginals {
  register: Hook; bootstrap: Hook; destroy: Hook;
  services: Record<string, unknown>;
  /** JSON of each other member (config by key: a change names the key). */
  config: Record<string, string>;
  json: Record<'routes' | 'controllers' | 'policies' | 'middlewares' | 'contentTypes', string>;
}

/**
 * Strapi's resolved config (its defaults under config/plugins' graphql.config) as this server applies it;
 * keys it does not keep (landingPage, generateArtifacts…) throw when read, naming themselves, rather than
 * reading as something Strapi's would not.
 */
function pluginConfig(config: Config): Record<string, unknown> {
  const g = config.graphql;
  const known: Record<string, unknown> = {
    shadowCRUD: g.shadowCRUD, endpoint: g.endpoint, subscriptions: false, maxLimit: g.maxLimit ?? -1,
    apolloServer: g.introspection === null ? {} : { introspection: g.introspection },
    ...(g.defaultLimit !== null ? { defaultLimit: g.defaultLimit } : {}), depthLimit: g.depthLimit,
    v4CompatibilityMode: g.v4CompatibilityMode,
  };
  return new Proxy(known, {
    get(target, prop, receiver) {
      if (typeof prop === 'string' && UNKNOWN_CONFIG.has(prop) && !Object.hasOwn(target, prop)) {
        throw new TypeError(`plugin.config.${prop} of the graphql plugin is not known to this server`);
      }
      return Reflect.get(target, prop, receiver);
    },
  });
}

/** `extension`: the factory of the project's extension service (the one register() reaches). */
export function graphqlObject(config: Config, extension: ServiceFactory): { plugin: GraphqlPluginObject; originals: GraphqlOriginals } {
  const services: Record<string, unknown> = {};
  for (const name of SERVICES) {
    services[name] = name === 'extension' ? extension : () => { throw new TypeError(`the graphql plugin's ${name} service is not run by this server`); };
  }
  const plugin: GraphqlPluginObject = {
    register: () => undefined, bootstrap: () => undefined, destroy: () => undefined,
    config: pluginConfig(config), routes: [], controllers: {}, services: { ...services }, policies: {}, middlewares: {}, contentTypes: {},
  };
  const originals: GraphqlOriginals = {
    register: plugin.register, bootstrap: plugin.bootstrap, destroy: plugin.destroy, services,
    config: Object.fromEntries(Object.keys(plugin.config).map((k) => [k, JSON.stringify(plugin.config[k])])),
    json: { routes: '[]', controllers: '{}', policies: '{}', middlewares: '{}', contentTypes: '{}' },
  };
  return { plugin, originals };
}
