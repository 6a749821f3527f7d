// What a handler's reply becomes on the wire, decided where the reply is made (the worker thread, or the
// main thread with WORKERS=0) so compression never queues on the HTTP front end: an ETag on successful
// GETs, 304 when the client already has it, then brotli/gzip by Accept-Encoding above the threshold.
import type { Reply } from '../rest/reply.ts';
import type { Task } from '../task.ts';
import { bodyEtag, noneMatch } from './etag.ts';
import { chooseEncoding, compress, compressible, type CompressOptions } from './compress.ts';

export interface RepresentationOptions { etag: boolean; compression: CompressOptions & { enabled: boolean } }

const JSON_TYPE = 'application/json; charset=utf-8';

export function represent(reply: Reply, task: Task, opts: RepresentationOptions): Reply {
  const get = task.method === 'GET' || task.method === 'HEAD';
  if (opts.etag && get && reply.status === 200) {
    const tag = bodyEtag(reply.body);
    (reply.headers ??= []).push(['ETag', tag]);
    if (noneMatch(task.headers?.['if-none-match'], tag)) {
      // A 304 carries the validators and Vary of the 200 it stands for, never a body.
      const headers = reply.headers.filter(([k]) => k.toLowerCase() !== 'content-type');
      if (opts.compression.enabled && compressible(reply.contentType ?? JSON_TYPE)) headers.push(['Vary', 'Accept-Encoding']);
      return { status: 304, body: '', headers };
    }
  }
  if (!opts.compression.enabled || reply.status === 204 || reply.status === 304) return reply;
  if (!compressible(reply.contentType ?? JSON_TYPE)) return reply;
  const size = typeof reply.body === 'string' ? (reply.body.length < opts.compression.threshold ? -1 : Buffer.byteLength(reply.body)) : reply.body.byteLength;
  if (size < opts.compression.threshold) return reply;
  (reply.headers ??= []).push(['Vary', 'Accept-Encoding']);
  const encoding = chooseEncoding(task.headers?.['accept-encoding']);
  if (!encoding) return reply;
  const body = compress(reply.body, encoding, opts.compression);
  reply.headers.push(['Content-Encoding', encoding]);
  return { ...reply, body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength) };
}
