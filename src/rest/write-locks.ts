// The row locks of one write, taken together before it changes anything, in one order for every writer:
// table name, then id. A write touches other documents too (a category taking an article from another
// category, a move renumbering the list it leaves, a publish linking to the targets' published rows):
// each writer locking its own document first and the others' later deadlocked against the writers of
// those documents doing the same from the other side (waits of a second each before PostgreSQL noticed,
// write connections held meanwhile: 503s, and a valid write answered 400 once its retries ran out).
// A document is locked through its draft rows (every row of a type without draft & publish), whose ids
// do not change when it is published. A row the write finds only while writing (linked by another write
// after the plan's read) is locked without waiting (RelationWriter.prelocked): if another holds it, the
// write runs again at once (55P03, src/rest/write.ts) and its new plan has it.
import * as W from '../../compiler/write-sql.ts';

type Run = <T extends Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

export class WriteLocks {
  /** table → row id → mode (`no key update` wins over `share`). */
  private rows = new Map<string, Map<number, W.RowLockMode>>();
  /** table → document id → mode, turned into rows by `take`. */
  private docs = new Map<string, { draftAndPublish: boolean; docs: Map<string, W.RowLockMode> }>();

  row(table: string, id: number, mode: W.RowLockMode): void {
    const t = this.rows.get(table) ?? new Map<number, W.RowLockMode>();
    this.rows.set(table, t);
    if (t.get(id) !== 'no key update') t.set(id, mode);
  }

  documents(table: string, draftAndPublish: boolean, documentIds: Iterable<string>, mode: W.RowLockMode): void {
    const t = this.docs.get(table) ?? { draftAndPublish, docs: new Map<string, W.RowLockMode>() };
    this.docs.set(table, t);
    for (const d of documentIds) if (t.docs.get(d) !== 'no key update') t.docs.set(d, mode);
  }

  /**
   * Every lock, in (table, id) order: consecutive rows of one mode in one statement. The statements are
   * sent together (one connection runs them in the order sent).
   */
  async take(run: Run): Promise<void> {
    const found = await Promise.all([...this.docs].filter(([, t]) => t.docs.size).map(async ([table, t]) => {
      const rows = await run<{ id: number; document_id: string }>(W.documentLockRows(table, t.draftAndPublish), [[...t.docs.keys()]]);
      return rows.map((r) => [table, Number(r.id), t.docs.get(r.document_id)!] as const);
    }));
    for (const [table, id, mode] of found.flat()) this.row(table, id, mode);
    const statements: Array<Promise<unknown>> = [];
    for (const table of [...this.rows.keys()].sort()) {
      const sorted = [...this.rows.get(table)!].sort((a, b) => a[0] - b[0]);
      for (let i = 0; i < sorted.length;) {
        const mode = sorted[i][1];
        const ids: number[] = [];
        for (; i < sorted.length && sorted[i][1] === mode; i++) ids.push(sorted[i][0]);
        statements.push(run(W.lockRows(table, mode), [ids]));
      }
    }
    await Promise.all(statements);
    this.rows.clear();
    this.docs.clear();
  }
}
