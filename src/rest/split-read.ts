// A deep list read as two statements at once (compiler/sql.ts SplitRead): on a node with nothing else to
// read, the statement of a page whose populate reaches relations through relations keeps one core of
// PostgreSQL busy while the others idle. Its heaviest root populate is read by a second statement on
// another connection, beside the rest, and its values are put in the rest's place here.
//
// Measured at 100k articles (the benchmark's deep populate: 25 articles, each author's 10 published
// articles and their categories): the statement alone 5.6 ms, both halves at once 4.7 ms; after a 45 ms
// pause (a node between requests, PostgreSQL's processes asleep) 7.1 against 4.3 ms.
// Under load every core already has work: a read is split only when no other read of this thread is
// running (src/db/connect.ts readsInFlight), so the throughput of a busy node is the unsplit statement's.
//
// The halves see two snapshots, as Strapi's own populate reads (one query per level, outside a
// transaction) do; the page itself must be the same rows in both, or the read runs again unsplit.

/**
 * The rows of a split read put together: `main` (the page's rows, each with a marker byte 1, id, byte 2
 * where the populate split off goes) and `side` (`id` byte 1 value, rows joined by byte 2; null when it
 * read no rows). The answer's pieces in order (views of the two buffers, copied once by the caller), or
 * null when the two did not read the same rows (a write between their snapshots changed the page).
 */
export function splice(main: Buffer, side: Buffer | null): Buffer[] | null {
  const values = new Map<string, Buffer>();
  if (side) {
    for (let at = 0; at < side.length;) {
      const mark = side.indexOf(1, at);
      if (mark < 0) return null;
      let end = side.indexOf(2, mark);
      if (end < 0) end = side.length;
      values.set(side.toString('latin1', at, mark), side.subarray(mark + 1, end));
      at = end + 1;
    }
  }
  const pieces: Buffer[] = [];
  let at = 0;
  let rows = 0;
  for (;;) {
    const open = main.indexOf(1, at);
    if (open < 0) break;
    const close = main.indexOf(2, open);
    if (close < 0) return null;
    const value = values.get(main.toString('latin1', open + 1, close));
    if (!value) return null;
    pieces.push(main.subarray(at, open), value);
    rows++;
    at = close + 1;
  }
  if (rows !== values.size) return null;
  pieces.push(main.subarray(at));
  return pieces;
}
