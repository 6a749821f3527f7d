// The README's first run, as a user types it: `npm start` on nothing (embedded PostgreSQL in a new data
// folder) says in its log what to do next; `npm run seed`, beside the running server, fills the demo
// models; `npm run token` prints a token with which `/api/articles?populate=*` shows the seeded content,
// images included. Real processes, real database.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

/** Starts `tsx src/main.ts`; resolves with the process, its port and its log lines once it listens. */
function start(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number; lines: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    const lines: string[] = [];
    let buf = '';
    let port = 0;
    const timer = setTimeout(() => reject(new Error(`no start in 90 s:\n${lines.join('\n')}`)), 90_000);
    child.stderr!.on('data', (d: Buffer) => {
      buf += d.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        lines.push(line);
        const m = /listening on http:\/\/[^:]+:(\d+)/.exec(line);
        if (m) port = Number(m[1]);
        // The first-run lines follow the listening line in the same turn.
        if (port && /npm run seed/.test(line)) { clearTimeout(timer); resolve({ child, port, lines }); }
      }
    });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited (${code}):\n${lines.join('\n')}`)); });
  });
}

test('first run: the log says what to do; npm run seed and a token show content', { timeout: 240_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fastrapi-first-run-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'development', DATA_DIR: dir, UPLOAD_DIR: join(dir, 'uploads'),
    PORT: '0', HOST: '127.0.0.1', WORKERS: '0', LOG_LEVEL: 'info',
  };
  let child: ChildProcess | null = null;
  try {
    const s = await start(env);
    child = s.child;
    const messages = s.lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    const next = messages.filter((m) => /first run|npm run seed/.test(m));
    assert.equal(next.length, 2, 'two lines say what to do next');
    assert.match(next[0], /the API is private: `npm run token -- create/);
    assert.match(next[0], /PUBLIC_PERMISSIONS/);
    const base = `http://127.0.0.1:${s.port}`;
    assert.equal((await fetch(`${base}/api/articles`)).status, 403, 'private, as the log says');

    const seeded = await run(process.execPath, ['--import', 'tsx', 'src/cli/seed.ts'], { cwd: ROOT, env });
    assert.match(seeded.stdout, /seeded: 3 authors, 3 categories, 6 tags, 8 articles/);
    const token = (await run(process.execPath, ['--import', 'tsx', 'src/cli/token.ts', 'create', '--name', 'dev', '--type', 'read-only'], { cwd: ROOT, env })).stdout.trim().split('\n').pop()!;
    assert.match(token, /^[0-9a-f]{256}$/);

    const res = await fetch(`${base}/api/articles?populate=*`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200);
    const body = await res.json() as { data: Array<{ title: string; cover: { url: string } | null; author: { name: string }; tags: unknown[]; blocks: unknown[] }>; meta: { pagination: { total: number } } };
    assert.equal(body.meta.pagination.total, 7, 'the published articles (one is a draft)');
    const a = body.data[0];
    assert.ok(a.title && a.author.name && a.tags.length === 2 && a.blocks.length === 4);
    assert.equal((await fetch(`${base}${a.cover!.url}`)).status, 200, 'the image is served');
    const fr = await (await fetch(`${base}/api/articles?locale=fr`, { headers: { authorization: `Bearer ${token}` } })).json() as { data: unknown[] };
    assert.equal(fr.data.length, 3);

    const again = await run(process.execPath, ['--import', 'tsx', 'src/cli/seed.ts'], { cwd: ROOT, env });
    assert.match(again.stdout, /already has 8 articles: nothing seeded/);
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
});
