// One HTTP request in flight on the front end, as the front end (src/http/front.ts) and the upload file
// server (src/upload/static.ts) both handle it: a leaf module, so neither imports the other for it.
import type uWS from 'uWebSockets.js';
import type { RouteKind } from './metrics.ts';
import type { Headers } from './cors.ts';

export interface Exchange {
  res: uWS.HttpResponse;
  aborted: boolean;
  /** Set once the response has been ended (a late abort is then not the client's doing). */
  finished: boolean;
  id: string;
  start: number;
  method: string;
  path: string;
  ip: string;
  proto: 'http' | 'https';
  kind: RouteKind;
  /** Access-Control-* headers for the response (already resolved), or a promise of them. */
  cors: Headers | Promise<Headers> | null;
  /** Writes the headers every response carries; `ownCsp` when the reply brings its own policy. */
  writeCommon(ownCsp?: boolean): void;
  /** Records the answer (access line, metrics). */
  done(status: number, bytes: number): void;
  /** Set once the request is handed to the pool: cancels its work if the client goes away. */
  cancel?: () => void;
}
