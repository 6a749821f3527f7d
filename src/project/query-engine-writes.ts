// strapi.db.query's writes: rows, not documents, as Strapi 5.54's entity manager writes them — create
// (the model's defaults, a new documentId, createdAt/updatedAt/publishedAt now; no locale unless given),
// update and delete of the first row `where` finds, and createMany/updateMany/deleteMany. Scalar
// attributes (and documentId, locale, the timestamps) are written, and relations of create and update by
// row ids as Strapi's attachRelations/updateRelations take them (an id, a list, `{ set }`, `{ connect,
// disconnect }`; the links' order columns kept as the REST writers keep them); media, components and zones
// in `data` are refused by name (Strapi links existing component rows by id, which this server never makes
// apart from their owner).
// The project's lifecycle hooks run as Strapi's database layer runs them: before* once, before anything is
// written (what they leave in `params.data` is written), after* once it committed. Each write is then one
// transaction (run again after a deadlock), an update or delete of one row in its document's turn and under
// its lock as the REST writers take them; the response cache and replicas learn of it as of any other.
import type { Attribute, ContentType, RelationAttr, ScalarAttr, Schema } from '../../compiler/schema.ts';
import { ROW_COLUMNS as R } from '../../compiler/layout.ts';
import { currentLinks, deleteLinks, documentLockKey, engineDelete, engineFirst, engineInsert, engineLockRow, engineMediaLinks, engineUpdate, insertLinks, lockKey, lockTargets, renumberInverse, takeTargets } from '../../compiler/write-sql.ts';
import { inTurn, retried } from '../rest/write.ts';
import { takesTargets } from '../rest/write-relations.ts';
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
  // Strapi's author columns, on every content-type (an admin user's id).
  createdBy: { column: 'created_by_id', type: 'id' }, updatedBy: { column: 'updated_by_id', type: 'id' },
};

/** A value as its column takes it, sent as text (PostgreSQL casts it to the column's type, refusing what does not fit). */
function toDb(type: string, v: unknown): string | null {
  if (v === null) return null;
  // Strapi's JSONField: an object is stringified, a string is taken as JSON text already.
  if ((type === 'json' || type === 'blocks') && typeof v === 'object' && !(v instanceof Date)) return JSON.stringify(v);
  if (v instanceof Date) return v.toISOString();
  if (type === 'id') return String(toId(v, 'data'));
  return String(v);
}

type Run = (text: string, params: unknown[]) => Promise<Obj[]>;
/**
 * Deadlock, serialization failure, a lock not granted at once: the transaction runs again. Not a foreign key
 * failure, which the REST writers retry: their targets are documents, found again; here they are the ids given.
 */
const RETRY: ReadonlySet<string> = new Set(['40P01', '40001', '55P03']);

/** An id as Strapi's toId takes it: a number or string, or an object's `id`. */
function toId(v: unknown, where: string): number {
  const id = isObj(v) && 'id' in v ? v.id : v;
  if ((typeof id === 'number' && Number.isInteger(id)) || (typeof id === 'string' && /^\d+$/.test(id))) return Number(id);
  throw new Error(`Invalid id, expected a string or integer, got ${JSON.stringify(v)} (${where})`);
}
const toIds = (v: unknown, where: string): number[] => (v === null || v === undefined ? [] : Array.isArray(v) ? v : [v]).map((x) => toId(x, where));

/** A relation's value as Strapi's toAssocs reads it: what to link in place of the current links, or what to connect and disconnect. */
function assocs(v: unknown, where: string): { set: number[] } | { connect: number[]; disconnect: number[] } {
  if (v === null || Array.isArray(v) || typeof v === 'string' || typeof v === 'number' || (isObj(v) && 'id' in v)) return { set: toIds(v, where) };
  if (isObj(v) && 'set' in v) return { set: toIds(v.set, where) };
  const o = isObj(v) ? v : {};
  return { connect: toIds(o.connect, where), disconnect: toIds(o.disconnect, where) };
}

/**
 * Row `rowId`'s links of relation `a` as `value` asks (its document `documentId`): the REST writers' link
 * statements on row ids. Targets whose other side holds one leave other documents' rows; the other side's
 * order is kept (a new link goes last there) and renumbered where links went, targets locked in id order first.
 */
