// Runs tasks on a Piscina worker pool, or inline on the main thread when WORKERS=0. Each worker runs
// many tasks at once (they wait on PostgreSQL, not on the CPU).
import { Piscina } from 'piscina';
import { BroadcastChannel } from 'node:worker_threads';
import { cloneableConfig, type Config } from '../config.ts';
import type { Task } from './task.ts';
import type { Reply } from './rest/reply.ts';
import { createApp, type AppStats } from './app.ts';

export interface Pool {
  run(task: Task): Promise<Reply>;
  /** What each worker last reported (for /metrics). */
  stats(): AppStats[];
  close(): Promise<void>;
}

/** Workers report their stats here every few seconds (Piscina cannot address one worker in particular). */
export const STATS_CHANNEL = 'fastrapi:stats';

export function createPool(config: Config, databaseUrl: string): Pool {
  if (config.workers === 0) {
    const app = createApp(config, databaseUrl);
    return { run: (t) => app.handle(t), stats: () => [app.stats()], close: () => app.close() };
  }
  const piscina = new Piscina({
    filename: new URL('./worker.ts', import.meta.url).href,
    minThreads: config.workers,
    maxThreads: config.workers,
    concurrentTasksPerWorker: 256,
    idleTimeout: 0,
    workerData: { config: cloneableConfig(config), databaseUrl },
  });
  const latest = new Map<number, AppStats>();
  const channel = new BroadcastChannel(STATS_CHANNEL);
  channel.onmessage = (e) => {
    const { threadId, stats } = (e as { data: unknown }).data as { threadId: number; stats: AppStats };
    latest.set(threadId, stats);
  };
  channel.unref();
  return {
    run: (t) => piscina.run(t) as Promise<Reply>,
    stats: () => [...latest.values()],
    close: async () => { channel.close(); await piscina.destroy(); },
  };
}
