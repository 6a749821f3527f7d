// Command-line flags of `npm run bench`. Kept separate from the server's config loader: the benchmark
// decides its own server settings and must not pick up a developer's PORT or DATABASE_URL by accident.
import { resolve } from 'node:path';
import { SIZES, type SizeName } from './seed.ts';

export interface BenchOptions {
  /** Server worker threads; null keeps the server's default from config.ts. */
  workers: number | null;
  connections: number;
  /** Seconds per measured phase (server, DB limit, HTTP ceiling). */
  duration: number;
  /** Seconds of unmeasured load before each HTTP measurement (plan caches, prepared statements, JIT). */
  warmup: number;
  scenario: RegExp | null;
  size: SizeName;
  databaseUrl: string | null;
  dataDir: string;
}

export const USAGE = `usage: npm run bench -- [options]
  --quick               size 1k and 3 s phases (explicit --size/--duration still win)
  --size 1k|10k|100k|1m articles in the benchmark database (default 100k)
  --duration <s>        seconds per measured phase (default 10)
  --warmup <s>          seconds of unmeasured load before each measured phase (default 1; 0 for a smoke run)
  --connections <n>     concurrent connections / DB callers (default 50)
  --workers <n>         server worker threads (default: the server's own default)
  --scenario <regex>    only scenarios whose name matches
  --database-url <url>  an empty (or earlier benchmark) PostgreSQL database to use instead of the
                        embedded one; the benchmark syncs the schema and seeds it
  --data-dir <dir>      embedded PostgreSQL location (default ./data/bench)`;

export class UsageError extends Error {}

function int(flag: string, text: string, min: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min) throw new UsageError(`${flag} needs an integer >= ${min}, got "${text}"`);
  return Number(text);
}

export function parseOptions(argv: string[]): BenchOptions {
  const given = new Map<string, string>();
  let quick = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') { quick = true; continue; }
    if (arg === '--help' || arg === '-h') throw new UsageError('');
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!m) throw new UsageError(`unexpected argument "${arg}"`);
    const value = m[2] ?? argv[++i];
    if (value === undefined) throw new UsageError(`--${m[1]} needs a value`);
    given.set(m[1], value);
  }
  const known = new Set(['size', 'duration', 'warmup', 'connections', 'workers', 'scenario', 'database-url', 'data-dir']);
  for (const k of given.keys()) if (!known.has(k)) throw new UsageError(`unknown option --${k}`);

  const size = given.get('size') ?? (quick ? '1k' : '100k');
  if (!(size in SIZES)) throw new UsageError(`--size must be one of ${Object.keys(SIZES).join(', ')}, got "${size}"`);
  const duration = given.has('duration') ? int('--duration', given.get('duration')!, 1) : quick ? 3 : 10;
  let scenario: RegExp | null = null;
  if (given.has('scenario')) {
    try { scenario = new RegExp(given.get('scenario')!); } catch (e) { throw new UsageError(`--scenario: ${(e as Error).message}`); }
  }
  return {
    workers: given.has('workers') ? int('--workers', given.get('workers')!, 0) : null,
    connections: given.has('connections') ? int('--connections', given.get('connections')!, 1) : 50,
    duration,
    // One autocannon sampling tick: enough to compile plans and prepare statements on every connection.
    warmup: given.has('warmup') ? int('--warmup', given.get('warmup')!, 0) : 1,
    scenario,
    size: size as SizeName,
    databaseUrl: given.get('database-url') ?? null,
    dataDir: resolve(given.get('data-dir') ?? './data/bench'),
  };
}
