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
}
