// Strapi's `strapi::security` middleware is helmet with Strapi's settings: these are the headers it
// sends, computed once. Strapi turns off helmet's Cross-Origin-Embedder/Opener/Resource-Policy and
// Origin-Agent-Cluster (a Content API is read from other origins) and X-XSS-Protection, sets HSTS to a
// year with subdomains, and extends helmet's default Content-Security-Policy (without
// upgrade-insecure-requests). A reply that brings its own CSP (the GraphiQL page) keeps it.
import type { Headers } from './cors.ts';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'", "base-uri 'self'", "font-src 'self' https: data:", "form-action 'self'", "frame-ancestors 'self'",
  "img-src 'self' data: blob:", "object-src 'none'", "script-src 'self'", "script-src-attr 'none'",
  "style-src 'self' https: 'unsafe-inline'", "connect-src 'self' https:", "media-src 'self' data: blob:",
].join(';');

/** Every header but the CSP (sent separately so a reply may bring its own). */
export const SECURITY_HEADERS: Headers = [
  ['Referrer-Policy', 'no-referrer'],
  ['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-DNS-Prefetch-Control', 'off'],
  ['X-Download-Options', 'noopen'],
  ['X-Frame-Options', 'SAMEORIGIN'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
];

/**
 * SECURITY_HEADERS (and the CSP, unless the reply brings its own) as one uWS `writeHeader(key, value)`
 * call: uWS writes `key: value\r\n`, so a value holding the further lines sends them all, in one native
 * call instead of eight (each call a copy of two strings into the response; the block is constant text,
 * never from a request).
 */
function block(headers: Headers): [string, string] {
  const [[k, v], ...rest] = headers;
  return [k, [v, ...rest.map(([rk, rv]) => `${rk}: ${rv}`)].join('\r\n')];
}
export const SECURITY_BLOCK = block(SECURITY_HEADERS);
export const SECURITY_BLOCK_WITH_CSP = block([...SECURITY_HEADERS, ['Content-Security-Policy', CONTENT_SECURITY_POLICY]]);

/** Whether a reply's own headers already hold a Content-Security-Policy. */
export function hasCsp(headers: Headers | undefined): boolean {
  if (!headers) return false;
  for (const [k] of headers) if (k.length === 23 && k.toLowerCase() === 'content-security-policy') return true;
  return false;
}
