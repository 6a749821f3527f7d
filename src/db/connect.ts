// The postgres.js pool of one worker. Statements are prepared once per connection (postgres.js keys
// them by SQL text), which is why compiled plans share text across values.
import postgres, { type Sql } from 'postgres';
import { performance } from 'node:perf_hooks';
import { log, logEnabled } from '../log.ts';
import type { ClientSignal } from '../task.ts';
import { connectionTarget } from './url.ts';

export type Db = Sql;

/**
 * A listener for the statements this process sends (text and parameters). The benchmark sets it
 * around one GraphQL request to learn the SQL it must run alone for the DB limit; unset, it costs a check.
 */
export const queryTap: { fn: ((text: string, params: unknown[], planCacheMode: ConnectOptions['planCacheMode']) => void) | null } = { fn: null };

export type PlanCacheMode = 'auto' | 'force_generic_plan' | 'force_custom_plan';

export interface ConnectOptions {
  /** Log each statement (with LOG_LEVEL=debug). */
  logQueries?: boolean;
  /** ms before PostgreSQL cancels a statement; 0 = none. */
  statementTimeout?: number;
  planCacheMode?: PlanCacheMode;
  /** PostgreSQL's JIT compilation for this pool's statements (config `db.jit`; off by default, see connect()). */
  jit?: boolean;
  /** The pool runs nothing but readStatement()'s statements, so a gone client's read may be cancelled there (see readPools). */
  readsOnly?: boolean;
  /** ms a statement may wait for a connection (default: the configured `db.connectionDeadline`); 0 = as long as it takes. */
  connectionDeadline?: number;
  /** The name the connections show in pg_stat_activity (default `fastrapi`). */
  applicationName?: string;
}

/**
 * Generic plans by default: a read's statement has the same shape for every value (plans are cached by
 * shape), and PostgreSQL's `auto` mode kept re-planning populate statements on every execution (about 2 ms
 * of a 6 ms populate=* on the benchmark blog; 25% more throughput measured with generic plans).
 * JIT off by default: this server's statements read a page of rows, and JIT compiled every execution of a
 * populate statement whose estimated cost passed jit_above_cost (143 of 175 ms of the deep populate at
 * 10k articles; populate=* at 100k 2,390 → 120 ms with JIT off, same plan).
 */
export function connect(url: string, max: number, o: ConnectOptions = {}): Db {
  const deadline = o.connectionDeadline ?? connectionDeadline;
  const target = connectionTarget(url);
  const db = postgres(target.url, {
    ...(target.path ? { path: target.path } : {}),
    max,
    prepare: true,
    idle_timeout: 0,
    // A connection attempt gives up after the deadline (postgres.js waits 30 s by default), and a
    // request arriving once the database is back connects at once: postgres.js's default backoff grows
    // to 20 s after repeated failures (shared by the whole pool), and retries happen only for queued
    // statements anyway, so there is no reconnect loop to slow down.
    connect_timeout: deadline ? deadline / 1000 : 30,
    backoff: () => 0,
    // On a read pool, readStatement() decides whether a connection takes another statement behind the
    // one it just sent: only behind a light one (see Pace), so a read never waits behind a long one,
    // where the connection deadline does not reach it (a light read waited 11 s behind long ones), and a
    // statement that may be cancelled is always the last on its connection.
    ...(o.readsOnly ? { max_pipeline: readPipeline } : {}),
    onnotice: () => {},
    debug: (_conn, query, params) => {
      if (queryTap.fn) queryTap.fn(query, params, o.planCacheMode ?? 'force_generic_plan');
      if (o.logQueries && logEnabled('debug')) log.debug('sql', { query: query.slice(0, 500), params: params.length });
    },
    // Strapi keeps UTC wall-clock time in `timestamp without time zone` columns: a session in UTC makes
    // now() and every timestamp cast agree with it whatever the server's default time zone is.
    connection: {
      application_name: o.applicationName ?? 'fastrapi', statement_timeout: o.statementTimeout ?? 0, TimeZone: 'UTC',
      plan_cache_mode: o.planCacheMode ?? 'force_generic_plan', jit: o.jit ? 'on' : 'off',
      ...(randomPageCost > 0 ? { random_page_cost: String(randomPageCost) } : {}),
    },
  });
  // A statement object made but never awaited does not run: it only shows the pool's handler and the
  // Query prototype, which both of these need.
  const probe = db`select 1` as unknown as RawQuery;
  withoutOriginStacks(probe);
  if (deadline) watchConnectionWaits(probe, deadline);
  if (o.readsOnly) readPools.add(db);
  return db;
}

