// A project's own Content API params: `strapi.contentAPI.addQueryParams` and `addInputParams`, called in
// register(), as Strapi 5.54 takes them. Each param joins the routes its `matchRoute(route)` takes (every
// route without one), as Strapi merges them into each route's request schema when its routes are built:
// there `api.rest.strictParams` lets a query param through and its schema checks its value (a 400 with
// Zod's message), a body param may stand at the root of `data` (checked the same way, with or without
// strictParams), and the core controller's sanitizeQuery/sanitizeInput hand on what its schema made of the
// value. Neither ever reaches a statement. Schemas are Zod's: `schema: (z) => …` gets the project's own Zod
// when it has one installed, else this server's subset of it (./zod-subset.ts).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { STRICT_KEYS } from '../../compiler/params.ts';
import { validation } from '../../compiler/errors.ts';
import type { RouteParams } from '../rest/route-params.ts';
import { z as subset } from './zod-subset.ts';

/** What this server needs of a Zod schema (the project's own Zod's and the subset's alike). */
export interface ParamSchema {
  safeParse(v: unknown): { success: boolean; data?: unknown; error?: { message?: string } };
  _zod?: { def?: { type?: unknown; innerType?: unknown; element?: unknown } };
}

/** A route as Strapi's matchRoute sees it: method, path (as its router declares it), handler, config, info. */
export type StrapiRoute = Record<string, unknown>;

interface Registered { param: string; schema: ParamSchema; matchRoute?: (route: StrapiRoute) => unknown }

const RESERVED_INPUT = ['id', 'documentId'];
const QUERY_TYPES = new Set(['string', 'number', 'boolean', 'enum']);

/**
 * The Zod a project's schema factories get: the one its installed @strapi/core uses (Strapi hands its own),
 * else one the project has, else the subset.
 */
export function projectZod(projectRoot: string): unknown {
  const fromRoot = createRequire(join(projectRoot, 'package.json'));
  for (const from of [() => createRequire(fromRoot.resolve('@strapi/core/package.json')), () => fromRoot]) {
    try { return from()('zod/v4'); } catch { /* not installed there */ }
  }
  return subset;
}

const zodName = (type: string) => `Zod${type.split('_').map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('')}`;

/** Strapi's registration check of a query param's schema: a scalar, or a list of scalars (optional or defaulted). */
function assertQueryParamSchema(schema: unknown, param: string): void {
  const def = (schema as ParamSchema | null)?._zod?.def;
  const fail = (got: string) => { throw new Error(`contentAPI.addQueryParams: param "${param}" schema must be a scalar (string, number, boolean, enum) or array of scalars; got ${got}. Use addInputParams for nested objects.`); };
  if (!def || typeof def.type !== 'string') {
    fail(typeof schema === 'object' && schema !== null ? (schema.constructor?.name ?? 'Object') : typeof schema);
    return;
  }
  if (def.type === 'optional' || def.type === 'default') return assertQueryParamSchema(def.innerType, param);
  if (def.type === 'array') return assertQueryParamSchema(def.element, param);
  if (!QUERY_TYPES.has(def.type)) fail(zodName(def.type));
}

export class ContentApiParams {
  private readonly query: Registered[] = [];
  private readonly input: Registered[] = [];
  /** Routes' param sets, one per distinct set (their ids key the compiler's plans). */
  private readonly sets = new Map<string, OwnParams>();

  constructor(private readonly zod: () => unknown) {}

  /** Nothing registered: no route has params of its own. */
  get empty(): boolean { return !this.query.length && !this.input.length; }

  /** `strapi.contentAPI` of the project. */
  api(): { addQueryParams(o: Record<string, unknown>): void; addInputParams(o: Record<string, unknown>): void } {
    return {
      addQueryParams: (o) => { for (const [param, rest] of Object.entries(o ?? {})) this.addQuery(param, rest); },
      addInputParams: (o) => { for (const [param, rest] of Object.entries(o ?? {})) this.addInput(param, rest); },
    };
  }

  /** The option's schema (a factory is given the Zod) and matchRoute. */
  private resolve(o: unknown): Registered {
    const { schema, matchRoute } = (o ?? {}) as { schema?: unknown; matchRoute?: unknown };
    const s = (typeof schema === 'function' ? (schema as (z: unknown) => unknown)(this.zod()) : schema) as ParamSchema;
    return { param: '', schema: s, ...(typeof matchRoute === 'function' ? { matchRoute: matchRoute as Registered['matchRoute'] } : {}) };
  }

  private addQuery(param: string, o: unknown): void {
    const r = this.resolve(o);
    assertQueryParamSchema(r.schema, param);
    // A Zod-like object without safeParse would fail at every request instead (Strapi checks it too).
    if (typeof r.schema?.safeParse !== 'function') throw new Error(`contentAPI.addQueryParams: param "${param}" schema must be a Zod schema`);
    if (STRICT_KEYS.includes(param)) throw new Error(`contentAPI.addQueryParams: param "${param}" is reserved by Strapi; use a different name`);
    if (this.query.some((x) => x.param === param)) throw new Error(`contentAPI.addQueryParams: param "${param}" has already been added`);
    this.query.push({ ...r, param });
  }

  private addInput(param: string, o: unknown): void {
    const r = this.resolve(o);
    if (RESERVED_INPUT.includes(param)) throw new Error(`contentAPI.addInputParams: param "${param}" is reserved by Strapi; use a different name`);
    if (this.input.some((x) => x.param === param)) throw new Error(`contentAPI.addInputParams: param "${param}" has already been added`);
    // Strapi builds the route's body schema with it (z.object), which only a Zod schema survives.
    if (typeof r.schema?.safeParse !== 'function') throw new Error(`contentAPI.addInputParams: param "${param}" schema must be a Zod schema`);
    this.input.push({ ...r, param });
  }

