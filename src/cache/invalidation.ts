// How the response cache hears about writes, on every node of one database:
// - this node's writes invalidate at once, before their response is sent, and are announced with
//   PostgreSQL NOTIFY on a channel every node LISTENs to (other nodes drop them within milliseconds);
// - writes made by Strapi itself (its admin panel, its API) are found by a watcher that reads, per
//   content-type table (and files, users), the row count, the highest id and the latest `updated_at` —
//   Strapi sets it on every create and update, a publish makes a new row, a delete changes the count —
//   every `watchInterval` ms, or nine times a
//   pass's duration on a large database, so the watch stays under a tenth of one connection;
// - a lost connection (the LISTEN one or the watcher's) drops everything: notifications may be missed.
import type { Sql } from 'postgres';
import type { Schema } from '../../compiler/schema.ts';
import { writeTables } from '../../compiler/tables.ts';
import { FILES } from '../../compiler/layout.ts';
import { UP } from '../auth/tables.ts';
import type { ResponseCache } from './response-cache.ts';
import type { ReadRouter } from '../db/replicas.ts';
import { log } from '../log.ts';

export const CACHE_CHANNEL = 'fastrapi_cache';

export interface InvalidationOptions { watchInterval: number }

/** A watched table and the tables a change to it invalidates. */
interface Watched { table: string; invalidates: string[]; last: string | null }

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;

export class Invalidator {
  private watched: Watched[];
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private unlisten: (() => Promise<void>) | null = null;
  /** Node id in notifications: a node skips its own (it invalidated already). */
  private readonly self = Math.random().toString(36).slice(2, 10);

  /**
   * `cache`: the response cache to keep current (null: none); `router`: read replicas, told the WAL position
   * of every write (this node's and those announced) so reads wait for a replica that has it.
   */
  constructor(private db: Sql, private cache: ResponseCache | null, schema: Schema, private opts: InvalidationOptions, private router: ReadRouter | null = null) {
    this.watched = [...schema.contentTypes.values()].filter((ct) => !ct.builtin).map((ct) => ({ table: ct.table, invalidates: writeTables(schema, ct), last: null }));
    this.watched.push({ table: FILES.table, invalidates: [FILES.table, FILES.related], last: null });
    // Users populated from the models bring their role and its permissions (src/models.ts).
    if ([...schema.contentTypes.values()].some((ct) => ct.table === UP.users)) {
      this.watched.push(
        { table: UP.users, invalidates: [UP.users, UP.userRole.table], last: null },
        { table: UP.roles, invalidates: [UP.roles, UP.userRole.table, UP.permissionRole.table], last: null },
        { table: UP.permissions, invalidates: [UP.permissions, UP.permissionRole.table], last: null },
      );
    }
  }

  async start(): Promise<void> {
    let first = true;
    const listener = await this.db.listen(CACHE_CHANNEL, (payload) => this.heard(payload), () => {
      // (Re)connected: what was written while the connection was down went unheard.
      if (!first && this.cache) { log.warn('response cache: the notification connection was re-established; dropping every cached response'); this.cache.clear(); }
      first = false;
    });
    this.unlisten = () => listener.unlisten();
    await this.watch();
  }

  /**
   * A write of this node committed: drop what read its tables here, learn the primary's WAL position
   * (replicas must reach it before answering again), and tell the other nodes both.
   */
  async written(tables: string[]): Promise<void> {
    if (!tables.length) return;
    this.cache?.invalidate(tables);
    let lsn = 0n;
    if (this.router) {
      try { lsn = await this.router.primaryPosition(); this.router.wrote(lsn); } catch (e) {
        log.warn('read replicas: could not read the position of a write; reads stay on the primary until the next check', { error: String(e) });
        this.router.wroteUnknown();
      }
    }
    this.db.notify(CACHE_CHANNEL, `${this.self} ${lsn} ${tables.join(',')}`).catch((e: unknown) => {
      log.warn('could not notify the other nodes of a write', { error: String(e) });
    });
  }

  private heard(payload: string): void {
    const [from, lsn = '0', list = ''] = payload.split(' ');
    if (from === this.self) return;
    if (/^\d+$/.test(lsn)) this.router?.wrote(BigInt(lsn));
    this.cache?.invalidate(list.split(',').filter(Boolean));
  }

  private async watch(): Promise<void> {
    if (this.stopped || !this.watched.length || !this.cache) return;
    const started = Date.now();
    try {
      const text = this.watched.map((w, i) => `select ${i} as i, count(*)::text || '/' || coalesce(max(id)::text, '') || '/' || coalesce(max(updated_at)::text, '') as s from ${q(w.table)}`).join(' union all ');
      const rows = await this.db.unsafe<Array<{ i: number; s: string }>>(text);
      const changed: string[] = [];
      for (const r of rows) {
        const w = this.watched[r.i];
        if (w.last !== null && w.last !== r.s) changed.push(...w.invalidates);
        w.last = r.s;
      }
      if (changed.length) {
        // Replicas must have replayed what was seen before their answers may be cached again.
        if (this.router) this.router.wrote(await this.router.primaryPosition());
        this.cache?.invalidate(changed);
      }
    } catch (e) {
      // The database is unreachable: writes may happen unseen meanwhile.
      this.cache?.clear();
      for (const w of this.watched) w.last = null;
      log.warn('response cache: the change watch failed; dropping every cached response', { error: String(e) });
    }
    if (!this.stopped) this.timer = setTimeout(() => { void this.watch(); }, Math.max(this.opts.watchInterval, (Date.now() - started) * 9));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.unlisten?.().catch(() => {});
  }
}
