// The DB limit of a read scenario: the exact SQL text and parameters the server runs, executed by a
// postgres.js loop at the same concurrency, for the same time, with no HTTP and no worker hop. The
// server cannot beat this number, so req/s ÷ DB limit says how much of the database it turns into
// answered requests.
import { performance } from 'node:perf_hooks';
import { connect, type ConnectOptions } from '../src/db/connect.ts';
import type { Progress } from './progress.ts';

export interface DbLimitSpec {
  url: string;
  /** Connections: the server's total (workers × db.poolSize), so both sides get the same database capacity. */
  poolSize: number;
  /** Concurrent callers, like autocannon's connections. */
  concurrency: number;
  duration: number;
  text: string;
  params: unknown[];
  /** Prepared (as the server runs most reads) or sent unnamed (a page planned at each execution: ReadPlan's sql.prepare). */
  prepare: boolean;
  /** The server's session settings (plan_cache_mode, JIT), so PostgreSQL plans the statement as for the server. */
  session: Pick<ConnectOptions, 'planCacheMode' | 'jit'>;
}

export interface DbLimitResult { qps: number; queries: number; seconds: number; p50: number; p99: number }

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function measureDbLimit(spec: DbLimitSpec, label: string, progress: Progress): Promise<DbLimitResult> {
  // Its callers wait for a connection as long as it takes (slow statements queue up; the server's 2 s
  // deadline would end the measurement).
  const sql = connect(spec.url, spec.poolSize, { ...spec.session, connectionDeadline: 0 });
  // The server passes the parameter vector the same way and reads raw rows (src/rest/read.ts).
  const query = () => sql.unsafe(spec.text, spec.params as never[], { prepare: spec.prepare }).raw();
  try {
    // Prepare the statement on every connection first, as the server's warm-up does for its pools.
    await Promise.all(Array.from({ length: spec.poolSize * 2 }, query));
    const latencies: number[] = [];
    const start = performance.now();
    const deadline = start + spec.duration * 1000;
    let lastCount = 0;
    const ticker = setInterval(() => {
      const second = Math.round((performance.now() - start) / 1000);
      progress.update(`${label}: DB limit ${second}/${spec.duration} s, ${latencies.length - lastCount} q/s`);
      lastCount = latencies.length;
    }, 1000);
    const caller = async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        await query();
        latencies.push(performance.now() - t0);
      }
    };
    try {
      await Promise.all(Array.from({ length: spec.concurrency }, caller));
    } finally {
      clearInterval(ticker);
    }
    const seconds = (performance.now() - start) / 1000;
    latencies.sort((a, b) => a - b);
    return { qps: latencies.length / seconds, queries: latencies.length, seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  } finally {
    await sql.end({ timeout: 5 });
  }
}