async function writeRelation(run: Run, schema: Schema, ct: ContentType, a: RelationAttr, rowId: number, documentId: string, value: unknown, method: string): Promise<void> {
  const target = schema.contentTypes.get(a.target)!;
  const j = a.join;
  const op = assocs(value, `${method}: data.${a.name}`);
  const current = 'set' in op && !j.inverseOrder ? [] : (await run(currentLinks(j, target.table), [rowId])).map((r) => Number(r.target));
  let targets: number[];
  if ('set' in op) targets = a.toMany ? [...new Set(op.set)] : op.set.slice(-1);
  else if (a.toMany) targets = [...new Set([...current.filter((t) => !op.disconnect.includes(t)), ...op.connect])];
  else targets = op.connect.length ? op.connect.slice(-1) : current.filter((t) => !op.disconnect.includes(t));
  const takes = takesTargets(a) && targets.length > 0;
  const locked = [...new Set([...(takes ? targets : []), ...(j.inverseOrder ? current : [])])];
  if (locked.length) await run(lockTargets(target.table), [locked]);
  if (takes) await run(takeTargets(j, ct.table), [targets, documentId]);
  const removed = await run(deleteLinks(j), [rowId]);
  const inv = new Map(removed.map((r) => [Number(r.target), r.inv as number | null]));
  if (targets.length) await run(insertLinks(j), [rowId, targets, targets.map((t) => inv.get(t) ?? null)]);
  const dropped = [...inv.keys()].filter((t) => !targets.includes(t));
  const renumber = renumberInverse(j);
  if (renumber && dropped.length) await run(renumber, [dropped]);
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
  /** Throws what reading the answer (`select`, `populate`) would, before anything is written. */
  check(params: Params): void;
}

