// A route's own params (a project's strapi.contentAPI.addQueryParams / addInputParams, built by
// src/project/content-api-params.ts), as the REST reads and writes use them: the content API's query and
// body checks let them through and check their values; nothing else of them reaches a statement.
import type { ContentType } from '../../compiler/schema.ts';
import type { ContentApi } from '../../compiler/index.ts';
import type { RouteQueryParams } from '../../compiler/params.ts';

export type CoreAction = 'find' | 'findOne' | 'create' | 'update' | 'delete';

export interface RouteParams extends RouteQueryParams {
  /** Root keys of a body's `data` the route takes beyond the type's attributes. */
  readonly inputKeys: ReadonlySet<string>;
  /** Refuses a value of those keys their schema does not take (Strapi's validateInput, after the unknown keys). */
  checkInput(data: Record<string, unknown>): void;
  /** Strapi's sanitizeQuery of the route's query params, in place: each given one becomes what its schema made of it, or goes. */
  sanitizeQuery(q: Record<string, unknown>): void;
  /** The same of its body params (Strapi's sanitizeInput). */
  sanitizeInput(data: Record<string, unknown>): void;
}

export interface RouteParamsContext {
  /** A request of the content API: its query is validated as Strapi's controller validates it (not project code's reads). */
  contentApi?: boolean;
  /** The params of the core routes answered without project code, by type and action (none registered: unset). */
  coreRouteParams?: ((uid: string, action: CoreAction) => RouteParams | null) | null;
  /** The params of the project route the request took (set by its handler; undefined: a core route's). */
  route?: RouteParams | null;
}

/** The route's params of a content-API request, else null. */
export function routeParams(ctx: RouteParamsContext, ct: ContentType, action: CoreAction): RouteParams | null {
  if (!ctx.contentApi) return null;
  return ctx.route !== undefined ? ctx.route : ctx.coreRouteParams?.(ct.uid, action) ?? null;
}

/** How the compiler checks the request's query: as the content API's (with the route's own params), or as project code's. */
export function contentApi(ctx: RouteParamsContext, ct: ContentType, action: CoreAction): ContentApi {
  return ctx.contentApi ? routeParams(ctx, ct, action) ?? true : false;
}
