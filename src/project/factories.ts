// `factories.createCoreRouter/createCoreController/createCoreService` of `@strapi/strapi`, as a project's
// files call them at load time. They only record what was asked (uid and configuration); the runtime
// (src/project/route-builder.ts) builds routes, controllers and services from these records, as Strapi does when
// it registers them.

/** A route's own settings (`config` of a core action or of a custom route). */
export interface RouteConfig {
  auth?: false | { scope?: string | string[] };
  policies?: unknown[];
  middlewares?: unknown[];
}

export const CORE_ROUTER = Symbol.for('fastrapi.core-router');
export const CORE_FACTORY = Symbol.for('fastrapi.core-factory');

export interface CoreRouterSpec {
  [CORE_ROUTER]: true;
  uid: string;
  type: string;
  prefix?: string;
  only?: string[];
  except?: string[];
  config: Record<string, RouteConfig>;
}

/** The user part of createCoreController/createCoreService: an object, or a function of `{ strapi }`. */
export type UserPart = Record<string, unknown> | ((opts: { strapi: unknown }) => Record<string, unknown>) | undefined;

/** What createCoreController/createCoreService return: a factory Strapi calls with `{ strapi }`, tagged. */
export interface CoreFactory {
  (opts: { strapi: unknown }): Record<string, unknown>;
  [CORE_FACTORY]: { kind: 'controller' | 'service'; uid: string; user: UserPart };
}

export function isCoreRouter(v: unknown): v is CoreRouterSpec {
  return typeof v === 'object' && v !== null && CORE_ROUTER in v;
}
export function isCoreFactory(v: unknown): v is CoreFactory {
  return typeof v === 'function' && CORE_FACTORY in v;
}

function list(v: unknown, what: string): string[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new TypeError(`createCoreRouter: ${what} must be a list of action names`);
  return v as string[];
}

export function createCoreRouter(uid: string, cfg: { prefix?: string; config?: Record<string, RouteConfig>; only?: string[]; except?: string[]; type?: string } = {}): CoreRouterSpec {
  if (typeof uid !== 'string') throw new TypeError('createCoreRouter: the first argument must be a content-type uid');
  return {
    [CORE_ROUTER]: true, uid, type: cfg.type ?? 'content-api', prefix: cfg.prefix,
    only: list(cfg.only, 'only'), except: list(cfg.except, 'except'), config: cfg.config ?? {},
  };
}

function coreFactory(kind: 'controller' | 'service', uid: string, user: UserPart): CoreFactory {
  if (typeof uid !== 'string') throw new TypeError(`createCore${kind === 'controller' ? 'Controller' : 'Service'}: the first argument must be a content-type uid`);
  // Instantiated by the runtime (it needs the content-type's base); calling it directly is Strapi's API too.
  const f = ((opts: { strapi: unknown }) => {
    const build = (opts.strapi as { [BUILD]?: (f: CoreFactory) => Record<string, unknown> })[BUILD];
    if (!build) throw new TypeError(`createCore${kind}: called without this server's strapi object`);
    return build(f);
  }) as CoreFactory;
  f[CORE_FACTORY] = { kind, uid, user };
  return f;
}

/** The strapi object's hook that builds a core controller or service (src/project/strapi.ts). */
export const BUILD = Symbol.for('fastrapi.build-core');

export const createCoreController = (uid: string, user?: UserPart): CoreFactory => coreFactory('controller', uid, user);
export const createCoreService = (uid: string, user?: UserPart): CoreFactory => coreFactory('service', uid, user);
