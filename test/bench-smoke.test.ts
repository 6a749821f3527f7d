// Issue 4: CI runs the benchmark as a smoke test. It must fail on errors (any non-2xx answer), never on
// speed: a tiny duration, the small database, and the exit code of `npm run bench` itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

test('npm run bench -- --quick --duration 1 finishes with every scenario answered 2xx', { timeout: 240_000 }, () => {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const dataDir = mkdtempSync(join(tmpdir(), 'fastrapi-bench-'));
  try {
    // One scenario of each kind (REST read, write, GraphQL, cached): every phase and every kind of run is
    // exercised; all 23 scenarios took a minute of the suite.
    const scenarios = '^(list|list deep populate|list category \\+ author sort|get one|single type|create tag|update tag|graphql list nested|list populate=\\* \\(cached\\))$';
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--quick', '--duration', '1', '--warmup', '0', '--connections', '10', '--scenario', scenarios, '--data-dir', dataDir], {
      cwd: root, encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'warn' }, timeout: 230_000,
    });
    const out = `${r.stdout}\n${r.stderr}`;
    assert.equal(r.status, 0, out.slice(-3000));
    for (const scenario of ['list', 'populate=*', 'deep populate', 'author sort', 'get one', 'single type', 'create', 'update', 'graphql']) {
      assert.ok(out.includes(scenario), `the table names "${scenario}"\n${out.slice(-2000)}`);
    }
    assert.match(out, /DB limit/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
