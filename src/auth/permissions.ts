// Who may do what: Strapi's roles (up_roles / up_permissions) and API tokens (strapi_api_tokens), each
// a set of permission strings `api::<name>.<name>.<action>` / `plugin::…`. PUBLIC_PERMISSIONS and
// AUTHENTICATED_PERMISSIONS, when set, replace the public and authenticated roles' permissions;
// API_TOKENS declares tokens besides the stored ones. Checked before any SQL of the request runs.
// What is read from the database is kept PERMISSIONS_CACHE_TTL ms at most, and forgotten at once when
// told of a change (changed(): this server's writes, other threads' and nodes' NOTIFY, the change watch).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { Schema } from '../../compiler/schema.ts';
import { ApiError } from '../../compiler/errors.ts';
import { log } from '../log.ts';
import { Jwt } from '../users/jwt.ts';
import type { RoleRow, TokenRow, UserState } from './store.ts';
import { API_TOKENS, UP } from './tables.ts';

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
    // `*` means the models' own types: a plugin type (users) keeps its plugin's permissions.
    const cts = type.trim() === '*' ? [...schema.contentTypes.values()].filter((c) => !c.builtin) : [...schema.contentTypes.values()].filter((c) => !c.builtin && (c.apiName === type.trim() || c.uid === type.trim()));
    if (cts.length === 0) throw new PermissionConfigError(`Invalid configuration: ${key} names unknown content-type "${type}"`);
    for (const a of actions.split(',').map((s) => s.trim()).filter(Boolean)) {
      if (!ACTIONS.includes(a as Action)) throw new PermissionConfigError(`Invalid configuration: ${key} names unknown action "${a}" (one of ${ACTIONS.join(', ')})`);
      for (const ct of cts) out.add(`${ct.uid}.${a}`);
    }
  }
  return out;
}

/** Presented keys whose HMAC is remembered (Permissions.keyHash). */
const KEY_HASHES = 4096;

export interface TokenRecord { name: string; type: 'full-access' | 'read-only'; hash: Buffer }

/** Strapi's api-token hash: HMAC-SHA512 keyed with the salt; stored as hex in access_key. */
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

/** users-permissions actions Strapi grants a fresh install's roles (its DEFAULT_PERMISSIONS). */
export const DEFAULT_ROLE_ACTIONS: Record<'public' | 'authenticated', string[]> = {
  public: [
    'plugin::users-permissions.auth.callback', 'plugin::users-permissions.auth.connect', 'plugin::users-permissions.auth.forgotPassword',
    'plugin::users-permissions.auth.resetPassword', 'plugin::users-permissions.auth.register', 'plugin::users-permissions.auth.emailConfirmation',
    'plugin::users-permissions.auth.sendEmailConfirmation', 'plugin::users-permissions.auth.refresh',
  ],
  authenticated: [
    'plugin::users-permissions.auth.logout', 'plugin::users-permissions.auth.getSessions', 'plugin::users-permissions.auth.revokeSession',
    'plugin::users-permissions.user.me', 'plugin::users-permissions.auth.changePassword',
  ],
};

/** Database reads the authorizer needs (src/auth/store.ts over the worker's pool). */
export interface AuthLookups {
  roles(): Promise<RoleRow[]>;
  /** The stored token with this access-key hash (hex), expired or not. */
  token(hashHex: string): Promise<TokenRow | null>;
  /** Records a use of a stored token (Strapi's lastUsedAt, at most hourly). */
  touch(id: number): void;
  user(id: number): Promise<UserState | null>;
}

/** What a change to each of Strapi's auth tables makes the Authorizer forget. */
const FORGETS: Record<string, 'users' | 'roles' | 'tokens'> = {
  [UP.users]: 'users', [UP.userRole.table]: 'users',
  [UP.roles]: 'roles', [UP.permissions]: 'roles', [UP.permissionRole.table]: 'roles',
  [API_TOKENS.table]: 'tokens', [API_TOKENS.permissions]: 'tokens', [API_TOKENS.permissionToken.table]: 'tokens',
};

/** The tables whose changes revoke or grant something (see Authorizer.changed). */
export const AUTH_TABLES: readonly string[] = Object.keys(FORGETS);

interface Roles { byId: Map<number, { type: string; grant: Grant }>; public: Grant }
type TokenEntry = { grant: Grant | null; expired: boolean; until: number };
type UserEntry = { state: UserState | null; until: number };

const CACHE_LIMIT = 10_000;

/** Keeps an entry (none with a TTL of 0); a full cache starts over. */
function remember<K, V>(cache: Map<K, V>, key: K, value: V, ttl: number): void {
  if (ttl <= 0) return;
  if (cache.size > CACHE_LIMIT) cache.clear();
  cache.set(key, value);
}

const tokenExpired = () => new ApiError(401, 'UnauthorizedError', 'Token expired', {});
const invalidCredentials = () => new ApiError(401, 'UnauthorizedError', 'Invalid credentials', {});

