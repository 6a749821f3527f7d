// Strapi's auth data: roles with their permissions, stored API tokens with theirs, a JWT user's state and
// role (each read one statement; the Authorizer decides how often they run), and a new token's row.
import type { Sql } from 'postgres';
import { API_TOKENS, CORE_STORE, UP } from './tables.ts';
import { newDocumentId } from '../db/document-id.ts';

export interface RoleRow { id: number; type: string; actions: string[] }
export interface TokenRow { id: number; kind: string | null; type: string; expired: boolean; lastUsedAt: Date | null; actions: string[] }
export interface UserState {
  blocked: boolean;
  roleId: number | null;
  confirmed: boolean;
  /** users-permissions' stored `email_confirmation` setting (null: none stored, Strapi's default false). */
  emailConfirmation: boolean | null;
}

const P = UP.permissionRole;
const T = API_TOKENS.permissionToken;
const L = UP.userRole;

const ROLES_SQL = `select r.id, r.type, coalesce(array_agg(p.action order by p.action) filter (where p.action is not null), '{}') as actions
  from ${UP.roles} r left join ${P.table} l on l.${P.role} = r.id left join ${UP.permissions} p on p.id = l.${P.permission}
  group by r.id, r.type order by r.id`;

export async function loadRoles(db: Sql): Promise<RoleRow[]> {
  const rows = await db.unsafe<Array<{ id: number; type: string | null; actions: string[] }>>(ROLES_SQL, [], { prepare: true });
  return rows.map((r) => ({ id: Number(r.id), type: r.type ?? '', actions: r.actions }));
}

const TOKEN_SQL = `select t.id, t.kind, t.type, (t.expires_at is not null and t.expires_at < now()) as expired, t.last_used_at,
    coalesce((select array_agg(p.action order by p.action) from ${T.table} l join ${API_TOKENS.permissions} p on p.id = l.${T.permission}
      where l.${T.token} = t.id), '{}') as actions
  from ${API_TOKENS.table} t where t.access_key = $1 order by t.id limit 1`;

/** The stored token whose access_key is this HMAC (hex), expired or not. */
export async function findToken(db: Sql, accessKeyHash: string): Promise<TokenRow | null> {
  const rows = await db.unsafe<Array<{ id: number; kind: string | null; type: string; expired: boolean; last_used_at: Date | null; actions: string[] }>>(
    TOKEN_SQL, [accessKeyHash], { prepare: true });
  const r = rows[0];
  return r ? { id: Number(r.id), kind: r.kind, type: r.type, expired: r.expired, lastUsedAt: r.last_used_at, actions: r.actions } : null;
}

/**
 * Strapi's updateLastUsedAt: written when never used or last used an hour or more ago (with updated_at,
 * as Strapi's query layer does). The condition in SQL keeps several workers and nodes from repeating it.
 */
export async function touchToken(db: Sql, id: number): Promise<void> {
  await db.unsafe(`update ${API_TOKENS.table} set last_used_at = date_trunc('milliseconds', now()), updated_at = date_trunc('milliseconds', now())
    where id = $1 and (last_used_at is null or last_used_at <= now() - interval '1 hour')`, [id], { prepare: true });
}

// The advanced settings ride along: a JWT of an unconfirmed user is refused while email confirmation is on.
const USER_SQL = `select u.blocked, u.confirmed, (select l.${L.role} from ${L.table} l where l.${L.user} = u.id order by l.id limit 1) as role_id,
    (select s.value from ${CORE_STORE.table} s where s.key = '${CORE_STORE.usersPermissionsAdvanced}' order by s.id limit 1) as advanced
  from ${UP.users} u where u.id = $1`;

function storedEmailConfirmation(text: string | null): boolean | null {
  if (!text) return null;
  try {
    const v = (JSON.parse(text) as { email_confirmation?: unknown } | null)?.email_confirmation;
    return typeof v === 'boolean' ? v : null;
  } catch {
    return null;
  }
}

/** A user's blocked flag and role, or null when there is no such user. */
export async function userState(db: Sql, id: number): Promise<UserState | null> {
  // Ids are PostgreSQL integers: a larger one (a forged JWT) names no user rather than failing the cast.
  if (id > 2147483647) return null;
  const rows = await db.unsafe<Array<{ blocked: boolean | null; confirmed: boolean | null; role_id: number | null; advanced: string | null }>>(USER_SQL, [id], { prepare: true });
  const r = rows[0];
  return r ? { blocked: r.blocked === true, roleId: r.role_id === null ? null : Number(r.role_id), confirmed: r.confirmed === true, emailConfirmation: storedEmailConfirmation(r.advanced) } : null;
}

export interface NewToken { name: string; description: string; type: string; accessKeyHash: string; encryptedKey: string | null; lifespan: number | null }

/**
 * A content-api token's row as Strapi's admin writes it (expiry from the lifespan in milliseconds, null:
 * unlimited): the token CLI's and a project bootstrap's `admin::api-token` service's.
 */
export async function insertToken(db: Pick<Sql, 'unsafe'>, t: NewToken): Promise<number> {
  const now = `date_trunc('milliseconds', now())`;
  const [row] = await db.unsafe<Array<{ id: number }>>(
    `insert into ${API_TOKENS.table} (document_id, name, description, kind, type, access_key, encrypted_key, lifespan, expires_at, created_at, updated_at, published_at)
     values ($1, $2, $3, 'content-api', $4, $5, $6, $7::bigint, ${now} + ($7::bigint * interval '1 millisecond'), ${now}, ${now}, ${now}) returning id`,
    [newDocumentId(), t.name, t.description, t.type, t.accessKeyHash, t.encryptedKey, t.lifespan === null ? null : String(t.lifespan)]);
  return Number(row.id);
}
