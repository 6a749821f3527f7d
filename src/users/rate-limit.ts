// A fixed-window counter per key (authRateKey: client address, route, email). Per worker: with N workers a client gets up to N× the
// limit, which is acceptable for slowing down password guessing without shared state.
import { posix } from 'node:path';
export class RateLimiter {
  private windows = new Map<string, { count: number; reset: number }>();
  constructor(private limit: number, private windowMs: number) {}
  take(key: string, now = Date.now()): boolean {
    if (this.limit === 0) return true;
    let w = this.windows.get(key);
    if (!w || w.reset <= now) {
      if (this.windows.size > 10000) for (const [k, v] of this.windows) if (v.reset <= now) this.windows.delete(k);
      w = { count: 0, reset: now + this.windowMs };
      this.windows.set(key, w);
    }
    return ++w.count <= this.limit;
  }
}

/** Auth routes whose body's `email` is no identifier: their key is the path and address alone (Strapi's GHSA-7mqx-wwh4-f9fw fix). */
const NO_IDENTIFIER = ['/auth/local', '/auth/reset-password', '/auth/change-password'];

/**
 * The bucket of an auth request, as users-permissions' rateLimit middleware (Strapi 5.54) keys it: the
 * lower-cased email of the body (else `unknownIdentifier`) where the route takes one, the normalized
 * path and the client address. So logins share one bucket per address, and each address may ask for
 * ten reset emails per address and email.
 */
export function authRateKey(path: string, bodyOf: () => unknown, ip: string): string {
  let p = posix.normalize(path).toLowerCase().replace(/\/+$/, '') || '/';
  if (p === '.' || p === '..') p = 'invalidPath';
  if (p.includes('/connect/') || NO_IDENTIFIER.some((r) => p.endsWith(r))) return `noIdentifier:${p}:${ip}`;
  // The body is read only where the route takes an email (a login's is not parsed twice).
  const body = bodyOf();
  const email = body && typeof body === 'object' && typeof (body as { email?: unknown }).email === 'string' ? (body as { email: string }).email : '';
  return `${email ? email.toLowerCase() : 'unknownIdentifier'}:${p}:${ip}`;
}

