// `npm run bench`: starts the server in-process, seeds (or reuses) the benchmark database, then for
// every scenario measures the server with autocannon and, for reads, the two bounds it is compared
// with: the DB limit (same SQL, no HTTP) and the HTTP ceiling (static reply, same size).
// Exit code 1 when any request failed; speed never fails the run (CI smoke test: --quick --duration 1).
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startServer, type Server } from '../src/server.ts';
import { loadModels } from '../src/models.ts';
import { connect, queryTap, type ConnectOptions, type PlanCacheMode } from '../src/db/connect.ts';
import { Compiler } from '../compiler/index.ts';
import type { Schema } from '../compiler/schema.ts';
import type { Sql } from 'postgres';
import { parseOptions, UsageError, USAGE, type BenchOptions } from './options.ts';
import { seed } from './seed.ts';
import { advisedIndexes, queryIndexes } from '../compiler/indexes.ts';
import { advisedCounters, queryCounters } from '../compiler/counts.ts';
import { installCounters } from '../src/db/counts.ts';
import { createIndexes } from '../src/db/indexes.ts';
import { scenarios, path as readPath, type ReadScenario, type WriteScenario, type GraphqlScenario } from './scenarios.ts';
import { LoadRunner, type LoadSpec, type LoadResult } from './load.ts';
import { measureDbLimit } from './db-limit.ts';
import { TableSizes } from '../src/db/table-sizes.ts';
import { startStaticServer } from './http-ceiling.ts';
import { waitForIdle } from './idle.ts';
import { Progress } from './progress.ts';
import { table, save, type Row, type Report } from './report.ts';

const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));
const JSON_TYPE = 'application/json';
/** Longest wait for the server's leftover SQL before a phase; past it the phase runs anyway (and says so). */
const IDLE_WAIT_SECONDS = 120;

interface Probe { status: number; body: string; contentType: string; headers: Array<[string, string]> }

/** Uncached scenarios bypass the response cache (the server answers `no-cache` requests afresh). */
const FRESH = { 'cache-control': 'no-cache' };

async function probe(origin: string, method: string, path: string, body?: string): Promise<Probe> {
  const res = await fetch(origin + path, { method, body, headers: { ...(body ? { 'content-type': JSON_TYPE } : {}), ...FRESH } });
  return { status: res.status, body: await res.text(), contentType: res.headers.get('content-type') ?? JSON_TYPE, headers: [...res.headers] };
}

const describe = (method: string, path: string, p: Probe) => `${method} ${path} → ${p.status} ${p.body.slice(0, 600)}`;

/** Why a read's answer is not what the benchmark should measure, or null when it is. */
function readProblem(s: ReadScenario, p: Probe): string | null {
  if (p.status < 200 || p.status > 299) return describe('GET', readPath(s), p);
  let data: unknown;
  try { data = (JSON.parse(p.body) as { data?: unknown }).data; } catch { return `invalid JSON: ${describe('GET', readPath(s), p)}`; }
  if (s.expect === 'non-empty-list' && !(Array.isArray(data) && data.length > 0)) return `empty list (seed mismatch?): ${describe('GET', readPath(s), p)}`;
  if (s.expect === 'object' && !(data && typeof data === 'object' && !Array.isArray(data))) return `no document: ${describe('GET', readPath(s), p)}`;
  return null;
}

function baseRow(name: string, kind: Row['kind'], method: string, path: string): Row {
  return { scenario: name, kind, method, path, rps: null, p50: null, p99: null, dbLimit: null, httpCeiling: null, bodyBytes: null, failures: 0, timeouts: 0, statusCodes: {}, error: null };
}

function withLoad(row: Row, r: LoadResult): Row {
  // autocannon counts timeouts among errors; they measure speed, which must never fail the run.
  const socketErrors = r.errors - r.timeouts;
  const failures = r.non2xx + socketErrors;
  const error = failures ? `${r.non2xx} non-2xx, ${socketErrors} socket errors (status counts ${JSON.stringify(r.statusCodes)})` : null;
  // With no completed request the percentiles are autocannon's zeros, not latencies.
  const done = r.requests > 0;
  return { ...row, rps: r.rps, p50: done ? r.p50 : null, p99: done ? r.p99 : null, failures, timeouts: r.timeouts, statusCodes: r.statusCodes, error };
}

