// The benchmark's one table (printed and saved as Markdown) and the full results as JSON.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Row {
  scenario: string;
  kind: 'read' | 'write';
  method: string;
  path: string;
  rps: number | null;
  p50: number | null;
  p99: number | null;
  /** PostgreSQL alone running the same statement (reads only). */
  dbLimit: number | null;
  /** Static uWS reply of the same size (reads only). */
  httpCeiling: number | null;
  bodyBytes: number | null;
  /** Responses outside 2xx plus socket errors; any of these fails the run. */
  failures: number;
  /** Requests without an answer within autocannon's 10 s: slowness, reported but never a failure. */
  timeouts: number;
  statusCodes: Record<string, number>;
  /** Why the scenario failed, with the response that showed it. */
  error: string | null;
}

const int = (n: number | null) => (n === null ? '—' : Math.round(n).toLocaleString('en-US'));
const ms = (n: number | null) => (n === null ? '—' : `${n.toFixed(n < 10 ? 1 : 0)} ms`);
const ratio = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? '—' : `${((a / b) * 100).toFixed(0)}%`);
const bytes = (n: number | null) => (n === null ? '—' : n < 10_000 ? `${n} B` : `${(n / 1024).toFixed(0)} KiB`);

export function table(rows: Row[]): string {
  const head = ['scenario', 'req/s', 'p50', 'p99', 'DB limit q/s', '÷ DB limit', 'HTTP ceiling req/s', '÷ HTTP ceiling', 'body', 'failures', 'timeouts'];
  const body = rows.map((r) => [
    r.scenario, int(r.rps), ms(r.p50), ms(r.p99), int(r.dbLimit), ratio(r.rps, r.dbLimit),
    int(r.httpCeiling), ratio(r.rps, r.httpCeiling), bytes(r.bodyBytes), String(r.failures), String(r.timeouts),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  // Text columns left, numbers right, so the printed table reads well without rendering.
  const cell = (s: string, i: number) => (i === 0 ? s.padEnd(widths[i]) : s.padStart(widths[i]));
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? ` ${'-'.repeat(w)} ` : ` ${'-'.repeat(w - 1)}: `)).join('|')}|`;
  return [line(head), rule, ...body.map(line)].join('\n');
}

export interface Report {
  startedAt: string;
  finishedAt: string;
  settings: Record<string, string | number | null>;
  rows: Row[];
}

/** Writes bench/results/<timestamp>.json and .md; returns their paths. */
export function save(dir: string, report: Report): { json: string; md: string } {
  mkdirSync(dir, { recursive: true });
  const stamp = report.startedAt.replace(/[:.]/g, '-');
  const json = join(dir, `${stamp}.json`);
  const md = join(dir, `${stamp}.md`);
  writeFileSync(json, JSON.stringify(report, null, 2) + '\n');
  const settings = Object.entries(report.settings).map(([k, v]) => `${k}=${v ?? 'default'}`).join(', ');
  const errors = report.rows.filter((r) => r.error).map((r) => `- **${r.scenario}**: ${r.error}`);
  writeFileSync(md, [`# Benchmark ${report.startedAt}`, '', settings, '', table(report.rows), '', ...(errors.length ? ['## Failures', '', ...errors, ''] : [])].join('\n'));
  return { json, md };
}
