// The response cache at the HTTP boundary: which requests may be answered from it (a GET, or a GraphQL
// POST, whose handler read only through the compiler), under which key (the request and what the
// caller may read — its permission grant, never its token — and the encoding it accepts), and how a
// stored reply is served (as stored, 304 when the client holds its ETag).
import type { Reply } from '../rest/reply.ts';
import type { Task } from '../task.ts';
import { noneMatch } from '../http/etag.ts';
import { chooseEncoding } from '../http/compress.ts';

/** The cache key of a request, or null when the request is never cached. */
export function cacheKey(task: Task, accessKey: string, graphql: boolean): string | null {
  if (task.method !== 'GET' && !(graphql && task.method === 'POST')) return null;
  const h = task.headers ?? {};
  const body = task.method === 'POST' && task.body ? Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength).toString('utf8') : '';
  return [accessKey, task.method, task.path, task.query, h['strapi-response-format'] ?? '', chooseEncoding(h['accept-encoding']) ?? '', body].join('\u0000');
}

/** The task without If-None-Match: what is stored must be the 200, whatever this client holds. */
export const unconditional = (task: Task): Task =>
  task.headers?.['if-none-match'] === undefined ? task : { ...task, headers: Object.fromEntries(Object.entries(task.headers).filter(([k]) => k !== 'if-none-match')) };

/**
 * The reply as stored: what every hit is answered with, as it is (no statement ran for a hit). Shared by
 * the hits, never changed: copying its headers at each hit cost more than the lookup.
 */
export function hitForm(full: Reply, exposeCount: boolean): Reply {
  const headers = (full.headers ?? []).filter(([k]) => k !== 'x-sql-statements');
  if (exposeCount) headers.push(['x-sql-statements', '0']);
  return { ...full, headers };
}

/** A reply for this request: 304 when the client holds its ETag, else the reply itself. */
export function serve(reply: Reply, task: Task): Reply {
  const held = task.headers?.['if-none-match'];
  if (held === undefined) return reply;
  const headers = reply.headers ?? [];
  const etag = headers.find(([k]) => k === 'ETag')?.[1];
  if (etag && noneMatch(held, etag)) {
    return { status: 304, body: '', headers: headers.filter(([k]) => k.toLowerCase() !== 'content-type' && k !== 'Content-Encoding') };
  }
  return reply;
}

/** Whether a reply can be stored: a 200 its handler marked as depending only on what it read. */
export const storable = (reply: Reply, represented: Reply): boolean => reply.cacheable === true && represented.status === 200;

/** `Cache-Control: no-cache` (or `Pragma: no-cache`): the client wants a fresh answer (it is stored again). */
export function wantsFresh(task: Task): boolean {
  const h = task.headers ?? {};
  return /(^|,)\s*no-cache\s*(,|$)/i.test(h['cache-control'] ?? '') || /no-cache/i.test(h.pragma ?? '');
}
