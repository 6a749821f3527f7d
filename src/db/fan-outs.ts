// Reads compiler/fan-outs.ts's figures for GraphQL's operation cost: at start, then every `intervalMs`.
// Until the first answer (or for a source whose table was never analyzed and is not small), a list is
// priced by its page size, as without them; a failed read keeps the last figures.
import type { Sql } from 'postgres';
import { STATISTICS_STATEMENT, countStatement, countedKey, estimated, type Counted } from '../../compiler/fan-outs.ts';
import { Poll } from './poll.ts';

/** Heaps up to this size are counted exactly (≈ 25,000 link rows, a few ms); larger ones estimated. */
const COUNTED_BYTES = 1024 * 1024;

export class FanOuts {
  private most = new Map<string, number>();
  private readonly poll: Poll;
  private readonly sources: Counted[];

  constructor(private sql: Sql, sources: Iterable<Counted>, private intervalMs: number) {
    const unique = new Map<string, Counted>();
    for (const s of sources) unique.set(countedKey(s), s);
    this.sources = [...unique.values()];
    this.poll = new Poll(() => this.refresh(), intervalMs, 'the tables\' fan-outs');
  }

  /** The most entries `source` holds, as last read; undefined: not known. */
  mostOf = (source: Counted): number | undefined => this.most.get(countedKey(source));

  async refresh(): Promise<void> {
    if (!this.sources.length) return;
    const stats = await this.sql.unsafe<Array<{ table: string; column: string; small: boolean; rows: number; distinct: number | null; top: number | null }>>(
      STATISTICS_STATEMENT, [this.sources.map((s) => s.table), this.sources.map((s) => s.column ?? ''), COUNTED_BYTES]);
    const most = new Map<string, number>();
    const small: Counted[] = [];
    for (const r of stats) {
      const source: Counted = { table: r.table, column: r.column === '' ? null : r.column };
      if (r.small) { small.push(source); continue; }
      const n = estimated(r, source.column);
      if (n !== null) most.set(countedKey(source), n);
    }
    if (small.length) {
      const counted = await this.sql.unsafe<Array<{ i: number; n: string }>>(countStatement(small));
      for (const r of counted) most.set(countedKey(small[r.i]), Number(r.n));
    }
    this.most = most;
  }

  start(): void {
    if (this.sources.length && this.intervalMs > 0) this.poll.start();
  }

  stop(): void {
    this.poll.stop();
  }
}
