// The Koa context a project's middlewares, policies and controllers get: the subset of Koa's `ctx` (with
// Strapi's additions: ctx.badRequest()…, the qs-parsed ctx.query) that project code uses. What the
// request's handler answers stays raw bytes until some code reads ctx.body (then parsed once), so a
// middleware that only sets ctx.query costs no JSON round trip.
import { STATUS_CODES } from 'node:http';
import type { QueryValue } from '../../compiler/querystring.ts';
import type { Caller } from '../auth/permissions.ts';
import { HttpError } from './errors.ts';
import { stringifyQuery } from './query.ts';

type Query = { [k: string]: QueryValue };

/** ctx.state: Strapi's route, user and auth (users-permissions: `{ strategy, credentials, ability }`). */
export interface KoaState {
  route?: { method: string; path: string; handler: unknown; config: unknown; info: { apiName?: string; pluginName?: string; type: string } };
  user?: Record<string, unknown>;
  auth?: { strategy: { name: string }; credentials: unknown; ability: unknown };
  isAuthenticated?: boolean;
  [key: string]: unknown;
}

export interface RequestInit {
  method: string;
  path: string;
  querystring: string;
  headers: Record<string, string>;
  ip?: string;
  params: Record<string, string>;
  body: unknown;
  parse: (raw: string) => Query;
  caller: Caller | null;
  /** ctx.state to share (a global middleware's ctx and the route's see one state, as in Koa). */
  state?: KoaState;
}

/** Koa's `ctx.request`: query and body, headers. */
export class KoaRequest {
  constructor(private c: KoaContext, public body: unknown) {}
  get query(): Query { return this.c.query; }
  set query(v: Query) { this.c.query = v; }
  get querystring(): string { return this.c.querystring; }
  set querystring(v: string) { this.c.querystring = v; }
  get method(): string { return this.c.method; }
  get path(): string { return this.c.path; }
  get url(): string { return this.c.url; }
  get headers(): Record<string, string> { return this.c.headers; }
  get header(): Record<string, string> { return this.c.headers; }
  get ip(): string | undefined { return this.c.ip; }
  get(name: string): string { return this.c.get(name); }
}

/** Koa's `ctx.response`. */
export class KoaResponse {
  constructor(private c: KoaContext) {}
  get status(): number { return this.c.status; }
  set status(v: number) { this.c.status = v; }
  get body(): unknown { return this.c.body; }
  set body(v: unknown) { this.c.body = v; }
  get headers(): Record<string, string> { return Object.fromEntries(this.c.responseHeaders); }
  set(name: string | Record<string, string>, value?: string): void { this.c.set(name, value); }
  get(name: string): string { return this.c.responseHeaders.get(name.toLowerCase()) ?? ''; }
  get _explicitStatus(): boolean { return this.c.explicitStatus; }
}

export class KoaContext {
  readonly request: KoaRequest;
  readonly response: KoaResponse;
  readonly state: KoaState;
  params: Record<string, string>;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly ip: string | undefined;
  /** Response headers set by project code (lower-case names). */
  readonly responseHeaders = new Map<string, string>();
  explicitStatus = false;

  private qs: string;
  private parsed: Query | null = null;
  private parse: (raw: string) => Query;
  private statusCode = 404;
  private value: unknown = undefined;
  /** The handler's answer as JSON bytes, until something reads ctx.body. */
  private raw: Uint8Array | null = null;

  constructor(init: RequestInit) {
    this.method = init.method;
    this.path = init.path;
    this.qs = init.querystring;
    this.headers = init.headers;
    this.ip = init.ip;
    this.params = init.params;
    this.state = init.state ?? {};
    this.parse = init.parse;
    this.request = new KoaRequest(this, init.body);
    this.response = new KoaResponse(this);
  }

  get header(): Record<string, string> { return this.headers; }
  get url(): string { return this.qs ? `${this.path}?${this.qs}` : this.path; }
  get originalUrl(): string { return this.url; }

  /** Strapi's qs-parsed query (one object per query string, so changes made to it stay). */
  get query(): Query { return (this.parsed ??= this.parse(this.qs)); }
  /** Strapi's setter: qs.stringify, read back by the getter. */
  set query(v: Query) { this.qs = stringifyQuery(v as Record<string, unknown>); this.parsed = null; }
  get querystring(): string { return this.parsed ? stringifyQuery(this.parsed as Record<string, unknown>) : this.qs; }
  set querystring(v: string) { this.qs = v; this.parsed = null; }

