// Which tables are large, from PostgreSQL's own estimate (pg_class.reltuples, kept by ANALYZE and
// autovacuum): a filtered list on a large table is planned at each execution, with its values
// (compiler/index.ts `planFor`). Looked up at start and then every minute; a table that grows past the
// threshold switches within that time. Until the first answer (or when it fails), no table counts as large,
// and none as known to be small either: a relation filter through a small table reads the target's matching
// ids first (compiler/sql.ts `relationFilter`), which a large one must not.
import type { Sql } from 'postgres';
import { Poll } from './poll.ts';

const INTERVAL = 60_000;

export class TableSizes {
  private large: ReadonlySet<string> = new Set();
  private small: ReadonlySet<string> = new Set();
  private generation = 0;
  private readonly poll = new Poll(() => this.refresh(), INTERVAL, 'table sizes');
  constructor(private sql: Sql, private minRows: number) {}

  /** Reads the sizes once now. */
  async refresh(): Promise<void> {
    if (this.minRows <= 0) return;
    // reltuples is -1 until the table's first ANALYZE (autovacuum never analyzes a table of a few dozen
    // rows): such a table counts as small while its heap holds 32 pages or fewer (8,000 rows at most).
    const rows = await this.sql.unsafe<Array<{ table: string; large: boolean; small: boolean }>>(
      `select c.relname as table, c.reltuples >= $1::real as large,
              case when c.reltuples >= 0 then c.reltuples < $1::real else pg_catalog.pg_relation_size(c.oid) <= 262144 end as small
         from pg_catalog.pg_class c
        where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p')`, [this.minRows]);
    const large = new Set(rows.filter((r) => r.large).map((r) => r.table));
    const small = new Set(rows.filter((r) => r.small).map((r) => r.table));
    if (!sameSet(large, this.large) || !sameSet(small, this.small)) this.generation++;
    this.large = large;
    this.small = small;
  }

  start(): void {
    if (this.minRows > 0) this.poll.start();
  }

  isLarge = (table: string): boolean => this.large.has(table);

  /** Known to hold fewer rows than the threshold (estimated so, or never analyzed and 32 pages at most); false until the first answer. */
  isSmall = (table: string): boolean => this.small.has(table);

  /** Changes whenever a table's class does: statements compiled from the classes are made again. */
  epoch = (): number => this.generation;

  stop(): void {
    this.poll.stop();
  }
}

const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>) => a.size === b.size && [...a].every((x) => b.has(x));
