// Runs autocannon on its own thread (a Piscina worker: under tsx, Piscina's JS entry is what lets a
// thread load TypeScript). Off the main thread, the load generator does not share an event loop with
// the server's uWS front end or the HTTP-ceiling server it measures.
import type { MessagePort } from 'node:worker_threads';
import autocannon, { type Options, type Request, type Result } from 'autocannon';
import type { LoadSpec, LoadResult, LoadMessage } from './load.ts';

/** Body of the n-th write; `run` is unique per load run so created names never repeat across runs. */
function writeBody(vary: NonNullable<LoadSpec['vary']>, run: string, n: number): string {
  if (vary === 'update-article') return JSON.stringify({ data: { title: `bench-updated-${run}-${n}` } });
  const name = vary === 'create-tag' ? `bench-${run}-${n}` : `bench-updated-${run}-${n}`;
  return JSON.stringify({ data: { name } });
}

function request(spec: LoadSpec): Request {
  const base: Request = { method: spec.method, path: spec.path, headers: spec.headers, ...(spec.body ? { body: spec.body } : {}) };
  if (!spec.vary) return base;
  const vary = spec.vary;
  const run = Date.now().toString(36);
  let n = 0;
  return { ...base, setupRequest: (req) => ({ ...req, body: writeBody(vary, run, ++n) }) };
}

function summarize(r: Result): LoadResult {
  const statusCodes: Record<string, number> = {};
  for (const [code, s] of Object.entries(r.statusCodeStats)) statusCodes[code] = s.count;
  return {
    // Completed requests over the real elapsed time: autocannon's per-second average drops partial seconds.
    rps: r.duration > 0 ? r.requests.total / r.duration : 0,
    requests: r.requests.total,
    seconds: r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes,
  };
}

async function once(spec: LoadSpec, duration: number, port: MessagePort, phase: 'warmup' | 'measure'): Promise<Result> {
  const opts: Options = { url: spec.url, connections: spec.connections, duration, requests: [request(spec)] };
  const instance = autocannon(opts);
  let elapsed = 0;
  instance.on('tick', (t: { counter: number }) => {
    elapsed++;
    const msg: LoadMessage = { phase, second: elapsed, perSecond: t.counter };
    port.postMessage(msg);
  });
  // This is not the main thread, so autocannon hands back raw histograms: aggregate them here.
  return autocannon.aggregateResult([await instance], opts);
}

export default async function run(task: { spec: LoadSpec; port: MessagePort }): Promise<LoadResult> {
  const { spec, port } = task;
  try {
    if (spec.warmup > 0) await once(spec, spec.warmup, port, 'warmup');
    return summarize(await once(spec, spec.duration, port, 'measure'));
  } finally {
    port.close();
  }
}
