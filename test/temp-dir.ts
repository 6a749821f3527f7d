// A temp folder a test makes, removed when the test's process exits, even after a failed assertion
// (the suite left about twenty behind on each run before).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];
process.once('exit', () => { for (const d of made) rmSync(d, { recursive: true, force: true }); });

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
