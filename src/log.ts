// One-line structured logs on stderr; level from config. Kept tiny so the hot path never formats
// a message that will not be printed.
type Level = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
let threshold = ORDER.info;

export function setLogLevel(level: Level): void { threshold = ORDER[level]; }
export function logEnabled(level: Exclude<Level, 'silent'>): boolean { return ORDER[level] >= threshold; }

function write(level: Exclude<Level, 'silent'>, msg: string, extra?: Record<string, unknown>): void {
  if (ORDER[level] < threshold) return;
  const line = `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${msg}${extra ? ' ' + JSON.stringify(extra) : ''}\n`;
  process.stderr.write(line);
}

export const log = {
  debug: (m: string, e?: Record<string, unknown>) => write('debug', m, e),
  info: (m: string, e?: Record<string, unknown>) => write('info', m, e),
  warn: (m: string, e?: Record<string, unknown>) => write('warn', m, e),
  error: (m: string, e?: Record<string, unknown>) => write('error', m, e),
};
