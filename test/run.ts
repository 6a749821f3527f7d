// `npm test`: the suites against one PostgreSQL. With DATABASE_URL set, that server (each suite makes
// its own databases there); without, one embedded cluster started here for the whole run — each suite
// starting a cluster of its own took a third of the run. Suites that test the embedded database
// itself (test/lifecycle.test.ts) still start theirs.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbedded, type EmbeddedDb } from '../src/db/embedded.ts';

const files = process.argv.slice(2);
const env = { ...process.env };
let embedded: EmbeddedDb | null = null;
let dir: string | null = null;
if (!env.DATABASE_URL) {
  dir = mkdtempSync(join(tmpdir(), 'fastrapi-tests-'));
  embedded = await startEmbedded(dir, 0);
  env.DATABASE_URL = embedded.url;
}
// Two suites at once: most of a suite's time is waiting on servers, PostgreSQL and timers (hang-ups,
// deadlines), and each makes its own databases and ports; one at a time the run took 10m47s, two 6m08s.
const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], { stdio: 'inherit', env });
const code = await new Promise<number>((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
if (embedded) await embedded.stop();
if (dir) rmSync(dir, { recursive: true, force: true });
process.exit(code);