interface Ctx { opts: BenchOptions; server: Server; schema: Schema; compiler: Compiler; loads: LoadRunner; progress: Progress; admin: Sql }

/** Lets the server finish what an earlier phase left running, so it does not load this phase. */
async function settle(ctx: Ctx, label: string): Promise<void> {
  ctx.progress.update(`${label}: waiting for the server's running SQL to finish`);
  const waited = await waitForIdle(ctx.admin, IDLE_WAIT_SECONDS);
  if (waited === null) ctx.progress.note(`${label}: server still busy after ${IDLE_WAIT_SECONDS} s, measuring anyway`);
  else if (waited > 1) ctx.progress.note(`${label}: waited ${waited.toFixed(0)} s for leftover SQL of abandoned requests`);
}

function loadSpec(ctx: Ctx, url: string, method: string, path: string, vary: LoadSpec['vary']): LoadSpec {
  return {
    url, method, path, vary, connections: ctx.opts.connections, duration: ctx.opts.duration, warmup: ctx.opts.warmup,
    headers: vary ? { 'content-type': JSON_TYPE } : {},
  };
}

async function runRead(ctx: Ctx, s: ReadScenario): Promise<Row> {
  const { server, progress, loads } = ctx;
  const path = readPath(s);
  let row = baseRow(s.name, 'read', 'GET', path);
  const first = await probe(server.url, 'GET', path);
  const problem = readProblem(s, first);
  if (problem) return { ...row, failures: 1, statusCodes: { [first.status]: 1 }, error: problem };
  row.bodyBytes = Buffer.byteLength(first.body);

  await settle(ctx, s.name);
  const spec = loadSpec(ctx, server.url, 'GET', path, null);
  row = withLoad(row, await loads.run(s.cached ? spec : { ...spec, headers: { ...spec.headers, ...FRESH } }, s.name, progress));

  if (!s.cached) row.dbLimit = await readDbLimit(ctx, s);
  await settle(ctx, s.name);
  const ceiling = await startStaticServer(first.body, first.contentType, first.headers);
  try {
    row.httpCeiling = (await loads.run(loadSpec(ctx, ceiling.url, 'GET', path, null), `${s.name} (HTTP ceiling)`, progress)).rps;
  } finally {
    ceiling.close();
  }
  return row;
}

/**
 * PostgreSQL alone running a statement, as many at once as the server's connections: those of
 * `db.poolSize` or, as a light statement runs, of `db.lightPoolSize` — the better of the two, so the
 * server is compared with the most PostgreSQL does with either.
 */
async function dbLimitOf(ctx: Ctx, name: string, text: string, params: unknown[], prepare: boolean, planCacheMode: PlanCacheMode): Promise<number> {
  const { server, progress } = ctx;
  const { workers, db } = server.config;
  const sizes = [...new Set([db.poolSize, db.lightPoolSize].filter((n) => n > 0))];
  let best = 0;
  for (const size of sizes) {
    await settle(ctx, name);
    const r = await measureDbLimit({
      url: server.databaseUrl, poolSize: Math.max(1, workers) * size, concurrency: ctx.opts.connections,
      duration: ctx.opts.duration, text, params, prepare, session: { planCacheMode, jit: db.jit },
    }, sizes.length > 1 ? `${name} (${size} connections)` : name, progress);
    best = Math.max(best, r.qps);
  }
  return best;
}

/** The DB limit of a read: its statement as Compiler.read makes it with the server's configuration. */
async function readDbLimit(ctx: Ctx, s: ReadScenario): Promise<number | null> {
  const ct = ctx.schema.routes.get(s.route);
  if (!ct) throw new Error(`scenario ${s.name}: no content-type at /api/${s.route}`);
  const plan = ctx.compiler.read(ct, s.shape, s.query, s.documentId);
  return dbLimitOf(ctx, s.name, plan.sql.text, plan.params, plan.sql.prepare, plan.sql.customPlan ? 'force_custom_plan' : ctx.server.config.db.planCacheMode);
}

