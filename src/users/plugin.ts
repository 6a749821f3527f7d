// users-permissions: routes of Strapi 5.54's content API (auth, users, roles, permissions), each
// behind its users-permissions action. Users live in Strapi's `up_users`, their role in
// `up_users_role_lnk`; password hashes and tokens never leave these modules. Strapi's advanced settings
// (core store, config over it) decide whether registering is open, the new user's role and whether an
// email must be confirmed.
import type { Sql, TransactionSql } from 'postgres';
import type { Plugin } from '../plugins/types.ts';
import type { RestContext } from '../rest/router.ts';
import type { Caller } from '../auth/permissions.ts';
import type { Config } from '../../config.ts';
import type { Schema } from '../../compiler/schema.ts';
import type { Task } from '../task.ts';
import { requestBody } from '../request-body.ts';
import type { Reply } from '../rest/reply.ts';
import { methodNotAllowed, noContent } from '../rest/reply.ts';
import { ApiError, forbidden, notFound, unauthorized, validation } from '../../compiler/errors.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { newDocumentId } from '../db/document-id.ts';
import { RateLimiter, authRateKey } from './rate-limit.ts';
import { UP } from '../auth/tables.ts';
import { emailProvider } from '../email/index.ts';
import { enabledProviders, readAdvanced } from './settings.ts';
import { userId, userJson } from './user-json.ts';
import { UsersQuery } from './users-query.ts';
import { addedColumns, writeAddedLinks } from './user-columns.ts';
import { objectBody, validate } from './validate.ts';
import * as account from './account.ts';
import { createUser, deleteUser, updateUser } from './users-crud.ts';
import { lockIdentities } from './identity-lock.ts';
import { userWritten } from './announce.ts';
import { addUser, sanitizedUser } from './user-documents.ts';
import { modelChecks } from './user-write.ts';
import type { Body } from './validate.ts';
import { createRole, deleteRole, findRole, listRoles, permissionsReply, roleId, updateRole } from './roles.ts';

const L = UP.userRole;
// Strapi writes JavaScript Dates: millisecond precision, UTC wall-clock (the session runs in UTC).
const NOW = `date_trunc('milliseconds', now())`;
const UPP = 'plugin::users-permissions';


/** The users-permissions plugin; GraphQL's `emailConfirmation` mutation answers `{jwt, user}` through it. */
export interface UsersPlugin extends Plugin {
  emailConfirmation(ctx: RestContext, caller: Caller, confirmation: unknown): Promise<Reply>;
}

export function isUsersPlugin(p: Plugin): p is UsersPlugin {
  return typeof (p as Partial<UsersPlugin>).emailConfirmation === 'function';
}