export class Authorizer {
  /** Set from PUBLIC_PERMISSIONS / AUTHENTICATED_PERMISSIONS; null = the database role decides. */
  private envPublic: Grant | null;
  private envAuthenticated: Grant | null;
  private tokens: TokenRecord[];
  private readOnly: Grant;
  private full: Grant = { all: true, perms: new Set() };
  private none: Grant = { all: false, perms: new Set() };
  private ttl: number;
  readonly jwt: Jwt;

  constructor(private config: Config, schema: Schema) {
    const open = config.auth.publicAccess;
    const fromEnv = (text: string, key: string, role: 'public' | 'authenticated'): Grant | null => {
      if (!text && !open) return null;
      // The users-permissions actions a fresh Strapi grants the role stay granted (login, register, /users/me).
      const perms = new Set([...DEFAULT_ROLE_ACTIONS[role], ...parsePermissions(text, schema, key)]);
      return this.intern({ all: open, perms });
    };
    this.envPublic = fromEnv(config.auth.publicPermissions, 'PUBLIC_PERMISSIONS', 'public');
    this.envAuthenticated = fromEnv(config.auth.authenticatedPermissions, 'AUTHENTICATED_PERMISSIONS', 'authenticated');
    this.tokens = parseTokens(config.auth.apiTokens, config.auth.apiTokenSalt);
    // Strapi's read-only tokens pass every route whose scope ends with find or findOne.
    this.readOnly = this.intern({ all: false, perms: new Set([
      ...[...schema.contentTypes.values()].flatMap((c) => [`${c.uid}.find`, `${c.uid}.findOne`]),
      'plugin::upload.read', 'plugin::upload.content-api.find', 'plugin::upload.content-api.findOne',
      'plugin::users-permissions.user.find', 'plugin::users-permissions.user.findOne',
      'plugin::users-permissions.role.find', 'plugin::users-permissions.role.findOne', 'plugin::i18n.locales.listLocales',
    ]) });
    this.ttl = config.auth.permissionsCacheTtl;
    this.jwt = new Jwt(config.auth.jwtSecret ?? '', config.auth.jwtExpiresIn);
  }

  /**
   * Counts the changes heard. A database read that began before one may predate it: its result answers the
   * requests that waited for it, but is not kept.
   */
  private generation = 0;

  /**
   * Some of Strapi's auth tables changed (committed): what was read from them is forgotten at once, so the
   * next request reads it again — a blocked or deleted user, a role's permissions, a user's role, a revoked
   * or changed API token. Other tables are ignored.
   */
  changed(tables: readonly string[]): void {
    const what = new Set(tables.map((t) => FORGETS[t]).filter(Boolean));
    if (!what.size) return;
    this.generation++;
    if (what.has('users')) this.userCache.clear();
    if (what.has('tokens')) this.tokenCache.clear();
    // No stale copy either: the next request waits for the roles as they are now.
    if (what.has('roles')) { this.roles = null; this.rolesLoading = null; }
  }

  /** Forgets everything read (changes may have gone unheard). */
  clear(): void {
    this.changed(AUTH_TABLES);
  }

  // One Grant object per distinct permission set: plans are cached per grant (access()), so a role
  // re-read every few seconds must map back to the same object when nothing changed.
  private interned = new Map<string, Grant>();
  private intern(g: Grant): Grant {
    const key = `${g.all ? '*' : ''}|${[...g.perms].sort().join('\n')}`;
    let hit = this.interned.get(key);
    if (!hit) {
      if (this.interned.size > CACHE_LIMIT) this.interned.clear();
      hit = g;
      this.interned.set(key, hit);
    }
    return hit;
  }

  private roles: Roles | null = null;
  private rolesUntil = 0;
  private rolesLoading: Promise<Roles> | null = null;

  /** Roles and their grants, re-read after the TTL (a stale copy answers while the new one loads) or a change. */
  private async currentRoles(lookups: AuthLookups): Promise<Roles> {
    if (this.roles && Date.now() < this.rolesUntil) return this.roles;
    this.rolesLoading ??= this.loadRoles(lookups);
    // A TTL of 0 keeps no copy: every request waits for the roles as they are now (a grant applies at once).
    if (this.roles && this.ttl > 0) {
      this.rolesLoading.catch((e) => log.warn('could not reload roles, keeping the previous ones', { error: String(e) }));
      return this.roles;
    }
    return this.rolesLoading;
  }

  private loadRoles(lookups: AuthLookups): Promise<Roles> {
    const generation = this.generation;
    const loading: Promise<Roles> = lookups.roles().then((rows) => {
      const byId = new Map<number, { type: string; grant: Grant }>();
      let pub = this.none;
      for (const r of rows) {
        const grant = this.intern({ all: false, perms: new Set(r.actions) });
        byId.set(r.id, { type: r.type, grant });
        if (r.type === 'public') pub = grant;
      }
      const roles = { byId, public: pub };
      if (generation === this.generation) {
        this.roles = roles;
        this.rolesUntil = Date.now() + this.ttl;
      }
      return roles;
    }).finally(() => {
      // A change may have started another load meanwhile: that one stays.
      if (this.rolesLoading === loading) this.rolesLoading = null;
    });
    return loading;
  }

