// The postgres.js pool of one worker. Statements are prepared once per connection (postgres.js keys
// them by SQL text), which is why compiled plans share text across values.
import postgres, { type Sql } from 'postgres';
import { log, logEnabled } from '../log.ts';

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
  return postgres(url, {
    max,
    prepare: true,
    idle_timeout: 0,
    onnotice: () => {},
    debug: (_conn, query, params) => {
      if (queryTap.fn) queryTap.fn(query, params);
      if (logQueries && logEnabled('debug')) log.debug('sql', { query: query.slice(0, 500), params: params.length });
    },
    // Strapi keeps UTC wall-clock time in `timestamp without time zone` columns: a session in UTC makes
    // now() and every timestamp cast agree with it whatever the server's default time zone is.
    connection: { application_name: 'fastrapi', statement_timeout: statementTimeout, TimeZone: 'UTC', plan_cache_mode: planCacheMode },
  });
}

/** Readiness probe: the database answers a trivial statement. */
export async function ping(db: Db): Promise<void> { await db`select 1`; }