/**
 * postgres.js gives every statement of a pool whose `debug` option is set a `new Error()` for the stack
 * an error would show (20 µs of a 25 µs statement object here, ≈ 7% of a light read's time on the main
 * thread). The option is set only for queryTap and logQueries, which its callback serves when a statement
 * is sent (options.debug); the pool's own statements skip the stack (handler.debug, read when a statement
 * is made). Transactions' statements keep it (postgres.js makes their handlers anew).
 */
function withoutOriginStacks(probe: RawQuery): void {
  (probe.handler as { debug: unknown }).debug = false;
}

// ---- Connection deadline and cancellation -------------------------------------------------------
//
// postgres.js (3.4.x) queues a statement while every connection is busy or being opened and never
// gives up on it. Here every statement issued on a pool made by connect() (not those inside a
// transaction, which already hold their connection) that has no connection after the deadline is
// abandoned: its promise rejects with CONNECTION_DEADLINE (503 with Retry-After). Implemented on
// postgres.js's Query prototype (its `handle()` is where a statement starts waiting), because the
// pool's queues are private.

/** Rejects a statement that waited too long for a connection (→ 503, see toApiError). */
export class ConnectionDeadlineError extends Error {
  readonly code = 'CONNECTION_DEADLINE';
  constructor(ms: number) { super(`no database connection within ${ms} ms`); }
}
/** Rejects a statement abandoned because its client went away. */
export class ClientGoneError extends Error {
  readonly code = 'CLIENT_GONE';
  constructor() { super('the client went away'); }
}

let connectionDeadline = 2000;
/** The deadline (config `db.connectionDeadline`) of the pools connect() makes from now on. */
export function setConnectionDeadline(ms: number): void { connectionDeadline = ms; }

/** The fields of postgres.js's Query this module relies on (src/query.js, src/connection.js of 3.4.x). */
interface RawQuery {
  handler: unknown; executed: boolean;
  /** Set by the connection that takes the statement: its backend. */
  state: { pid: number } | null;
  tagged: boolean; strings: readonly string[]; args: unknown[]; options: { onexecute?: unknown };
  resolve(x: unknown): void; reject(e: unknown): void; handle(): Promise<void>;
  /** The statement runs on its connection (a read pool's connection runs nothing else meanwhile). */
  active?: boolean;
  /** The pool's cancel(query): a promise settled when the cancel request was processed (null once used). */
  canceller: ((q: RawQuery) => Promise<void>) | null;
  [WAIT_UNTIL]?: number;
}
const WAIT_UNTIL = Symbol('fastrapi.connectionDeadline');
/** The root handler of each watched pool → its deadline in ms (transactions' handlers are others). */
const deadlines = new WeakMap<object, number>();
const waiting = new Set<RawQuery>();
const SWEEP_MS = 50;
let sweepTimer: NodeJS.Timeout | null = null;
let patched = false;

function watchConnectionWaits(probe: RawQuery, ms: number): void {
  deadlines.set(probe.handler as object, ms);
  if (patched) return;
  patched = true;
  const proto = Object.getPrototypeOf(probe) as RawQuery;
  const handle = proto.handle;
  proto.handle = function (this: RawQuery) {
    if (!this.executed) {
      const resolve = this.resolve;
      this.resolve = (x: unknown) => resolve(rowsFromZero(x));
      const limit = deadlines.get(this.handler as object);
      if (limit) {
        this[WAIT_UNTIL] = performance.now() + limit;
        waiting.add(this);
        sweepTimer ??= setTimeout(sweep, SWEEP_MS).unref();
      }
    }
    return handle.call(this);
  };
}

/**
 * postgres.js 3.4.9 counts a statement's rows on its connection and resets the count at CommandComplete
 * only: a statement stopped by an error after sending rows (a cancel, a statement timeout) leaves it
 * set, and the connection's next statement stores its rows from that index on — its first row reads
 * `undefined` (a list answered 500, a findOne a wrong 404). The rows themselves are right: they move
 * back to index 0 here, for every statement of every pool.
 */
