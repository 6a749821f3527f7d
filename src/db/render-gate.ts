// Whether reads may use the render cache yet, shared by a node's threads. Closed while the cache is first
// filled (its tables were just made, or a fill was interrupted): a read that looks for entries and finds
// none costs more than one that does not look (measured at 1M articles: populate=* without its count
// 2.0–2.5 ms → 2.8–3.7 ms per statement on misses), so until every table has been walked once reads render
// live, as with RENDER_CACHE=false. Opened by src/db/render-cache.ts; it never closes again.
export class RenderCacheGate {
  private cell: Int32Array;
  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(4)) { this.cell = new Int32Array(buffer); }
  open(): void { Atomics.store(this.cell, 0, 1); }
  isOpen(): boolean { return Atomics.load(this.cell, 0) === 1; }
}
