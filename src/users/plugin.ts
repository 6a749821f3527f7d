// users-permissions: register and login (local provider), /users/me and /users. Users live in Strapi's
// `up_users`, their role in `up_users_role_lnk`; the password hash never leaves this module. Strapi's
// advanced settings (core store) decide whether registering is open, the new user's role and whether
// an unconfirmed email may log in.
import type { Plugin } from '../plugins/types.ts';
import type { RestContext } from '../rest/router.ts';
import type { Caller } from '../auth/permissions.ts';
import { jsonBody, type Task } from '../task.ts';
import type { Reply } from '../rest/reply.ts';
import { methodNotAllowed } from '../rest/reply.ts';
import { ApiError, forbidden, notFound, unauthorized, validation } from '../../compiler/errors.ts';
import { isoTs } from '../../compiler/sql.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { newDocumentId } from '../db/document-id.ts';
import { RateLimiter } from './rate-limit.ts';
import { CORE_STORE, UP } from '../auth/tables.ts';

const USER_JSON = `row_to_json(x)::text as data from (select id, document_id as "documentId", username, email, provider, confirmed, blocked,
  ${isoTs('created_at')} as "createdAt", ${isoTs('updated_at')} as "updatedAt", ${isoTs('published_at')} as "publishedAt" from ${UP.users}`;
const L = UP.userRole;
// Strapi writes JavaScript Dates: millisecond precision, UTC wall-clock (the session runs in UTC).
const NOW = `date_trunc('milliseconds', now())`;

/** Strapi's users-permissions advanced settings, with the defaults its bootstrap stores. */
interface Advanced { allow_register: boolean; default_role: string; email_confirmation: boolean; unique_email: boolean }
const ADVANCED_DEFAULTS: Advanced = { allow_register: true, default_role: 'authenticated', email_confirmation: false, unique_email: true };

async function advanced(ctx: RestContext): Promise<Advanced> {
  const rows = await ctx.db.unsafe<Array<{ value: string | null }>>(`select value from ${CORE_STORE.table} where key = $1 order by id limit 1`,
    [CORE_STORE.usersPermissionsAdvanced], { prepare: true });
  ctx.count(1);
  let stored: Partial<Advanced> = {};
  try { stored = rows[0]?.value ? JSON.parse(rows[0].value) as Partial<Advanced> : {}; } catch { /* unreadable: Strapi's defaults */ }
  return { ...ADVANCED_DEFAULTS, ...stored };
}
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function body(task: Task): Record<string, unknown> {
  const v = jsonBody(task);
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  throw validation('Invalid body');
}

function required(b: Record<string, unknown>, keys: string[]): void {
  const errors = keys.filter((k) => b[k] === undefined || b[k] === null || b[k] === '')
    .map((k) => ({ path: [k], message: `${k} is a required field`, name: 'ValidationError' }));
  if (errors.length) throw validation(errors.length === 1 ? errors[0].message : `${errors.length} errors occurred`, { errors });
}

async function userJson(ctx: RestContext, where: string, params: unknown[]): Promise<string | null> {
  const rows = await ctx.db.unsafe<Array<{ data: string }>>(`select ${USER_JSON} ${where}) x`, params as never[], { prepare: true });
  ctx.count(1);
  return rows[0]?.data ?? null;
}

