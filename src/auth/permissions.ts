// Who may do what: roles (public, authenticated) and API tokens, each a set of permission strings
// `api::<name>.<name>.<action>`. Checked before any SQL of the request runs.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { Schema } from '../../compiler/schema.ts';
import { Jwt } from '../users/jwt.ts';

export type Action = 'find' | 'findOne' | 'create' | 'update' | 'delete';
export const ACTIONS: Action[] = ['find', 'findOne', 'create', 'update', 'delete'];

export interface Grant { all: boolean; perms: Set<string> }
export interface Caller { kind: 'public' | 'token' | 'user'; grant: Grant; userId?: number }

export class PermissionConfigError extends Error {}

/** `*:find,findOne;tag:create,update` → permission strings over the schema's content-types. */
export function parsePermissions(text: string, schema: Schema, key: string): Set<string> {
  const out = new Set<string>();
  for (const part of text.split(';').map((s) => s.trim()).filter(Boolean)) {
    const [type, actions] = part.split(':');
    if (!type || !actions) throw new PermissionConfigError(`Invalid configuration: ${key} entry "${part}" must look like <content-type|*>:<action,...>`);
    const cts = type.trim() === '*' ? [...schema.contentTypes.values()] : [...schema.contentTypes.values()].filter((c) => c.apiName === type.trim() || c.uid === type.trim());
    if (cts.length === 0) throw new PermissionConfigError(`Invalid configuration: ${key} names unknown content-type "${type}"`);
    for (const a of actions.split(',').map((s) => s.trim()).filter(Boolean)) {
      if (!ACTIONS.includes(a as Action)) throw new PermissionConfigError(`Invalid configuration: ${key} names unknown action "${a}" (one of ${ACTIONS.join(', ')})`);
      for (const ct of cts) out.add(`${ct.uid}.${a}`);
    }
  }
  return out;
}

export interface TokenRecord { name: string; type: 'full-access' | 'read-only'; hash: Buffer }

export function hashToken(key: string, salt: string): Buffer {
  return createHmac('sha512', salt).update(key).digest();
}

export function parseTokens(text: string, salt: string): TokenRecord[] {
  const out: TokenRecord[] = [];
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [name, type, ...rest] = part.split(':');
    const key = rest.join(':');
    if (!name || !key || (type !== 'full-access' && type !== 'read-only')) {
      throw new PermissionConfigError(`Invalid configuration: API_TOKENS entry "${name ?? part}" must be name:full-access|read-only:accessKey`);
    }
    out.push({ name, type, hash: hashToken(key, salt) });
  }
  return out;
}

/** Database lookups the authorizer needs: a JWT's user (exists, not blocked) and stored API tokens. */
export interface AuthLookups {
  userOk(id: number): Promise<boolean>;
  /** The stored token with this access-key hash (hex), if any and not expired. */
  token(hashHex: string): Promise<{ id: number; type: string; permissions: string[] | null } | null>;
  touch(id: number): void;
}

export class Authorizer {
  private publicGrant: Grant;
  private authenticatedGrant: Grant;
  private tokens: TokenRecord[];
  private readOnly: Set<string>;
  readonly jwt: Jwt;
  constructor(private config: Config, schema: Schema) {
    this.publicGrant = { all: config.auth.publicAccess, perms: parsePermissions(config.auth.publicPermissions, schema, 'PUBLIC_PERMISSIONS') };
    const authenticated = parsePermissions(config.auth.authenticatedPermissions, schema, 'AUTHENTICATED_PERMISSIONS');
    // A logged-in user may always read their own record, as Strapi's default authenticated role.
    authenticated.add('plugin::users-permissions.user.me');
    this.authenticatedGrant = { all: config.auth.publicAccess, perms: authenticated };
    this.tokens = parseTokens(config.auth.apiTokens, config.auth.apiTokenSalt);
    this.readOnly = new Set([
      ...[...schema.contentTypes.values()].flatMap((c) => [`${c.uid}.find`, `${c.uid}.findOne`]),
      'plugin::upload.read', 'plugin::users-permissions.user.find', 'plugin::users-permissions.user.findOne',
    ]);
    this.jwt = new Jwt(config.auth.jwtSecret ?? '', config.auth.jwtExpiresIn);
  }

  /** The caller of a request, or null when credentials were sent but are not valid (→ 401). */
  private tokenCache = new Map<string, { grant: Grant | null; until: number }>();
  private touched = new Map<number, number>();

  private grantFor(type: string, permissions: string[] | null): Grant {
    if (type === 'full-access') return { all: true, perms: new Set() };
    if (type === 'read-only') return { all: false, perms: this.readOnly };
    return { all: false, perms: new Set(permissions ?? []) };
  }

  async caller(authorization: string | undefined, lookups: AuthLookups): Promise<Caller | null> {
    if (!authorization) return { kind: 'public', grant: this.publicGrant };
    const m = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    if (!m) return null;
    const token = m[1].trim();
    const h = hashToken(token, this.config.auth.apiTokenSalt);
    for (const t of this.tokens) {
      if (t.hash.length === h.length && timingSafeEqual(t.hash, h)) {
        return { kind: 'token', grant: t.type === 'full-access' ? { all: true, perms: new Set() } : { all: false, perms: this.readOnly } };
      }
    }
    const hex = h.toString('hex');
    const now = Date.now();
    let cached = this.tokenCache.get(hex);
    // Stored tokens are cached briefly per worker: revocation takes effect within 10 seconds.
    if (!cached || cached.until < now) {
      const row = await lookups.token(hex);
      cached = { grant: row ? this.grantFor(row.type, row.permissions) : null, until: now + 10_000 };
      if (this.tokenCache.size > 10_000) this.tokenCache.clear();
      this.tokenCache.set(hex, cached);
      if (row && (this.touched.get(row.id) ?? 0) < now - 60_000) { this.touched.set(row.id, now); lookups.touch(row.id); }
    }
    if (cached.grant) return { kind: 'token', grant: cached.grant };
    if (token.split('.').length !== 3) return null;
    const id = await this.jwt.verify(token);
    if (id === null || !(await lookups.userOk(id))) return null;
    return { kind: 'user', grant: this.authenticatedGrant, userId: id };
  }

  /** Plugin actions (`plugin::upload.read`, `plugin::users-permissions.user.find`, …). */
  allowsPlugin(c: Caller, permission: string): boolean {
    return c.grant.all || c.grant.perms.has(permission);
  }

  private accessCache = new WeakMap<Grant, { key: string; canRead: (uid: string) => boolean }>();
  private grantIds = 0;

  /** What the caller may populate: content-types it may `find`. One object per grant, for plan caching. */
  access(c: Caller): { key: string; canRead: (uid: string) => boolean } {
    let a = this.accessCache.get(c.grant);
    if (!a) {
      const g = c.grant;
      a = g.all ? { key: '*', canRead: () => true } : { key: `g${++this.grantIds}`, canRead: (uid) => g.perms.has(`${uid}.find`) };
      this.accessCache.set(g, a);
    }
    return a;
  }

  allows(c: Caller, uid: string, action: Action): boolean {
    return c.grant.all || c.grant.perms.has(`${uid}.${action}`);
  }
}
