// A core action (find, findOne, create, update, delete) on Strapi's own controller and service, answered
// on the request's own REST context: the compiled statement's bytes become ctx's body, as without project
// code. What middlewares before it left in ctx (params, query, body) is what it runs with.
import { findMany, findOne } from '../rest/read.ts';
import type { Reply } from '../rest/reply.ts';
import { createDocument, deleteDocument, putSingle, updateDocument } from '../rest/write.ts';
import type { Task } from '../task.ts';
import { LINK, type LinkedContext } from './core.ts';
import type { ProjectRoute } from './project-route.ts';

export async function coreAction(ctx: LinkedContext, c: NonNullable<ProjectRoute['core']>): Promise<undefined> {
  const { rest, task } = ctx[LINK]!;
  const qs = ctx.querystring;
  const id = ctx.params.id;
  const writeTask = (): Task => {
    const body = ctx.request.body;
    // The `{}` of a request without a body, left as it was: still no body for the writer (its own error for that).
    const none = body === undefined || (!task.body?.length && isEmptyObject(body));
    // Whatever the request sent (a form, say), what the controller hands on is its body, written as JSON.
    return { ...task, query: qs, body: none ? null : Buffer.from(JSON.stringify(body)), contentType: 'application/json' };
  };
  let r: Reply;
  switch (c.action) {
    case 'find': r = c.ct.kind === 'singleType' ? await findOne(rest, c.ct, qs) : await findMany(rest, c.ct, qs); break;
    case 'findOne': r = await findOne(rest, c.ct, qs, id); break;
    case 'create': r = await createDocument(rest, c.ct, writeTask()); break;
    case 'update': r = c.ct.kind === 'singleType' ? await putSingle(rest, c.ct, writeTask()) : await updateDocument(rest, c.ct, writeTask(), id); break;
    case 'delete': r = await deleteDocument(rest, c.ct, writeTask(), c.ct.kind === 'singleType' ? undefined : id); break;
  }
  if (r.status === 204) ctx.status = 204;
  else ctx.setRaw(r.status, typeof r.body === 'string' ? Buffer.from(r.body) : r.body);
  return undefined;
}

function isEmptyObject(v: unknown): boolean {
  return !!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;
}
