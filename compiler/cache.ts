// Bounded caches of the compiler: an LRU, and compiled statements by shape and page.
import type { PageBounds } from './ast.ts';

/** A bounded LRU on Map insertion order: a hit re-inserts the key, the oldest key is evicted. */
export class Lru<V> {
  private map = new Map<string, V>();
  hits = 0;
  misses = 0;
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v === undefined) { this.misses++; return undefined; }
    this.hits++;
    this.map.delete(key);
    this.map.set(key, v);
    return v;
  }
  set(key: string, v: V): void {
    if (this.map.has(key)) this.map.delete(key);
    else if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value as string);
    this.map.set(key, v);
  }
  get size(): number { return this.map.size; }
}

/**
 * Compiled statements by shape (an LRU of `size` shapes), and under each shape its pages. A page's LIMIT
 * and OFFSET are literals of the statement's text, so the planner sees how many rows are read (an index
 * walk for a page of 25, not a scan and sort of the whole table under a generic plan that has to assume
 * a tenth of it), and each page is a text of its own. The first `preparedPages` pages of a shape are
 * kept here and run as prepared statements (planned once per connection); any later page is compiled for
 * its request (the caller's exact-query cache may keep it) and sent unprepared, planned at each
 * execution. A shape held here thus has at most `preparedPages` prepared statements on a connection
 * (three times that for a split read's: the whole and its two halves), whatever pages clients ask for.
 */
export class StatementCache<T extends { prepare: boolean }> {
  private shapes: Lru<Map<string, T>>;
  hits = 0;
  misses = 0;
  constructor(size: number, private readonly preparedPages: number) { this.shapes = new Lru(size); }

  /** `compile` is told whether its statement will be prepared (an unprepared page is never split: compiler/sql.ts SplitRead). */
  get(shape: string, page: PageBounds, compile: (prepared: boolean) => T): T {
    let pages = this.shapes.get(shape);
    if (!pages) this.shapes.set(shape, (pages = new Map()));
    const key = `${page.limit}/${page.offset}`;
    const hit = pages.get(key);
    if (hit) { this.hits++; return hit; }
    this.misses++;
    const prepared = pages.size < this.preparedPages;
    const compiled = compile(prepared);
    if (!prepared) return { ...compiled, prepare: false };
    pages.set(key, compiled);
    return compiled;
  }

  /** Shapes held. */
  get size(): number { return this.shapes.size; }
}
