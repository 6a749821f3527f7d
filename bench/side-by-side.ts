// Side by side with a live Strapi on ONE database (issue 31): every uncached read scenario of
// bench/scenarios.ts (REST and GraphQL), sent by one client, one request at a time, alternating Strapi and
// this server request by request (so machine load hits both alike). Median latency of each, whether both
// answered 200, and whether their JSON `data` (and `meta`) are deep-equal — mismatches are reported, never fatal.
//
//   npx tsx bench/side-by-side.ts --strapi http://127.0.0.1:1361 --fastrapi http://127.0.0.1:1362 \
//     [--size 100k] [--runs 30] [--warmup 3] [--token T]
//
// --size names the seed the database holds (1k, 10k, 100k, 1m: which documentIds and pages exist);
// --token is sent to both as `Authorization: Bearer T` (without it both answer as the public role).
// This server gets `Cache-Control: no-cache` so its response cache does not answer; the GraphQL bodies are
// Strapi 5's flat shape (Strapi: graphql `v4CompatibilityMode: false`; this server: GRAPHQL_SHAPE=v5).
//
// How it was run for issue 31 at 100k (dev PostgreSQL 15 on port 5499, a copy of the benchmark's database):
//   createdb -h localhost -p 5499 -U postgres -T wt31_100k sbs100k
//   STRAPI_APP=/tmp/strapi-sbs bash /work/shared/strapi-reference/setup.sh /work/main/models
//   sed -i 's/v4CompatibilityMode: true/v4CompatibilityMode: false/' /tmp/strapi-sbs/config/plugins.js
//   cd /tmp/strapi-sbs && DATABASE_HOST=127.0.0.1 DATABASE_PORT=5499 DATABASE_NAME=sbs100k DATABASE_USERNAME=postgres \
//     PORT=1361 NODE_ENV=production nohup node node_modules/@strapi/strapi/bin/strapi.js start > strapi.log 2>&1 &
//     (start.sh's own command with the database variables set; start.sh itself would create a `strapi` database)
//   cd /work/main && DATABASE_URL=postgres://postgres@localhost:5499/sbs100k MODELS_DIR=/work/main/models \
//     PUBLIC_PERMISSIONS='*:find,findOne' PORT=1362 LOG_LEVEL=warn GRAPHQL_SHAPE=v5 npm start &
//     (npm start: node with --initial-old-space-size=128, see README "Node's heap"; started by `npx tsx
//     src/main.ts`, V8 marked and compacted the old generation 3× as often: populate=* with 50 clients
//     471–528 req/s against 546–580)
//   npx tsx bench/side-by-side.ts --strapi http://127.0.0.1:1361 --fastrapi http://127.0.0.1:1362 --size 100k
//   (then stop both, dropdb -h localhost -p 5499 -U postgres sbs100k)
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import { SIZES, type SizeName } from './seed.ts';
import { scenarios, blogScenarios, path, type ReadScenario, type GraphqlScenario } from './scenarios.ts';
import { LoadRunner } from './load.ts';
import { Progress } from './progress.ts';

const argv = process.argv.slice(2);
const flag = (name: string) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : undefined; };
const strapi = flag('strapi')?.replace(/\/$/, '');
const fastrapi = flag('fastrapi')?.replace(/\/$/, '');
const size = (flag('size') ?? '100k') as SizeName | 'blog';
const runs = Number(flag('runs') ?? 30);
const warmup = Number(flag('warmup') ?? 3);
const token = flag('token');
// --load S: also a throughput phase per scenario and server (autocannon, --connections, S seconds each,
// Strapi first, each once the machine is quiet: quiet()), as the small-database goals are stated
// (requests per second, not latency).
const load = flag('load') === undefined ? 0 : Number(flag('load'));
const connections = Number(flag('connections') ?? 50);
// --scenario REGEX: only the scenarios whose name matches.
const only = flag('scenario') === undefined ? null : new RegExp(flag('scenario')!);
if (!strapi || !fastrapi || !(size in SIZES || size === 'blog') || !(runs > 0) || !(warmup >= 0) || !(load >= 0)) {
  console.error(`usage: npx tsx bench/side-by-side.ts --strapi URL --fastrapi URL [--size ${Object.keys(SIZES).join('|')}|blog] [--runs N] [--warmup N] [--token T] [--load S --connections N] [--scenario REGEX]`);
  process.exit(2);
}

type Server = 'strapi' | 'fastrapi';
interface Answer { status: number; ms: number; body: string }

