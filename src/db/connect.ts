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
  handler: unknown; executed: boolean;
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
 * Gives up on a statement still waiting for a connection. It cannot be taken back: postgres.js loses the connection for good when a
 * statement it is opening a connection for, or has queued, turns out cancelled (the connection stays in
 * its connecting/full state with nothing to run). So its text becomes `select 1` (and a transaction's
 * BEGIN forgets its transaction) and it runs harmlessly whenever a connection takes it; its promise
 * rejects now.
 */
function abandon(q: RawQuery, error: Error): void {
  if (!q.executed) { q.executed = true; q.reject(error); return; }
  q.tagged = false;
  q.strings = ['select 1'];
  q.args = [];
  if (q.options.onexecute) q.options = { ...q.options, onexecute: undefined };
  q.reject(error);
}

/**
 * Throws ClientGoneError when the client of a request went away (`task.signal`), so a statement whose
 * answer nobody will read is not issued (under overload, requests queued in a worker whose clients gave
 * up cost nothing). A statement already issued is not cancelled: postgres.js pipelines statements on a
 * connection, and a PostgreSQL cancel request (per backend, not per statement) may hit the statement
 * after it, and postgres.js 3.4.9 then attributes the cancelled statement's rows to the next one
 * (measured in the benchmark: wrong rows, then 503s).
 */
export function skipIfGone(signal: ClientSignal | undefined): void {
  if (signal?.aborted) throw new ClientGoneError();
}

/** Readiness probe: the database answers a trivial statement. */
export async function ping(db: Db): Promise<void> { await db`select 1`; }
