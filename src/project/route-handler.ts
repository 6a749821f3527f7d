// Runs a matched project route as Strapi's chain runs it: authorization (the route's scope, or none with
// `auth: false`), ctx.state as Strapi's authentication leaves it, policies, route middlewares, the action;
// then ctx's answer. Errors become Strapi's envelope (a thrown non-API error: 500, logged with the route).
import { ApiError, forbidden, notFound, unauthorized } from '../../compiler/errors.ts';
import type { Caller } from '../auth/permissions.ts';
import { toApiError } from '../db/errors.ts';
import { log } from '../log.ts';
import { errorReply, methodNotAllowed, type Reply } from '../rest/reply.ts';
import type { RestContext } from '../rest/router.ts';
import { wantsV4 } from '../rest/v4-format.ts';
import type { Task } from '../task.ts';
import { requestBody } from '../request-body.ts';
import type { UsersQuery } from '../users/users-query.ts';
import { compose } from './compose.ts';
import { coreAction } from './core-action.ts';
import { LINK, type LinkedContext } from './core.ts';
import { KoaContext, type KoaState } from './ctx.ts';
import { ctxReply } from './ctx-reply.ts';
import { PolicyError } from './errors.ts';
import type { Match, ProjectRoute } from './project-route.ts';
import { v4Format } from './request-format.ts';

const NO_ACCESS = { key: 'project:no-auth', canRead: () => false };
/** Reads ctx.state.user with its role whatever the caller may read (the strategy reads it so). */
const FULL: Caller = { kind: 'token', grant: { all: true, perms: new Set() } };
/**
 * Whom a plugin's native action runs as behind an `auth: false` route: Strapi authenticates no one there
 * (no ctx.state.auth, no ctx.state.user), so its controllers check no permission and sanitize with no
 * ability — every action is allowed, private fields still go — and those needing a user (`me`,
 * `changePassword`) find none. Not a users-permissions user, whatever the request's JWT says.
 */
const UNAUTHENTICATED: Caller = { kind: 'token', grant: { all: true, perms: new Set() } };

export class RouteHandler {
  /** `users` reads ctx.state.user (the user with its role, as users-permissions' strategy fetches it). */
  constructor(private strapiApi: unknown, private users: UsersQuery) {}

  /** Runs a matched route. Errors become Strapi's envelope (a thrown non-API error: 500, logged with the route). */
  async handle(rest: RestContext, task: Task, caller: Caller | null, m: Match, state?: KoaState): Promise<Reply> {
    if (!m.route) return m.status === 405 ? methodNotAllowed() : errorReply(notFound());
    const r = m.route;
    if (r.closed) return errorReply(new ApiError(501, 'NotImplementedError', `This route's project code cannot run on this server (${r.file}: ${r.closed})`, {}));
    try {
      if (r.scope !== null) {
        if (!caller) throw unauthorized();
        if (r.scope.length === 0 && caller.kind === 'public') throw unauthorized();
        if (!r.scope.every((s) => caller.grant.all || caller.grant.perms.has(s))) throw forbidden();
      }
      rest.access = r.scope === null ? NO_ACCESS : rest.auth.access(caller!);
      // One statement more for a logged-in user, as Strapi's strategy reads the user on every request.
      const user = r.scope !== null && caller?.kind === 'user' ? await this.readUser(rest, caller, state) : null;
      const ctx = this.context(rest, task, r.scope === null ? null : caller, m.params, r, user, state);
      if (wantsV4(task.headers)) await v4Format.run(true, () => this.run(r, ctx));
      else await this.run(r, ctx);
      return ctxReply(ctx, r, rest, task);
    } catch (e) {
      // Strapi's errors and the database's (503…) answer as everywhere; anything else is the project's bug: 500, logged with its route.
      if (e instanceof ApiError || typeof (e as { code?: unknown })?.code === 'string') return errorReply(toApiError(e));
      log.error('project code failed', { route: `${r.method} ${r.path}`, file: r.file, error: String((e as Error)?.stack ?? e) });
      // Strapi's formatInternalError: an http-errors 500, whose envelope has no details.
      return errorReply(new ApiError(500, 'InternalServerError', 'Internal Server Error', null));
    }
  }

  /** ctx.state of an authenticated caller, as Strapi's authentication leaves it (global middlewares read it after next()). */
  fillState(rest: RestContext, caller: Caller | null, state: KoaState): Promise<void> | void {
    if (!caller || state.auth) return;
    // Only a users-permissions caller costs a read (and a promise).
    if (caller.kind !== 'user') return setState(state, caller, null);
    return this.readUser(rest, caller, state).then((user) => setState(state, caller, user));
  }

  /** ctx.state.user: the user with its role, read once per request (a global middleware's ctx may have it already). */
  private async readUser(rest: RestContext, caller: Caller, state?: KoaState): Promise<Record<string, unknown> | null> {
    if (state?.user) return state.user;
    const user = await this.users.one(rest, FULL, caller.userId!, 'populate=role');
    return user ? JSON.parse(user.toString('utf8')) as Record<string, unknown> : null;
  }

  private context(rest: RestContext, task: Task, caller: Caller | null, params: Record<string, string>, r: ProjectRoute, user: Record<string, unknown> | null, state?: KoaState): LinkedContext {
    const body = requestBody(task);
    const ctx: LinkedContext = new KoaContext({
      method: task.method, path: task.path, querystring: task.query, headers: task.headers ?? {}, ip: task.ip, params, body,
      parse: (raw) => rest.compiler.parse(raw), caller, state,
    });
    // The caller the plugin's native actions check their permission with: the request's, none behind `auth: false`.
    ctx[LINK] = { rest, task, canRead: rest.access!.canRead, caller: r.scope === null ? UNAUTHENTICATED : caller };
    // The request's reads and writes take the route's own Content API params (the request's own context).
    rest.route = r.params ?? null;
    ctx.state.route = { method: r.method, path: r.declared, handler: r.handler, config: r.config, info: r.plugin ? { pluginName: r.plugin, type: 'content-api' } : { apiName: r.apiName, type: 'content-api' } };
    if (caller) setState(ctx.state, caller, user);
    return ctx;
  }

  /** policies, then middlewares, then the action (its return value becomes the body unless one was set). */
  private async run(r: ProjectRoute, ctx: LinkedContext): Promise<void> {
    if (r.policies.length) {
      const policyContext = Object.assign({ is: (t: string) => t === 'koa', type: 'koa' }, {
        request: ctx.request, response: ctx.response, state: ctx.state, params: ctx.params, query: ctx.query, app: undefined,
      });
      for (const p of r.policies) {
        const result = await p.handler(policyContext, p.config, { strapi: this.strapiApi });
        if (result !== true && result !== undefined) throw new PolicyError();
      }
    }
    const action = async () => {
      const value = r.core ? await coreAction(ctx, r.core) : await r.action(ctx, async () => undefined);
      if (!ctx.bodyIsSet() && value !== undefined && value !== null) ctx.body = value;
    };
    if (r.middlewares.length) await compose(r.middlewares)(ctx, action);
    else await action();
  }
}

/** Strapi's ctx.state of an authenticated caller. */
function setState(state: KoaState, caller: Caller, user: Record<string, unknown> | null): void {
  if (user) state.user = user;
  state.isAuthenticated = true;
  state.auth = { strategy: { name: caller.kind === 'token' ? 'content-api-token' : 'users-permissions' }, credentials: user, ability: null };
}
