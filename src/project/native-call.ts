// How a built-in plugin's controller action of its plugin object (src/project/plugin-object.ts) answers: the
// native handler of that action, called with the request's REST context and caller on the action's own path,
// with what ctx holds now (params, query, body: an override may have changed them). The answer becomes ctx's
// raw body, parsed only if code reads ctx.body.
import { ApiError } from '../../compiler/errors.ts';
import type { Plugin } from '../plugins/types.ts';
import { errorReply, type Reply } from '../rest/reply.ts';
import type { Task } from '../task.ts';
import { LINK, type LinkedContext } from './core.ts';
import type { KoaContext } from './ctx.ts';
import type { NativeCall } from './plugin-object.ts';

/** `natives`: the thread's plugins by name (bound once the app made them); `closed`: why native actions may not run. */
export function nativeCaller(plugin: string, natives: Map<string, Plugin>, closed: () => string | null): NativeCall {
  return async (ctx: KoaContext, method: string, path: string, action: string) => {
    const link = (ctx as LinkedContext)[LINK];
    if (!link) throw new TypeError(`${plugin}'s ${action} needs the request's ctx`);
    const why = closed();
    if (why) throw new ApiError(501, 'NotImplementedError', `${plugin}'s ${action} cannot run on this server (${why})`, {});
    if (!method) throw new ApiError(501, 'NotImplementedError', `${plugin}'s ${action} is not run by this server`, {});
    const native = natives.get(plugin);
    if (!native) throw new Error(`the ${plugin} plugin is not bound to the project runtime`);
    const body = ctx.request.body;
    // A request the project's ctx did not parse (an upload's multipart form) goes to the native handler as it came.
    const raw = method !== 'GET' && !!link.task.body?.length && !(link.task.contentType ?? '').includes('json');
    const task: Task = {
      ...link.task, method, query: ctx.querystring, contentType: raw ? link.task.contentType : 'application/json',
      path: path.replace(/:(\w+)/g, (_m, k: string) => encodeURIComponent(ctx.params[k] ?? '')),
      // No body for a read, nor for the `{}` a request without one leaves in ctx.
      body: raw ? link.task.body : method === 'GET' || body === undefined || (!link.task.body?.length && !!body && typeof body === 'object' && Object.keys(body).length === 0) ? null : Buffer.from(JSON.stringify(body)),
    };
    // Strapi's plugin actions answer a missing record with ctx.notFound(), which sets the answer and returns:
    // code after the call goes on (it may still change the body), as after Strapi's.
    let reply: Reply;
    try { reply = await native.handle(link.rest, task, link.caller ?? null); } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 404) throw e;
      reply = errorReply(e);
    }
    if (reply.status === 204 || reply.body === '' || reply.body.length === 0) { ctx.status = reply.status; return; }
    ctx.setRaw(reply.status, typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body);
  };
}
