// A fixed-window counter per client address. Per worker: with N workers a client gets up to N× the
// limit, which is acceptable for slowing down password guessing without shared state.
export class RateLimiter {
  private windows = new Map<string, { count: number; reset: number }>();
  constructor(private limit: number, private windowMs: number) {}
  take(key: string, now = Date.now()): boolean {
    if (this.limit === 0) return true;
    let w = this.windows.get(key);
    if (!w || w.reset <= now) {
      if (this.windows.size > 10000) for (const [k, v] of this.windows) if (v.reset <= now) this.windows.delete(k);
      w = { count: 0, reset: now + this.windowMs };
      this.windows.set(key, w);
    }
    return ++w.count <= this.limit;
  }
}