function rowsFromZero(x: unknown): unknown {
  if (!Array.isArray(x) || x.length === 0 || x[0] !== undefined) return x;
  let n = 0;
  for (let i = 0; i < x.length; i++) if (x[i] !== undefined) x[n++] = x[i];
  x.length = n;
  return x;
}

function sweep(): void {
  sweepTimer = null;
  const now = performance.now();
  for (const q of waiting) {
    if (q.state) waiting.delete(q);
    else if (now >= q[WAIT_UNTIL]!) {
      waiting.delete(q);
      abandon(q, new ConnectionDeadlineError(Math.round(deadlines.get(q.handler as object) ?? 0)));
    }
  }
  if (waiting.size) sweepTimer = setTimeout(sweep, SWEEP_MS).unref();
}

/**
 * Gives up on a statement still waiting for a connection. It cannot be taken back: postgres.js loses the connection for good when a
 * statement it is opening a connection for, or has queued, turns out cancelled (the connection stays in
 * its connecting/full state with nothing to run). So its text becomes `select 1` (and a transaction's
 * BEGIN forgets its transaction) and it runs harmlessly whenever a connection takes it; its promise
 * rejects now.
 */
function abandon(q: RawQuery, error: Error): void {
  waiting.delete(q);
  if (!q.executed) { q.executed = true; q.reject(error); return; }
  q.tagged = false;
  q.strings = ['select 1'];
  q.args = [];
  // Never a transaction's callback now; and the connection takes nothing behind it: on a read pool a
  // statement pipelined there (a BEGIN) would not learn its connection (postgres.js asks only the first).
  if (q.options.onexecute) q.options = { ...q.options, onexecute: alone };
  q.reject(error);
}

let cancelOnDisconnect = true;
/**
 * Pools that run only readStatement()'s statements (connect()'s `readsOnly`), one at a time per
 * connection: the only ones where a gone client's statement is cancelled. A write or any other statement
 * never shares a connection with a read that may be cancelled.
 */
const readPools = new WeakSet<Db>();

/** This thread's settings of `config.db` that statements follow (each worker thread calls it). */
export function applyDbConfig(c: { connectionDeadline: number; cancelOnDisconnect: boolean; randomPageCost: number; readPipeline: number }): void {
  connectionDeadline = c.connectionDeadline;
  cancelOnDisconnect = c.cancelOnDisconnect;
  randomPageCost = c.randomPageCost;
  readPipeline = c.readPipeline;
}

/** Statements a read pool's connection may have in flight (config `db.readPipeline`), for pools made from now on. */
let readPipeline = 8;

/**
 * PostgreSQL's random_page_cost on the connections connect() makes from now on (config `db.randomPageCost`;
 * 0 keeps the server's). Its default, 4, prices an index probe as a disk seek: the planner then read small
 * tables whole at every row of a populate (a link table of a few hundred rows scanned 25 times a page),
 * where the data is in memory and the probe is cheaper. 1.1 is the usual value for cached or SSD storage.
 */
let randomPageCost = 1.1;

/** What readStatement() uses of a postgres.js connection (src/connection.js of 3.4.x). */
interface RawConnection { execute(q: RawQuery): boolean; terminate(): void }

// ---- Pipelining light reads ----------------------------------------------------------------------
//
// Under load every read connection is busy and statements queue. Sent one at a time, each costs a
// socket write and a wake-up of its backend on both sides; sent behind one another, a batch shares
// them (a get-one on the blog database: +15-20% requests per second, its backend's CPU per statement
// -30%; PostgreSQL alone with postgres.js's default pipelining is what the benchmark's DB limit runs).
// Only a statement known to be light lets another follow it: one with no history, or with a run
// lately over HEAVY_MS, is the last on its connection until it ends, so nothing waits long behind
// another read (a light read once waited 11 s behind long ones), and it alone may be cancelled (a
// cancel names a backend; with nothing behind it, it can only stop the statement it was sent for). A
// light statement whose client goes away is left to finish.
//
// Runs are timed here, in the event loop, so a run's time also holds the loop's delay in reading its
// answer (several ms under load, for a statement PostgreSQL runs in 0.3): the bound is far above what
// makes a page light and far below what would hurt a follower.