export function usersPlugin(rateLimit: number): Plugin {
  const limiter = new RateLimiter(rateLimit, 60_000);
  const limited = (task: Task) => {
    if (!limiter.take(task.ip ?? 'unknown')) throw new ApiError(429, 'RateLimitError', 'Too many requests, please try again later.', {});
  };

  async function register(ctx: RestContext, task: Task, caller: Caller): Promise<Reply> {
    limited(task);
    if (!ctx.auth.allowsPlugin(caller, 'plugin::users-permissions.auth.register')) throw forbidden();
    const settings = await advanced(ctx);
    if (!settings.allow_register) throw new ApiError(400, 'ApplicationError', 'Register action is currently disabled', {});
    const b = body(task);
    const extra = Object.keys(b).filter((k) => !['username', 'email', 'password'].includes(k));
    if (extra.length) throw validation(`Invalid parameters: ${extra.join(', ')}`);
    required(b, ['username', 'email', 'password']);
    const { username, email, password } = b;
    if (typeof username !== 'string' || typeof email !== 'string' || typeof password !== 'string') throw validation('username, email and password must be strings');
    if (!EMAIL.test(email)) throw validation('email must be a valid email', { errors: [{ path: ['email'], message: 'email must be a valid email', name: 'ValidationError' }] });
    if (password.length < 6) throw validation('password must be at least 6 characters', { errors: [{ path: ['password'], message: 'password must be at least 6 characters', name: 'ValidationError' }] });
    const roles = await ctx.db.unsafe<Array<{ id: number }>>(`select id from ${UP.roles} where type = $1 order by id limit 1`, [settings.default_role]);
    ctx.count(1);
    if (!roles.length) throw new ApiError(400, 'ApplicationError', 'Impossible to find the default role', {});
    // Strapi's identifier filter: either value may already be someone's email (lower-cased) or username.
    const taken = await ctx.db.unsafe(`select 1 from ${UP.users} where (email = lower($1) or username = lower($1) or username = $2 or email = $2)
      ${settings.unique_email ? '' : "and provider = 'local'"} limit 1`, [email, username]);
    ctx.count(1);
    if (taken.length) throw new ApiError(400, 'ApplicationError', 'Email or Username are already taken', {});
    const hash = await hashPassword(password);
    const id = await ctx.db.begin(async (tx) => {
      const rows = await tx.unsafe<Array<{ id: number }>>(
        `insert into ${UP.users} (document_id, username, email, provider, password, confirmed, blocked, created_at, updated_at, published_at)
         values ($1, $2, lower($3), 'local', $4, $5, false, ${NOW}, ${NOW}, ${NOW}) returning id`,
        [newDocumentId(), username, email, hash, !settings.email_confirmation]);
      // user_ord: the new user goes last in the role's list of users.
      await tx.unsafe(`insert into ${L.table} (${L.user}, ${L.role}, ${L.order})
        select $1, $2, coalesce(max(${L.order}), 0) + 1 from ${L.table} where ${L.role} = $2`, [rows[0].id, roles[0].id]);
      return Number(rows[0].id);
    });
    ctx.count(2);
    const user = await userJson(ctx, 'where id = $1', [id]);
    // With email confirmation on, Strapi answers the user without a JWT (a confirmation email would follow).
    if (settings.email_confirmation) return { status: 200, body: `{"user":${user}}` };
    return { status: 200, body: `{"jwt":${JSON.stringify(await ctx.auth.jwt.sign(id))},"user":${user}}` };
  }

  async function login(ctx: RestContext, task: Task, caller: Caller): Promise<Reply> {
    limited(task);
    if (!ctx.auth.allowsPlugin(caller, 'plugin::users-permissions.auth.callback')) throw forbidden();
    const b = body(task);
    required(b, ['identifier', 'password']);
    const { identifier, password } = b;
    if (typeof identifier !== 'string' || typeof password !== 'string') throw validation('Invalid identifier or password');
    const rows = await ctx.db.unsafe<Array<{ id: number; password: string | null; blocked: boolean | null; confirmed: boolean | null }>>(
      `select id, password, blocked, confirmed from ${UP.users} where provider = 'local' and (email = lower($1) or username = $1) order by id limit 1`, [identifier]);
    ctx.count(1);
    const ok = await verifyPassword(password, rows[0]?.password ?? null);
    if (!rows.length || !ok) throw validation('Invalid identifier or password');
    if (rows[0].confirmed !== true && (await advanced(ctx)).email_confirmation) throw new ApiError(400, 'ApplicationError', 'Your account email is not confirmed', {});
    if (rows[0].blocked === true) throw new ApiError(400, 'ApplicationError', 'Your account has been blocked by an administrator', {});
    const id = Number(rows[0].id);
    const user = await userJson(ctx, 'where id = $1', [id]);
    return { status: 200, body: `{"jwt":${JSON.stringify(await ctx.auth.jwt.sign(id))},"user":${user}}` };
  }

  async function users(ctx: RestContext, task: Task, caller: Caller): Promise<Reply> {
    const parts = task.path.split('/').filter(Boolean); // api, users, id?
    if (task.method !== 'GET') return methodNotAllowed();
    if (parts[2] === 'me') {
      if (caller.kind !== 'user' || !caller.userId || !ctx.auth.allowsPlugin(caller, 'plugin::users-permissions.user.me')) throw forbidden();
      const user = await userJson(ctx, 'where id = $1', [caller.userId]);
      if (!user) throw unauthorized();
      return { status: 200, body: user };
    }
    if (parts.length === 2) {
      if (!ctx.auth.allowsPlugin(caller, 'plugin::users-permissions.user.find')) throw forbidden();
      const rows = await ctx.db.unsafe<Array<{ data: string | null }>>(`select coalesce(json_agg(x order by x.id), '[]')::text as data from (select id, document_id as "documentId", username, email, provider, confirmed, blocked,
        ${isoTs('created_at')} as "createdAt", ${isoTs('updated_at')} as "updatedAt", ${isoTs('published_at')} as "publishedAt" from ${UP.users}) x`);
      ctx.count(1);
      return { status: 200, body: rows[0].data ?? '[]' };
    }
    if (parts.length === 3) {
      if (!ctx.auth.allowsPlugin(caller, 'plugin::users-permissions.user.findOne')) throw forbidden();
      if (!/^\d{1,9}$/.test(parts[2])) throw notFound();
      const user = await userJson(ctx, 'where id = $1', [Number(parts[2])]);
      if (!user) throw notFound();
      return { status: 200, body: user };
    }
    throw notFound();
  }

  return {
    name: 'users-permissions',
    claims: (path) => path.startsWith('/api/auth/') || path === '/api/users' || path.startsWith('/api/users/'),
    async handle(ctx, task, caller) {
      if (!caller) throw unauthorized();
      if (task.path === '/api/auth/local/register') return task.method === 'POST' ? register(ctx, task, caller) : methodNotAllowed();
      if (task.path === '/api/auth/local') return task.method === 'POST' ? login(ctx, task, caller) : methodNotAllowed();
      if (task.path.startsWith('/api/users')) return users(ctx, task, caller);
      throw notFound();
    },
  };
}
