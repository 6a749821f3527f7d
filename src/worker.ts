// Piscina worker entry: each thread builds its own App (models, postgres.js pool, plan cache).
import { workerData } from 'node:worker_threads';
import { createApp } from './app.ts';
import { setLogLevel } from './log.ts';
import type { Config } from '../config.ts';
import type { Task } from './task.ts';
import type { Reply } from './rest/reply.ts';

const { config, databaseUrl } = workerData as { config: Config; databaseUrl: string };
setLogLevel(config.logLevel);
const app = createApp(config, databaseUrl);

export default function handle(task: Task): Promise<Reply> {
  return app.handle(task);
}
