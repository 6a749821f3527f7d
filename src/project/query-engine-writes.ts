// strapi.db.query's writes: rows, not documents, as Strapi 5.54's entity manager writes them — create
// (the model's defaults, a new documentId, createdAt/updatedAt/publishedAt now; no locale unless given),
// update and delete of the first row `where` finds, and createMany/updateMany/deleteMany. Scalar
// attributes (and documentId, locale, the timestamps) are written; a relation, media, component or zone in
// `data` is refused by name (Strapi links them by row ids, which this server's writers do not take).
// Each call is one transaction; the project's lifecycle hooks run as Strapi's database layer runs them
// (before* inside it, what they change in `data` written; after* once committed), then the response
// cache and replicas learn of the write as after any other.
import type { Attribute, ContentType, ScalarAttr } from '../../compiler/schema.ts';
import { ROW_COLUMNS as R } from '../../compiler/layout.ts';
import { engineDelete, engineFirst, engineInsert, engineMediaLinks, engineUpdate } from '../../compiler/write-sql.ts';
import { cacheTableOf } from '../../compiler/render-cache.ts';
import { writeTables } from '../../compiler/tables.ts';
import { newDocumentId } from '../db/document-id.ts';
import type { RestContext } from '../rest/router.ts';
import type { HookState } from './lifecycles.ts';
import type { Params } from './documents.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** The row's columns besides its attributes' that `data` may set, by their attribute names. */
const SYSTEM: Record<string, { column: string; type: string }> = {
  documentId: { column: R.documentId, type: 'string' }, locale: { column: R.locale, type: 'string' },
  createdAt: { column: R.createdAt, type: 'datetime' }, updatedAt: { column: R.updatedAt, type: 'datetime' },
  publishedAt: { column: R.publishedAt, type: 'datetime' },
};

/** A value as its column takes it, sent as text (PostgreSQL casts it to the column's type, refusing what does not fit). */
function toDb(type: string, v: unknown): string | null {
  if (v === null) return null;
  if (type === 'json' || type === 'blocks') return JSON.stringify(v);
  if (v instanceof Date) return v.toISOString();
  return String(v);
}

export interface EngineWrites {
  create(params?: Params): Promise<unknown>;
  createMany(params?: Params): Promise<{ count: number; ids: number[] }>;
  update(params?: Params): Promise<unknown>;
  updateMany(params?: Params): Promise<{ count: number }>;
  delete(params?: Params): Promise<unknown>;
  deleteMany(params?: Params): Promise<{ count: number }>;
}

/** What a repository gives its writes: its findOne (a write answers the row read back) and its `where` as a query string. */
export interface EngineReads {
  findOne(params: Params): Promise<unknown>;
  /** `where` (and `_q`) as the Content API's query string. */
  query(where: unknown, q?: unknown): string;
  /** Whether the model's rows have render cache entries to renew. */
  cached: boolean;
}