  /**
   * The params `route` takes (its matchRoute asked once, at start; the route as Strapi hands it, see
   * strapiRoute), or null when none: what its own `request` schema declares, then the registered ones.
   */
  forRoute(route: StrapiRoute): RouteParams | null {
    const declared = declaredParams(route);
    if (this.empty && !declared.query.length && !declared.input.length) return null;
    const takes = (r: Registered) => !r.matchRoute || !!r.matchRoute(route);
    const query = this.query.filter(takes);
    const input = this.input.filter(takes);
    const where = `route ${String(route.method)} ${String(route.path)}`;
    for (const r of query) if (declared.query.some((d) => d.param === r.param)) throw new Error(`contentAPI.addQueryParams: param "${r.param}" already exists on ${where}`);
    for (const r of input) if (declared.input.some((d) => d.param === r.param)) throw new Error(`contentAPI.addInputParams: param "${r.param}" already exists on ${where}`);
    if (!query.length && !input.length && !declared.query.length && !declared.input.length) return null;
    // Routes taking the same registered params share one set (its id keys the compiler's plans); a route's
    // own schemas make a set of its own.
    if (declared.query.length || declared.input.length) return new OwnParams(`r${++this.declaredSets}`, [...declared.query, ...query], [...declared.input, ...input]);
    const key = JSON.stringify([query.map((r) => r.param), input.map((r) => r.param)]);
    let set = this.sets.get(key);
    if (!set) this.sets.set(key, set = new OwnParams(String(this.sets.size), query, input));
    return set;
  }

  /** Sets of routes with schemas of their own, counted (their ids never meet a shared set's). */
  private declaredSets = 0;
}

/** What a route's own `request` declares beyond Strapi's keys: query params, and root keys of `data` but `data`. */
function declaredParams(route: StrapiRoute): { query: Registered[]; input: Registered[] } {
  const request = route.request as { query?: Record<string, unknown>; body?: Record<string, unknown> } | undefined;
  const schemaOf = (s: unknown): ParamSchema | null => (s && typeof (s as ParamSchema).safeParse === 'function' ? s as ParamSchema : null);
  const query = Object.entries(request?.query ?? {}).flatMap(([param, s]) => (STRICT_KEYS.includes(param) || !schemaOf(s) ? [] : [{ param, schema: schemaOf(s)! }]));
  const shape = (request?.body?.['application/json'] as { shape?: Record<string, unknown> } | undefined)?.shape ?? {};
  const input = Object.entries(shape).flatMap(([param, s]) => (param === 'data' || !schemaOf(s) ? [] : [{ param, schema: schemaOf(s)! }]));
  return { query, input };
}

/**
 * A route as Strapi hands it to matchRoute: its router's route with `info` (`{ apiName }` or
 * `{ pluginName }`) and, for a string handler, `config.auth.scope` defaulted to the handler's permission
 * (createRouteScopeGenerator; `auth: false` kept).
 */
export function strapiRoute(r: Record<string, unknown>, info: Record<string, string>, namespace: string): StrapiRoute {
  const config = { ...((r.config ?? {}) as Record<string, unknown>) };
  if (typeof r.handler === 'string' && config.auth !== false) {
    const prefix = namespace.endsWith('::') ? namespace : `${namespace}.`;
    const auth = (config.auth ?? {}) as Record<string, unknown>;
    config.auth = { ...auth, scope: auth.scope ?? [`${r.handler.startsWith(prefix) ? '' : prefix}${r.handler}`] };
  }
  return { ...r, config, info };
}

/** One route's own params. */
class OwnParams implements RouteParams {
  readonly keys: ReadonlySet<string>;
  readonly inputKeys: ReadonlySet<string>;
  constructor(readonly id: string, private readonly query: Registered[], private readonly input: Registered[]) {
    this.keys = new Set(query.map((r) => r.param));
    this.inputKeys = new Set(input.map((r) => r.param));
  }

  /** Strapi's validateQuery under strictParams: the first param given whose schema refuses its value is a 400. */
  check(q: Record<string, unknown>): void {
    for (const { param, schema } of this.query) {
      if (!(param in q)) continue;
      const r = schema.safeParse(q[param]);
      if (!r.success) throw validation(r.error?.message ?? 'Invalid query param', { key: param, path: null, source: 'query', param });
    }
  }

  /** Strapi's validateInput: the first param given whose schema refuses its value is a 400. */
  checkInput(data: Record<string, unknown>): void {
    for (const { param, schema } of this.input) {
      if (!(param in data)) continue;
      const r = schema.safeParse(data[param]);
      if (!r.success) throw validation(r.error?.message ?? 'Validation failed', { key: param, path: null, source: 'body', param });
    }
  }

  sanitizeQuery(q: Record<string, unknown>): void { sanitize(this.query, q); }

  sanitizeInput(data: Record<string, unknown>): void { sanitize(this.input, data); }
}

function sanitize(list: Registered[], o: Record<string, unknown>): void {
  for (const { param, schema } of list) {
    if (!(param in o)) continue;
    const r = schema.safeParse(o[param]);
    if (r.success) o[param] = r.data;
    else delete o[param];
  }
}

/** Strapi's sanitizeQuery under strictParams keeps only its own keys and the route's, in that order. */
export function strictQuery(q: Record<string, unknown>, own: RouteParams | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of [...STRICT_KEYS, ...(own?.keys ?? [])]) if (k in q) out[k] = q[k];
  return out;
}
