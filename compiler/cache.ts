// A bounded LRU on Map insertion order: a hit re-inserts the key, the oldest key is evicted.
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
