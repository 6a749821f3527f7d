// A route of the project as Strapi's router would hold it once built (src/project/route-builder.ts): its
// path, scope, policies, middlewares and action resolved at start, so a request only matches and runs it.
import type { ContentType } from '../../compiler/schema.ts';
import type { Middleware } from './compose.ts';
import type { RouteConfig } from './factories.ts';
import type { CompiledPath } from './path.ts';
import type { PolicyHandler } from './strapi.ts';
import type { CoreAction, RouteParams } from '../rest/route-params.ts';

export interface Policy { name: string; handler: PolicyHandler; config: Record<string, unknown> }

/** A core action answered straight from the compiled statement (the controller's and service's own are Strapi's). */
export type { CoreAction };

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
  /** The project's own Content API params the route takes (strapi.contentAPI.addQueryParams / addInputParams), or null. */
  params?: RouteParams | null;
  /** Why this route cannot run here (a feature this server lacks): it answers 501 naming the file. */
  closed?: string;
  config: RouteConfig;
}

export type Match = { route: ProjectRoute; params: Record<string, string> } | { route: null; status: 404 | 405 };
