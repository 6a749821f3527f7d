// Types the GraphQL modules share (resolvers, the extension service, Shadow CRUD, users-permissions
// mutations): a leaf module, so that they depend on it rather than on each other.
import type { Config } from '../../config.ts';
import type { RestContext } from '../rest/router.ts';
import type { Caller } from '../auth/permissions.ts';
import type { Task } from '../task.ts';

/** What every resolver gets as its context. */
export interface GqlContext {
  rest: RestContext;
  caller: Caller;
  task: Task;
  /** Strapi's `context.state`: the authenticated user (users-permissions) and the caller's credentials. */
  state: { user: { id: number } | null; auth: { strategy: { name: 'api-token' | 'users-permissions' }; credentials: Caller } };
  /**
   * The HTTP status a REST controller a resolver called left on Strapi's shared Koa context, which the
   * GraphQL answer then carries (users-permissions' user create: 201).
   */
  httpStatus?: number;
}

/** Whether a caller may run a field (the extension service's `auth` and `scope` of a resolver). */
export type AuthCheck = (ctx: GqlContext) => boolean;

export interface FieldConfig { enabled: boolean; input: boolean; output: boolean; filters: boolean }
/** The extension service's shadow CRUD settings of one type. */
export interface TypeConfig { enabled: boolean; query: boolean; mutation: boolean; disabledActions: string[]; fields: Map<string, FieldConfig> }

/**
 * A list's page size when the query gives none, and the largest one (larger are clamped): the plugin's
 * `defaultLimit`/`maxLimit` when set, within `amountLimit`.
 */
export function graphqlLimits(config: Pick<Config, 'api' | 'graphql'>): { defaultList: number; maxList: number } {
  const g = config.graphql;
  const maxList = Math.min(g.maxLimit ?? g.amountLimit, g.amountLimit);
  return { defaultList: Math.min(g.defaultLimit ?? config.api.rest.defaultLimit, maxList), maxList };
}
