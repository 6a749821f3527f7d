// What happens to errors nothing caught, on the main thread and in worker threads: each is one JSON log
// line (never Node's silent worker death or its plain-text crash), and the process carries on where
// that is safe. Also the test-only way to make a thread fail outside a request.
import { log, flushLogs } from './log.ts';
import type { Task } from './task.ts';
import type { Reply } from './rest/reply.ts';

const detail = (e: unknown) => String((e as Error)?.stack ?? e);

/**
 * - main thread: an uncaught exception or an unhandled rejection is logged (level error) and the node
 *   keeps serving. Requests are handled in callbacks that each catch their own errors; what escapes
 *   concerns at most the request whose callback threw, while exiting would drop every other one.
 * - worker thread: an unhandled rejection is logged and the worker keeps going; an uncaught exception is
 *   logged and ends the worker (its state is unknown): its in-flight requests get 503 and Piscina starts
 *   a new worker (src/pool.ts).
 */
export function installCrashHandlers(where: 'main' | 'worker'): void {
  process.on('unhandledRejection', (reason) => {
    log.error('unhandled rejection', { thread: where, error: detail(reason) });
  });
  process.on('uncaughtException', (error, origin) => {
    if (where === 'worker') {
      log.error('uncaught exception: worker thread ends (Piscina replaces it)', { thread: where, origin, error: detail(error) });
      flushLogs();
      process.exit(70);
    }
    log.error('uncaught exception', { thread: where, origin, error: detail(error) });
  });
}

/**
 * TEST ONLY. When the environment variable FASTRAPI_TEST_CRASH_PATH names a path (never set it in
 * production), a request to that path fails the thread that handles it, outside any request:
 * `?mode=throw` throws from a timer (a worker dies; the main thread logs and lives), `?mode=exit` calls
 * process.exit in a worker, `?mode=reject` leaves a promise rejection unhandled. The request itself is
 * answered 204 after 200 ms if its thread is still there.
 */
const crashPath = process.env.FASTRAPI_TEST_CRASH_PATH || '';

export function testCrash(task: Task, where: 'main' | 'worker'): Promise<Reply> | null {
  if (!crashPath || task.path !== crashPath) return null;
  const mode = new URLSearchParams(task.query).get('mode');
  log.warn('FASTRAPI_TEST_CRASH_PATH: failing this thread on purpose', { mode, thread: where, requestId: task.requestId });
  if (mode === 'throw') setImmediate(() => { throw new Error('test crash: thrown outside a request'); });
  else if (mode === 'exit') {
    if (where === 'main') return Promise.resolve({ status: 400, body: '{"data":null,"error":{"status":400,"name":"BadRequestError","message":"mode=exit only in a worker","details":{}}}' });
    setImmediate(() => process.exit(3));
  } else if (mode === 'reject') void Promise.reject(new Error('test crash: a rejection nobody handles'));
  return new Promise((resolve) => setTimeout(() => resolve({ status: 204, body: '' }), 200));
}
