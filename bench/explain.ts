// `npm run bench:explain -- --database-url URL [--size 100k] [--scenario REGEX] [--path /api/…]… [--runs N] [--plans]
// [--dump FILE]`: each read scenario's statement (or each GET path's), as the server sends it (captured from its own connections), run alone on
// one connection with the server's settings: median and p90 latency over N executions, and EXPLAIN ANALYZE
// of the same plan (planning and execution time, JIT, and every scan that read more than 1,000 rows of a
// table, and every sequential scan of a table over 1,000 rows: a page of 25 should have none). `--plans` prints each plan, `--dump FILE` writes the captured
// statements as JSON. The database must hold the benchmark's seed (`npm run bench` makes it); the tool
// writes nothing itself (the server it starts keeps its render cache as always).
import { performance } from 'node:perf_hooks';
import { writeFileSync } from 'node:fs';
import { startServer } from '../src/server.ts';
import { connect, queryTap, type ConnectOptions } from '../src/db/connect.ts';
import { UsageError } from './options.ts';
import { SIZES, type SizeName } from './seed.ts';
import { scenarios, path as readPath, type Scenario } from './scenarios.ts';

interface Captured { text: string; params: unknown[]; planCacheMode?: ConnectOptions['planCacheMode'] }
interface PlanNode {
  'Node Type': string; 'Relation Name'?: string; Schema?: string; 'Index Name'?: string; Alias?: string; 'Subplan Name'?: string;
  'Actual Rows': number; 'Actual Loops': number; 'Actual Total Time': number; Plans?: PlanNode[];
}
interface Explained { Plan: PlanNode; 'Planning Time': number; 'Execution Time': number; JIT?: { Timing: { Total: number } } }

function args(argv: string[]) {
  const get = (k: string) => { const i = argv.indexOf(`--${k}`); return i >= 0 ? argv[i + 1] : undefined; };
  const url = get('database-url');
  if (!url) throw new UsageError('--database-url is required (a database the benchmark seeded)');
  const size = (get('size') ?? '100k') as SizeName;
  if (!(size in SIZES)) throw new UsageError(`--size must be one of ${Object.keys(SIZES).join(', ')}`);
  return { url, size, scenario: get('scenario') ? new RegExp(get('scenario')!) : null, runs: Number(get('runs') ?? 30), plans: argv.includes('--plans'), dump: get('dump'),
    paths: argv.flatMap((a, i) => (a === '--path' && argv[i + 1] ? [argv[i + 1]] : [])) };
}

/** A parameter as an SQL literal for EXECUTE (the compiler casts every parameter in the text). */
const literal = (v: unknown) => v === null || v === undefined ? 'null' : `'${String(v).replace(/'/g, "''")}'`;

/**
 * What a page should never do: a sequential scan of a table holding more than `min` rows (`sizes`: rows per
 * table, from pg_class), or any scan returning more than `min` rows in all (rows × loops). Deepest first.
 */
function bigScans(n: PlanNode, min: number, sizes: Map<string, number>, out: string[] = []): string[] {
  for (const c of n.Plans ?? []) bigScans(c, min, sizes, out);
  const read = n['Actual Rows'] * n['Actual Loops'];
  const table = n['Relation Name'] ? `${n.Schema && n.Schema !== 'public' ? `${n.Schema}.` : ''}${n['Relation Name']}` : null;
  const whole = /Seq Scan/.test(n['Node Type']) && table && (sizes.get(table) ?? 0) > min;
  if (table && /Scan/.test(n['Node Type']) && (read > min || whole)) {
    out.push(`${n['Node Type']} on ${table}${n['Index Name'] ? ` using ${n['Index Name']}` : ''}: ${read} rows (${n['Actual Loops']} loops${whole ? `, a table of ${sizes.get(table)} rows` : ''})`);
  }
  return out;
}

/** Whether the plan reads through the alias `c0`: the subquery of the exact count (compiler/sql.ts). */
const countsRows = (n: PlanNode): boolean => n.Alias === 'c0' || (n.Plans ?? []).some(countsRows);

/** Milliseconds of the statement's exact count (its InitPlan, a direct child of the top nodes), or null. */
function countTime(n: PlanNode): number | null {
  for (const c of n.Plans ?? []) {
    if (c['Subplan Name']?.startsWith('InitPlan') && countsRows(c)) return c['Actual Total Time'];
    const inner = countTime(c);
    if (inner !== null) return inner;
  }
  return null;
}

