// Read replicas (DATABASE_READ_URL): reads go to a streaming replica that has replayed every write this
// node knows of; writes, the reads that answer them, and everything else go to the primary.
// A health loop reads each replica's replay position (pg_last_wal_replay_lsn) and the primary's
// (pg_current_wal_lsn): a replica that fails, is not in recovery, or lags more than `maxLagBytes` behind
// the primary is taken out until it catches up. After a write, this node (and every node that hears it:
// src/cache/invalidation.ts) requires the write's position before a replica may answer again, so a client
// never reads older data than it wrote, and the response cache never stores a reply older than a write it
// was invalidated for.
import { endPool, type Db } from './connect.ts';
import { log } from '../log.ts';

export interface ReplicaOptions { maxLagBytes: number; checkInterval: number }

interface Replica { url: string; db: Db; healthy: boolean; replayed: bigint }

/** A WAL position (`16/B374D848`) as a number of bytes. */
export function lsnBytes(lsn: string | null | undefined): bigint {
  if (!lsn) return 0n;
  const [hi, lo] = lsn.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

/**
 * The WAL position every write this node knows of had reached when it committed, shared by the node's
 * worker threads (a SharedArrayBuffer): a client whose write one thread answered may read through
 * another at once, before that one hears the write's notification.
 */
export class WrittenPosition {
  private cell: BigInt64Array;
  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(8)) { this.cell = new BigInt64Array(buffer); }
  get(): bigint { return Atomics.load(this.cell, 0); }
  raise(lsn: bigint): void {
    for (let cur = Atomics.load(this.cell, 0); lsn > cur;) {
      const seen = Atomics.compareExchange(this.cell, 0, cur, lsn);
      if (seen === cur) return;
      cur = seen;
    }
  }
}

export class ReadRouter {
  private replicas: Replica[];
  private next = 0;
  /** A write committed whose position could not be read: reads stay on the primary until a check reads its head. */
  private unknownWrite = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  /** `primary`: where reads go when no replica may take them; `positions`: where the primary's WAL position is read. */
  constructor(private primary: Db, private positions: Db, urls: string[], open: (url: string) => Db, private opts: ReplicaOptions, private required = new WrittenPosition()) {
    this.replicas = urls.map((url) => ({ url, db: open(url), healthy: false, replayed: 0n }));
  }

  get size(): number { return this.replicas.length; }

  async start(): Promise<void> {
    if (!this.replicas.length) return;
    await this.check();
  }

  /** Where a read goes: a healthy replica that has replayed every known write, else the primary. */
  reader(): Db {
    if (this.unknownWrite) return this.primary;
    const n = this.replicas.length;
    const required = this.required.get();
    for (let i = 0; i < n; i++) {
      const r = this.replicas[(this.next + i) % n];
      if (r.healthy && r.replayed >= required) { this.next = (this.next + i + 1) % n; return r.db; }
    }
    return this.primary;
  }

  /** A write committed at `lsn` (this node's, or one another node announced). */
  wrote(lsn: bigint): void { this.required.raise(lsn); }

  /** A write committed but its position could not be read: the primary's next head position stands for it. */
  wroteUnknown(): void { this.unknownWrite = true; }

  /** The primary's current WAL position (taken right after a write commits). */
  async primaryPosition(): Promise<bigint> {
    const [row] = await this.positions<Array<{ l: string }>>`select pg_current_wal_lsn()::text as l`;
    return lsnBytes(row.l);
  }

  /**
   * Health and replay positions of every replica, then again after `checkInterval` ms. Without the
   * primary's position (it does not answer) replicas are still checked, and their lag is not.
   */
  private async check(): Promise<void> {
    let head: bigint | null = null;
    try {
      head = await this.primaryPosition();
      if (this.unknownWrite) { this.wrote(head); this.unknownWrite = false; }
    } catch (e) {
      log.warn('read replicas: the primary did not answer the health check', { error: String(e) });
    }
    await Promise.all(this.replicas.map(async (r) => {
      try {
        const [row] = await r.db<Array<{ rec: boolean; l: string | null }>>`select pg_is_in_recovery() as rec, pg_last_wal_replay_lsn()::text as l`;
        const replayed = lsnBytes(row.l);
        const lag = head === null ? 0n : head - replayed;
        const healthy = row.rec && lag <= BigInt(this.opts.maxLagBytes);
        if (healthy !== r.healthy) log.info(healthy ? 'read replica in' : 'read replica out (lagging or not a standby)', { replica: redact(r.url), lagBytes: String(lag) });
        r.healthy = healthy;
        r.replayed = replayed;
      } catch (e) {
        // Cancelled (a cancel meant for a read whose client went away: the check shares the replica's read pool): no news.
        if ((e as { code?: unknown }).code === '57014') return;
        if (r.healthy) log.warn('read replica out (unreachable)', { replica: redact(r.url), error: String(e) });
        r.healthy = false;
      }
    }));
    if (!this.stopped) this.timer = setTimeout(() => { void this.check(); }, this.opts.checkInterval);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.all(this.replicas.map((r) => endPool(r.db).catch(() => {})));
  }
}

/** A URL without its password, for logs. */
const redact = (url: string) => url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
