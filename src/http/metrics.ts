// Prometheus metrics in the text exposition format 0.0.4, written by hand (a registry library would be
// the only dependency for a few counters). Recorded on the main thread, where every response is sent:
// requests by route kind and status, a latency histogram per route kind, event-loop delay; the server
// adds gauges (database pools, plan caches) when it renders.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/** Route kinds, in the order their counters are numbered (a request's counter key, `record`). */
const KINDS = ['rest', 'graphql', 'upload', 'auth', 'health', 'other'] as const;
export type RouteKind = typeof KINDS[number];
/** Methods counted under their own name, in key order; any other request method is counted as OTHER. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'OTHER'];
const STATUSES = 1000;
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Which kind of route a path is (a small fixed set: labels must not grow with the URLs clients send). */
export function routeKind(path: string, graphqlEndpoint: string): RouteKind {
  if (path.startsWith('/api/')) {
    if (path.startsWith('/api/upload') || path.startsWith('/api/upload/')) return 'upload';
    if (path.startsWith('/api/auth/') || path.startsWith('/api/users') || path.startsWith('/api/users-permissions/')) return 'auth';
    return 'rest';
  }
  if (path === graphqlEndpoint || path.startsWith(`${graphqlEndpoint}/`)) return 'graphql';
  if (path.startsWith('/uploads/')) return 'upload';
  if (path === '/_health' || path === '/_ready' || path === '/metrics') return 'health';
  return 'other';
}

const methodIndex = (m: string): number => { const i = METHODS.indexOf(m); return i < 0 ? METHODS.length - 1 : i; };

interface Histogram { counts: number[]; sum: number; count: number }

export interface Gauge { name: string; help: string; samples: Array<{ labels?: Record<string, string>; value: number }> }

const label = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const labels = (l: Record<string, string> | undefined) => (l && Object.keys(l).length ? `{${Object.entries(l).map(([k, v]) => `${k}="${label(v)}"`).join(',')}}` : '');

export class Metrics {
  private requests = new Map<number, number>();
  private latency = new Map<RouteKind, Histogram>();
  private loop: IntervalHistogram;
  private readonly started = Date.now();

  constructor() {
    this.loop = monitorEventLoopDelay({ resolution: 20 });
    this.loop.enable();
  }

  record(kind: RouteKind, method: string, status: number, seconds: number): void {
    // A number, not a string built per request: kind and method by their place in the lists, then the status.
    const key = (KINDS.indexOf(kind) * METHODS.length + methodIndex(method)) * STATUSES + status;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    let h = this.latency.get(kind);
    if (!h) { h = { counts: BUCKETS.map(() => 0), sum: 0, count: 0 }; this.latency.set(kind, h); }
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]) { h.counts[i]++; break; }
    h.sum += seconds;
    h.count++;
  }

  render(extra: Gauge[] = []): string {
    const out: string[] = [];
    out.push('# HELP fastrapi_http_requests_total HTTP requests answered, by route kind, method and status.');
    out.push('# TYPE fastrapi_http_requests_total counter');
    for (const [key, n] of this.requests) {
      const status = String(key % STATUSES);
      const kind = KINDS[Math.floor(key / (STATUSES * METHODS.length))];
      const method = METHODS[Math.floor(key / STATUSES) % METHODS.length];
      out.push(`fastrapi_http_requests_total${labels({ kind, method, status })} ${n}`);
    }
    out.push('# HELP fastrapi_http_request_duration_seconds Time from the request to its answer, by route kind.');
    out.push('# TYPE fastrapi_http_request_duration_seconds histogram');
    for (const [kind, h] of this.latency) {
      let cumulative = 0;
      for (let i = 0; i < BUCKETS.length; i++) {
        cumulative += h.counts[i];
        out.push(`fastrapi_http_request_duration_seconds_bucket${labels({ kind, le: String(BUCKETS[i]) })} ${cumulative}`);
      }
      out.push(`fastrapi_http_request_duration_seconds_bucket${labels({ kind, le: '+Inf' })} ${h.count}`);
      out.push(`fastrapi_http_request_duration_seconds_sum${labels({ kind })} ${h.sum}`);
      out.push(`fastrapi_http_request_duration_seconds_count${labels({ kind })} ${h.count}`);
    }
    const loop: Gauge = {
      name: 'fastrapi_event_loop_delay_seconds', help: 'Event-loop delay of the main thread since start (perf_hooks.monitorEventLoopDelay).',
      samples: [
        { labels: { quantile: '0.5' }, value: this.loop.percentile(50) / 1e9 },
        { labels: { quantile: '0.99' }, value: this.loop.percentile(99) / 1e9 },
        { labels: { quantile: '1' }, value: this.loop.max / 1e9 },
      ],
    };
    const uptime: Gauge = { name: 'fastrapi_uptime_seconds', help: 'Seconds since the HTTP front end started.', samples: [{ value: (Date.now() - this.started) / 1000 }] };
    for (const g of [loop, uptime, ...extra]) {
      out.push(`# HELP ${g.name} ${g.help}`);
      out.push(`# TYPE ${g.name} gauge`);
      for (const s of g.samples) out.push(`${g.name}${labels(s.labels)} ${Number.isFinite(s.value) ? s.value : 0}`);
    }
    return `${out.join('\n')}\n`;
  }

  close(): void { this.loop.disable(); }
}