async function runWrite(ctx: Ctx, s: WriteScenario): Promise<Row> {
  const { server, progress, loads } = ctx;
  const row = baseRow(s.name, 'write', s.method, s.path);
  const field = s.vary === 'update-article' ? 'title' : 'name';
  const first = await probe(server.url, s.method, s.path, JSON.stringify({ data: { [field]: `bench-probe-${Date.now()}` } }));
  if (first.status < 200 || first.status > 299) {
    return { ...row, failures: 1, statusCodes: { [first.status]: 1 }, error: describe(s.method, s.path, first) };
  }
  await settle(ctx, s.name);
  return { ...withLoad(row, await loads.run(loadSpec(ctx, server.url, s.method, s.path, s.vary), s.name, progress)), bodyBytes: Buffer.byteLength(first.body) };
}

/** GraphQL: 200 with data and no `errors`, then load; the HTTP ceiling serves a body of the same size. */
async function runGraphql(ctx: Ctx, s: GraphqlScenario): Promise<Row> {
  const { server, progress, loads } = ctx;
  const path = server.config.graphql.endpoint;
  let row = baseRow(s.name, 'read', 'POST', path);
  const first = await probe(server.url, 'POST', path, s.body);
  const parsed = (() => { try { return JSON.parse(first.body) as { data?: unknown; errors?: unknown }; } catch { return null; } })();
  if (first.status !== 200 || !parsed || parsed.errors || !parsed.data) {
    return { ...row, failures: 1, statusCodes: { [first.status]: 1 }, error: describe('POST', path, first) };
  }
  row.bodyBytes = Buffer.byteLength(first.body);
  // The SQL of the operation, seen by the server's own connections while answering one more request
  // (only when requests are handled in this process: WORKERS=0).
  const seen: Array<{ text: string; params: unknown[]; planCacheMode: ConnectOptions['planCacheMode'] }> = [];
  if (server.config.workers === 0) {
    // Requests the previous scenario abandoned must not run while the statements are captured.
    await settle(ctx, s.name);
    // Only the read's statement (every read answers a `data` column): the render cache's refresh and the
    // response cache's change watch may run meanwhile on connections of this process.
    queryTap.fn = (text, params, planCacheMode) => { if (/\bas data\b/.test(text)) seen.push({ text, params, planCacheMode }); };
    try { await probe(server.url, 'POST', path, s.body); } finally { queryTap.fn = null; }
  }
  await settle(ctx, s.name);
  row = withLoad(row, await loads.run({ ...loadSpec(ctx, server.url, 'POST', path, null), headers: { 'content-type': JSON_TYPE, ...(s.cached ? {} : FRESH) }, body: s.body }, s.name, progress));
  if (seen.length === 1 && !s.cached) {
    row.dbLimit = await dbLimitOf(ctx, s.name, seen[0].text, seen[0].params, true, seen[0].planCacheMode ?? server.config.db.planCacheMode);
  }
  await settle(ctx, s.name);
  const ceiling = await startStaticServer(first.body, first.contentType, first.headers);
  try {
    row.httpCeiling = (await loads.run({ ...loadSpec(ctx, ceiling.url, 'POST', path, null), headers: { 'content-type': JSON_TYPE }, body: s.body }, `${s.name} (HTTP ceiling)`, progress)).rps;
  } finally {
    ceiling.close();
  }
  return row;
}

const fmt = (r: Row) => r.error
  ? `${r.scenario}: FAILED ${r.error}`
  : `${r.scenario}: ${Math.round(r.rps ?? 0)} req/s, p50 ${r.p50 ?? '—'} ms, p99 ${r.p99 ?? '—'} ms` +
    (r.dbLimit !== null ? `, DB limit ${Math.round(r.dbLimit)} q/s, HTTP ceiling ${Math.round(r.httpCeiling ?? 0)} req/s` : '') +
    (r.timeouts ? `, ${r.timeouts} timeouts (>10 s)` : '');

