// How the response cache hears about writes, on every node of one database:
// - this node's writes invalidate at once, before their response is sent, and are announced with
//   PostgreSQL NOTIFY on a channel every node LISTENs to (other nodes drop them within milliseconds);
// - writes made by Strapi itself (its admin panel, its API) are found by a watcher that reads, per
//   content-type table (and files, users), the row count, the highest id and the latest `updated_at` —
//   Strapi sets it on every create and update, a publish makes a new row, a delete changes the count —
//   every `watchInterval` ms, or nine times a
//   pass's duration on a large database, so the watch stays under a tenth of one connection;
// - a lost connection (the LISTEN one or the watcher's) drops everything: notifications may be missed.
// The Authorizer's permission caches (src/auth/permissions.ts) hear the same: a change to users, roles,
// permissions or API tokens — this node's, another thread's or node's, or one the watch sees in Strapi's
// auth tables — is forgotten at once, whether or not the response cache is on. A revocation made here
// answers only once every other listener (thread or node) acknowledged it (Peers), so that no request
// sent after that answer, wherever it goes, is judged by what was revoked.
import type { Sql } from 'postgres';
import type { Schema } from '../../compiler/schema.ts';
import { writeTables } from '../../compiler/tables.ts';
import { FILES } from '../../compiler/layout.ts';
import { API_TOKENS, UP } from '../auth/tables.ts';
import { AUTH_TABLES } from '../auth/permissions.ts';
import type { ResponseCache } from './response-cache.ts';
import type { ReadRouter } from '../db/replicas.ts';
import { log } from '../log.ts';

export const CACHE_CHANNEL = 'fastrapi_cache';

export interface InvalidationOptions { watchInterval: number }

/** A watched table and the tables a change to it invalidates in the response cache. */
interface Watched { table: string; invalidates: string[]; last: string | null }

/** What the Authorizer offers the change feed (its permission caches). */
export interface AuthCaches {
  /** These tables changed: forget what was read from them. */
  changed(tables: readonly string[]): void;
  /** Changes may have gone unheard: forget everything. */
  clear(): void;
}

/** Strapi's auth tables with an `updated_at` (the watch reads it); their link tables change along with them. */
const AUTH_WATCHED = [UP.users, UP.roles, UP.permissions, API_TOKENS.table, API_TOKENS.permissions];
const AUTH = new Set(AUTH_TABLES);
/** The longest a revocation's answer waits for the other listeners' acknowledgements (one that died). */
const ACK_WAIT = 1000;
/** Messages on the channel besides writes (`<node> <lsn> <tables> [tag]`): membership and acknowledgements. */
const HELLO = '~hello', HERE = '~here', BYE = '~bye', ACK = '~ack';

/**
 * The other listeners on the channel (each thread of each node), as far as this one knows: learned from
 * anything they send, announced at start (hello, which the others answer) and at stop (bye). A revocation
 * waits for an acknowledgement from each; one that does not answer within ACK_WAIT ms (it died) is left
 * out until it speaks again.
 */
class Peers {
  private known = new Set<string>();
  private waits = new Map<string, { left: Set<string>; done: () => void }>();

  add(peer: string): void { if (peer) this.known.add(peer); }
  remove(peer: string): void { this.known.delete(peer); }

  /** Settles when every peer known now acknowledged `tag`, or after ACK_WAIT ms. */
  wait(tag: string): Promise<void> {
    const left = new Set(this.known);
    if (!left.size) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        log.warn('a revocation was not acknowledged in time; leaving those listeners out until they speak again', { listeners: left.size });
        for (const p of left) this.known.delete(p);
        done();
      }, ACK_WAIT);
      const done = () => { clearTimeout(timer); this.waits.delete(tag); resolve(); };
      this.waits.set(tag, { left, done });
    });
  }

  acked(tag: string, peer: string): void {
    this.add(peer);
    const w = this.waits.get(tag);
    if (!w) return;
    w.left.delete(peer);
    if (!w.left.size) w.done();
  }

  /** The announcement could not be sent: nobody will acknowledge it. */
  cancel(tag: string): void { this.waits.get(tag)?.done(); }
}

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;

export class Invalidator {
  private watched: Watched[];
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private unlisten: (() => Promise<void>) | null = null;
  /** The watched tables were checked to exist (keepPresent). */
  private present = false;
  /** Node id in notifications: a node skips its own (it invalidated already). */
  private readonly self = Math.random().toString(36).slice(2, 10);
  private peers = new Peers();
  /** Numbers this node's revocations, which the other listeners acknowledge by it. */
  private tags = 0;
  private listening = false;

