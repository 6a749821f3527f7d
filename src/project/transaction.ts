// `strapi.db.transaction(cb)` as Strapi 5.54's database runs it: one database transaction around the
// callback, which every database call of the project's code made within it joins (strapi.documents, core
// services, the entity service, strapi.db.query, db.connection.raw), as Strapi's transaction context does.
// It commits when the callback settles, rolls back when it throws (or when the callback calls `rollback()`;
// `commit()` ends it early), and a nested call runs in the same transaction, its commit and rollback doing
// nothing. Its reads see its own writes; what the writes owe others (the response cache's and other nodes'
// invalidation, webhooks, `onCommit` callbacks) happens once it committed, and nothing of it when it rolled
// back. One connection of the write pool is held for its length.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ReservedSql } from 'postgres';
import type { Db } from '../db/connect.ts';
import type { RestContext } from '../rest/router.ts';
import type { Webhooks } from '../webhooks/index.ts';

interface Scope {
  /** The transaction's connection; null once it committed or rolled back (later calls then run outside, as in Strapi). */
  conn: ReservedSql | null;
  /** The connection as the writers and reads use a pool: `begin(fn)` joins the transaction. */
  db: Db;
  tables: Set<string>;
  /** Webhook sends, held until the commit. */
  sends: Array<() => void>;
  commitCallbacks: Array<() => void>;
  rollbackCallbacks: Array<() => void>;
}

const storage = new AsyncLocalStorage<Scope>();

/** Whether project code runs within strapi.db.transaction (strapi.db.inTransaction()). */
export function inTransaction(): boolean {
  return !!storage.getStore()?.conn;
}

/**
 * `ctx` as the project's code uses it: within a transaction, its statements go to the transaction's
 * connection and what its writes owe others waits for the commit. Decided at each use, not when the
 * context is made: strapi.documents(uid) keeps the context it was first made with.
 */
export function transactional(ctx: RestContext): RestContext {
  const scope = () => { const s = storage.getStore(); return s?.conn ? s : null; };
  const live = <T>(outside: T, inside: (s: Scope) => T): PropertyDescriptor => ({ enumerable: true, get: () => { const s = scope(); return s ? inside(s) : outside; } });
  return Object.defineProperties({ ...ctx }, {
    db: live(ctx.db, (s) => s.db),
    reader: live(ctx.reader, (s) => () => s.db),
    primaryReads: live(ctx.primaryReads, (s) => s.db),
    customReads: live(ctx.customReads, () => undefined),
    inTransaction: live(ctx.inTransaction, () => true),
    webhooks: live(ctx.webhooks, (s) => ctx.webhooks && held(ctx.webhooks, s)),
    onWrite: live(ctx.onWrite, (s) => (tables: string[]) => { for (const t of tables) s.tables.add(t); }),
  }) as RestContext;
}

/** The webhooks of a context within the transaction: what they would send waits for its commit. */
function held(w: Webhooks, s: Scope): Webhooks {
  const hold = (send: () => void) => { s.sends.push(send); };
  // Every method bound to the real one: the wrapper holds no state of its own.
  return Object.assign(Object.create(w) as Webhooks, {
    wants: (event: string) => w.wants(event),
    deletedEntry: (...a: Parameters<Webhooks['deletedEntry']>) => w.deletedEntry(...a),
    written: (...a: Parameters<Webhooks['written']>) => hold(() => w.written(...a)),
    user: (...a: Parameters<Webhooks['user']>) => hold(() => w.user(...a)),
    media: (...a: Parameters<Webhooks['media']>) => hold(() => w.media(...a)),
  });
}

/** The connection as a pool: a write's own `begin(fn)` runs fn in the transaction (no transaction of its own, as Strapi's). */
function asPool(conn: ReservedSql): Db {
  return new Proxy(conn, {
    get(target, prop, receiver) {
      if (prop === 'begin') return (...args: unknown[]) => (args[args.length - 1] as (tx: unknown) => unknown)(receiver);
      return Reflect.get(target, prop, receiver);
    },
  }) as unknown as Db;
}

export interface TransactionParams {
  trx: unknown;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  onCommit(cb: () => void): void;
  onRollback(cb: () => void): void;
}

/** `strapi.db.transaction(cb)` (`base`: the project's database context outside any transaction). */
export async function transaction(base: () => RestContext, cb: unknown, trx: unknown): Promise<unknown> {
  if (typeof cb !== 'function') throw new TypeError('strapi.db.transaction() without a callback (a knex transaction to pass around) is not supported by this server');
  const outer = storage.getStore();
  if (outer?.conn) return (cb as (p: TransactionParams) => unknown)(params(outer, async () => {}, async () => {}, trx));
  const ctx = base();
  const conn = await ctx.db.reserve();
  try { await conn.unsafe('begin'); } catch (e) { conn.release(); throw e; }
  const s: Scope = { conn, db: asPool(conn), tables: new Set(), sends: [], commitCallbacks: [], rollbackCallbacks: [] };
  const end = async (commit: boolean): Promise<void> => {
    if (!s.conn) return;
    s.conn = null;
    try { await conn.unsafe(commit ? 'commit' : 'rollback'); } finally { conn.release(); }
    if (!commit) { for (const f of s.rollbackCallbacks.splice(0)) f(); return; }
    // Committed: cached reads of what it changed go, then its webhooks are sent.
    if (s.tables.size) await ctx.onWrite?.([...s.tables]);
    for (const send of s.sends.splice(0)) send();
    for (const f of s.commitCallbacks.splice(0)) f();
  };
  return storage.run(s, async () => {
    try {
      const result = await (cb as (p: TransactionParams) => unknown)(params(s, () => end(true), () => end(false), trx));
      await end(true);
      return result;
    } catch (e) {
      // A commit that failed has already released the connection: nothing is left to roll back.
      if (s.conn) await end(false).catch(() => { /* the callback's error is the one to answer */ });
      throw e;
    }
  });
}

function params(s: Scope, commit: () => Promise<void>, rollback: () => Promise<void>, trx: unknown): TransactionParams {
  return { trx, commit, rollback, onCommit: (f) => { s.commitCallbacks.push(f); }, onRollback: (f) => { s.rollbackCallbacks.push(f); } };
}