  get status(): number { return this.statusCode; }
  set status(v: number) { this.statusCode = v; this.explicitStatus = true; }

  get body(): unknown {
    if (this.raw) { this.value = JSON.parse(Buffer.from(this.raw.buffer, this.raw.byteOffset, this.raw.byteLength).toString('utf8')); this.raw = null; }
    return this.value;
  }
  /** Koa's setter: a body makes the status 200 unless one was set; null makes it 204. */
  set body(v: unknown) {
    this.raw = null;
    this.value = v;
    if (!this.explicitStatus) { this.statusCode = v === null || v === undefined ? 204 : 200; this.explicitStatus = v !== undefined; }
  }
  /** The handler's JSON answer, kept as bytes until read. */
  setRaw(status: number, bytes: Uint8Array): void { this.raw = bytes; this.value = undefined; this.statusCode = status; this.explicitStatus = true; }
  /** The answer's bytes when no code parsed them. */
  rawBody(): Uint8Array | null { return this.raw; }
  bodyIsSet(): boolean { return this.raw !== null || this.value !== undefined; }

  get(name: string): string { return this.headers[name.toLowerCase()] ?? ''; }
  set(name: string | Record<string, string>, value?: string): void {
    if (typeof name === 'object') { for (const [k, v] of Object.entries(name)) this.set(k, v); return; }
    this.responseHeaders.set(name.toLowerCase(), String(value));
  }
  remove(name: string): void { this.responseHeaders.delete(name.toLowerCase()); }
  is(...types: string[]): string | false {
    const ct = this.get('content-type');
    return types.find((t) => ct.includes(t.replace(/^json$/, 'application/json'))) ?? false;
  }

  /** Koa's ctx.throw(status, message, props): an http-errors error, answered as Strapi formats it. */
  throw(...args: unknown[]): never {
    let status = 500; let message: string | undefined; let props: Record<string, unknown> | undefined;
    for (const a of args) {
      if (typeof a === 'number') status = a;
      else if (typeof a === 'string') message = a;
      else if (a instanceof Error) throw a;
      else if (a && typeof a === 'object') props = a as Record<string, unknown>;
    }
    throw new HttpError(status, message, (props?.details as Record<string, unknown> | undefined) ?? null);
  }
  assert(value: unknown, ...args: unknown[]): void { if (!value) this.throw(...args); }

  send(data: unknown, status = 200): void { this.status = status; this.body = data; }
  created(data: unknown): void { this.status = 201; this.body = data; }
  deleted(data?: unknown): void { if (data === null || data === undefined) this.status = 204; else { this.status = 200; this.body = data; } }
}

/** lodash's camelCase of a reason phrase, as Strapi names ctx's error helpers (`badRequest`, `notFound`…). */
function camel(text: string): string {
  const words = text.replace(/'/g, '').split(/[^A-Za-z0-9]+/).filter(Boolean).flatMap((w) => w.split(/(?<=[a-z])(?=[A-Z])/));
  return words.map((w, i) => (i === 0 ? w.toLowerCase() : w.charAt(0).toUpperCase() + w.slice(1).toLowerCase())).join('');
}

/** Strapi's ctx.<status>(message = reason, details = {}): sets the error envelope as the answer, no throw. */
for (const [code, text] of Object.entries(STATUS_CODES)) {
  const status = Number(code);
  if (!text || status < 400 || status >= 600) continue;
  const name = camel(text);
  Object.defineProperty(KoaContext.prototype, name, {
    value(this: KoaContext, message: string = text, details: Record<string, unknown> = {}) {
      const e = new HttpError(status, message, details ?? {});
      this.status = status;
      this.body = { data: null, error: { status, name: e.errorName, message: e.message, details: e.details } };
    },
    writable: true, configurable: true,
  });
  Object.defineProperty(KoaResponse.prototype, name, {
    value(this: KoaResponse, ...a: unknown[]) { return ((this as unknown as { c: Record<string, (...x: unknown[]) => void> }).c[name])(...a); },
    writable: true, configurable: true,
  });
}

/** The error helpers' names, typed for TypeScript callers inside this server. */
export interface KoaContext {
  badRequest(message?: string, details?: Record<string, unknown>): void;
  unauthorized(message?: string, details?: Record<string, unknown>): void;
  forbidden(message?: string, details?: Record<string, unknown>): void;
  notFound(message?: string, details?: Record<string, unknown>): void;
  internalServerError(message?: string, details?: Record<string, unknown>): void;
}
