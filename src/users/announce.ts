// A committed write of users, roles or permissions revokes or grants at once: this thread's permission
// caches forget what it changed before the answer, and the other threads and nodes are told through the
// response cache's notification (src/cache/invalidation.ts), sent before the answer too.
import type { RestContext } from '../rest/router.ts';
import { UP } from '../auth/tables.ts';
import { userJson } from './user-json.ts';

/** Tables a user write changes (the blocked flag, the role link). */
export const USER_TABLES = [UP.users, UP.userRole.table];
/** Tables a role write changes (its permissions). */
export const ROLE_TABLES = [UP.roles, UP.permissions, UP.permissionRole.table];

export async function announce(ctx: RestContext, tables: string[]): Promise<void> {
  // Without a change feed (no response cache, no replicas) only this thread hears it; the TTL covers the rest.
  ctx.auth.changed(tables);
  await ctx.onWrite?.(tables);
}

/** A committed user write told to the webhooks (read again in the background, with the user's role). */
export function userWritten(ctx: RestContext, event: 'entry.create' | 'entry.update', id: number): void {
  ctx.webhooks?.user(event, () => userJson(ctx, id, true));
}
