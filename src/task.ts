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
  /**
   * Set by the pool in the thread that handles the task (it cannot cross to a worker): aborted when the
   * client goes away before its answer: reads issue no statement for it and cancel the one running (`readStatement()`, src/db/connect.ts).
   */
  signal?: ClientSignal;
  /** The pool's number for the task when it goes to a worker (how an abort finds it there). */
  cancelId?: number;
  /**
   * The route an auth rate limit counts the task under, when not its own path: set by GraphQL's login with
   * a provider, which Strapi counts as a login (never by the front end).
   */
  rateLimitPath?: string;
}

/**
 * AbortSignal-like, without EventTarget (one per request, so kept minimal): a flag reads check before
 * issuing a statement, and callbacks that cancel the statements running when the client goes away
 * (`readStatement()`, src/db/connect.ts).
 */
export class ClientSignal {
  aborted = false;
  private listeners: Array<() => void> | null = null;
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const ls = this.listeners;
    this.listeners = null;
    if (ls) for (const l of ls) l();
  }
  /** Calls `fn` on abort (at once when already aborted); returns what removes it. */
  onAbort(fn: () => void): () => void {
    if (this.aborted) { fn(); return () => {}; }
    (this.listeners ??= []).push(fn);
    return () => {
      const ls = this.listeners;
      const i = ls ? ls.indexOf(fn) : -1;
      if (i >= 0) ls!.splice(i, 1);
    };
  }
}

/**
 * Which tasks' clients went away, shared by the main thread and the worker threads (a SharedArrayBuffer
 * ring by cancelId). The abort message to the workers (a BroadcastChannel) reaches only threads already
 * listening and says nothing to a task not yet started; a task looks here when it starts.
 */
export class GoneTasks {
  static readonly SLOTS = 65536;
  private slots: Int32Array;
  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(4 * GoneTasks.SLOTS)) { this.slots = new Int32Array(buffer); }
  mark(id: number): void { Atomics.store(this.slots, id % GoneTasks.SLOTS, id); }
  has(id: number): boolean { return Atomics.load(this.slots, id % GoneTasks.SLOTS) === id; }
  /** Forgets a mark left by the task of the same id before the ids wrapped around. */
  clear(id: number): void { Atomics.compareExchange(this.slots, id % GoneTasks.SLOTS, id, 0); }
}

/** Deepest nesting of arrays and objects a JSON request body may have (config `http.maxJsonDepth`). */
let maxJsonDepth = 64;
export function setMaxJsonDepth(n: number): void { maxJsonDepth = n; }

/**
 * Refuses JSON text nested deeper than the limit before anything recurses over it: JSON.parse copes,
 * but every walk after it (validation, the driver's serializer, GraphQL) would overflow the stack.
 */
export function checkJsonDepth(text: string, max = maxJsonDepth): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) throw new ApiError(400, 'ValidationError', `JSON nested deeper than ${max} levels (limit http.maxJsonDepth)`, { limit: 'maxJsonDepth', max });
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
}

/** JSON.parse after the depth check; malformed JSON is Strapi's 400 SyntaxError, whose envelope carries no `details`. */
export function parseJsonText(text: string): unknown {
  checkJsonDepth(text);
  try { return JSON.parse(text); } catch (e) { throw new ApiError(400, 'SyntaxError', (e as Error).message, null); }
}


/** A write project code makes through this server (its core services, its document service): `{ data }` POSTed as JSON. */
export function dataWriteTask(query: string, data: unknown): Task {
  return { method: 'POST', path: '', query, body: Buffer.from(JSON.stringify({ data: data ?? {} })), contentType: 'application/json', headers: {} };
}