// node:http with keep-alive and the body kept as bytes: fetch (undici) took ≈ 3 ms more than curl for a
// 100 KiB body here, the same for both servers, which flattened every ratio of a heavy read.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function send(server: Server, s: ReadScenario | GraphqlScenario): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (server === 'fastrapi') headers['cache-control'] = 'no-cache';
  const base = new URL(server === 'strapi' ? strapi! : fastrapi!);
  const body = s.kind === 'read' ? null : Buffer.from(s.body);
  if (body) { headers['content-type'] = 'application/json'; headers['content-length'] = String(body.length); }
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.request({ agent, host: base.hostname, port: base.port, method: body ? 'POST' : 'GET', path: s.kind === 'read' ? path(s) : '/graphql', headers, timeout: 120_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      // The whole body is part of the latency.
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, body: Buffer.concat(chunks).toString() }));
      res.on('error', (e) => resolve({ status: 0, ms: performance.now() - started, body: String(e) }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e) => resolve({ status: 0, ms: performance.now() - started, body: String(e) }));
    req.end(body ?? undefined);
  });
}

/** Busy and total CPU ticks of the machine so far (/proc/stat's first line; null where there is none). */
function cpuTicks(): { busy: number; total: number } | null {
  try {
    const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = ticks[3] + (ticks[4] ?? 0);
    const total = ticks.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch { return null; }
}

/**
 * Waits (up to 60 s) until the machine is quiet: under 20% of its CPU busy over half a second. A server
 * that fell behind under load goes on answering the requests of connections the load generator has
 * closed (Strapi at 11 req/s with 50 connections: seconds of them), and that work must not run during
 * the next server's measurement.
 */
async function quiet(): Promise<void> {
  const until = performance.now() + 60_000;
  let last = cpuTicks();
  while (last && performance.now() < until) {
    await new Promise((r) => setTimeout(r, 500));
    const now = cpuTicks()!;
    const busy = (now.busy - last.busy) / Math.max(1, now.total - last.total);
    if (busy < 0.2) return;
    last = now;
  }
}

const median = (xs: number[]) => {
  const a = [...xs].sort((x, y) => x - y);
  return a.length === 0 ? NaN : a.length % 2 ? a[a.length >> 1] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
};
const fmt = (ms: number) => (Number.isNaN(ms) ? '—' : ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const short = (v: unknown) => { const t = JSON.stringify(v) ?? 'undefined'; return t.length > 120 ? `${t.slice(0, 117)}…` : t; };

/** The first place two JSON values differ, as `path: strapi ≠ fastrapi`. */
function firstDifference(a: unknown, b: unknown, at = ''): string | null {
  if (isDeepStrictEqual(a, b)) return null;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) { const d = firstDifference(a[i], b[i], `${at}[${i}]`); if (d) return d; }
    return `${at}: ${a.length} items ≠ ${b.length} items`;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a), kb = Object.keys(b);
    const missing = ka.filter((k) => !(k in b)), extra = kb.filter((k) => !(k in a));
    if (missing.length || extra.length) return `${at || '.'}: keys only on Strapi [${missing.join(', ')}], only on fastrapi [${extra.join(', ')}]`;
    for (const k of ka) { const d = firstDifference((a as any)[k], (b as any)[k], `${at}.${k}`); if (d) return d; }
  }
  return `${at || '.'}: ${short(a)} ≠ ${short(b)}`;
}

/** Compares one pair of answers; returns the problems found (empty when both are 200 with equal data). */
function compare(s: ReadScenario | GraphqlScenario, a: Answer, b: Answer): string[] {
  const problems: string[] = [];
  for (const [who, r] of [['Strapi', a], ['fastrapi', b]] as const) {
    if (r.status !== 200) problems.push(`${who} answered ${r.status || 'nothing'}: ${r.body.slice(0, 200)}`);
  }
  if (problems.length) return problems;
  let ja: any, jb: any;
  try { ja = JSON.parse(a.body); jb = JSON.parse(b.body); } catch (e) { return [`unparsable JSON: ${String(e)}`]; }
  if (s.kind === 'graphql') {
    if (ja.errors) problems.push(`Strapi GraphQL errors: ${short(ja.errors)}`);
    if (jb.errors) problems.push(`fastrapi GraphQL errors: ${short(jb.errors)}`);
  }
  const data = firstDifference(ja.data, jb.data, 'data');
  if (data) problems.push(data);
  const meta = firstDifference(ja.meta, jb.meta, 'meta');
  if (meta) problems.push(meta);
  return problems;
}

// The blog's first article (as Strapi lists it) for the get-one reads of --size blog.
const firstArticle = async () => JSON.parse((await send('strapi', { kind: 'read', name: 'first', route: 'articles', shape: 'list', query: 'pagination[pageSize]=1', expect: 'non-empty-list' })).body).data[0].documentId as string;
const list = (size === 'blog' ? blogScenarios(await firstArticle())
  : scenarios(size).filter((s): s is ReadScenario | GraphqlScenario => (s.kind === 'read' || s.kind === 'graphql') && !s.cached))
  .filter((s) => !only || only.test(s.name));
