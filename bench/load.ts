// Main-thread side of HTTP load: one long-lived load thread (bench/load-worker.ts) runs autocannon
// and streams per-second counts back over a MessagePort for the progress line.
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Progress } from './progress.ts';

export interface LoadSpec {
  /** Origin, e.g. http://127.0.0.1:1337 */
  url: string;
  method: string;
  /** Path with query string. */
  path: string;
  headers: Record<string, string>;
  connections: number;
  duration: number;
  warmup: number;
  vary: 'create-tag' | 'update-tag' | 'update-article' | null;
  /** A fixed request body (GraphQL operations). */
  body?: string;
}

export interface LoadResult {
  rps: number;
  requests: number;
  seconds: number;
  /** Latency percentiles in milliseconds. */
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
}

export interface LoadMessage { phase: 'warmup' | 'measure'; second: number; perSecond: number }

export class LoadRunner {
  private readonly pool = new Piscina({
    filename: new URL('./load-worker.ts', import.meta.url).href,
    minThreads: 1,
    maxThreads: 1,
    idleTimeout: 0,
    // The thread must keep its event loop running between ticks, not block in Atomics.wait.
    atomics: 'disabled',
  });

  async run(spec: LoadSpec, label: string, progress: Progress): Promise<LoadResult> {
    const { port1, port2 } = new MessageChannel();
    port1.on('message', (m: LoadMessage) => {
      const total = m.phase === 'warmup' ? spec.warmup : spec.duration;
      progress.update(`${label}: ${m.phase} ${Math.min(m.second, Math.ceil(total))}/${Math.ceil(total)} s, ${m.perSecond} req/s`);
    });
    try {
      return (await this.pool.run({ spec, port: port2 }, { transferList: [port2] })) as LoadResult;
    } finally {
      port1.close();
    }
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
