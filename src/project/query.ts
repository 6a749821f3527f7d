// qs.stringify as Strapi's `ctx.query` setter uses it (indices for arrays, undefined skipped, null as an
// empty value, Dates as ISO text): what a middleware puts in ctx.query becomes a query string again, and
// the compiler reads it exactly as it reads a URL's (same validation, same plan caches).

function encodeKey(k: string): string {
  // Brackets of the key's own text would be read as nesting: escaped, as qs escapes whole keys.
  return encodeURIComponent(k);
}

function add(out: string[], prefix: string, v: unknown): void {
  if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return;
  if (v === null) { out.push(`${prefix}=`); return; }
  if (v instanceof Date) { out.push(`${prefix}=${encodeURIComponent(v.toISOString())}`); return; }
  if (Array.isArray(v)) {
    v.forEach((x, i) => add(out, `${prefix}[${i}]`, x));
    return;
  }
  if (typeof v === 'object') {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) add(out, `${prefix}[${encodeKey(k)}]`, x);
    return;
  }
  out.push(`${prefix}=${encodeURIComponent(String(v))}`);
}

export function stringifyQuery(q: Record<string, unknown>): string {
  const out: string[] = [];
  for (const [k, v] of Object.entries(q)) add(out, encodeKey(k), v);
  return out.join('&');
}
