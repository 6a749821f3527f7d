// `.env` in the working directory, read at start as Strapi does (dotenv): `KEY=value` lines fill the
// environment but never replace a variable the process already has. A parser of dotenv's format rather
// than a dependency: comments, `export `, single/double/backtick quotes (double quotes expand \n),
// multi-line quoted values, inline ` #` comments after unquoted values.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const LINE = /^\s*(?:export\s+)?([\w.-]+)(?:\s*=\s*?|:\s+?)(\s*'(?:\\'|[^'])*'|\s*"(?:\\"|[^"])*"|\s*`(?:\\`|[^`])*`|[^#\r\n]+)?\s*(?:#.*)?$/gm;

export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const src = text.replace(/\r\n?/g, '\n');
  for (const m of src.matchAll(LINE)) {
    const key = m[1];
    let value = (m[2] ?? '').trim();
    const q = value[0];
    value = value.replace(/^(['"`])([\s\S]*)\1$/m, '$2');
    if (q === '"') value = value.replace(/\\n/g, '\n').replace(/\\r/g, '\r');
    out[key] = value;
  }
  return out;
}

/** Fills `env` from `<dir>/.env` (missing file: nothing); returns the names it set. */
export function loadEnvFile(dir: string, env: Record<string, string | undefined> = process.env): string[] {
  let text: string;
  try { text = readFileSync(join(dir, '.env'), 'utf8'); } catch { return []; }
  const set: string[] = [];
  for (const [k, v] of Object.entries(parseEnvFile(text))) {
    if (env[k] !== undefined) continue;
    env[k] = v;
    set.push(k);
  }
  return set;
}