/** How a statement (a compiled plan: readStatement()'s `pace` key) ran lately: its slowest run, decaying by a tenth per run. */
interface Pace { ms: number; runs: number }
const paces = new WeakMap<object, Pace>();
/** When the answer to each connection's latest statement arrived: the next one's own run starts there at the earliest. */
const lastAnswer = new WeakMap<RawConnection, number>();
/** readStatement()'s statements sent on each connection and not answered yet. */
const inFlight = new WeakMap<RawConnection, number>();
/** A statement that ran this long lately takes no statement behind it. */
const HEAVY_MS = 20;
/** Runs a statement needs before it counts as light (the first on a connection are planned, on cold caches: their fastest stands for them). */
const LIGHT_AFTER = 3;
let pipelined = 0;
/** Read statements sent behind another on a busy connection (metrics; tests). */
export const pipelinedReads = (): number => pipelined;

const isLight = (pace: Pace | undefined): boolean => pace !== undefined && pace.runs >= LIGHT_AFTER && pace.ms < HEAVY_MS;
/** Whether a statement (readStatement()'s `pace` key) counts as light now: tests wait for it rather than assume a machine's pace. */
export const isLightStatement = (key: object): boolean => isLight(paces.get(key));

/**
 * Records a statement's own run: from when it was sent or, sent behind others, when the one before it
 * was answered, to its answer. A slow run counts at once (a light statement turned heavy stops taking
 * followers) and fades over the next runs (one slow run of 400 ms: about 30 runs).
 */
function recordPace(key: object, conn: RawConnection | null, sentAt: number): void {
  const now = performance.now();
  const own = now - Math.max(sentAt, conn ? lastAnswer.get(conn) ?? 0 : 0);
  if (conn) lastAnswer.set(conn, now);
  const pace = paces.get(key);
  if (!pace) { paces.set(key, { ms: own, runs: 1 }); return; }
  pace.ms = pace.runs < LIGHT_AFTER ? Math.min(own, pace.ms) : Math.max(own, pace.ms * 0.9);
  pace.runs++;
}
/**
 * A read pool's companion for light statements (addLightPool): the pool readStatement() sends them to.
 * With PostgreSQL on the node's machine, fewer backends each taking a batch beat many taking one
 * statement each: with 50 clients on the blog database, a get-one went from ≈ 4,400 to ≈ 6,500 requests
 * per second and the plain list from ≈ 2,500 to ≈ 2,950 with a light pool of 2 beside the 8 (two
 * nodes, alternating runs), while reads of 4–12 ms (populate=*, deep populate at 100k articles) were the
 * same with or without it.
 * Heavier and new statements stay on the main pool: a light read never queues behind them, and they
 * keep every connection of it.
 */
const lightPools = new WeakMap<Db, Db>();
let lightSent = 0;
/** Statements readStatement() sent to a light pool (metrics; tests). */
export const lightPoolReads = (): number => lightSent;
/** Makes `light` (a pool connect() made with readsOnly) the pool `db`'s light statements run on. */
export function addLightPool(db: Db, light: Db): void {
  if (!readPools.has(db) || !readPools.has(light)) throw new Error('a light pool pairs two read pools (connect() with readsOnly)');
  lightPools.set(db, light);
}

/** Ends a pool and its light pool, if it has one. */
export async function endPool(db: Db, timeout = 5): Promise<void> {
  const light = lightPools.get(db);
  await Promise.all([db.end({ timeout }), light?.end({ timeout })]);
}

/** The connection each backend (a statement's `state`) belongs to, learnt as statements start on it. */
const connectionOf = new WeakMap<object, RawConnection>();
/**
 * postgres.js asks a statement's `onexecute` whether its connection may take another statement right
 * away (pipelining). Answering no keeps the statement the last on its connection; the call also shows
 * which connection that is. readStatement() answers for its statements; this, for abandoned ones.
 */
function alone(c: RawConnection, q: RawQuery | null = null): boolean {
  if (q?.state) connectionOf.set(q.state, c);
  return false;
}

/**
 * readStatement() calls not settled yet, of every thread of the node: worker threads count in one
 * SharedArrayBuffer (shareReadCount), so a read is split only when the whole node reads nothing else.
 */
