// A costly list read as two statements at once (compiler/sql.ts SplitRead): on a node with nothing else
// to read, the statement of a page with many or deep populates keeps one core of PostgreSQL busy while
// the others idle. Its costliest root populates are read by a second statement on another connection,
// beside the rest, and their values are put in the rest's place here.
//
// Measured at 100k articles (the benchmark's deep populate: 25 articles, each author's 10 published
// articles and their categories): the statement alone 5.6 ms, both halves at once 4.7 ms; after a 45 ms
// pause (a node between requests, PostgreSQL's processes asleep) 7.1 against 4.3 ms.
// Under load every core already has work: a read is split only when no other read of the node (any of its
// threads) is running (src/db/connect.ts readsInFlight), so a busy node sends the unsplit statement.
//
// The halves see two snapshots, as Strapi's own populate reads (one query per level, outside a
// transaction) do; the page itself must be the same rows in both, or the read runs again unsplit.

/**
 * The rows of a split read put together: `main` (the page's rows, each with a marker per populate split
 * off: byte 1, the row's id, `:`, the populate's place, byte 2) and `side` (per row its id, byte 1, its
 * `parts` values joined by byte 3; rows joined by byte 2; null when it read no rows). The answer's pieces in
 * order (views of the two buffers, copied once by the caller), or null when the two did not read the same
 * rows (a write between their snapshots changed the page).
 */
export function splice(main: Buffer, side: Buffer | null, parts: number): Buffer[] | null {
  const values = new Map<string, Buffer[]>();
  if (side) {
    for (let at = 0; at < side.length;) {
      const mark = side.indexOf(1, at);
      if (mark < 0) return null;
      let end = side.indexOf(2, mark);
      if (end < 0) end = side.length;
      const row: Buffer[] = [];
      for (let v = mark + 1; ;) {
        const sep = side.indexOf(3, v);
        if (sep < 0 || sep > end) { row.push(side.subarray(v, end)); break; }
        row.push(side.subarray(v, sep));
        v = sep + 1;
      }
      if (row.length !== parts) return null;
      values.set(side.toString('latin1', at, mark), row);
      at = end + 1;
    }
  }
  const pieces: Buffer[] = [];
  let at = 0;
  let markers = 0;
  for (;;) {
    const open = main.indexOf(1, at);
    if (open < 0) break;
    const close = main.indexOf(2, open);
    if (close < 0) return null;
    const marker = main.toString('latin1', open + 1, close);
    const colon = marker.indexOf(':');
    if (colon < 0) return null;
    const value = values.get(marker.slice(0, colon))?.[Number(marker.slice(colon + 1))];
    if (!value) return null;
    pieces.push(main.subarray(at, open), value);
    markers++;
    at = close + 1;
  }
  if (markers !== values.size * parts) return null;
  pieces.push(main.subarray(at));
  return pieces;
}
