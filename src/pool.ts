// Runs tasks on a Piscina worker pool, or inline on the main thread when WORKERS=0. Each worker runs
// many tasks at once (they wait on PostgreSQL, not on the CPU).
import { Piscina } from 'piscina';
import { BroadcastChannel } from 'node:worker_threads';
import { cloneableConfig, type Config } from '../config.ts';
import { ClientSignal, GoneTasks, type Task } from './task.ts';
import { errorReply, type Reply } from './rest/reply.ts';
import { createApp, type AppStats } from './app.ts';
import type { ProjectRuntime } from './project/runtime.ts';
import { WrittenPosition } from './db/replicas.ts';
import type { RenderCacheGate } from './db/render-gate.ts';
import { applyDbConfig } from './db/connect.ts';
import { testCrash } from './crash.ts';
import type { KeyedColumn } from '../compiler/foreign-keys.ts';
import { log } from './log.ts';
import { serviceUnavailable } from '../compiler/errors.ts';

export interface Pool {
  run(task: Task): Promise<Reply>;
  /** The client of a task given to run() went away: its statements are cancelled (Task.signal). */
  abort(task: Task): void;
  /** What each worker last reported (for /metrics). */
  stats(): AppStats[];
  close(): Promise<void>;
}

/** Workers report their stats here every few seconds (Piscina cannot address one worker in particular). */
export const STATS_CHANNEL = 'fastrapi:stats';
/** The main thread posts the cancelId of a task whose client went away; the worker running it aborts it (see GoneTasks). */
export const ABORT_CHANNEL = 'fastrapi:abort';

/** The answer for requests a worker thread was running when it died. */
const workerGone = (): Reply => errorReply(serviceUnavailable());

/** `project`: the project's runtime the main thread loaded; with no worker threads it serves the requests. */
export function createPool(config: Config, databaseUrl: string, renderGate?: RenderCacheGate, project?: ProjectRuntime | null, keyedColumns?: readonly KeyedColumn[]): Pool {
  if (config.workers === 0) {
    applyDbConfig(config.db);
    const app = createApp(config, databaseUrl, undefined, renderGate, { project, keyedColumns });
    return {
      run: (t) => {
        t.signal = new ClientSignal();
        return testCrash(t, 'main') ?? app.handle(t);
      },
      abort: (t) => t.signal?.abort(),
      stats: () => [app.stats()],
      close: () => app.close(),
    };
  }
  const written = new WrittenPosition();
  const gone = new GoneTasks();
  // Every worker counts its reads here: a split read wants the whole node idle (src/db/connect.ts readsInFlight).
  const readCount = new SharedArrayBuffer(4);
  const piscina = new Piscina({
    filename: new URL('./worker.ts', import.meta.url).href,
    minThreads: config.workers,
    maxThreads: config.workers,
    concurrentTasksPerWorker: 256,
    idleTimeout: 0,
    // Piscina's default ('sync') parks an idle thread in Atomics.wait, which stops its event loop: its
    // change notifications (a revocation, a write of another node) and change watch would wait for the
    // next task, which would then run first, on stale caches; nor could it acknowledge a revocation.
    atomics: 'disabled',
    workerData: { config: cloneableConfig(config), databaseUrl, written: written.buffer, goneTasks: gone.buffer, renderGate: renderGate?.buffer, keyedColumns, readCount },
  });
  // A worker that dies with no task in flight is reported here (an unheard 'error' event would end the process).
  piscina.on('error', (e: unknown) => log.error('worker thread failed', { error: String((e as Error)?.stack ?? e) }));
  const latest = new Map<number, AppStats>();
  const channel = new BroadcastChannel(STATS_CHANNEL);
  channel.onmessage = (e) => {
    const { threadId, stats } = (e as { data: unknown }).data as { threadId: number; stats: AppStats };
    latest.set(threadId, stats);
  };
  channel.unref();
  const aborts = new BroadcastChannel(ABORT_CHANNEL);
  aborts.unref();
  let seq = 0;
  let closing = false;
  return {
    run: (t) => {
      t.cancelId = seq = (seq % 0x7fffffff) + 1;
      gone.clear(t.cancelId);
      // worker.ts catches every error of a task: a rejection here means its thread died (an uncaught
      // exception, process.exit, out of memory) or could not take the task. Piscina starts another.
      return (piscina.run(t) as Promise<Reply>).catch((e: unknown) => {
        if (!closing) log.error('worker thread died with requests in flight: 503', { error: String((e as Error)?.message ?? e), requestId: t.requestId });
        return workerGone();
      });
    },
    abort: (t) => {
      if (!t.cancelId) return;
      gone.mark(t.cancelId);
      aborts.postMessage(t.cancelId);
    },
    stats: () => [...latest.values()],
    close: async () => { closing = true; channel.close(); aborts.close(); await piscina.destroy(); },
  };
}
