// CORS as Strapi's `strapi::cors` middleware (@koa/cors with Strapi's origin check): no Origin header, no
// CORS headers; an allowed origin gets Access-Control-Allow-Origin (the request's own origin when the list
// holds `*` and credentials are on, since browsers refuse `*` with credentials); a preflight (OPTIONS with
// Access-Control-Request-Method) is answered here with 204. Unlike Strapi, whose origin check throws (a
// 500) for an origin not in the list, a refused or malformed origin just gets no Allow-Origin header: the
// browser blocks the page, and the server never errs on a header it does not like.
import type { CorsConfig } from '../../config.ts';

export type Headers = Array<[string, string]>;

// An origin is `null` or scheme://host[:port]: visible ASCII only, so nothing odd is ever reflected.
const SANE_ORIGIN = /^(null|[a-z][a-z0-9+.-]*:\/\/[\x21-\x7e]{1,2000})$/i;

/** Whether an Origin header has the form browsers send (anything else is never reflected). */
export const saneOrigin = (origin: string): boolean => SANE_ORIGIN.test(origin);

export class Cors {
  private readonly list: string[] | null;
  private readonly any: boolean;
  private readonly credentials: Headers;
  private readonly expose: Headers;
  private readonly preflightHeaders: Headers;
  private readonly allowHeaders: string | null;

  constructor(private readonly opts: CorsConfig) {
    this.list = typeof opts.origin === 'function' ? null : opts.origin;
    this.any = !!this.list?.includes('*');
    this.credentials = opts.credentials ? [['Access-Control-Allow-Credentials', 'true']] : [];
    this.expose = opts.expose.length ? [['Access-Control-Expose-Headers', opts.expose.join(',')]] : [];
    this.preflightHeaders = [
      ['Access-Control-Max-Age', String(opts.maxAge)],
      ['Access-Control-Allow-Methods', opts.methods.join(',')],
    ];
    this.allowHeaders = opts.headers.length && !opts.headers.includes('*') ? opts.headers.join(',') : null;
  }

  get enabled(): boolean { return this.opts.enabled; }

  /** The Access-Control-Allow-Origin value for a request's Origin, or null when it is refused. */
  allowOrigin(origin: string, request: { method: string; path: string }): string | null | Promise<string | null> {
    if (!SANE_ORIGIN.test(origin)) return null;
    if (this.list) {
      if (this.any) return this.opts.credentials ? origin : '*';
      return this.list.includes(origin) ? origin : null;
    }
    let verdict: ReturnType<Extract<CorsConfig['origin'], Function>>;
    try { verdict = (this.opts.origin as Extract<CorsConfig['origin'], Function>)(origin, request); } catch { return null; }
    const decide = (v: boolean | string): string | null => {
      if (v === true) return origin;
      if (typeof v === 'string' && (v === '*' || SANE_ORIGIN.test(v))) return v;
      return null;
    };
    return verdict instanceof Promise ? verdict.then(decide, () => null) : decide(verdict);
  }

  /** Headers for an ordinary response to an allowed origin. */
  responseHeaders(allowed: string): Headers {
    return [['Access-Control-Allow-Origin', allowed], ...this.credentials, ...this.expose];
  }

  /** Headers of the 204 answer to a preflight from an allowed origin. */
  preflight(allowed: string, requestHeaders: string): Headers {
    const h: Headers = [['Access-Control-Allow-Origin', allowed], ...this.credentials, ...this.preflightHeaders];
    // Without a configured list (or with `*`), koa-cors echoes what the browser asks for.
    const allow = this.allowHeaders ?? (/^[\w\s,-]{1,4000}$/.test(requestHeaders) ? requestHeaders : null);
    if (allow) h.push(['Access-Control-Allow-Headers', allow]);
    return h;
  }
}
