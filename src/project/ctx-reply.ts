// A project route's answer: what its code left on ctx (status, body, headers) as the Reply the HTTP layer
// sends. Bytes a native or core action put there go out untouched when no code read them.
import { notFound } from '../../compiler/errors.ts';
import { errorReply, type Reply } from '../rest/reply.ts';
import type { RestContext } from '../rest/router.ts';
import { toV4, wantsV4 } from '../rest/v4-format.ts';
import type { Task } from '../task.ts';
import type { KoaContext } from './ctx.ts';
import type { ProjectRoute } from './project-route.ts';

/** ctx's answer as a Reply: bytes untouched when no code read them; Strapi's 404 when nothing answered. */
export function ctxReply(ctx: KoaContext, r: ProjectRoute, rest: RestContext, task: Task): Reply {
  const headers = [...ctx.responseHeaders].filter(([k]) => k !== 'content-type');
  const contentType = ctx.responseHeaders.get('content-type');
  const withHeaders = (rep: Reply): Reply => ({ ...rep, ...(headers.length ? { headers } : {}), ...(contentType ? { contentType } : {}) });
  const raw = ctx.rawBody();
  if (raw) {
    const out: Reply = { status: ctx.status, body: raw };
    return withHeaders(r.core && wantsV4(task.headers) ? toV4(rest.schema, r.core.ct, out) : out);
  }
  if (!ctx.explicitStatus) return withHeaders(errorReply(notFound()));
  const body = ctx.body;
  if (body === null || body === undefined) return withHeaders({ status: ctx.status, body: '' });
  if (typeof body === 'string') return withHeaders({ status: ctx.status, body, contentType: contentType ?? (body.trimStart().startsWith('<') ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8') });
  if (body instanceof Uint8Array) return withHeaders({ status: ctx.status, body, contentType: contentType ?? 'application/octet-stream' });
  return withHeaders({ status: ctx.status, body: JSON.stringify(body) });
}
