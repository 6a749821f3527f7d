// Piscina worker entry: each thread builds its own App (models, postgres.js pool, plan cache).
import { workerData, threadId, BroadcastChannel } from 'node:worker_threads';
import { createApp } from './app.ts';
import { WrittenPosition } from './db/replicas.ts';
import { RenderCacheGate } from './db/render-gate.ts';
import { setLogLevel, log } from './log.ts';
import { ABORT_CHANNEL, STATS_CHANNEL } from './pool.ts';
import { applyDbConfig, shareReadCount } from './db/connect.ts';
import { installCrashHandlers, testCrash } from './crash.ts';
import { ClientSignal, GoneTasks, type Task } from './task.ts';
import { errorReply, type Reply } from './rest/reply.ts';
import { ApiError } from '../compiler/errors.ts';
import type { Config } from '../config.ts';
import type { KeyedColumn } from '../compiler/foreign-keys.ts';

const { config, databaseUrl, written, goneTasks, renderGate, keyedColumns, readCount } = workerData as {
  config: Config; databaseUrl: string; written: SharedArrayBuffer; goneTasks: SharedArrayBuffer; renderGate?: SharedArrayBuffer; keyedColumns?: KeyedColumn[];
  readCount: SharedArrayBuffer };
const gone = new GoneTasks(goneTasks);
setLogLevel(config.logLevel);
installCrashHandlers('worker');
applyDbConfig(config.db);
shareReadCount(readCount);
const app = createApp(config, databaseUrl, new WrittenPosition(written), renderGate && new RenderCacheGate(renderGate), { keyedColumns });

if (config.metrics.enabled) {
  const channel = new BroadcastChannel(STATS_CHANNEL);
  channel.unref();
  const report = () => channel.postMessage({ threadId, stats: app.stats() });
  report();
  setInterval(report, 5000).unref();
}

/** Tasks running in this thread by the pool's cancelId, so an abort posted by the main thread finds its own. */
const running = new Map<number, ClientSignal>();
const aborts = new BroadcastChannel(ABORT_CHANNEL);
aborts.unref();
aborts.onmessage = (e) => { running.get((e as { data: number }).data)?.abort(); };

export default async function handle(task: Task): Promise<Reply> {
  const id = task.cancelId;
  const signal = (task.signal = new ClientSignal());
  if (id) {
    running.set(id, signal);
    if (gone.has(id)) signal.abort();
  }
  try {
    return await (testCrash(task, 'worker') ?? app.handle(task));
  } catch (e) {
    // A rejection would read as this thread's death in the main thread (503): a bug here is a 500.
    log.error('unhandled error', { error: String((e as Error)?.stack ?? e), requestId: task.requestId });
    return errorReply(new ApiError(500, 'InternalServerError', 'Internal Server Error', {}));
  } finally {
    if (id) running.delete(id);
  }
}