let reads: Int32Array<ArrayBufferLike> = new Int32Array(1);
/** Counts this thread's reads in `buffer` (4 bytes, shared by the node's threads: src/pool.ts). */
export function shareReadCount(buffer: SharedArrayBuffer): void { reads = new Int32Array(buffer); }
/** Read statements the node has running or waiting for a connection (src/rest/split-read.ts: only an idle node splits a read). */
export const readsInFlight = (): number => Atomics.load(reads, 0);

/**
 * Runs one read statement of a request (prepared unless `prepare` is false: a page compiler/cache.ts sends
 * unprepared; rows as Buffers when `raw`). No statement is issued
 * for a client already gone (under overload, requests queued in a worker whose clients gave up cost
 * nothing), and the statement of a client that goes away is dropped or cancelled (CancelWatch).
 */
export async function readStatement(db: Db, text: string, params: unknown[], signal: ClientSignal | undefined, raw: boolean, prepare = true, pace?: object): Promise<unknown[]> {
  Atomics.add(reads, 0, 1);
  try {
    const pooled = readPools.has(db);
    const light = pooled && pace !== undefined && isLight(paces.get(pace));
    const lightPool = light ? lightPools.get(db) : undefined;
    if (lightPool) { db = lightPool; lightSent++; }
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw new ClientGoneError();
      let q: RawQuery | null = null;
      let conn: RawConnection | null = null;
      // A statement postgres.js describes first (not prepared on its connection yet) is executed without
      // onexecute: its run counts from when it was issued, waiting for a connection included. It must
      // count: a light statement's first slow run on a new connection left it light (and a long statement
      // took followers).
      let sentAt = performance.now();
      // onexecute gets the connection only: the statement is bound through the closure.
      // `simple: false`: postgres.js sends a statement without parameters (a single type's read) by the
      // simple protocol, never prepared, planned at every request.
      const options: { prepare: boolean; simple: boolean; onexecute?: (c: RawConnection) => void } = { prepare, simple: false };
      // Assigned, not written in the literal: tsx would define the function's name at every read.
      if (pooled) {
        options.onexecute = (c: RawConnection) => {
          conn = c;
          sentAt = performance.now();
          const ahead = inFlight.get(c) ?? 0;
          if (ahead > 0) pipelined++;
          inFlight.set(c, ahead + 1);
          if (q?.state) connectionOf.set(q.state, c);
          return light;
        };
      }
      const query = db.unsafe(text, params as never[], options as { prepare: boolean });
      q = query as unknown as RawQuery;
      if (raw) query.raw();
      if (pooled) {
        // Settled as its answer is read, before the connection is handed its next statement.
        const resolve = q.resolve;
        const reject = q.reject;
        q.resolve = (x: unknown) => {
          if (conn) inFlight.set(conn, inFlight.get(conn)! - 1);
          if (pace) recordPace(pace, conn, sentAt);
          resolve(x);
        };
        q.reject = (e: unknown) => {
          if (conn) inFlight.set(conn, inFlight.get(conn)! - 1);
          reject(e);
        };
      }
      const watch = signal && cancelOnDisconnect && pooled ? new CancelWatch(q, signal, !light) : null;
      try {
        return await query as unknown as unknown[];
      } catch (e) {
        if (signal?.aborted) throw new ClientGoneError();
        if (attempt < MAX_STRAY_CANCELS && strayCancel(q, e)) { strayRetries++; continue; }
        throw e;
      } finally {
        watch?.done();
      }
    }
  } finally {
    Atomics.sub(reads, 0, 1);
  }
}

/**
 * A safety net, never expected to run: a read stopped by a cancel this thread sent to its backend for
 * another statement runs again (reads are idempotent; a cancelled statement changed nothing). The
 * connection is held while a cancel is on its way (CancelWatch), so this needs a connection
 * readStatement() could not learn of (its statements all described first) and a cancel landing late.
 */
const MAX_STRAY_CANCELS = 3;
let strayRetries = 0;
/** Reads this thread ran again after a cancel meant for another statement (tests: expected to stay 0). */
export const strayCancelRetries = (): number => strayRetries;
/** Backend pid → when PostgreSQL had processed the last cancel request this thread sent it (Infinity while on its way). */
const cancelSent = new Map<number, number>();
/** How long after that a statement cancelled on the backend is taken as stopped by it. */
const STRAY_WINDOW_MS = 250;

