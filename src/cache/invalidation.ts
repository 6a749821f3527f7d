// How the response cache hears about writes, on every node of one database:
// - this node's writes invalidate at once, before their response is sent, and are announced with
//   PostgreSQL NOTIFY on a channel every node LISTENs to (other nodes drop them within milliseconds);
// - writes made by Strapi itself (its admin panel, its API) or in SQL are found by a watcher that reads,
//   every `watchInterval` ms, per content-type table (and files, users) what changes with every insert,
//   update and delete without reading the table: the highest id (by its primary key), the table's file
//   (a TRUNCATE or a rewrite changes it) and PostgreSQL's cumulative statistics counters of rows inserted,
//   updated and deleted, which count every write, committed or not, by any connection. A writing
//   connection publishes its counters when its transaction ends, unless it did so within the last
//   second: then at its next transaction end a second later, or after 10 s of idleness (PostgreSQL 15+'s
//   PGSTAT_MIN_INTERVAL and PGSTAT_IDLE_INTERVAL). Tables up to `watchScanBytes` are also scanned for their
//   row count and latest `updated_at` (Strapi sets it on every create and update, a publish makes a new
//   row, a delete changes the count), which sees their writes at the next check whatever the counters
//   say; so do all tables when the counters cannot be relied on (PostgreSQL before 15, whose statistics
//   collector may drop messages, or track_counts off). A check waits max(watchInterval, nine times the
//   last one's duration), so it stays under a tenth of one connection;
// - a lost connection (the LISTEN one or the watcher's) drops everything: notifications may be missed.
// The Authorizer's permission caches (src/auth/permissions.ts) hear the same: a change to users, roles,
// permissions or API tokens — this node's, another thread's or node's, or one the watch sees in Strapi's
// auth tables — is forgotten at once, whether or not the response cache is on. A revocation made here
// answers only once every other listener (thread or node) acknowledged it (Peers), so that no request
// sent after that answer, wherever it goes, is judged by what was revoked.
import type { Sql } from 'postgres';
import type { Schema } from '../../compiler/schema.ts';
import { writeTables } from '../../compiler/tables.ts';
import { FILES, quoted as q } from '../../compiler/layout.ts';
import { API_TOKENS, UP } from '../auth/tables.ts';
import { AUTH_TABLES } from '../auth/permissions.ts';
import type { ResponseCache } from './response-cache.ts';
import type { ReadRouter } from '../db/replicas.ts';
import { log } from '../log.ts';

export const CACHE_CHANNEL = 'fastrapi_cache';

export interface InvalidationOptions {
  watchInterval: number;
  /** Tables up to this many bytes are scanned at each check too; larger ones rely on the counters (default: 8 MiB). */
  watchScanBytes?: number;
}

/** What the watch last saw of a table: `cheap` (highest id, file, counters), `exact` (row count, latest updated_at: scanned tables only). */
interface Seen { cheap: string; exact: string | null }

/** A watched table and the tables a change to it invalidates in the response cache. */
interface Watched {
  table: string;
  invalidates: string[];
  last: Seen | null;
  /** Scanned at the next check (small enough, or the counters cannot be relied on). */
  scan: boolean;
}

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

const lit = (text: string) => `'${text.replace(/'/g, "''")}'`;
/** Default of InvalidationOptions.watchScanBytes (config `cache.watchScanBytes`): a scan of 8 MiB takes ≈ 4 ms. */
const SCAN_BYTES = 8 * 1024 * 1024;

export class Invalidator {
  private watched: Watched[];
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private unlisten: (() => Promise<void>) | null = null;
  /** The watched tables were checked to exist (keepPresent). */
  private present = false;
  /** PostgreSQL's statistics counters see every write (PostgreSQL 15+, track_counts on): large tables are not scanned. */
  private counters = false;
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
      this.watched = [...schema.contentTypes.values()].filter((ct) => !ct.builtin).map((ct) => ({ table: ct.table, invalidates: writeTables(schema, ct), last: null, scan: true }));
      this.watched.push({ table: FILES.table, invalidates: [FILES.table, FILES.related], last: null, scan: true });
      // Users populated from the models bring their role and its permissions (src/models.ts).
      if ([...schema.contentTypes.values()].some((ct) => ct.table === UP.users)) {
        this.watched.push(
          { table: UP.users, invalidates: [UP.users, UP.userRole.table], last: null, scan: true },
          { table: UP.roles, invalidates: [UP.roles, UP.userRole.table, UP.permissionRole.table], last: null, scan: true },
          { table: UP.permissions, invalidates: [UP.permissions, UP.permissionRole.table], last: null, scan: true },
        );
      }
    }
    // The Authorizer's tables, watched for it (no cached reply depends on the API tokens).
    if (auth) {
      for (const table of AUTH_WATCHED) if (!this.watched.some((w) => w.table === table)) this.watched.push({ table, invalidates: [], last: null, scan: true });
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
    const rows = await this.db.unsafe<Array<{ t: string; bytes: number }>>(`select t, pg_relation_size(to_regclass(quote_ident(t)))::float8 as bytes
      from unnest($1::text[]) t where to_regclass(quote_ident(t)) is not null`, [this.watched.map((w) => w.table)]);
    const bytes = new Map(rows.map((r) => [r.t, r.bytes]));
    this.watched = this.watched.filter((w) => bytes.has(w.table));
    const [pg] = await this.db.unsafe<Array<{ counters: boolean }>>(`select current_setting('server_version_num')::int >= 150000 and current_setting('track_counts')::bool as counters`);
    this.counters = pg.counters;
    for (const w of this.watched) w.scan = this.scanned(bytes.get(w.table)!);
    this.present = true;
  }

  private scanned(bytes: number): boolean {
    return !this.counters || bytes <= (this.opts.watchScanBytes ?? SCAN_BYTES);
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
      const text = this.watched.map((w, i) => `select ${i} as i,
        concat((select max(id) from ${q(w.table)}), '/', pg_relation_filenode(r), '/', pg_stat_get_tuples_inserted(r), '/',
          pg_stat_get_tuples_updated(r), '/', pg_stat_get_tuples_deleted(r)) as cheap,
        ${w.scan ? `(select count(*)::text || '/' || coalesce(max(updated_at)::text, '') from ${q(w.table)})` : 'null::text'} as exact,
        pg_relation_size(r)::float8 as bytes
        from (select to_regclass(${lit(q(w.table))}) as r) x`).join(' union all ');
      const rows = await this.db.unsafe<Array<{ i: number; cheap: string; exact: string | null; bytes: number }>>(text, [], { prepare: true });
      const changed: string[] = [];
      const tables: string[] = [];
      for (const r of rows) {
        const w = this.watched[r.i];
        const was = w.last;
        // The exact part is compared when both checks scanned the table (a table that grew past the
        // threshold, or shrank below it, is compared by its cheap part meanwhile).
        if (was && (was.cheap !== r.cheap || (was.exact !== null && r.exact !== null && was.exact !== r.exact))) {
          changed.push(...w.invalidates);
          tables.push(w.table);
        }
        w.last = { cheap: r.cheap, exact: r.exact };
        w.scan = this.scanned(r.bytes);
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
