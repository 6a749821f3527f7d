// The postgres.js pool of one worker. Statements are prepared once per connection (postgres.js keys
// them by SQL text), which is why compiled plans share text across values.
import postgres, { type Sql, type PendingQuery } from 'postgres';
import { performance } from 'node:perf_hooks';
import { log, logEnabled } from '../log.ts';
import type { ClientSignal } from '../task.ts';

export type Db = Sql;

/**
 * A listener for the statements this process sends (text and parameters). The benchmark sets it
 * around one GraphQL request to learn the SQL it must run alone for the DB limit; unset, it costs a check.
 */
export const queryTap: { fn: ((text: string, params: unknown[]) => void) | null } = { fn: null };

export type PlanCacheMode = 'auto' | 'force_generic_plan' | 'force_custom_plan';

/**
 * Generic plans by default: a read's statement has the same shape for every value (plans are cached by
 * shape), and PostgreSQL's `auto` mode kept re-planning populate statements on every execution (about 2 ms
 * of a 6 ms populate=* on the benchmark blog; 25% more throughput measured with generic plans).
 */
export function connect(url: string, max: number, logQueries: boolean, statementTimeout = 0, planCacheMode: PlanCacheMode = 'force_generic_plan'): Db {
  const deadline = connectionDeadline;
  const db = postgres(url, {
    max,
    prepare: true,
    idle_timeout: 0,
    // A connection attempt gives up after the deadline (postgres.js waits 30 s by default), and a
    // request arriving once the database is back connects at once: postgres.js's default backoff grows
    // to 20 s after repeated failures (shared by the whole pool), and retries happen only for queued
    // statements anyway, so there is no reconnect loop to slow down.
    connect_timeout: deadline / 1000,
    backoff: () => 0,
    onnotice: () => {},
    debug: (_conn, query, params) => {
      if (queryTap.fn) queryTap.fn(query, params);
      if (logQueries && logEnabled('debug')) log.debug('sql', { query: query.slice(0, 500), params: params.length });
    },
    // Strapi keeps UTC wall-clock time in `timestamp without time zone` columns: a session in UTC makes
    // now() and every timestamp cast agree with it whatever the server's default time zone is.
    connection: { application_name: 'fastrapi', statement_timeout: statementTimeout, TimeZone: 'UTC', plan_cache_mode: planCacheMode },
  });
  watchConnectionWaits(db, deadline);
  return db;
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
  handler: unknown; canceller: ((q: RawQuery) => Promise<void>) | null; executed: boolean;
  /** Set by the connection that takes the statement (it is then running or pipelined on it). */
  state: unknown;
  tagged: boolean; strings: readonly string[]; args: unknown[]; options: { onexecute?: unknown };
  reject(e: unknown): void; handle(): Promise<void>;
  [WAIT_UNTIL]?: number;
}
const WAIT_UNTIL = Symbol('fastrapi.connectionDeadline');
/** The root handler of each watched pool → its deadline in ms (transactions' handlers are others). */
const deadlines = new WeakMap<object, number>();
const waiting = new Set<RawQuery>();
const SWEEP_MS = 50;
let sweepTimer: NodeJS.Timeout | null = null;
let patched = false;

function watchConnectionWaits(db: Db, ms: number): void {
  // A statement object made but never awaited does not run: it only shows the pool's handler and the prototype.
  const probe = db`select 1` as unknown as RawQuery;
  deadlines.set(probe.handler as object, ms);
  if (patched) return;
  patched = true;
  const proto = Object.getPrototypeOf(probe) as RawQuery;
  const handle = proto.handle;
  proto.handle = function (this: RawQuery) {
    if (!this.executed) {
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
 * Gives up on a statement. On a connection, PostgreSQL is asked to cancel it (it then fails with 57014).
 * Still waiting for one, it cannot be taken back: postgres.js loses the connection for good when a
 * statement it is opening a connection for, or has queued, turns out cancelled (the connection stays in
 * its connecting/full state with nothing to run). So its text becomes `select 1` (and a transaction's
 * BEGIN forgets its transaction) and it runs harmlessly whenever a connection takes it; its promise
 * rejects now.
 */
function abandon(q: RawQuery, error: Error): void {
  if (q.state) {
    const cancel = q.canceller;
    q.canceller = null;
    cancel?.(q).catch(() => { /* the database is gone: the statement fails with its connection */ });
    return;
  }
  if (!q.executed) { q.executed = true; q.reject(error); return; }
  q.tagged = false;
  q.strings = ['select 1'];
  q.args = [];
  if (q.options.onexecute) q.options = { ...q.options, onexecute: undefined };
  q.reject(error);
}

/**
 * Cancels `query` when the client goes away (`task.signal`): on its connection PostgreSQL cancels the
 * statement (57014), otherwise it is abandoned; either way the query rejects and the request, whose
 * answer nobody will read, ends. Returns the query; without a signal it does nothing.
 *
 *   const rows = await cancelOnAbort(db`select ...`.raw(), task.signal);
 */
export function cancelOnAbort<Q extends PendingQuery<any>>(query: Q, signal: ClientSignal | undefined): Q {
  if (!signal) return query;
  const off = signal.onAbort(() => abandon(query as unknown as RawQuery, new ClientGoneError()));
  // Unregisters once settled, without starting the query (Query#then would).
  Promise.prototype.then.call(query, off, off);
  return query;
}

/** Readiness probe: the database answers a trivial statement. */
export async function ping(db: Db): Promise<void> { await db`select 1`; }
