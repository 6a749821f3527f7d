// users-permissions' GraphQL CRUD mutations, as Strapi 5.54's plugin declares them (both shapes):
// createUsersPermissionsUser / update / delete answer `UsersPermissionsUserEntityResponse {data}`,
// the role mutations `{ok: true}`. Each runs the REST handler of the same route (its checks, messages
// and transaction) behind the same users-permissions action; the user is then read back with the
// operation's own selection (one statement, as every root field).
import type { GraphQLResolveInfo } from 'graphql';
import type { ContentType } from '../../compiler/schema.ts';
import { ApiError } from '../../compiler/errors.ts';
import type { Plugin } from '../plugins/types.ts';
import type { Task } from '../task.ts';
import { bodyText } from '../rest/reply.ts';
import type { Args } from './plan.ts';
import type { AuthCheck, GqlContext } from './context.ts';

type Resolver = (source: unknown, args: Args, ctx: GqlContext, info: GraphQLResolveInfo) => unknown;
type Row = Record<string, unknown>;

const UPP = 'plugin::users-permissions';

export interface UsersMutationDeps {
  users: Plugin;
  usersType: ContentType;
  /** One user of the users type, selected as `info` asks (v4: the entity), or null. */
  readOne: (ctx: GqlContext, ct: ContentType, args: Args, info: GraphQLResolveInfo) => Promise<unknown>;
}

const asRow = (v: unknown): Row => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Row) : {});

/** The input as the REST body (Strapi hands `toPlainObject(args.data)` to its controller); `publishedAt`/`locale` are no user or role attributes. */
function body(data: unknown): Row {
  const { publishedAt: _p, locale: _l, ...rest } = asRow(data);
  return rest;
}

/** An `ID!` argument as a path segment (the REST route parses it: not a number → not found). */
const idSegment = (id: unknown) => encodeURIComponent(typeof id === 'string' || typeof id === 'number' ? String(id) : '');

export function usersPermissionsMutations(d: UsersMutationDeps): { Mutation: Record<string, Resolver>; auth: Map<string, AuthCheck> } {
  const auth = new Map<string, AuthCheck>();
  const action = (a: string): AuthCheck => (ctx) => ctx.rest.auth.allowsPlugin(ctx.caller, `${UPP}.${a}`);
  auth.set('Mutation.createUsersPermissionsRole', action('role.createRole'));
  auth.set('Mutation.updateUsersPermissionsRole', action('role.updateRole'));
  auth.set('Mutation.deleteUsersPermissionsRole', action('role.deleteRole'));
  auth.set('Mutation.createUsersPermissionsUser', action('user.create'));
  auth.set('Mutation.updateUsersPermissionsUser', action('user.update'));
  auth.set('Mutation.deleteUsersPermissionsUser', action('user.destroy'));

  const call = async (ctx: GqlContext, method: string, path: string, data?: Row): Promise<{ status: number; body: Row | null }> => {
    const task: Task = {
      method, path, query: '', contentType: 'application/json', ip: ctx.task.ip, authorization: ctx.task.authorization,
      body: data === undefined ? null : new TextEncoder().encode(JSON.stringify(data)),
    };
    const reply = await d.users.handle(ctx.rest, task, ctx.caller);
    const text = bodyText(reply);
    return { status: reply.status, body: text ? asRow(JSON.parse(text)) : null };
  };
  const byId = (id: unknown): Args => ({ filters: { id: { eq: String(id) } } });
  const userOf = async (ctx: GqlContext, info: GraphQLResolveInfo, id: unknown) => ({ data: (await d.readOne(ctx, d.usersType, byId(id), info)) ?? null });

  const Mutation: Record<string, Resolver> = {
    createUsersPermissionsRole: async (_s, args, ctx) => {
      await call(ctx, 'POST', '/api/users-permissions/roles', body(args.data));
      return { ok: true };
    },
    updateUsersPermissionsRole: async (_s, args, ctx) => {
      // Strapi adds the role's id to the body (`role`), which its update ignores.
      await call(ctx, 'PUT', `/api/users-permissions/roles/${idSegment(args.id)}`, body(args.data));
      return { ok: true };
    },
    deleteUsersPermissionsRole: async (_s, args, ctx) => {
      await call(ctx, 'DELETE', `/api/users-permissions/roles/${idSegment(args.id)}`);
      return { ok: true };
    },
    createUsersPermissionsUser: async (_s, args, ctx, info) => {
      const r = await call(ctx, 'POST', '/api/users', body(args.data));
      // Strapi's resolver runs the REST controller on the request's own Koa context: its 201 stays (checked live).
      ctx.httpStatus = 201;
      return userOf(ctx, info, r.body?.id);
    },
    updateUsersPermissionsUser: async (_s, args, ctx, info) => {
      const r = await call(ctx, 'PUT', `/api/users/${idSegment(args.id)}`, body(args.data));
      return userOf(ctx, info, r.body?.id);
    },
    deleteUsersPermissionsUser: async (_s, args, ctx, info) => {
      // The deleted user as it was (Strapi answers the removed row; `{data: null}` when there was none).
      const id = String(args.id ?? '');
      const before = /^\d{1,10}$/.test(id) ? await userOf(ctx, info, id) : { data: null };
      const r = await call(ctx, 'DELETE', `/api/users/${idSegment(args.id)}`);
      if (r.status === 204 || !r.body) return { data: null };
      if (r.status >= 400) throw new ApiError(r.status, 'ApplicationError', 'Bad Request', {});
      return before;
    },
  };
  return { Mutation, auth };
}