/** A statement cancelled by a request this thread sent for another one on its backend (not an operator's pg_cancel_backend). */
function strayCancel(q: RawQuery, e: unknown): boolean {
  if ((e as { code?: unknown })?.code !== '57014' || !q.state) return false;
  const at = cancelSent.get(q.state.pid);
  return at !== undefined && performance.now() - at < STRAY_WINDOW_MS;
}

/**
 * What happens to a read whose client goes away: still waiting for a connection, it is dropped at once
 * (abandon()); running, it is cancelled if it still runs after a grace period (most reads take a few
 * milliseconds; a cancel costs a connection to PostgreSQL). The statement is alone on its connection,
 * and the connection takes no other statement until PostgreSQL has processed the cancel request
 * (ConnectionHold): a cancel arriving after the statement ended finds its backend waiting for a command,
 * which PostgreSQL ignores, so it cannot stop anyone else's statement.
 */
class CancelWatch {
  private finished = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly off: () => void;
  /** `mayCancel`: false for a statement others may be sent behind (a light one): it is only dropped while unsent. */
  constructor(private readonly q: RawQuery, signal: ClientSignal, private readonly mayCancel: boolean) {
    this.off = signal.onAbort(() => this.gone());
  }
  done(): void {
    this.finished = true;
    this.off();
    if (this.timer) clearTimeout(this.timer);
  }
  private gone(): void {
    if (this.finished) return;
    if (!this.q.state) { abandon(this.q, new ClientGoneError()); return; }
    if (!this.mayCancel) return;
    this.timer = setTimeout(() => this.cancel(), CANCEL_GRACE_MS).unref();
  }
  private cancel(): void {
    this.timer = null;
    const backend = this.q.state;
    const canceller = this.q.canceller;
    if (this.finished || !backend || !this.q.active || !canceller) return;
    // A connection not learnt yet (its statements so far all described first) cannot be held: then the
    // statement runs to its end (or DB_STATEMENT_TIMEOUT) rather than risk a cancel reaching another.
    const conn = connectionOf.get(backend);
    if (!conn) return;
    this.q.canceller = null;
    readCancels++;
    const hold = new ConnectionHold(conn);
    const pid = backend.pid;
    cancelSent.set(pid, Infinity);
    // postgres.js's cancel(query) for a running statement: a new connection that sends the cancel
    // request, settled when PostgreSQL has processed it (closed that connection) or when that connection
    // failed (connect_timeout, the deadline): it always settles, and only then may the backend run
    // anything else (ConnectionHold closes the connection if it somehow does not).
    const processed = () => { cancelSent.set(pid, performance.now()); hold.release(); };
    canceller(this.q).then(processed, processed);
  }
}
const CANCEL_GRACE_MS = 20;
let readCancels = 0;
/** Read statements this thread cancelled because their client went away (metrics). */
export const cancelledReads = (): number => readCancels;

/**
 * Keeps a connection from starting another statement until released: the statement postgres.js hands it
 * meanwhile waits (the pool sees the connection busy, and gives it at most that one), then runs.
 */
class ConnectionHold {
  private readonly execute: RawConnection['execute'];
  private parked: RawQuery | null = null;
  private released = false;
  private readonly limit: NodeJS.Timeout;
  constructor(private readonly conn: RawConnection) {
    this.execute = conn.execute;
    conn.execute = (q) => { this.parked = q; return false; };
    // A cancel request that never settles (postgres.js did not see its connection fail): the connection
    // is closed rather than reused with a cancel perhaps still on its way; a statement parked on it fails
    // (503) and the pool opens another connection.
    this.limit = setTimeout(() => { this.conn.terminate(); this.release(); }, HOLD_LIMIT_MS).unref();
  }
  release(): void {
    if (this.released) return;
    this.released = true;
    clearTimeout(this.limit);
    this.conn.execute = this.execute;
    if (this.parked) this.execute.call(this.conn, this.parked);
  }
}
const HOLD_LIMIT_MS = 10_000;

/** Readiness probe: the database answers a trivial statement. */
export async function ping(db: Db): Promise<void> { await db`select 1`; }
