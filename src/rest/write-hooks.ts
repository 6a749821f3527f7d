// The project's lifecycle hooks around the writers' row operations (src/project/lifecycles.ts says which
// and when): the events' `params.data` built from a write's validated values, what a `before*` hook
// changed there written back, and `result` read as the version row's own fields. Only made for a type
// with hooks on its writes: others pay nothing.
import type { ContentType } from '../../compiler/schema.ts';
import type { Compiler } from '../../compiler/index.ts';
import type { HookState, Lifecycles } from '../project/lifecycles.ts';
import type { Normalized } from './validate.ts';
import { readVersion, type RunStatement } from './version-row.ts';

export interface RowRef { id: number; locale: string | null; published: boolean }

/** A Normalized holding scalar columns only (a hook's changes written onto a row). */
export function columnsOnly(columns: Map<string, unknown>): Normalized {
  return { columns, media: [], components: [], relations: [], fileIds: new Set(), mediaValues: [], mediaTypes: [], uniques: [], morphs: [] };
}

export class RowHooks {
  constructor(private lifecycles: Lifecycles, private compiler: Compiler, private ct: ContentType, private run: RunStatement) {}

  /** The version row's own fields (no relations, media nor components), as the hooks' `result`. */
  async fields(documentId: string, row: Omit<RowRef, 'id'>): Promise<Record<string, unknown> | null> {
    const fields = await readVersion(this.compiler, this.run, this.ct, { documentId, ...row });
    // The database row's: its locale column is there on every type (null without i18n).
    if (fields && !('locale' in fields)) fields.locale = null;
    return fields;
  }

  /** `params.data` of a create or update: the scalar attributes the write sets, by name, and Strapi's bookkeeping keys. */
  data(n: Normalized, row: Omit<RowRef, 'id'>, creating: boolean): Record<string, unknown> {
    const data: Record<string, unknown> = {};
    for (const a of this.ct.attributes) if (a.kind === 'scalar' && n.columns.has(a.column)) data[a.name] = n.columns.get(a.column);
    if (this.ct.localized) data.locale = row.locale;
    const now = new Date();
    data.publishedAt = row.published ? now : null;
    if (creating) data.createdAt = now;
    data.updatedAt = now;
    return data;
  }

  /** Scalar values a hook set or changed in `data`, into `columns` (what the row is written with). */
  applied(data: Record<string, unknown>, before: Record<string, unknown>, columns: Map<string, unknown>): boolean {
    let changed = false;
    for (const a of this.ct.attributes) {
      if (a.kind !== 'scalar' || !(a.name in data) || Object.is(data[a.name], before[a.name])) continue;
      columns.set(a.column, data[a.name] === undefined ? null : data[a.name]);
      changed = true;
    }
    return changed;
  }

  /** beforeCreate on `n` (changes written back into it); the after hook to call once the row exists. */
  async beforeCreate(n: Normalized, documentId: string, row: Omit<RowRef, 'id'>): Promise<() => Promise<void>> {
    const data = this.data(n, row, true);
    const original = { ...data };
    const state: HookState = new Map();
    const params = { where: {}, data };
    await this.lifecycles.fire('beforeCreate', this.ct, params, state);
    this.applied(data, original, n.columns);
    return async () => { await this.lifecycles.fire('afterCreate', this.ct, params, state, await this.fields(documentId, row)); };
  }

  async beforeUpdate(n: Normalized, documentId: string, row: RowRef): Promise<() => Promise<void>> {
    const data = this.data(n, row, false);
    const original = { ...data };
    const state: HookState = new Map();
    const params = { where: { id: row.id }, data };
    await this.lifecycles.fire('beforeUpdate', this.ct, params, state);
    this.applied(data, original, n.columns);
    return async () => { await this.lifecycles.fire('afterUpdate', this.ct, params, state, await this.fields(documentId, row)); };
  }

  /** beforeDelete of each row, in order; the after hooks (each given the row's fields, read now) to call once they are gone. */
  async beforeDelete(documentId: string, rows: RowRef[]): Promise<() => Promise<void>> {
    const done: Array<{ params: { where: { id: number } }; state: HookState; result: unknown }> = [];
    for (const r of rows) {
      const params = { where: { id: r.id } };
      const state: HookState = new Map();
      await this.lifecycles.fire('beforeDelete', this.ct, params, state);
      done.push({ params, state, result: await this.fields(documentId, r) });
    }
    return async () => { for (const d of done) await this.lifecycles.fire('afterDelete', this.ct, d.params, d.state, d.result); };
  }

  /**
   * A publish as Strapi's: the previous published versions deleted (their hooks), then the new one
   * created from the draft (beforeCreate's changes written onto it once it exists). `publish` makes
   * the row (and removes the previous ones); `update` writes a hook's changes onto it.
   */
  async publish(documentId: string, draft: RowRef, previous: RowRef[], publish: () => Promise<number>, update: (row: RowRef, columns: Map<string, unknown>) => Promise<void>): Promise<number> {
    const afterDelete = await this.beforeDelete(documentId, previous);
    await afterDelete();
    const own = (await this.fields(documentId, draft)) ?? {};
    const { id: _id, ...fields } = own;
    const now = new Date();
    const data: Record<string, unknown> = { ...fields, documentId, publishedAt: now, ...(this.ct.localized ? { locale: draft.locale } : {}) };
    const original = { ...data };
    const state: HookState = new Map();
    const params = { where: {}, data };
    await this.lifecycles.fire('beforeCreate', this.ct, params, state);
    const id = await publish();
    const row = { id, locale: draft.locale, published: true };
    const columns = new Map<string, unknown>();
    if (this.applied(data, original, columns)) await update(row, columns);
    await this.lifecycles.fire('afterCreate', this.ct, params, state, await this.fields(documentId, row));
    return id;
  }
}
