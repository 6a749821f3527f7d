import { ApiError } from '../compiler/errors.ts';
// The message the HTTP front end sends to a worker for one request: only what handling needs, read
// synchronously from uWS (its request object dies when the handler returns).
export interface Task {
  method: string;
  /** Path without the query string. */
  path: string;
  /** Raw query string without `?`. */
  query: string;
  authorization?: string;
  contentType?: string;
  body: Uint8Array | null;
  /** Client address, for rate limits. */
  ip?: string;
  /** A few other request headers some plugins read (lower-case names; only those present). */
  headers?: Record<string, string>;
  /** X-Request-Id of the request (for log lines). */
  requestId?: string;
  /** Set only by the front end for its own probes (readiness), so no client request can pose as one. */
  internal?: boolean;
}

/**
 * The JSON body of a task ({} when empty). Malformed JSON is Strapi's 400 SyntaxError, whose envelope
 * carries no `details`.
 */
export function jsonBody(task: Task): unknown {
  const text = task.body ? Buffer.from(task.body).toString('utf8') : '';
  if (text.trim() === '') return {};
  try { return JSON.parse(text); } catch (e) { throw new ApiError(400, 'SyntaxError', (e as Error).message, null); }
}
