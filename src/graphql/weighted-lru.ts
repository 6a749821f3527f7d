// An LRU bounded by entry count and by the total weight (estimated bytes) of its entries: what a
// prepared GraphQL operation keeps varies by four orders of magnitude (a 10-field query keeps tens of
// KB, a 10,000-field one 20 MB), so a count alone would let distinct large documents fill the memory.
export class WeightedLru<V> {
  private map = new Map<string, { value: V; weight: number }>();
  private total = 0;
  constructor(private readonly maxEntries: number, private readonly maxWeight: number) {}

  get(key: string): V | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    this.map.delete(key);
    this.map.set(key, e);
    return e.value;
  }

  /** Keeps `value` unless it alone outweighs the whole budget; the least recently used entries make room. */
  set(key: string, value: V, weight: number): void {
    this.remove(key);
    if (weight > this.maxWeight) return;
    this.map.set(key, { value, weight });
    this.total += weight;
    while (this.map.size > this.maxEntries || this.total > this.maxWeight) this.remove(this.map.keys().next().value as string);
  }

  get size(): number { return this.map.size; }
  get weight(): number { return this.total; }

  private remove(key: string): void {
    const e = this.map.get(key);
    if (!e) return;
    this.map.delete(key);
    this.total -= e.weight;
  }
}