async function main(): Promise<number> {
  let opts: BenchOptions;
  try { opts = parseOptions(process.argv.slice(2)); } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    if (e.message) console.error(e.message);
    console.error(USAGE);
    return 2;
  }
  const progress = new Progress();
  const startedAt = new Date().toISOString();
  console.log(`fastrapi bench: size ${opts.size}, ${opts.duration} s per phase, ${opts.connections} connections, ` +
    (opts.databaseUrl ? 'external PostgreSQL' : `embedded PostgreSQL in ${opts.dataDir}`));
  const server = await startServer({
    // No env: the benchmark's settings must not depend on the caller's shell (PORT, DATABASE_URL, …).
    env: {}, argv: [],
    overrides: {
      port: 0, host: '127.0.0.1', dataDir: opts.dataDir, databaseUrl: opts.databaseUrl, logLevel: 'warn',
      auth: { publicAccess: true },
      // Strapi 5's own GraphQL shape (the one the recorded cases use).
      graphql: { shape: 'v5' },
      ...(opts.workers === null ? {} : { workers: opts.workers }),
    },
  });
  const stop = () => { void server.stop().finally(() => process.exit(130)); };
  process.once('SIGINT', stop);
  const loads = new LoadRunner();
  const admin = connect(server.databaseUrl, 1);
  try {
    await seed(admin, opts.size, (m) => console.log(m));
    // Measured as a large deployment would run: with the indexes `npm run indexes` advises.
    const schema = loadModels(server.config.modelsDir, { ...server.config.i18n, customFields: server.config.customFields });
    await createIndexes(admin, advisedIndexes(schema), (m) => console.log(`  ${m}`));
    await installCounters(admin, advisedCounters(schema), (m) => console.log(`  ${m}`));
    // The server's view of which tables are large (filtered lists on them are planned with their values).
    const sizes = new TableSizes(admin, server.config.db.customPlanRows);
    await sizes.refresh();
    const compiler = new Compiler(schema, { ...server.config.api.rest, maxResponseSize: server.config.http.maxResponseSize, largeTable: sizes.isLarge });
    // And the indexes and link counters `npm run indexes -- --for` advises for the scenarios that filter and
    // sort by columns of their own (on large tables).
    const forQueries = scenarios(opts.size).flatMap((s) => s.kind === 'read' && s.indexes
      ? [compiler.query(schema.routes.get(s.route)!, s.shape, s.query, s.documentId)] : []);
    await createIndexes(admin, forQueries.flatMap((query) => queryIndexes(schema, query)).filter((a) => sizes.isLarge(a.table)), (m) => console.log(`  ${m}`));
    await installCounters(admin, forQueries.flatMap(queryCounters).filter((c) => sizes.isLarge(c.table)), (m) => console.log(`  ${m}`));
    // Measure with the render cache warm, as a node that has been running for a while has it.
    if (server.config.api.rest.renderCache) {
      const t0 = Date.now();
      await server.renderCacheReady();
      console.log(`render cache filled in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
    const pgVersion = (await admin<Array<{ v: string }>>`select current_setting('server_version') as v`)[0].v;
    const ctx: Ctx = { opts, server, schema, compiler, loads, progress, admin };
    const chosen = scenarios(opts.size).filter((s) => !opts.scenario || opts.scenario.test(s.name));
    if (chosen.length === 0) { console.error(`no scenario matches ${String(opts.scenario)}`); return 2; }
    console.log(`server: ${server.config.workers} worker(s) × ${server.config.db.poolSize} DB read connections, PostgreSQL ${pgVersion}, ${cpus().length} CPUs, Node ${process.version}`);

    const rows: Row[] = [];
    for (const s of chosen) {
      progress.update(`${s.name}: starting`);
      const row = s.kind === 'read' ? await runRead(ctx, s) : s.kind === 'graphql' ? await runGraphql(ctx, s) : await runWrite(ctx, s);
      progress.done(fmt(row));
      rows.push(row);
    }

    const report: Report = {
      startedAt, finishedAt: new Date().toISOString(), rows,
      settings: {
        size: opts.size, duration: opts.duration, warmup: opts.warmup, connections: opts.connections,
        workers: server.config.workers, dbPoolSize: server.config.db.poolSize, postgres: pgVersion,
        database: opts.databaseUrl ? 'external' : 'embedded', cpus: cpus().length, node: process.version,
      },
    };
    const files = save(RESULTS_DIR, report);
    console.log(`\n${table(rows)}\n\nresults: ${files.md}, ${files.json}`);
    const failed = rows.filter((r) => r.failures > 0);
    if (failed.length) {
      console.error(`\n${failed.length} scenario(s) had failed requests:`);
      for (const r of failed) console.error(`  ${r.scenario}: ${r.error}`);
      return 1;
    }
    return 0;
  } finally {
    process.off('SIGINT', stop);
    await loads.close();
    // Stopping with requests still running would end them as worker failures in the server's log.
    await waitForIdle(admin, IDLE_WAIT_SECONDS).catch(() => null);
    await admin.end({ timeout: 5 });
    await server.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => { console.error(e); process.exit(1); },
);
