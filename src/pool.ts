// Runs tasks on a Piscina worker pool, or inline on the main thread when WORKERS=0. Each worker runs
// many tasks at once (they wait on PostgreSQL, not on the CPU).
import { Piscina } from 'piscina';
import type { Config } from '../config.ts';
import type { Task } from './task.ts';
import type { Reply } from './rest/reply.ts';
import { createApp } from './app.ts';

export interface Pool { run(task: Task): Promise<Reply>; close(): Promise<void> }

export function createPool(config: Config, databaseUrl: string): Pool {
  if (config.workers === 0) {
    const app = createApp(config, databaseUrl);
    return { run: (t) => app.handle(t), close: () => app.close() };
  }
  const piscina = new Piscina({
    filename: new URL('./worker.ts', import.meta.url).href,
    minThreads: config.workers,
    maxThreads: config.workers,
    concurrentTasksPerWorker: 256,
    idleTimeout: 0,
    workerData: { config, databaseUrl },
  });
  return {
    run: (t) => piscina.run(t) as Promise<Reply>,
    close: () => piscina.destroy(),
  };
}
