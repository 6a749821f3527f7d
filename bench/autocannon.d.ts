// autocannon 9 ships no types and @types/autocannon is not a dependency: this declares only the part
// of its programmatic API the benchmark uses (see node_modules/autocannon/README.md).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface RequestParams {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }

  export interface Request extends RequestParams {
    /** Called before every request is sent; returns the request to send. */
    setupRequest?: (req: RequestParams, context: Record<string, unknown>) => RequestParams;
  }

  export interface Options {
    url: string;
    connections?: number;
    /** Seconds; autocannon checks it on its 1 s sampling tick, so runs end on whole seconds. */
    duration?: number;
    pipelining?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    requests?: Request[];
  }

  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
    p99_9: number;
  }

  export interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram;
    requests: Histogram & { sent: number };
    throughput: Histogram;
  }

  /**
   * Resolves to a Result on the main thread; on any other thread autocannon skips aggregation and
   * resolves to raw histograms, which `aggregateResult([raw], opts)` turns into a Result.
   */
  export interface Instance extends EventEmitter, PromiseLike<unknown> {}

  interface Autocannon {
    (opts: Options): Instance;
    aggregateResult(results: unknown[], opts?: Options): Result;
  }
  const autocannon: Autocannon;
  export default autocannon;
}
