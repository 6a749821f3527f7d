// The boundary between the core and its plugins (users-permissions, upload): a plugin claims
// request paths and answers them with the same context the REST routes get.
import type { Task } from '../task.ts';
import type { Reply } from '../rest/reply.ts';
import type { RestContext } from '../rest/router.ts';
import type { Caller } from '../auth/permissions.ts';

export interface Plugin {
  name: string;
  /** Whether this plugin answers the path (checked before content-type routes). */
  claims(path: string): boolean;
  handle(ctx: RestContext, task: Task, caller: Caller | null): Promise<Reply>;
}
