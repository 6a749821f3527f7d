// What a project's code costs (issue 22), one run, ratios within the run:
//   npx tsx bench/project-code.ts --database-url postgres://… [--duration 5] [--rounds 4] [--connections 20] [--main ../main] [--global] [--baseline-only]
// Servers (WORKERS=0, no response cache) on one fresh database seeded with 60 articles in 3 categories:
//   A: test/fixtures/project-code (a Strapi project whose category routes have LaunchPad's populate middleware),
//   B: the same models without their code, C: the same models served by another checkout (--main, the
//   baseline before project code). Scenarios: a route without project code on B and C (no regression from
//   this branch), the plain about route inside the project (A) against B, and the categories list whose
//   middleware only sets ctx.query.populate (A) against the same populate written in B's URL. Besides req/s
//   (which other load on the machine moves), each server process's CPU time per request (Linux /proc), which
//   PostgreSQL's work does not include and other processes barely move: the server's own cost.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import autocannon, { type Result } from 'autocannon';
import { stringifyQuery } from '../src/project/query.ts';

const arg = (name: string, fallback?: string) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : fallback; };
const base = arg('database-url', process.env.DATABASE_URL);
if (!base) throw new Error('--database-url (or DATABASE_URL) is required');
const duration = Number(arg('duration', '5'));
const connections = Number(arg('connections', '20'));
const mainCheckout = arg('main');
const rounds = Number(arg('rounds', '4'));
const root = fileURLToPath(new URL('..', import.meta.url));
const fixture = join(root, 'test/fixtures/project-code');
const withGlobal = process.argv.includes('--global');
const onlyBaseline = process.argv.includes('--baseline-only');

// The category middleware's populate (test/fixtures/project-code/src/api/category/middlewares/category-populate.js).
const POPULATE = {
  articles: { fields: ['title', 'slug'], sort: ['title:asc'], populate: { tags: { fields: ['name'] } } },
  parent: { fields: ['name'] },
  children: { fields: ['name'] },
};

function modelsOnly(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fastrapi-models-'));
  cpSync(join(fixture, 'src/components'), join(dir, 'src/components'), { recursive: true });
  for (const api of readdirSync(join(fixture, 'src/api'))) {
    mkdirSync(join(dir, 'src/api', api, 'content-types'), { recursive: true });
    cpSync(join(fixture, 'src/api', api, 'content-types'), join(dir, 'src/api', api, 'content-types'), { recursive: true });
  }
  return dir;
}

async function start(cwd: string, models: string, port: number, url: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd, stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: url, MODELS_DIR: models, WORKERS: '0', RESPONSE_CACHE: 'false',
      LOG_LEVEL: 'warn', API_TOKENS: 'bench:full-access:B', PUBLIC_PERMISSIONS: '*:find,findOne', LOCALES: 'en,fr' },
  });
  pids.set(port, child.pid!);
  for (let i = 0; i < 200; i++) {
    try { if ((await fetch(`http://127.0.0.1:${port}/_health`)).status === 204) return child; } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error(`server in ${cwd} did not start`);
}

async function post(port: number, path: string, data: unknown, method = 'POST'): Promise<string> {
  const r = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { 'content-type': 'application/json', authorization: 'Bearer B' }, body: JSON.stringify({ data }) });
  if (r.status >= 300) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  return ((await r.json()) as { data: { documentId: string } }).data.documentId;
}

/** CPU time (user + system, ms) a process has used: Linux's /proc/<pid>/stat, in clock ticks of 10 ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Each server's process, by port (its CPU per request is measured around each run). */
const pids = new Map<number, number>();

async function load(port: number, path: string): Promise<Result & { cpuPerRequest: number }> {
  const opts = { url: `http://127.0.0.1:${port}${path}`, connections, headers: { 'cache-control': 'no-cache' } };
  await autocannon({ ...opts, duration: 2 });
  const before = cpuMs(pids.get(port)!);
  const r = await autocannon({ ...opts, duration }) as unknown as Result;
  const cpuPerRequest = (cpuMs(pids.get(port)!) - before) / Math.max(1, r.requests.total);
  if (r.non2xx || r.errors) throw new Error(`${port} ${path}: ${r.non2xx} non-2xx (${JSON.stringify(r.statusCodeStats)}), ${r.errors} errors`);
  return { ...r, cpuPerRequest };
}