  private tokenCache = new Map<string, TokenEntry>();
  private userCache = new Map<number, UserEntry>();

  private grantFor(t: TokenRow): Grant | null {
    // Strapi's content-api strategy ignores admin tokens (kind 'admin'); tokens older than `kind` have null.
    if (t.kind !== null && t.kind !== 'content-api') return null;
    if (t.type === 'full-access') return this.full;
    if (t.type === 'read-only') return this.readOnly;
    if (t.type === 'custom') return this.intern({ all: false, perms: new Set(t.actions) });
    return null;
  }

  private async storedToken(hex: string, lookups: AuthLookups): Promise<TokenEntry> {
    const now = Date.now();
    const hit = this.tokenCache.get(hex);
    if (hit && hit.until > now) return hit;
    const generation = this.generation;
    const row = await lookups.token(hex);
    const entry: TokenEntry = { grant: row ? this.grantFor(row) : null, expired: row?.expired ?? false, until: now + this.ttl };
    if (row && entry.grant && !entry.expired && (row.lastUsedAt === null || now - row.lastUsedAt.getTime() >= 3_600_000)) lookups.touch(row.id);
    if (generation === this.generation) remember(this.tokenCache, hex, entry, this.ttl);
    return entry;
  }

  private async user(id: number, lookups: AuthLookups): Promise<UserState | null> {
    const now = Date.now();
    const hit = this.userCache.get(id);
    if (hit && hit.until > now) return hit.state;
    const generation = this.generation;
    const state = await lookups.user(id);
    if (generation === this.generation) remember(this.userCache, id, { state, until: now + this.ttl }, this.ttl);
    return state;
  }

  /**
   * The HMAC of a presented key, remembered: a client sends the same key with every request, and the HMAC
   * was 5% of a token-authenticated list's CPU under load (the blog, 50 connections). What a key grants is
   * still decided per request (env tokens compared in constant time, stored ones through tokenCache).
   * Bounded: a flood of distinct keys empties it.
   */
  private keyHash(key: string): Buffer {
    let h = this.keyHashes.get(key);
    if (!h) {
      h = hashToken(key, this.config.auth.apiTokenSalt);
      if (this.keyHashes.size >= KEY_HASHES) this.keyHashes.clear();
      this.keyHashes.set(key, h);
    }
    return h;
  }

  private keyHashes = new Map<string, Buffer>();

  /**
   * The caller of a request, or null when credentials were sent but are not valid (→ 401); throws Strapi's
   * own 401 for an expired API token and for a JWT whose user may not sign in.
   */
  async caller(authorization: string | undefined, lookups: AuthLookups): Promise<Caller | null> {
    if (!authorization) return { kind: 'public', grant: this.envPublic ?? (await this.currentRoles(lookups)).public };
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization.trim());
    if (!m) return null;
    const token = m[1];
    const h = this.keyHash(token);
    for (const t of this.tokens) {
      if (t.hash.length === h.length && timingSafeEqual(t.hash, h)) return { kind: 'token', grant: t.type === 'full-access' ? this.full : this.readOnly };
    }
    // Strapi's access keys are hex: a three-part dotted value can only be a users-permissions JWT.
    if (token.split('.').length !== 3) {
      const stored = await this.storedToken(h.toString('hex'), lookups);
      if (stored.expired && stored.grant) throw tokenExpired();
      return stored.grant ? { kind: 'token', grant: stored.grant } : null;
    }
    const id = await this.jwt.verify(token);
    if (id === null) return null;
    const state = await this.user(id, lookups);
    // Strapi's users-permissions strategy refuses a valid JWT of no user, of a blocked one, or of an unconfirmed
    // one while email confirmation is on (this server's setting over the stored one, as src/users/settings.ts
    // reads them) with its own message, on every route (checked live: login and GraphQL too).
    if (!state || state.blocked) throw invalidCredentials();
    if (!state.confirmed && (this.config.usersPermissions.emailConfirmation ?? state.emailConfirmation ?? false)) throw invalidCredentials();
    return { kind: 'user', grant: await this.userGrant(state.roleId, lookups), userId: id };
  }

  /** A user's permissions are their role's; AUTHENTICATED_PERMISSIONS replaces the authenticated role's. */
  private async userGrant(roleId: number | null, lookups: AuthLookups): Promise<Grant> {
    if (roleId === null) return this.none;
    const role = (await this.currentRoles(lookups)).byId.get(roleId);
    if (!role) return this.none;
    if (role.type === 'authenticated' && this.envAuthenticated) return this.envAuthenticated;
    return role.grant;
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
