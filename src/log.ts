// Structured logs: one JSON object per line on stderr (`{"time","level","msg",...fields}`), the form log
// collectors parse without configuration. Lines are batched and written once per event-loop turn, so an
// access line per request costs a string push, not a syscall; warnings and errors are written at once
// (a crash must not lose them). Kept tiny so the hot path never formats a line that will not be printed.
import { writeSync } from 'node:fs';

export type Level = 'debug' | 'http' | 'info' | 'warn' | 'error' | 'silent';
// `http` sits below `info` as in Strapi's logger (winston's npm levels): access lines are on at Strapi's
// default level `http` and off at `info`.
const ORDER: Record<Level, number> = { debug: 10, http: 15, info: 20, warn: 30, error: 40, silent: 100 };
let threshold = ORDER.info;

export function setLogLevel(level: Level): void { threshold = ORDER[level]; }
export function logEnabled(level: Exclude<Level, 'silent'>): boolean { return ORDER[level] >= threshold; }

let pending: string[] = [];
let scheduled = false;

function flush(): void {
  scheduled = false;
  if (!pending.length) return;
  const text = pending.join('');
  pending = [];
  process.stderr.write(text);
}

/** Writes what is buffered synchronously (at exit, the event loop will not turn again). */
export function flushLogs(): void {
  if (!pending.length) return;
  const text = pending.join('');
  pending = [];
  try { writeSync(2, text); } catch { /* stderr closed: nothing left to tell */ }
}
process.on('exit', flushLogs);

/** One log line as text (exported for tests). Fields never override time, level and msg. */
export function formatLine(level: Exclude<Level, 'silent'>, msg: string, extra?: Record<string, unknown>): string {
  const head = `{"time":"${new Date().toISOString()}","level":"${level}","msg":${JSON.stringify(msg)}`;
  if (!extra) return `${head}}\n`;
  let rest = '';
  for (const k in extra) {
    if (k === 'time' || k === 'level' || k === 'msg') continue;
    const v = extra[k];
    if (v === undefined) continue;
    let text: string | undefined;
    try { text = JSON.stringify(v instanceof Error ? String(v.stack ?? v) : v); } catch { text = JSON.stringify(String(v)); }
    if (text !== undefined) rest += `,${JSON.stringify(k)}:${text}`;
  }
  return `${head}${rest}}\n`;
}

function write(level: Exclude<Level, 'silent'>, msg: string, extra?: Record<string, unknown>): void {
  if (ORDER[level] < threshold) return;
  const line = formatLine(level, msg, extra);
  if (ORDER[level] >= ORDER.warn) {
    flush();
    process.stderr.write(line);
    return;
  }
  pending.push(line);
  if (pending.length > 512) flush();
  else if (!scheduled) { scheduled = true; setImmediate(flush); }
}

export const log = {
  debug: (m: string, e?: Record<string, unknown>) => write('debug', m, e),
  http: (m: string, e?: Record<string, unknown>) => write('http', m, e),
  info: (m: string, e?: Record<string, unknown>) => write('info', m, e),
  warn: (m: string, e?: Record<string, unknown>) => write('warn', m, e),
  error: (m: string, e?: Record<string, unknown>) => write('error', m, e),
};
