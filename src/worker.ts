// Piscina worker entry: each thread builds its own App (models, postgres.js pool, plan cache).
import { workerData, threadId, BroadcastChannel } from 'node:worker_threads';
import { createApp } from './app.ts';
import { setLogLevel } from './log.ts';
import { STATS_CHANNEL } from './pool.ts';
import type { Config } from '../config.ts';
import type { Task } from './task.ts';
import type { Reply } from './rest/reply.ts';

const { config, databaseUrl } = workerData as { config: Config; databaseUrl: string };
setLogLevel(config.logLevel);
const app = createApp(config, databaseUrl);

if (config.metrics.enabled) {
  const channel = new BroadcastChannel(STATS_CHANNEL);
  channel.unref();
  const report = () => channel.postMessage({ threadId, stats: app.stats() });
  report();
  setInterval(report, 5000).unref();
}

export default function handle(task: Task): Promise<Reply> {
  return app.handle(task);
}