export function engineWrites(ctx: () => RestContext, ct: ContentType, reads: EngineReads): EngineWrites {
  const uid = ct.uid;
  const { findOne } = reads;

  /** `data` as columns: scalars by their types, system columns; anything linked is refused by name. */
  const columns = (method: string, data: Obj, creating: boolean): Map<string, string | null> => {
    const out = new Map<string, string | null>();
    for (const [k, v] of Object.entries(data)) {
      if (v === undefined || k === 'id') continue;
      const a: Attribute | undefined = ct.byName.get(k);
      // A new row links nothing: an empty link given at its creation changes nothing.
      if (a && a.kind !== 'scalar' && creating && (v === null || (Array.isArray(v) && !v.length))) continue;
      if (a && a.kind !== 'scalar') {
        throw new TypeError(`strapi.db.query('${uid}').${method}: data.${k} (a ${a.kind}) is not written by this server's Query Engine; strapi.documents('${uid}') writes it`);
      }
      const sys = SYSTEM[k];
      if (a) out.set(a.column, toDb(a.type, v));
      else if (sys) out.set(sys.column, toDb(sys.type, v));
      // Keys the model does not have are left out, as Strapi's processData leaves them.
    }
    return out;
  };
  /** A create's values: the model's defaults for what `data` leaves out, and a new documentId. */
  const withDefaults = (data: Obj): Obj => {
    const out: Obj = { ...data };
    for (const a of ct.attributes) if (a.kind === 'scalar' && out[a.name] === undefined && (a as ScalarAttr).default !== undefined) out[a.name] = (a as ScalarAttr).default;
    if (out.documentId === undefined) out.documentId = newDocumentId();
    // Strapi gives every content-type's publishedAt a default of now (@strapi/core addDraftAndPublish): a
    // row made here is published unless `data.publishedAt` is null.
    if (out.publishedAt === undefined) out.publishedAt = new Date();
    return out;
  };

  /** One transaction: `fn` with a statement runner, hooks before; the render cache renewed for the rows written. */
  const inTransaction = async <T>(fn: (run: (text: string, params: unknown[]) => Promise<Obj[]>, touched: Set<number>) => Promise<T>): Promise<T> => {
    const c = ctx();
    let n = 0;
    let out!: T;
    try {
      await c.db.begin(async (tx) => {
        const run = async (text: string, params: unknown[]) => { n++; return [...await tx.unsafe(text, params as never[])] as Obj[]; };
        const touched = new Set<number>();
        out = await fn(run, touched);
        if (reads.cached && c.config.api.rest.renderCache && touched.size) await run(cacheTableOf(c.schema, ct).refreshIds, [[...touched]]);
      });
    } finally { c.count(n); }
    await c.onWrite?.(writeTables(c.schema, ct));
    return out;
  };
  const fire = async (action: string, params: Obj, state: HookState, result?: unknown) => {
    const hooks = ctx().lifecycles;
    if (hooks?.size()) await hooks.fire(action, ct, params, state, result);
  };
  const condition = (w: unknown, q?: unknown) => ctx().compiler.rowCondition(ct, reads.query(w, q));
  const dataOf = (method: string, p: Params): Obj => {
    if (!isObj(p.data)) throw new Error(method.startsWith('create') ? 'Create expects a data object' : 'Update requires a data object');
    return p.data;
  };

  return {
    async create(p = {}) {
      const data = dataOf('create', p);
      const state: HookState = new Map();
      const now = new Date();
      data.createdAt ??= now;
      data.updatedAt ??= now;
      const id = await inTransaction(async (run, touched) => {
        await fire('beforeCreate', p, state);
        const cols = columns('create', withDefaults(data), true);
        const [row] = await run(engineInsert(ct, [...cols.keys()]), [...cols.values()]);
        touched.add(Number(row.id));
        return Number(row.id);
      });
      const result = await findOne({ where: { id }, select: p.select, populate: p.populate });
      await fire('afterCreate', p, state, result);
      return result;
    },
    async createMany(p = {}) {
      if (!Array.isArray(p.data)) throw new Error('CreateMany expects data to be an array');
      if (!p.data.length) throw new Error('Nothing to insert');
      const state: HookState = new Map();
      const now = new Date();
      for (const d of p.data) if (isObj(d)) { d.createdAt ??= now; d.updatedAt ??= now; }
      const ids = await inTransaction(async (run, touched) => {
        await fire('beforeCreateMany', p, state);
        const out: number[] = [];
        for (const d of p.data as unknown[]) {
          const cols = columns('createMany', withDefaults(isObj(d) ? d : {}), true);
          const [row] = await run(engineInsert(ct, [...cols.keys()]), [...cols.values()]);
          out.push(Number(row.id));
          touched.add(Number(row.id));
        }
        return out;
      });
      const result = { count: ids.length, ids };
      await fire('afterCreateMany', p, state, result);
      return result;
    },
    async update(p = {}) {
      const data = dataOf('update', p);
      if (!isObj(p.where) || !Object.keys(p.where).length) throw new Error('Update requires a where parameter');
      const state: HookState = new Map();
      // Strapi's timestamps subscriber runs before the project's hooks.
      data.updatedAt = new Date();
      const id = await inTransaction(async (run, touched) => {
        await fire('beforeUpdate', p, state);
        const w = condition(p.where);
        const [found] = await run(engineFirst(ct, w.sql), w.params);
        if (!found) return null;
        const rowId = Number(found.id);
        const cols = columns('update', data, false);
        if (cols.size) await run(engineUpdate(ct, [...cols.keys()], 'r.id = $1', 2), [rowId, ...cols.values()]);
        touched.add(rowId);
        return rowId;
      });
      if (id === null) return null;
      const result = await findOne({ where: { id }, select: p.select, populate: p.populate });
      await fire('afterUpdate', p, state, result);
      return result;
    },
    async updateMany(p = {}) {
      const data = isObj(p.data) ? p.data : {};
      const state: HookState = new Map();
      const count = await inTransaction(async (run, touched) => {
        await fire('beforeUpdateMany', p, state);
        const cols = columns('updateMany', data, false);
        if (!cols.size) throw new Error('Update requires data');
        const w = condition(p.where);
        const rows = await run(engineUpdate(ct, [...cols.keys()], w.sql, w.params.length + 1), [...w.params, ...cols.values()]);
        for (const r of rows) touched.add(Number(r.id));
        return rows.length;
      });
      const result = { count };
      await fire('afterUpdateMany', p, state, result);
      return result;
    },
    async delete(p = {}) {
      if (!isObj(p.where) || !Object.keys(p.where).length) throw new Error('Delete requires a where parameter');
      const state: HookState = new Map();
      const select = p.select === undefined || p.select === null ? undefined : ['id', ...(Array.isArray(p.select) ? p.select : [p.select])];
      const found = await inTransaction(async (run) => {
        await fire('beforeDelete', p, state);
        const w = condition(p.where);
        const [first] = await run(engineFirst(ct, w.sql), w.params);
        if (!first) return null;
        const id = Number(first.id);
        // The entry as it was (its select and populate), read before it goes: Strapi answers it.
        const entity = await findOne({ where: { id }, select, populate: p.populate });
        await run(engineDelete(ct, 'r.id = $1'), [id]);
        await run(engineMediaLinks, [uid, [id]]);
        return entity;
      });
      if (found === null) return null;
      await fire('afterDelete', p, state, found);
      return found;
    },
    async deleteMany(p = {}) {
      const state: HookState = new Map();
      const count = await inTransaction(async (run) => {
        await fire('beforeDeleteMany', p, state);
        // As Strapi's: only `where` (and `_q`) choose the rows; a page or order changes nothing.
        const w = condition(p.where, p._q);
        const rows = await run(engineDelete(ct, w.sql), w.params);
        if (rows.length) await run(engineMediaLinks, [uid, rows.map((r) => Number(r.id))]);
        return rows.length;
      });
      const result = { count };
      await fire('afterDeleteMany', p, state, result);
      return result;
    },
  };
}
