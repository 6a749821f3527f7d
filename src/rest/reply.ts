// What a request handler returns to the HTTP front end: status, extra headers and a body already
// serialized (the worker never hands objects back to the main thread).
import { ApiError, envelope } from '../../compiler/errors.ts';

export interface Reply {
  status: number;
  /** Reads hand PostgreSQL's bytes through untouched (no UTF-8 decode and re-encode). */
  body: string | Uint8Array;
  contentType?: string;
  headers?: Array<[string, string]>;
  /**
   * The answer depends only on the request, the caller's permissions and the tables its reads named
   * (RestContext.reads): the response cache may keep it until one of them is written.
   */
  cacheable?: boolean;
}

export const json = (status: number, body: string): Reply => ({ status, body });
export const errorReply = (e: ApiError): Reply => ({ status: e.status, body: envelope(e) });
export const methodNotAllowed = (): Reply => ({ status: 405, body: 'Method Not Allowed', contentType: 'text/plain; charset=utf-8' });
export const noContent = (): Reply => ({ status: 204, body: '' });

/** The body as text, for the few callers that look inside a reply (GraphQL mutations, tests). */
export const bodyText = (r: Reply): string => (typeof r.body === 'string' ? r.body : Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength).toString('utf8'));