const name = `bench_project_${randomBytes(4).toString('hex')}`;
const admin = postgres(base, { max: 1, onnotice: () => {} });
await admin.unsafe(`create database ${name}`);
const u = new URL(base); u.pathname = `/${name}`;
const models = modelsOnly();
const children: ChildProcess[] = [];
try {
  const [A, B, C, D] = [13401, 13402, 13403, 13404];
  if (!onlyBaseline) children.push(await start(root, fixture, A, u.toString()));
  children.push(await start(root, models, B, u.toString()));
  if (mainCheckout) children.push(await start(resolve(mainCheckout), models, C, u.toString()));
  if (withGlobal) children.push(await start(root, join(root, 'test/fixtures/project-code-boot'), D, u.toString()));
  const tags = [await post(B, '/api/tags', { name: 'one' }), await post(B, '/api/tags', { name: 'two' })];
  for (let c = 0; c < 3; c++) {
    const category = await post(B, '/api/categories', { name: `Category ${c}`, slug: `category-${c}` });
    for (let i = 0; i < 20; i++) await post(B, '/api/articles', { title: `Article ${c}-${i}`, slug: `article-${c}-${i}`, category, tags });
  }
  await post(B, '/api/about', { title: 'About', blocks: [{ __component: 'shared.quote', title: 'Q', body: 'B' }] }, 'PUT');

  const list = '/api/articles?sort=title:asc&pagination[pageSize]=10';
  const pairs: Array<[string, number, string, number, string]> = [];
  if (mainCheckout) pairs.push(['route without project code: this branch ÷ baseline checkout', B, list, C, list]);
  if (!onlyBaseline) {
    pairs.push(['plain route inside a project ÷ without project code', A, '/api/about?populate=*', B, '/api/about?populate=*']);
    pairs.push(['middleware sets ctx.query.populate ÷ the populate in the URL', A, '/api/categories', B, `/api/categories?${stringifyQuery({ populate: POPULATE })}`]);
  }
  if (withGlobal) pairs.push(['core route under 3 global middlewares ÷ without project code', D, list, B, list]);
  // Both sides of a pair alternate (ABBA…) and each keeps its median: the machine's drift during a run
  // (2 cores shared with PostgreSQL and the load generator) falls on both.
  console.log(`\n${connections} connections, ${rounds} alternating runs of ${duration} s per side (median), one invocation\n`);
  console.log('| comparison | req/s | p50 | server CPU/request | req/s (reference) | p50 (reference) | server CPU/request (reference) | req/s ratio | CPU ratio |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [label, pa, a, pb, b] of pairs) {
    type Run = Result & { cpuPerRequest: number };
    const ra: Run[] = []; const rb: Run[] = [];
    for (let i = 0; i < rounds; i++) {
      if (i % 2 === 0) { ra.push(await load(pa, a)); rb.push(await load(pb, b)); } else { rb.push(await load(pb, b)); ra.push(await load(pa, a)); }
    }
    const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)];
    const med = (rs: Run[]) => median(rs.map((r) => r.requests.average));
    const p50 = (rs: Run[]) => median(rs.map((r) => r.latency.p50));
    const cpu = (rs: Run[]) => median(rs.map((r) => r.cpuPerRequest));
    console.log(`| ${label} | ${med(ra).toFixed(0)} | ${p50(ra)} ms | ${(cpu(ra) * 1000).toFixed(0)} µs | ${med(rb).toFixed(0)} | ${p50(rb)} ms | ${(cpu(rb) * 1000).toFixed(0)} µs | ${(med(ra) / med(rb)).toFixed(3)} | ${(cpu(ra) / cpu(rb)).toFixed(3)} |`);
  }
} finally {
  for (const c of children) c.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 1500));
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
  rmSync(models, { recursive: true, force: true });
}
