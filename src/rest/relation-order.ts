// Where connected relations land in an ordered list, computed as Strapi's database layer does it
// (relations-orderer): each connected row gets a fractional order next to its anchor — half a step from
// a row already linked, the anchor's own order from one connected in the same request — or after the
// highest order; rows sharing an order are then spread in the order they were inserted. Strapi stores
// these orders and renumbers the list, so the resulting order is what its readers see. Connecting a row
// already linked moves it (to the end without a position).
import { validation } from '../../compiler/errors.ts';

/** `shown`: the position as Strapi's strict orderer prints it (see connectRows), when its anchor may be missing. */
export interface Connect<K> { id: K; position?: { before?: K; after?: K; start?: boolean; end?: boolean }; shown?: string }

interface Placed<K> { id: K; order: number; init: boolean }

/**
 * The list of `current` rows (in order) after `connect`, as Strapi orders it. `strict` (Strapi's default):
 * a position whose anchor is neither in the list nor connected too is refused, with Strapi's words.
 */
export function orderAfterConnect<K>(current: K[], connect: Array<Connect<K>>, strict = false): K[] {
  const rows: Array<Placed<K>> = current.map((id, i) => ({ id, order: i + 1, init: true }));
  const maxOrder = rows.length ? rows[rows.length - 1].order : 0;
  const known = new Set(current);
  const mapped = new Map<K, Connect<K>>();
  for (const c of connect) if (!mapped.has(c.id)) mapped.set(c.id, c);
  // An anchor connected in the same request is placed before what refers to it (sortConnectArray).
  const sorted: Array<Connect<K>> = [];
  const done = new Set<K>();
  const visit = (c: Connect<K>, branch: Set<K>) => {
    const anchor = c.position?.before ?? c.position?.after;
    if (anchor !== undefined && branch.has(anchor)) {
      throw validation('A circular reference was found in the connect array. One relation is trying to connect before/after another one that is trying to connect before/after it');
    }
    if (done.has(c.id)) return;
    done.add(c.id);
    if (anchor === undefined || known.has(anchor)) { sorted.push(c); return; }
    const a = mapped.get(anchor);
    if (a) { visit(a, new Set([...branch, c.id])); sorted.push(c); return; }
    if (strict) throw validation(`There was a problem connecting relation with id ${String(c.id)} at position ${c.shown ?? JSON.stringify(c.position)}. The relation with id ${String(anchor)} needs to be connected first.`);
    // An anchor neither linked nor connected: the row goes last (Strapi's non-strict connect).
    sorted.push({ id: c.id, position: { end: true } });
  };
  for (const c of connect) visit(c, new Set());
  const inserted: Array<Placed<K>> = [];
  for (const c of sorted) {
    const at = rows.findIndex((r) => r.id === c.id);
    if (at >= 0) rows.splice(at, 1);
    const r: Placed<K> = { id: c.id, order: maxOrder + 0.5, init: false };
    let idx = rows.length;
    const anchorIdx = (k: K | undefined) => (k === undefined ? -1 : rows.findIndex((x) => x.id === k));
    const before = anchorIdx(c.position?.before);
    const after = anchorIdx(c.position?.after);
    if (c.position?.before !== undefined && before >= 0) {
      r.order = rows[before].init ? rows[before].order - 0.5 : rows[before].order;
      idx = before;
    } else if (c.position?.after !== undefined && after >= 0) {
      r.order = rows[after].init ? rows[after].order + 0.5 : rows[after].order;
      idx = after + 1;
    } else if (c.position?.start) {
      r.order = rows.length ? (rows[0].init ? rows[0].order - 0.5 : rows[0].order) : 0.5;
      idx = 0;
    }
    rows.splice(idx, 0, r);
    inserted.push(r);
  }
  // getOrderMap: connected rows sharing an order are spread by their place in the list.
  const groups = new Map<number, Array<Placed<K>>>();
  for (const r of rows) if (!r.init) groups.set(r.order, [...(groups.get(r.order) ?? []), r]);
  const finalOrder = new Map<Placed<K>, number>();
  for (const [order, list] of groups) list.forEach((r, i) => finalOrder.set(r, order + ((i + 1) / (list.length + 1)) * 0.49));
  return rows
    .map((r, i) => ({ id: r.id, order: r.init ? r.order : finalOrder.get(r)!, i }))
    .sort((a, b) => a.order - b.order || a.i - b.i)
    .map((r) => r.id);
}
