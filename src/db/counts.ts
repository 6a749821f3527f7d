// Runs compiler/counts.ts: the counters' table at start, installing a table's triggers (`npm run indexes
// -- --apply`), and the background fold that keeps each table's entries few.
import type { Sql } from 'postgres';
import { COUNTS_TABLE_DDL, COUNT_FUNCTION_DDL, COUNT_FUNCTION_EXISTS_SQL, FOLDABLE_SQL, ORPHANS_SQL, foldCounts, distinctCounters, type CounterAdvice } from '../../compiler/counts.ts';
import { log } from '../log.ts';

/** Serializes the counters' DDL between nodes starting together (not Strapi's schema lock). */
const LOCK_KEY = 7215004116;
/** A table's entries are folded once it has more than this many (a read sums them: ≈ 0.1 ms per 1,000). */
const FOLD_ABOVE = 64;

/**
 * Makes the counters' table and trigger function if missing (`replace`: the function anew, as `--apply`
 * does). False (logged) when this role may not.
 */
export async function setupCounts(sql: Sql, replace = false): Promise<boolean> {
  try {
    await sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${LOCK_KEY}::bigint)`;
      for (const ddl of COUNTS_TABLE_DDL) await tx.unsafe(ddl);
      const [{ exists }] = await tx.unsafe<Array<{ exists: boolean }>>(COUNT_FUNCTION_EXISTS_SQL);
      if (replace || !exists) for (const ddl of COUNT_FUNCTION_DDL) await tx.unsafe(ddl);
    });
    return true;
  } catch (e) {
    log.warn('row counters unavailable: list totals count rows (could not create fastrapi.row_counts)', { error: String(e) });
    return false;
  }
}

/** The tables of `advice` whose counters are installed and enabled. */
export async function countedTables(sql: Sql, advice: CounterAdvice[]): Promise<Set<string>> {
  if (!advice.length) return new Set();
  // Each advice's own check, the one its reads make, in one statement.
  const [row] = await sql.unsafe<Array<Record<string, boolean>>>(`select ${advice.map((a, i) => `(${a.armed}) as a${i}`).join(', ')}`);
  return new Set(advice.filter((_, i) => row[`a${i}`]).map((a) => a.table));
}

/** Installs the counters of the tables in `advice` that lack them (each in its own transaction). */
export async function installCounters(sql: Sql, advice: CounterAdvice[], say: (line: string) => void): Promise<number> {
  if (!advice.length) return 0;
  if (!(await setupCounts(sql, true))) throw new Error('could not create the row counters\' table and trigger function (see the warning above)');
  const done = await countedTables(sql, advice);
  const todo = distinctCounters(advice.filter((a) => !done.has(a.table)));
  for (const a of todo) {
    const started = Date.now();
    await sql.begin(async (tx) => { for (const s of a.install) await tx.unsafe(s); });
    say(`counters on ${a.table} in ${((Date.now() - started) / 1000).toFixed(1)} s (${a.why})`);
  }
  return todo.length;
}

export interface CountFolder { stop(): Promise<void> }

/**
 * Every `intervalMs`, folds the entries of each table that has more than FOLD_ABOVE (and over two per key) into
 * one per key (locale, status, and target on a link table), and drops those of tables gone. Safe beside
 * other nodes' folds and any writer (compiler/counts.ts).
 */
export function startCountFolder(sql: Sql, intervalMs: number): CountFolder {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;
  const pass = async () => {
    await sql.unsafe(ORPHANS_SQL);
    for (const { table } of await sql.unsafe<Array<{ table: string }>>(FOLDABLE_SQL, [FOLD_ABOVE])) {
      if (stopped) return;
      await sql.begin(async (tx) => { for (const s of foldCounts(table)) await tx.unsafe(s); });
    }
  };
  const tick = () => {
    running = pass().catch((e) => { if (!stopped) log.warn('could not fold the row counters (retried)', { error: String(e) }); })
      .finally(() => { running = null; if (!stopped) schedule(); });
  };
  const schedule = () => { timer = setTimeout(tick, intervalMs); timer.unref(); };
  schedule();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
