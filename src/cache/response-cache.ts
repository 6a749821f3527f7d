// The response cache: final replies (headers, ETag and compressed bytes included) kept by request and
// caller, bounded in bytes (least recently used out first), each tagged with the tables its reads
// depended on. Invalidating a table drops every reply that read it. A reply computed while one of its
// tables was invalidated is not stored: `begin()` takes a sequence number before the reads run, and
// `set()` refuses when any tag was invalidated after it.
import type { Reply } from '../rest/reply.ts';

interface Entry { key: string; reply: Reply; tags: string[]; bytes: number; moved: number }

export interface CacheStats { entries: number; bytes: number; hits: number; misses: number; invalidations: number }

const replyBytes = (r: Reply): number =>
  (typeof r.body === 'string' ? Buffer.byteLength(r.body) : r.body.byteLength) + 256 + (r.headers?.reduce((n, [k, v]) => n + k.length + v.length, 0) ?? 0);

export class ResponseCache {
  private entries = new Map<string, Entry>();
  private byTag = new Map<string, Set<string>>();
  /** Sequence of the last invalidation of each tag (and of everything). */
  private tagSeq = new Map<string, number>();
  private allSeq = 0;
  private seq = 0;
  private bytes = 0;
  private hits = 0;
  private misses = 0;
  private invalidations = 0;
  /** Moves to the end of the order so far (inserts included): an entry's `moved` says how recently it went there. */
  private moves = 0;

  constructor(private maxBytes: number) {}

  /** Marks the start of a computation whose result may be stored with `set`. */
  begin(): number { return this.seq; }

  get(key: string): Reply | undefined {
    const e = this.entries.get(key);
    if (!e) { this.misses++; return undefined; }
    // Least recently used order is the Map's insertion order: a hit moves to the end, unless it moved
    // there less than half the entries ago (it is not among the next to go; moving every hit cost a
    // delete and an insert per hit on a hot key).
    if (this.moves - e.moved > this.entries.size >> 1) {
      this.entries.delete(key);
      this.entries.set(key, e);
      e.moved = ++this.moves;
    }
    this.hits++;
    return e.reply;
  }

  set(key: string, reply: Reply, tags: Iterable<string>, since: number): boolean {
    const list = [...new Set(tags)];
    if (this.allSeq > since || list.some((t) => (this.tagSeq.get(t) ?? -1) > since)) return false;
    const bytes = replyBytes(reply);
    if (bytes > this.maxBytes / 4) return false;
    this.remove(key);
    this.entries.set(key, { key, reply, tags: list, bytes, moved: ++this.moves });
    for (const t of list) {
      let keys = this.byTag.get(t);
      if (!keys) this.byTag.set(t, (keys = new Set()));
      keys.add(key);
    }
    this.bytes += bytes;
    for (const old of this.entries.values()) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(old.key);
    }
    return true;
  }

  /** Drops every reply that read one of `tables`. */
  invalidate(tables: Iterable<string>): void {
    const s = ++this.seq;
    this.invalidations++;
    for (const t of tables) {
      this.tagSeq.set(t, s);
      const keys = this.byTag.get(t);
      if (!keys) continue;
      for (const k of [...keys]) this.remove(k);
    }
  }

  /** Drops everything (a lost connection to the database: writes may have been missed). */
  clear(): void {
    this.allSeq = ++this.seq;
    this.invalidations++;
    this.entries.clear();
    this.byTag.clear();
    this.bytes = 0;
  }

  stats(): CacheStats {
    return { entries: this.entries.size, bytes: this.bytes, hits: this.hits, misses: this.misses, invalidations: this.invalidations };
  }

  private remove(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.bytes -= e.bytes;
    for (const t of e.tags) {
      const keys = this.byTag.get(t);
      keys?.delete(key);
      if (keys && keys.size === 0) this.byTag.delete(t);
    }
  }
}