export function engineWrites(ctx: () => RestContext, ct: ContentType, reads: EngineReads): EngineWrites {
  const uid = ct.uid;
  const { findOne } = reads;

  /**
   * `data` as columns (scalars by their types, system columns, an author column of createdBy/updatedBy) and
   * relations to link (`withLinks`: create and update; the bulk calls leave them, as Strapi's processData);
   * media, components and zones are refused by name.
   */
  const columns = (method: string, data: Obj, creating: boolean, withLinks = true): { cols: Map<string, string | null>; links: Array<[RelationAttr, unknown]> } => {
    const cols = new Map<string, string | null>();
    const links: Array<[RelationAttr, unknown]> = [];
    for (const [k, v] of Object.entries(data)) {
      if (v === undefined || k === 'id') continue;
      const a: Attribute | undefined = ct.byName.get(k);
      if (a?.kind === 'relation' && a.creator) { cols.set(a.join.target, toDb('id', v)); continue; }
      if (a?.kind === 'relation') { if (withLinks) links.push([a, v]); continue; }
      // A new row links nothing: an empty value given at its creation changes nothing.
      if (a && a.kind !== 'scalar' && creating && (v === null || (Array.isArray(v) && !v.length))) continue;
      if (a && a.kind !== 'scalar') {
        throw new TypeError(`strapi.db.query('${uid}').${method}: data.${k} (a ${a.kind}) is not written by this server's Query Engine; strapi.documents('${uid}') writes it`);
      }
      const sys = Object.hasOwn(SYSTEM, k) ? SYSTEM[k] : undefined;
      if (a) cols.set(a.column, toDb(a.type, v));
      else if (sys) cols.set(sys.column, toDb(sys.type, v));
      // Keys the model does not have are left out, as Strapi's processData leaves them.
    }
    return { cols, links };
  };
  const link = (run: Run, method: string, rowId: number, documentId: string, links: Array<[RelationAttr, unknown]>) =>
    links.reduce((p, [a, v]) => p.then(() => writeRelation(run, ctx().schema, ct, a, rowId, documentId, v, method)), Promise.resolve());
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

  /**
   * One transaction: `fn` with a statement runner and the set of rows it wrote (made, changed or removed):
   * their render cache entries renewed before commit; caches and replicas told after it, unless nothing was
   * written (an update of a row gone, a bulk call matching nothing costs no invalidation).
   */
  const inTransaction = async <T>(fn: (run: Run, touched: Set<number>) => Promise<T>): Promise<T> => {
    const c = ctx();
    let n = 0;
    let out!: T;
    let wrote = false;
    try {
      // A deadlock or serialization failure (links of two writes met in another order) runs it again, as the REST writers do.
      await retried(() => c.db.begin(async (tx) => {
        const run: Run = async (text, params) => { n++; return [...await tx.unsafe(text, params as never[])] as Obj[]; };
        const touched = new Set<number>();
        out = await fn(run, touched);
        wrote = touched.size > 0;
        if (reads.cached && c.config.api.rest.renderCache && touched.size) await run(cacheTableOf(c.schema, ct).refreshIds, [[...touched]]);
      }), RETRY);
    } finally { c.count(n); }
    if (wrote) await c.onWrite?.(writeTables(c.schema, ct));
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

  /** Refused before anything is written: a type whose reads have hooks, an answer that could not be read. */
  const precheck = (p: Params) => {
    const closed = ctx().lifecycles?.closedError(ct);
    if (closed) throw closed;
    reads.check(p);
  };
  /**
   * The first row `where` finds, then `fn` in one transaction holding its document's turn and lock and the
   * row's own (null when another write removed it meanwhile): the REST writers' order, so neither deadlocks.
   */
  const onFirst = async <T>(where: unknown, fn: (run: Run, touched: Set<number>, id: number, documentId: string) => Promise<T>): Promise<T | null> => {
    const w = condition(where);
    const [found] = [...await ctx().db.unsafe(engineFirst(ct, w.sql), w.params as never[])] as Obj[];
    if (!found) return null;
    const id = Number(found.id);
    const documentId = String(found.document_id);
    const key = documentLockKey(ct, documentId);
    let out: T | null = null;
    await inTurn(key, async () => {
      out = await inTransaction(async (run, touched) => {
        await run(lockKey, [key]);
        const [still] = await run(engineLockRow(ct), [id]);
        return still ? fn(run, touched, id, documentId) : null;
      });
    });
    return out;
  };

  return {
    async create(p = {}) {
      dataOf('create', p);
      precheck(p);
      const state: HookState = new Map();
      const now = new Date();
      (p.data as Obj).createdAt ??= now;
      (p.data as Obj).updatedAt ??= now;
      await fire('beforeCreate', p, state);
      // What the hooks left (they may replace `params.data`).
      const values = withDefaults(dataOf('create', p));
      const { cols, links } = columns('create', values, true);
      const id = await inTransaction(async (run, touched) => {
        const [row] = await run(engineInsert(ct, [...cols.keys()]), [...cols.values()]);
        await link(run, 'create', Number(row.id), String(values.documentId), links);
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
      precheck({});
      const state: HookState = new Map();
      const now = new Date();
      for (const d of p.data) if (isObj(d)) { d.createdAt ??= now; d.updatedAt ??= now; }
      await fire('beforeCreateMany', p, state);
      const rows = (Array.isArray(p.data) ? p.data : []).map((d) => columns('createMany', withDefaults(isObj(d) ? d : {}), true, false).cols);
      const ids = await inTransaction(async (run, touched) => {
        const out: number[] = [];
        for (const cols of rows) {
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
      dataOf('update', p);
      if (!isObj(p.where) || !Object.keys(p.where).length) throw new Error('Update requires a where parameter');
      precheck(p);
      const state: HookState = new Map();
      // Strapi's timestamps subscriber runs before the project's hooks.
      (p.data as Obj).updatedAt = new Date();
      await fire('beforeUpdate', p, state);
      const { cols, links } = columns('update', dataOf('update', p), false);
      const id = await onFirst(p.where, async (run, touched, rowId, documentId) => {
        if (cols.size) await run(engineUpdate(ct, [...cols.keys()], 'r.id = $1', 2), [rowId, ...cols.values()]);
        await link(run, 'update', rowId, documentId, links);
        touched.add(rowId);
        return rowId;
      });
      if (id === null) return null;
      const result = await findOne({ where: { id }, select: p.select, populate: p.populate });
      await fire('afterUpdate', p, state, result);
      return result;
    },
    async updateMany(p = {}) {
      precheck({});
      const state: HookState = new Map();
      await fire('beforeUpdateMany', p, state);
      const { cols } = columns('updateMany', isObj(p.data) ? p.data : {}, false, false);
      if (!cols.size) throw new Error('Update requires data');
      const w = condition(p.where);
      const count = await inTransaction(async (run, touched) => {
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
      const select = p.select === undefined || p.select === null ? undefined : ['id', ...(Array.isArray(p.select) ? p.select : [p.select])];
      precheck({ select, populate: p.populate });
      const state: HookState = new Map();
      await fire('beforeDelete', p, state);
      // The entry as it was (its select and populate), read before it goes: Strapi answers it.
      const entity = await findOne({ where: p.where, select, populate: p.populate }) as Obj | null;
      if (!entity) return null;
      const gone = await onFirst({ id: entity.id }, async (run, touched, id) => {
        await run(engineDelete(ct, 'r.id = $1'), [id]);
        touched.add(id);
        await run(engineMediaLinks, [uid, [id]]);
        return id;
      });
      if (gone === null) return null;
      await fire('afterDelete', p, state, entity);
      return entity;
    },
    async deleteMany(p = {}) {
      precheck({});
      const state: HookState = new Map();
      await fire('beforeDeleteMany', p, state);
      // As Strapi's: only `where` (and `_q`) choose the rows; a page or order changes nothing.
      const w = condition(p.where, p._q);
      const count = await inTransaction(async (run, touched) => {
        const rows = await run(engineDelete(ct, w.sql), w.params);
        for (const r of rows) touched.add(Number(r.id));
        if (rows.length) await run(engineMediaLinks, [uid, rows.map((r) => Number(r.id))]);
        return rows.length;
      });
      const result = { count };
      await fire('afterDeleteMany', p, state, result);
      return result;
    },
  };
}