const loadBefore = loadavg();
console.error(`${list.length} scenarios, ${warmup} warm-ups + ${runs} requests per server each, one client, alternating`);
const rows: string[] = [];
const mismatches: string[] = [];
for (const s of list) {
  const times: Record<Server, number[]> = { strapi: [], fastrapi: [] };
  const failures: Record<Server, number> = { strapi: 0, fastrapi: 0 };
  let compared = false;
  for (let i = 0; i < warmup + runs; i++) {
    // Who goes first alternates too, so neither always follows the other's work on the database.
    const order: Server[] = i % 2 ? ['fastrapi', 'strapi'] : ['strapi', 'fastrapi'];
    const got = {} as Record<Server, Answer>;
    for (const server of order) got[server] = await send(server, s);
    if (!compared) { // the first pair (a warm-up when there are any) decides equality
      compared = true;
      for (const p of compare(s, got.strapi, got.fastrapi)) mismatches.push(`- **${s.name}**: ${p}`);
    }
    if (i < warmup) continue;
    for (const server of order) {
      if (got[server].status === 200) times[server].push(got[server].ms); else failures[server]++;
    }
  }
  const ms = { strapi: median(times.strapi), fastrapi: median(times.fastrapi) };
  const ratio = ms.strapi / ms.fastrapi;
  const failed = (['strapi', 'fastrapi'] as const).filter((k) => failures[k]).map((k) => `${k} ${failures[k]} non-200`).join(', ');
  rows.push(`| ${s.name} | ${fmt(ms.strapi)} | ${fmt(ms.fastrapi)} | ${Number.isFinite(ratio) ? (ratio >= 10 ? ratio.toFixed(0) : ratio >= 1 ? ratio.toFixed(1) : ratio.toFixed(2)) : '—'}×${failed ? ` (${failed})` : ''} |`);
  console.error(`  ${s.name}: ${fmt(ms.strapi)} / ${fmt(ms.fastrapi)} ms`);
}
const loadAfter = loadavg();

console.log(`Side by side, ${size}, median of ${runs} sequential requests per server (${warmup} warm-ups), one client; load average ${loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ${loadAfter.map((x) => x.toFixed(2)).join(' ')} after.\n`);
console.log('| scenario | Strapi ms | fastrapi ms | × faster |');
console.log('|---|---:|---:|---:|');
for (const r of rows) console.log(r);
if (load > 0) {
  const runner = new LoadRunner();
  const progress = new Progress();
  const lines: string[] = [];
  for (const s of list) {
    const rps = {} as Record<Server, number>;
    const shown = {} as Record<Server, string>;
    for (const server of ['strapi', 'fastrapi'] as const) {
      const headers: Record<string, string> = { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...(server === 'fastrapi' ? { 'cache-control': 'no-cache' } : {}) };
      await quiet();
      const r = await runner.run({
        url: server === 'strapi' ? strapi! : fastrapi!, method: s.kind === 'read' ? 'GET' : 'POST', path: s.kind === 'read' ? path(s) : '/graphql',
        headers: s.kind === 'read' ? headers : { ...headers, 'content-type': 'application/json' }, body: s.kind === 'read' ? undefined : s.body,
        connections, duration: load, warmup: 1, vary: null,
      }, `${s.name} ${server}`, progress);
      // A run with failed requests (non-2xx, errors or timeouts) has no rate to compare: it says what failed.
      const failed = r.non2xx + r.errors;
      rps[server] = failed || !r.rps ? NaN : r.rps;
      shown[server] = failed ? `failed (${r.non2xx} non-2xx, ${r.errors} errors or timeouts)` : !r.rps ? 'no answer within the run' : String(Math.round(r.rps));
    }
    const ratio = Number.isFinite(rps.fastrapi / rps.strapi) ? `${(rps.fastrapi / rps.strapi).toFixed(1)}×` : '—';
    lines.push(`| ${s.name} | ${shown.strapi} | ${shown.fastrapi} | ${ratio} |`);
    progress.done(`  ${s.name}: Strapi ${shown.strapi} req/s, fastrapi ${shown.fastrapi} req/s`);
  }
  await runner.close();
  console.log(`\nThroughput, ${connections} connections, ${load} s per server and scenario (after 1 s of warm-up); load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} after.\n`);
  console.log('| scenario | Strapi req/s | fastrapi req/s | × |');
  console.log('|---|---:|---:|---:|');
  for (const l of lines) console.log(l);
}
console.log(mismatches.length ? `\nMismatches (first pair of answers per scenario):\n${mismatches.join('\n')}` : '\nNo mismatch: every scenario answered 200 on both with deep-equal `data` and `meta`.');