async function main(): Promise<void> {
  const o = args(process.argv.slice(2));
  const server = await startServer({
    // The server's database settings may be varied from the shell (the benchmark's other settings may not).
    env: { DB_SPLIT_READS: process.env.DB_SPLIT_READS, DB_PLAN_CACHE_MODE: process.env.DB_PLAN_CACHE_MODE, DB_RANDOM_PAGE_COST: process.env.DB_RANDOM_PAGE_COST, DB_JIT: process.env.DB_JIT, PREPARED_PAGES: process.env.PREPARED_PAGES, RENDER_CACHE: process.env.RENDER_CACHE }, argv: [],
    overrides: { port: 0, host: '127.0.0.1', databaseUrl: o.url, logLevel: 'warn', workers: 0, auth: { publicAccess: true }, graphql: { shape: 'v5' } },
  });
  const cfg = server.config.db;
  const generic = connect(server.databaseUrl, 1, { planCacheMode: cfg.planCacheMode, jit: cfg.jit, connectionDeadline: 0 });
  // Filtered lists on large tables run on the server's custom-plan pool: explained the same way.
  const custom = connect(server.databaseUrl, 1, { planCacheMode: 'force_custom_plan', jit: cfg.jit, connectionDeadline: 0 });
  let db = generic;
  const dumped: Array<{ scenario: string } & Captured> = [];
  try {
    await server.renderCacheReady();
    const sizes = new Map((await generic<Array<{ name: string; n: number }>>`
      select case when n.nspname = 'public' then c.relname else n.nspname || '.' || c.relname end as name, c.reltuples::float8 as n
      from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.relkind = 'r'`).map((r) => [r.name, r.n]));
    // The benchmark's read scenarios, or the GET paths given with --path.
    const chosen = o.paths.length
      ? o.paths.map((p): Scenario => ({ kind: 'read', name: p, route: '', shape: 'list', query: '', expect: 'object' }))
      : scenarios(o.size);
    for (const s of chosen) {
      if (s.kind === 'write' || s.cached || (o.scenario && !o.scenario.test(s.name))) continue;
      const seen: Captured[] = [];
      queryTap.fn = (text, params, planCacheMode) => { seen.push({ text, params, planCacheMode }); };
      const res = s.kind === 'read'
        ? await fetch(server.url + (o.paths.length ? s.name : readPath(s)), { headers: { 'cache-control': 'no-cache' } })
        : await fetch(server.url + server.config.graphql.endpoint, { method: 'POST', body: s.body, headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' } });
      await res.arrayBuffer();
      queryTap.fn = null;
      // Every read's statement answers a `data` column; the others are postgres.js's type lookup, the
      // render cache's refresh and the response cache's change watch, running meanwhile.
      const reads = seen.filter((c) => /\bas data\b/.test(c.text));
      // A split read (DB_SPLIT_READS, src/rest/split-read.ts) sends two statements at once: each explained alone.
      if (res.status !== 200 || reads.length < 1 || reads.length > 2) { console.log(`${s.name}: status ${res.status}, ${reads.length} statements captured, skipped`); continue; }
      for (const [nth, { text, params, planCacheMode }] of reads.entries()) {
        const name = reads.length > 1 ? `${s.name} (statement ${nth + 1} of 2)` : s.name;
        db = planCacheMode === 'force_custom_plan' ? custom : generic;
        dumped.push({ scenario: name, text, params, planCacheMode });
        const run = () => db.unsafe(text, params as never[], { prepare: true }).raw();
        for (let i = 0; i < 3; i++) await run();
        const times: number[] = [];
        for (let i = 0; i < o.runs; i++) { const t0 = performance.now(); await run(); times.push(performance.now() - t0); }
        times.sort((a, b) => a - b);
        await db.unsafe(`deallocate all`);
        await db.unsafe(`prepare explained as ${text}`);
        const [{ 'QUERY PLAN': [plan] }] = await db.unsafe<Array<{ 'QUERY PLAN': Explained[] }>>(
          `explain (analyze, buffers, format json) execute explained${params.length ? `(${params.map(literal).join(', ')})` : ''}`);
        const plainPlan = o.plans ? (await db.unsafe<Array<{ 'QUERY PLAN': string }>>(`explain (analyze, costs off) execute explained${params.length ? `(${params.map(literal).join(', ')})` : ''}`)).map((r) => r['QUERY PLAN']).join('\n') : '';
        await db.unsafe(`deallocate explained`);
        const scans = bigScans(plan.Plan, 1000, sizes);
        const count = countTime(plan.Plan);
        console.log(`${name}: median ${times[Math.floor(times.length / 2)].toFixed(2)} ms, p90 ${times[Math.floor(times.length * 0.9)].toFixed(2)} ms (${o.runs} runs, one connection); ` +
          `${db === custom ? 'custom plan, ' : ''}EXPLAIN ANALYZE: planning ${plan['Planning Time'].toFixed(2)} ms, execution ${plan['Execution Time'].toFixed(2)} ms` +
          (count === null ? '' : ` (of which the exact count ${count.toFixed(2)} ms)`) + `, JIT ${plan.JIT ? `${plan.JIT.Timing.Total.toFixed(1)} ms` : 'none'}` +
          (scans.length ? `\n  scans over 1,000 rows, or of a table over 1,000 rows:\n    ${scans.join('\n    ')}` : ', no scan read over 1,000 rows nor a table over 1,000 rows') +
          (o.plans ? `\n  ${text.slice(0, 300)}…\n${plainPlan}` : ''));
      }
    }
    if (o.dump) writeFileSync(o.dump, JSON.stringify(dumped, null, 1));
  } finally {
    queryTap.fn = null;
    await generic.end({ timeout: 5 });
    await custom.end({ timeout: 5 });
    await server.stop();
  }
}

main().then(() => process.exit(0), (e: unknown) => {
  if (e instanceof UsageError) { console.error(e.message); process.exit(2); }
  console.error(e); process.exit(1);
});