  /**
   * `cache`: the response cache to keep current (null: none); `router`: read replicas, told the WAL position
   * of every write (this node's and those announced) so reads wait for a replica that has it; `auth`: the
   * permission caches of the same App (by default the Authorizer made for `schema`).
   */
  constructor(private db: Sql, private cache: ResponseCache | null, schema: Schema, private opts: InvalidationOptions, private router: ReadRouter | null = null,
    private auth: AuthCaches | null = null) {
    this.watched = [];
    if (cache) {
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
    // The Authorizer's tables, watched for it (no cached reply depends on the API tokens).
    if (auth) {
      for (const table of AUTH_WATCHED) if (!this.watched.some((w) => w.table === table)) this.watched.push({ table, invalidates: [], last: null });
    }
  }

  async start(): Promise<void> {
    let first = true;
    const listener = await this.db.listen(CACHE_CHANNEL, (payload) => this.heard(payload), () => {
      // (Re)connected: what was written while the connection was down went unheard.
      if (!first && this.cache) { log.warn('response cache: the notification connection was re-established; dropping every cached response'); this.cache.clear(); }
      if (!first) { this.auth?.clear(); this.send(`${HELLO} ${this.self}`); }
      first = false;
    });
    this.unlisten = () => listener.unlisten();
    this.listening = true;
    this.send(`${HELLO} ${this.self}`);
    await this.watch();
    // What the Authorizer read before this node listened and watched may have changed unheard.
    this.auth?.clear();
  }

  /** A database without users-permissions or API tokens lacks their tables: only the tables present are watched. */
  private async keepPresent(): Promise<void> {
    if (this.present) return;
    const rows = await this.db.unsafe<Array<{ t: string }>>(`select t from unnest($1::text[]) t where to_regclass(quote_ident(t)) is not null`, [this.watched.map((w) => w.table)]);
    const present = new Set(rows.map((r) => r.t));
    this.watched = this.watched.filter((w) => present.has(w.table));
    this.present = true;
  }

  /**
   * A write of this node committed: drop what read its tables here, learn the primary's WAL position
   * (replicas must reach it before answering again), and tell the other nodes both.
   */
  async written(tables: string[]): Promise<void> {
    if (!tables.length) return;
    this.cache?.invalidate(tables);
    this.auth?.changed(tables);
    let lsn = 0n;
    if (this.router) {
      try { lsn = await this.router.primaryPosition(); this.router.wrote(lsn); } catch (e) {
        log.warn('read replicas: could not read the position of a write; reads stay on the primary until the next check', { error: String(e) });
        this.router.wroteUnknown();
      }
    }
    // A revocation (a change to users, roles, permissions, tokens) waits for every other listener's
    // acknowledgement: each sends it once it has forgotten what was revoked.
    // Other writes answer without waiting for the announcement.
    const tag = this.listening && tables.some((t) => AUTH.has(t)) ? String(++this.tags) : '';
    const acked = tag ? this.peers.wait(tag) : null;
    const told = this.db.notify(CACHE_CHANNEL, `${this.self} ${lsn} ${tables.join(',')}${tag ? ` ${tag}` : ''}`).then(() => acked, (e: unknown) => {
      log.warn('could not notify the other nodes of a write', { error: String(e) });
      this.peers.cancel(tag);
    });
    if (tag) await told;
  }

  /** Sends a message on the channel; a failure is logged (the watch and the TTL remain). */
  private send(message: string): void {
    this.db.notify(CACHE_CHANNEL, message).catch((e: unknown) => log.warn('could not notify the other nodes', { error: String(e) }));
  }

  private heard(payload: string): void {
    const parts = payload.split(' ');
    if (parts[0].startsWith('~')) return this.membership(parts);
    const [from, lsn = '0', list = '', tag = ''] = parts;
    if (from === this.self) return;
    this.peers.add(from);
    if (/^\d+$/.test(lsn)) this.router?.wrote(BigInt(lsn));
    const tables = list.split(',').filter(Boolean);
    this.cache?.invalidate(tables);
    this.auth?.changed(tables);
    // Forgotten (above, synchronously): the writer may answer as far as this listener is concerned.
    if (tag) this.send(`${ACK} ${from} ${tag} ${this.self}`);
  }

  /** hello/here/bye `<listener>`, ack `<writer> <tag> <listener>`. */
  private membership([kind, a = '', b = '', c = '']: string[]): void {
    if (kind === ACK) {
      if (a === this.self) this.peers.acked(b, c); else if (c !== this.self) this.peers.add(c);
      return;
    }
    if (a === this.self) return;
    if (kind === BYE) this.peers.remove(a);
    else this.peers.add(a);
    if (kind === HELLO) this.send(`${HERE} ${this.self}`);
  }

  private async watch(): Promise<void> {
    if (this.stopped || !this.watched.length) return;
    const started = Date.now();
    try {
      await this.keepPresent();
      if (!this.watched.length) return;
      const text = this.watched.map((w, i) => `select ${i} as i, count(*)::text || '/' || coalesce(max(id)::text, '') || '/' || coalesce(max(updated_at)::text, '') as s from ${q(w.table)}`).join(' union all ');
      const rows = await this.db.unsafe<Array<{ i: number; s: string }>>(text);
      const changed: string[] = [];
      const tables: string[] = [];
      for (const r of rows) {
        const w = this.watched[r.i];
        if (w.last !== null && w.last !== r.s) { changed.push(...w.invalidates); tables.push(w.table); }
        w.last = r.s;
      }
      if (tables.length) this.auth?.changed(tables);
      if (changed.length) {
        // Replicas must have replayed what was seen before their answers may be cached again.
        if (this.router) this.router.wrote(await this.router.primaryPosition());
        this.cache?.invalidate(changed);
      }
    } catch (e) {
      // The database is unreachable: writes may happen unseen meanwhile.
      this.cache?.clear();
      this.auth?.clear();
      for (const w of this.watched) w.last = null;
      log.warn('the change watch failed; dropping every cached response and permission', { error: String(e) });
    }
    if (!this.stopped) this.timer = setTimeout(() => { void this.watch(); }, Math.max(this.opts.watchInterval, (Date.now() - started) * 9));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    // The others stop waiting for this listener's acknowledgements.
    if (this.listening) await this.db.notify(CACHE_CHANNEL, `${BYE} ${this.self}`).catch(() => {});
    await this.unlisten?.().catch(() => {});
  }
}
