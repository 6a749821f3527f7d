// users-permissions: register and login (local provider), /users/me and /users. Users live in
// `up_users`; the password hash never leaves this module.
import type { Plugin } from '../plugins/types.ts';
import type { RestContext } from '../rest/router.ts';
import type { Caller } from '../auth/permissions.ts';
import { jsonBody, type Task } from '../task.ts';
import type { Reply } from '../rest/reply.ts';
import { methodNotAllowed } from '../rest/reply.ts';
import { ApiError, forbidden, notFound, unauthorized, validation } from '../../compiler/errors.ts';
import { isoTs } from '../../compiler/sql.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { newDocumentId } from '../rest/write.ts';
import { RateLimiter } from './rate-limit.ts';

const USER_JSON = `row_to_json(x)::text as data from (select id, document_id as "documentId", username, email, provider, confirmed, blocked,
  ${isoTs('created_at')} as "createdAt", ${isoTs('updated_at')} as "updatedAt", ${isoTs('published_at')} as "publishedAt" from up_users`;
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

  async function register(ctx: RestContext, task: Task): Promise<Reply> {
    limited(task);
    const b = body(task);
    const extra = Object.keys(b).filter((k) => !['username', 'email', 'password'].includes(k));
    if (extra.length) throw validation(`Invalid parameters: ${extra.join(', ')}`);
    required(b, ['username', 'email', 'password']);
    const { username, email, password } = b;
    if (typeof username !== 'string' || typeof email !== 'string' || typeof password !== 'string') throw validation('username, email and password must be strings');
    if (!EMAIL.test(email)) throw validation('email must be a valid email', { errors: [{ path: ['email'], message: 'email must be a valid email', name: 'ValidationError' }] });
    if (password.length < 6) throw validation('password must be at least 6 characters', { errors: [{ path: ['password'], message: 'password must be at least 6 characters', name: 'ValidationError' }] });
    const taken = await ctx.db.unsafe('select 1 from up_users where lower(email) = lower($1) or username = $2 limit 1', [email, username]);
    ctx.count(1);
    if (taken.length) throw new ApiError(400, 'ApplicationError', 'Email or Username are already taken', {});
    const hash = await hashPassword(password);
    let id: number;
    try {
      const rows = await ctx.db.unsafe<Array<{ id: string }>>(
        `insert into up_users (document_id, username, email, provider, password, confirmed, blocked, role, published_at)
         values ($1, $2, lower($3), 'local', $4, true, false, 'authenticated', now()) returning id::text`, [newDocumentId(), username, email, hash]);
      id = Number(rows[0].id);
    } catch (e) {
      // A concurrent registration won the unique index.
      if ((e as { code?: string }).code === '23505') throw new ApiError(400, 'ApplicationError', 'Email or Username are already taken', {});
      throw e;
    }
    ctx.count(1);
    const user = await userJson(ctx, 'where id = $1::bigint', [id]);
    return { status: 200, body: `{"jwt":${JSON.stringify(await ctx.auth.jwt.sign(id))},"user":${user}}` };
  }

  async function login(ctx: RestContext, task: Task): Promise<Reply> {
    limited(task);
    const b = body(task);
    required(b, ['identifier', 'password']);
    const { identifier, password } = b;
    if (typeof identifier !== 'string' || typeof password !== 'string') throw validation('Invalid identifier or password');
    const rows = await ctx.db.unsafe<Array<{ id: string; password: string | null; blocked: boolean | null }>>(
      `select id::text, password, blocked from up_users where provider = 'local' and (lower(email) = lower($1) or username = $1) order by id limit 1`, [identifier]);
    ctx.count(1);
    const ok = await verifyPassword(password, rows[0]?.password ?? null);
    if (!rows.length || !ok) throw validation('Invalid identifier or password');
    if (rows[0].blocked) throw new ApiError(400, 'ApplicationError', 'Your account has been blocked by an administrator', {});
    const id = Number(rows[0].id);
    const user = await userJson(ctx, 'where id = $1::bigint', [id]);
    return { status: 200, body: `{"jwt":${JSON.stringify(await ctx.auth.jwt.sign(id))},"user":${user}}` };
  }

  async function users(ctx: RestContext, task: Task, caller: Caller): Promise<Reply> {
    const parts = task.path.split('/').filter(Boolean); // api, users, id?
    if (task.method !== 'GET') return methodNotAllowed();
    if (parts[2] === 'me') {
      if (caller.kind !== 'user' || !caller.userId) throw forbidden();
      const user = await userJson(ctx, 'where id = $1::bigint', [caller.userId]);
      if (!user) throw unauthorized();
      return { status: 200, body: user };
    }
    if (parts.length === 2) {
      if (!ctx.auth.allowsPlugin(caller, 'plugin::users-permissions.user.find')) throw forbidden();
      const rows = await ctx.db.unsafe<Array<{ data: string | null }>>(`select coalesce(json_agg(x order by x.id), '[]')::text as data from (select id, document_id as "documentId", username, email, provider, confirmed, blocked,
        ${isoTs('created_at')} as "createdAt", ${isoTs('updated_at')} as "updatedAt", ${isoTs('published_at')} as "publishedAt" from up_users) x`);
      ctx.count(1);
      return { status: 200, body: rows[0].data ?? '[]' };
    }
    if (parts.length === 3) {
      if (!ctx.auth.allowsPlugin(caller, 'plugin::users-permissions.user.findOne')) throw forbidden();
      if (!/^\d+$/.test(parts[2])) throw notFound();
      const user = await userJson(ctx, 'where id = $1::bigint', [parts[2]]);
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
      if (task.path === '/api/auth/local/register') return task.method === 'POST' ? register(ctx, task) : methodNotAllowed();
      if (task.path === '/api/auth/local') return task.method === 'POST' ? login(ctx, task) : methodNotAllowed();
      if (task.path.startsWith('/api/users')) return users(ctx, task, caller);
      throw notFound();
    },
  };
}
