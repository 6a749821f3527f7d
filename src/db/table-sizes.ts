// Which tables are large, from PostgreSQL's own estimate (pg_class.reltuples, kept by ANALYZE and
// autovacuum): a filtered list on a large table is planned at each execution, with its values
// (compiler/index.ts `planFor`). Looked up at start and then every minute; a table that grows past the
// threshold switches within that time. Until the first answer (or when it fails), every table counts as small.
import type { Sql } from 'postgres';
import { log } from '../log.ts';

const INTERVAL = 60_000;

export class TableSizes {
  private large: ReadonlySet<string> = new Set();
  private timer: NodeJS.Timeout | null = null;
  constructor(private sql: Sql, private minRows: number) {}

  /** Reads the sizes once now. */
  async refresh(): Promise<void> {
    if (this.minRows <= 0) return;
    const rows = await this.sql.unsafe<Array<{ table: string }>>(
      `select c.relname as table from pg_catalog.pg_class c
        where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p') and c.reltuples >= $1::real`, [this.minRows]);
    this.large = new Set(rows.map((r) => r.table));
  }

  start(): void {
    if (this.minRows <= 0) return;
    const poll = () => {
      this.refresh().catch((e: unknown) => log.debug('could not read table sizes (kept the last ones)', { error: String(e) }))
        .finally(() => { if (this.timer) { this.timer = setTimeout(poll, INTERVAL); this.timer.unref(); } });
    };
    this.timer = setTimeout(poll, 0);
    this.timer.unref();
  }

  isLarge = (table: string): boolean => this.large.has(table);

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