export function usersPlugin(config: Config, schema: Schema): UsersPlugin {
  const query = new UsersQuery(schema, config);
  const limiter = new RateLimiter(config.auth.authRateLimit, 60_000);
  const deps: account.AccountDeps = { config, email: emailProvider(config.email) };
  const limited = (task: Task) => {
    // A body that is no JSON has no email: its own error comes later.
    const bodyOf = () => { try { return requestBody(task); } catch { return null; } };
    if (!limiter.take(authRateKey(task.rateLimitPath ?? task.path, bodyOf, task.ip ?? 'unknown'))) throw new ApiError(429, 'RateLimitError', 'Too many requests, please try again later.', {});
  };
  const allow = (ctx: RestContext, caller: Caller, action: string) => {
    if (!ctx.auth.allowsPlugin(caller, `${UPP}.${action}`)) throw forbidden();
  };
  const body = (task: Task) => objectBody(requestBody(task));

  async function register(ctx: RestContext, task: Task, caller: Caller): Promise<Reply> {
    limited(task);
    allow(ctx, caller, 'auth.register');
    const settings = await readAdvanced(ctx.db, config.usersPermissions);
    ctx.count(1);
    if (!settings.allow_register) throw new ApiError(400, 'ApplicationError', 'Register action is currently disabled', {});
    const b = body(task);
    // Strapi 5.54: username, email, password and the config's `register.allowedFields` (any attribute, private ones too).
    const allowed = new Set(['username', 'email', 'password', ...config.usersPermissions.registerAllowedFields]);
    const extra = Object.keys(b).filter((k) => !allowed.has(k));
    if (extra.length) throw validation(`Invalid parameters: ${extra.join(', ')}`);
    const added = addedColumns(schema, b, { only: allowed, withDefaults: true });
    // The plugin's register schema, in its key order.
    const { username, email, password } = validate(b, [{ key: 'email', required: true, email: true }, { key: 'username', required: true }, { key: 'password', required: true, maxBytes72: true }], { plugin: true });
    const roles = await ctx.db.unsafe<Array<{ id: number }>>(`select id from ${UP.roles} where type = $1 order by id limit 1`, [settings.default_role]);
    ctx.count(1);
    if (!roles.length) throw new ApiError(400, 'ApplicationError', 'Impossible to find the default role', {});
    // Strapi's identifier filter: either value may already be someone's email (lower-cased) or username.
    const takenBy = async (db: Sql | TransactionSql, e: unknown, u: unknown) => {
      const rows = await db.unsafe(`select 1 from ${UP.users} where (email = lower($1) or username = lower($1) or username = $2 or email = $2)
        ${settings.unique_email ? '' : "and provider = 'local'"} limit 1`, [typeof e === 'string' ? e : null, typeof u === 'string' ? u : null]);
      ctx.count(1);
      if (rows.length) throw new ApiError(400, 'ApplicationError', 'Email or Username are already taken', {});
    };
    const taken = (db: Sql | TransactionSql) => takenBy(db, email, username);
    // Checked first without a lock, so that a taken name costs no password hash.
    await taken(ctx.db);
    if (ctx.userDocuments) {
      // Strapi's controller: the allowed keys picked in their order, then provider, the default role, the
      // email lower-cased, confirmed; its user service add is the document service's create.
      const data: Body = {};
      for (const k of ['username', 'password', 'email', ...config.usersPermissions.registerAllowedFields]) if (k in b) data[k] = b[k];
      Object.assign(data, { provider: 'local', role: roles[0].id, email: email.toLowerCase(), username, confirmed: !settings.email_confirmation });
      const { result } = await addUser(ctx, ctx.userDocuments, data, (tx, d) => takenBy(tx, d.email, d.username));
      return registered(ctx, settings.email_confirmation, Number((result as { id?: unknown } | null)?.id), sanitizedUser(result, false));
    }
    // The user model's own rules (username ≥ 3, email ≥ 6, password ≥ 6 characters): Strapi's document
    // service checks them when its user service adds the user, after the taken check.
    modelChecks({ username, email: email.toLowerCase(), password, provider: 'local' });
    const hash = await hashPassword(password);
    const documentId = newDocumentId();
    const id = await ctx.db.begin(async (tx) => {
      // Again under the locks of both values: a registration of the same name may have committed meanwhile.
      ctx.count(await lockIdentities(tx, [username, email]));
      await taken(tx);
      const rows = await tx.unsafe<Array<{ id: number }>>(
        `insert into ${UP.users} (document_id, username, email, provider, password, confirmed, blocked, ${added.map(([c]) => `${c}, `).join('')}created_at, updated_at, published_at)
         values ($1, $2, lower($3), 'local', $4, $5, false, ${added.map((_, i) => `$${i + 6}, `).join('')}${NOW}, ${NOW}, ${NOW}) returning id`,
        [documentId, username, email, hash, !settings.email_confirmation, ...added.map(([, v]) => v)] as never[]);
      ctx.count(await writeAddedLinks(schema, tx, Number(rows[0].id), documentId, b, true, allowed));
      // user_ord: the new user goes last in the role's list of users.
      await tx.unsafe(`insert into ${L.table} (${L.user}, ${L.role}, ${L.order})
        select $1, $2, coalesce(max(${L.order}), 0) + 1 from ${L.table} where ${L.role} = $2`, [rows[0].id, roles[0].id]);
      return Number(rows[0].id);
    });
    ctx.count(2);
    userWritten(ctx, 'entry.create', id);
    const user = await userJson(ctx, id);
    ctx.count(1);
    return registered(ctx, settings.email_confirmation, id, user);
  }

  /** A registration's answer: `{jwt, user}`, or with email confirmation on `{user}` once the link is mailed. */
  async function registered(ctx: RestContext, confirm: boolean | null | undefined, id: number, user: string | null): Promise<Reply> {
    if (confirm) {
      try {
        await account.sendConfirmationEmail(deps, ctx, id);
      } catch {
        throw new ApiError(400, 'ApplicationError', 'Error sending confirmation email', {});
      }
      return { status: 200, body: `{"user":${user}}` };
    }
    return { status: 200, body: `{"jwt":${JSON.stringify(await ctx.auth.jwt.sign(id))},"user":${user}}` };
  }

  async function login(ctx: RestContext, task: Task, caller: Caller): Promise<Reply> {
    limited(task);
    allow(ctx, caller, 'auth.callback');
    const b = body(task);
    const { identifier, password } = validate(b, [{ key: 'identifier', required: true }, { key: 'password', required: true }], { plugin: true });
    const rows = await ctx.db.unsafe<Array<{ id: number; password: string | null; blocked: boolean | null; confirmed: boolean | null }>>(
      `select id, password, blocked, confirmed from ${UP.users} where provider = 'local' and (email = lower($1) or username = $1) order by id limit 1`, [identifier]);
    ctx.count(1);
    const ok = await verifyPassword(password, rows[0]?.password ?? null);
    if (!rows.length || !ok) throw validation('Invalid identifier or password');
    if (rows[0].confirmed !== true && (await readAdvanced(ctx.db, config.usersPermissions)).email_confirmation) throw new ApiError(400, 'ApplicationError', 'Your account email is not confirmed');
    if (rows[0].blocked === true) throw new ApiError(400, 'ApplicationError', 'Your account has been blocked by an administrator', {});
    const id = Number(rows[0].id);
    const user = await userJson(ctx, id);
    ctx.count(1);
    return { status: 200, body: `{"jwt":${JSON.stringify(await ctx.auth.jwt.sign(id))},"user":${user}}` };
  }

  async function auth(ctx: RestContext, task: Task, caller: Caller, route: string): Promise<Reply> {
    const post = (action: string, run: () => Promise<Reply>, rateLimited = true) => {
      if (task.method !== 'POST') return methodNotAllowed();
      if (rateLimited) limited(task);
      allow(ctx, caller, action);
      return run();
    };
    switch (route) {
      case 'local/register': return task.method === 'POST' ? register(ctx, task, caller) : methodNotAllowed();
      case 'local': return task.method === 'POST' ? login(ctx, task, caller) : methodNotAllowed();
      case 'forgot-password': return post('auth.forgotPassword', () => account.forgotPassword(deps, ctx, body(task)));
      case 'reset-password': return post('auth.resetPassword', () => account.resetPassword(ctx, body(task)));
      case 'change-password': return post('auth.changePassword', () => account.changePassword(ctx, caller, body(task)));
      case 'send-email-confirmation': return post('auth.sendEmailConfirmation', () => account.sendEmailConfirmation(deps, ctx, body(task)));
      case 'email-confirmation': {
        if (task.method !== 'GET') return methodNotAllowed();
        allow(ctx, caller, 'auth.emailConfirmation');
        const values = new URLSearchParams(task.query).getAll('confirmation');
        return account.emailConfirmation(deps, ctx, values.length > 1 ? values : values[0], false);
      }
    }
    // Strapi 5.54's session routes: answered only with `jwtManagement: 'refresh'`, which this server does not
    // serve; in Strapi's default (legacy) mode each is its action's 403, else a 404 (checked live).
    const session = route === 'refresh' || route === 'logout' ? ['POST', route] : route === 'sessions' ? ['GET', 'getSessions'] : /^sessions\/[^/]+$/.test(route) ? ['DELETE', 'revokeSession'] : null;
    if (session) {
      // Another method: 405 on /sessions, a 404 on the others (checked live: POST /sessions, GET /logout, /refresh, /sessions/1).
      if (task.method !== session[0]) { if (route === 'sessions') return methodNotAllowed(); throw notFound(); }
      allow(ctx, caller, `auth.${session[1]}`);
      throw notFound();
    }
    const callback = /^([^/]+)\/callback$/.exec(route);
    if (callback) {
      if (task.method !== 'GET') return methodNotAllowed();
      // `local` through Strapi's callback route reads the (empty) body of a GET.
      if (callback[1] === 'local') return login(ctx, { ...task, body: null }, caller);
      limited(task);
      allow(ctx, caller, 'auth.callback');
      return providerCallback(ctx, callback[1]);
    }
    throw notFound();
  }

  /**
   * `GET /api/connect/<provider>`: Strapi's redirect to the provider's sign-in page (grant), with the session its
   * callback then needs. A disabled provider is its error, `email` no OAuth provider (checked live); an enabled
   * OAuth provider is Strapi's to serve: this server keeps no grant sessions.
   */
  async function connect(ctx: RestContext, task: Task, caller: Caller, provider: string): Promise<Reply> {
    if (task.method !== 'GET') return methodNotAllowed();
    limited(task);
    allow(ctx, caller, 'auth.connect');
    const enabled = (await enabledProviders(ctx.db)).has(provider);
    ctx.count(1);
    if (!enabled) throw new ApiError(400, 'ApplicationError', 'This provider is disabled', {});
    if (provider === 'email') throw new ApiError(400, 'ApplicationError', 'Unknown OAuth provider', {});
    throw new ApiError(501, 'NotImplementedError', `Signing in with ${provider} runs on Strapi (its grant session): send /api/connect/${provider} and its callback to Strapi`, {});
  }

  /**
   * A third-party provider's callback (also `login(input: {provider})` in GraphQL). Strapi 5.54 signs in only
   * with the grant session its `/api/connect` redirect opened, which this server never opens: a disabled
   * provider is its own error, an enabled one the missing session's (checked live).
   */
  async function providerCallback(ctx: RestContext, provider: string): Promise<Reply> {
    const enabled = (await enabledProviders(ctx.db)).has(provider);
    ctx.count(1);
    throw new ApiError(400, 'ApplicationError', enabled ? 'OAuth authentication requires a completed provider session' : 'This provider is disabled', {});
  }

  async function users(ctx: RestContext, task: Task, caller: Caller, rest: string[]): Promise<Reply> {
    const withRole = ctx.auth.allowsPlugin(caller, `${UPP}.role.find`);
    const m = task.method;
    if (rest.length === 0) {
      if (m === 'GET') { allow(ctx, caller, 'user.find'); return { status: 200, body: await query.list(ctx, caller, task.query) }; }
      if (m === 'POST') { allow(ctx, caller, 'user.create'); return createUser(ctx, config, body(task), withRole); }
      return methodNotAllowed();
    }
    if (rest.length !== 1) throw notFound();
    if (rest[0] === 'me' && m === 'GET') {
      if (!ctx.auth.allowsPlugin(caller, `${UPP}.user.me`)) throw forbidden();
      // Allowed but no user behind the caller (a full-access API token, a public role granted `me`): Strapi's
      // controller answers `ctx.unauthorized()` (checked live on 5.54).
      if (caller.kind !== 'user' || !caller.userId) throw new ApiError(401, 'UnauthorizedError', 'Unauthorized', {});
      const user = await query.one(ctx, caller, caller.userId, task.query);
      if (!user) throw unauthorized();
      return { status: 200, body: user };
    }
    if (rest[0] === 'count' && m === 'GET') { allow(ctx, caller, 'user.count'); return { status: 200, body: String(await query.count(ctx, caller, task.query)) }; }
    const id = userId(rest[0]);
    switch (m) {
      case 'GET': {
        allow(ctx, caller, 'user.findOne');
        if (id === null) throw notFound();
        // Strapi answers a user the filters exclude, or none, with an empty 204.
        const user = await query.one(ctx, caller, id, task.query);
        return user ? { status: 200, body: user } : noContent();
      }
      case 'PUT': allow(ctx, caller, 'user.update'); return updateUser(ctx, config, id, body(task), withRole);
      case 'DELETE': allow(ctx, caller, 'user.destroy'); return deleteUser(ctx, id);
    }
    return methodNotAllowed();
  }

  async function usersPermissions(ctx: RestContext, task: Task, caller: Caller, rest: string[]): Promise<Reply> {
    const m = task.method;
    if (rest[0] === 'permissions' && rest.length === 1) {
      if (m !== 'GET') return methodNotAllowed();
      allow(ctx, caller, 'permissions.getPermissions');
      return permissionsReply(schema);
    }
    if (rest[0] !== 'roles' || rest.length > 2) throw notFound();
    if (rest.length === 1) {
      if (m === 'GET') { allow(ctx, caller, 'role.find'); return listRoles(ctx); }
      if (m === 'POST') { allow(ctx, caller, 'role.createRole'); return createRole(ctx, body(task)); }
      return methodNotAllowed();
    }
    const id = roleId(rest[1]);
    switch (m) {
      case 'GET': allow(ctx, caller, 'role.findOne'); return findRole(ctx, schema, id);
      case 'PUT': allow(ctx, caller, 'role.updateRole'); return updateRole(ctx, id, body(task));
      case 'DELETE': allow(ctx, caller, 'role.deleteRole'); return deleteRole(ctx, id);
    }
    return methodNotAllowed();
  }

  return {
    name: 'users-permissions',
    claims: (path) => path.startsWith('/api/auth/') || path.startsWith('/api/connect/') || path === '/api/users' || path.startsWith('/api/users/') || path.startsWith('/api/users-permissions/'),
    async handle(ctx, task, caller) {
      if (!caller) throw unauthorized();
      const parts = task.path.split('/').filter(Boolean).map((p) => { try { return decodeURIComponent(p); } catch { return p; } });
      if (parts[1] === 'auth') return auth(ctx, task, caller, parts.slice(2).join('/'));
      if (parts[1] === 'users') return users(ctx, task, caller, parts.slice(2));
      if (parts[1] === 'users-permissions') return usersPermissions(ctx, task, caller, parts.slice(2));
      if (parts[1] === 'connect' && parts.length > 2) return connect(ctx, task, caller, parts[2]);
      throw notFound();
    },
    async emailConfirmation(ctx, caller, confirmation) {
      allow(ctx, caller, 'auth.emailConfirmation');
      return account.emailConfirmation(deps, ctx, confirmation, true);
    },
  };
}
