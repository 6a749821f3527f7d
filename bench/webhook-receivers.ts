// Whether a webhook receiver can slow this server's writes (issue 23: "a hanging receiver leaves write
// latency unchanged"), one run, ratios within the run:
//   npx tsx bench/webhook-receivers.ts --database-url postgres://… [--duration 5] [--rounds 3] [--connections 10]
// One server (demo models, WORKERS=0, no response cache) on a fresh database; `POST /api/tags` under
// autocannon with, in turn: no webhook; a webhook on every entry event to a receiver that answers at once;
// to one that accepts and never answers (each call held until WEBHOOK_TIMEOUT); to a closed port (each
// call refused). Rounds alternate the four so machine load hits them alike; medians of req/s and p50/p99.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import autocannon, { type Result } from 'autocannon';

const arg = (name: string, fallback?: string) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : fallback; };
const base = arg('database-url', process.env.DATABASE_URL);
if (!base) throw new Error('--database-url (or DATABASE_URL) is required');
const duration = Number(arg('duration', '5'));
const connections = Number(arg('connections', '10'));
const rounds = Number(arg('rounds', '3'));
const root = fileURLToPath(new URL('..', import.meta.url));
const PORT = 1397;
const EVENTS = ['entry.create', 'entry.update', 'entry.delete', 'entry.publish', 'entry.unpublish', 'entry.draft-discard'];

async function receiver(hang: boolean): Promise<{ url: string; close: () => Promise<void>; calls: () => number }> {
  let calls = 0;
  const server = http.createServer((req, res) => {
    calls++;
    req.resume();
    if (!hang) req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    calls: () => calls,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

/** A port nothing listens on (taken, then released). */
async function closedPort(): Promise<string> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}/hook`;
}

async function start(url: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root, stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, PORT: String(PORT), HOST: '127.0.0.1', DATABASE_URL: url, MODELS_DIR: `${root}models`, WORKERS: '0', RESPONSE_CACHE: 'false',
      LOG_LEVEL: 'error', API_TOKENS: 'bench:full-access:B', PERMISSIONS_CACHE_TTL: '200', WEBHOOK_TIMEOUT: '10000' },
  });
  for (let i = 0; i < 300; i++) {
    try { if ((await fetch(`http://127.0.0.1:${PORT}/_health`)).status === 204) return child; } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error('the server did not start');
}

let n = 0;
async function load(): Promise<Result> {
  const opts = {
    url: `http://127.0.0.1:${PORT}`, connections, duration,
    requests: [{ method: 'POST' as const, path: '/api/tags', headers: { authorization: 'Bearer B', 'content-type': 'application/json' },
      setupRequest: (req: Record<string, unknown>) => ({ ...req, body: JSON.stringify({ data: { name: `hook-bench-${n++}` } }) }) }],
  };
  return await autocannon(opts as never) as unknown as Result;
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

const dbName = `bench_hooks_${randomBytes(4).toString('hex')}`;
const admin = postgres(base, { max: 1, onnotice: () => {} });
await admin.unsafe(`create database ${dbName}`);
const u = new URL(base);
u.pathname = `/${dbName}`;
let server: ChildProcess | null = null;
const answering = await receiver(false);
const hanging = await receiver(true);
const refused = await closedPort();
const sql = postgres(u.toString(), { max: 1, onnotice: () => {} });
try {
  server = await start(u.toString());
  const kinds: Array<[string, string | null]> = [['no webhook', null], ['answering receiver', answering.url], ['hanging receiver', hanging.url], ['refused (closed port)', refused]];
  const results = new Map<string, Result[]>(kinds.map(([k]) => [k, []]));
  await load(); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (const [kind, url] of kinds) {
      await sql.unsafe('delete from strapi_webhooks');
      if (url) await sql.unsafe('insert into strapi_webhooks (name, url, headers, events, enabled) values ($1, $2, $3, $4, true)', [kind, url, '{}', JSON.stringify(EVENTS)] as never[]);
      await new Promise((r) => setTimeout(r, 400)); // PERMISSIONS_CACHE_TTL
      const r = await load();
      if (r.non2xx || r.errors) console.error(`${kind}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      results.get(kind)!.push(r);
    }
  }
  const none = median(results.get('no webhook')!.map((r) => r.requests.average));
  console.log(`\nPOST /api/tags, ${connections} connections, ${duration} s × ${rounds} rounds each (medians):\n`);
  console.log('| webhook | req/s | ÷ no webhook | p50 ms | p99 ms |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [kind] of kinds) {
    const rs = results.get(kind)!;
    const rps = median(rs.map((r) => r.requests.average));
    console.log(`| ${kind} | ${Math.round(rps)} | ${(rps / none).toFixed(2)} | ${median(rs.map((r) => r.latency.p50))} | ${median(rs.map((r) => r.latency.p99))} |`);
  }
  console.log(`\ncalls received: answering ${answering.calls()}, hanging ${hanging.calls()} (each held until WEBHOOK_TIMEOUT, ${'10 s'}; the queue drops what exceeds WEBHOOK_QUEUE_SIZE)`);
} finally {
  server?.kill();
  await sql.end({ timeout: 5 });
  await answering.close();
  await hanging.close();
  await new Promise((r) => setTimeout(r, 500));
  await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end({ timeout: 5 });
}
