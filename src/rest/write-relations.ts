// Relation writes on Strapi 5's `_lnk` tables: set / connect (with positions) / disconnect on one
// version row, and the links a publish carries over. Links join rows, not documents: which rows of a
// target document a row links to follows Strapi's document service (getRelationTargetStatus/Locale):
// - a target without draft & publish: its row; a draft links to drafts, a published row to published
//   rows; a row of a type without draft & publish links to both versions of a target that has it, or
//   to the one its reference's `status` names;
// - locales: both sides localized → the row's own locale; only the target localized → the locale the
//   reference names, else the default locale.
import type { Component, ContentType, RelationAttr, Schema } from '../../compiler/schema.ts';
import * as W from '../../compiler/write-sql.ts';
import { fieldErrors, missingEntries, validation } from '../../compiler/errors.ts';
import type { RelationOp, RelRef } from './validate.ts';
import { orderAfterConnect, type Connect } from './relation-order.ts';
import type { WriteLocks } from './write-locks.ts';

type Run = <T extends Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

/** The version row a relation is written on (for a component's relation: the component row, with its owner's status and locale). */
export interface RowRef { id: number; locale: string | null; published: boolean }

/** The model whose rows hold the links: a content-type, or a component with the flags of the content-type that holds it. */
export interface LinkSource { table: string; draftAndPublish: boolean; localized: boolean }

interface TargetRow { id: number; document_id: string; locale: string | null; published: boolean }

export class RelationWriter {
  /**
   * Set once the write took its row locks in order (write-locks.ts): a row found only now (linked by
   * another write between the plan's read and the locks) is locked without waiting, since waiting out of
   * order could deadlock; if another write holds it, the write runs again (55P03), its plan seeing it.
   */
  prelocked = false;
  constructor(private schema: Schema, private ct: ContentType, private run: Run) {}

  /**
   * Strapi's document service maps a body's relation references to rows before it validates the body:
   * one that names no entry (`Document with id "x", locale "…" not found`) is its first error. Looked up
   * as apply() looks them up, for a row of `row`'s status and locale; nothing is written. Answers each
   * document's rows (the ids Strapi's entry names it by: src/rest/strapi-entry.ts).
   */
  async checkReferences(row: Pick<RowRef, 'locale' | 'published'>, op: RelationOp): Promise<Map<string, number[]>> {
    const target = this.schema.contentTypes.get(op.attr.target)!;
    // Strapi maps a payload's documentIds set, disconnect, connect (its mapRelation): the first it cannot find is its error.
    const refs = [...(op.set ?? []), ...op.disconnect, ...op.connect];
    await this.documentsOf(target, refs, op.disconnect, true);
    const resolved = await this.resolve(target, { id: 0, ...row }, refs, this.ct);
    // Each document's rows as Strapi's getRelationIds lists them: a draft's before a published one's.
    return new Map([...resolved].map(([doc, ts]) => [doc, [...ts].sort((x, y) => Number(x.published) - Number(y.published) || x.id - y.id).map((t) => t.id)]));
  }

  async apply(row: RowRef, op: RelationOp, documentId: string, source: LinkSource = this.ct): Promise<void> {
    const a = op.attr;
    const target = this.schema.contentTypes.get(a.target)!;
    const j = a.join;
    const refs = [...(op.set ?? []), ...op.disconnect, ...op.connect];
    await this.documentsOf(target, refs, op.disconnect);
    const resolved = await this.resolve(target, row, refs, source);
    // The links are read for a list's or a disconnect's sake, and where the other side keeps an order (its
    // targets are locked below); only the first two decide what is linked next.
    const links = a.toMany || op.disconnect.length || j.inverseOrder
      ? await this.run<{ target: number; document_id: string }>(W.currentLinks(j, target.table), [row.id])
      : [];
    const current = a.toMany || op.disconnect.length ? links : [];
    const currentDocs = [...new Set(current.map((c) => c.document_id))];
    let docs: string[];
    let ordered: number[] | null = null;
    if (a.toMany && !op.set) {
      // Strapi gives a long-hand reference from a type without i18n the default locale, its position too.
      const locale = source.localized ? null : this.schema.defaultLocale;
      ordered = connectRows(current.map((c) => ({ id: Number(c.target), doc: c.document_id })), op, resolved, locale);
      docs = [];
    } else if (a.toMany) {
      docs = [...new Set(op.set!.map((r) => r.documentId))];
    } else {
      let next: string | null | undefined;
      if (op.set) next = op.set.length ? op.set[op.set.length - 1].documentId : null;
      else if (op.connect.length) next = op.connect[op.connect.length - 1].documentId;
      if (next === undefined && op.disconnect.length && currentDocs.some((d) => op.disconnect.some((r) => r.documentId === d))) next = null;
      if (next === undefined) return;
      docs = next === null ? [] : [next];
    }
    // Documents already linked keep their exact rows; the others link to the rows resolved for them.
    const kept = new Map<string, number[]>();
    for (const c of current) kept.set(c.document_id, [...(kept.get(c.document_id) ?? []), Number(c.target)]);
    const fromSet = new Set(op.set?.map((r) => r.documentId) ?? []);
    const targets = ordered ?? docs.flatMap((d) => (!fromSet.has(d) && kept.has(d) ? kept.get(d)! : (resolved.get(d) ?? []).map((t) => t.id)));
    // The other side holds one of this side: the targets leave the rows of other documents.
    const takes = takesTargets(a) && targets.length > 0;
    // Where the other side keeps an order, each target unlinked here (or relinked: its link is removed
    // first) has its list renumbered below (a read and rewrite of all its links): writers of one target's
    // list go in turn. Interleaved, each held the link it removed while renumbering the other's, and
    // deadlocked. A target only linked is appended to (a new row, no other link waited on): creates of 50
    // articles of one category, waiting for each other there, ran out of connections (503).
    // The targets unlinked include the one a to-one write replaces (moves out of one category at once
    // deadlocked there).
    const relisted = j.inverseOrder ? links.map((c) => Number(c.target)) : [];
    const locked = [...new Set([...(takes ? targets : []), ...relisted])];
    if (locked.length) await this.run(W.lockTargets(target.table, this.prelocked), [locked]);
    if (takes) await this.run(W.takeTargets(j, source.table), [targets, documentId]);
    const removed = await this.run<{ target: number; inv: number | null }>(W.deleteLinks(j), [row.id]);
    const inv = new Map(removed.map((r) => [Number(r.target), r.inv]));
    if (targets.length) await this.run(W.insertLinks(j), [row.id, targets, targets.map((t) => inv.get(t) ?? null)]);
    const dropped = [...inv.keys()].filter((t) => !targets.includes(t));
    const renumber = W.renumberInverse(j);
    if (renumber && dropped.length) await this.run(renumber, [dropped]);
  }

  /**
   * What writing relation `a` of row `row` (null: a row not made yet) locks before the write changes
   * anything (write-locks.ts): the documents it takes from others or whose lists it renumbers, as
   * changed; the documents it only links to, now or by the publish that follows, as linked to.
   */
  async plan(locks: WriteLocks, row: RowRef | null, a: RelationAttr, op: RelationOp | undefined, publishing = false): Promise<void> {
    const target = this.schema.contentTypes.get(a.target)!;
    const named = op ? [...(op.set ?? []), ...op.connect] : [];
    const [current] = await Promise.all([
      row ? this.run<{ document_id: string }>(W.currentLinks(a.join, target.table), [row.id]) : Promise.resolve([]),
      op ? this.documentsOf(target, [...named, ...op.disconnect], op.disconnect) : undefined,
    ]);
    const takes = takesTargets(a);
    locks.documents(target.table, target.draftAndPublish, named.map((r) => r.documentId), takes ? 'no key update' : 'share');
    // A publish takes the targets the draft keeps (publish() below) as a write takes those it names.
    locks.documents(target.table, target.draftAndPublish, current.map((c) => c.document_id), (op && a.join.inverseOrder) || (publishing && takes) ? 'no key update' : 'share');
  }

  /**
   * References by numeric entry id name their row's document (and its locale), which locks and orders
   * them as the others; resolve() still links the very row named. `lenient`: an id naming no entry is left
   * for the relations store's check to count (src/rest/write-checks.ts), not refused here.
   */
  private async documentsOf(target: ContentType, refs: RelRef[], disconnect: RelRef[] = [], lenient = false): Promise<void> {
    // Refs the write's lock plan (plan()) already gave their document are not looked up again.
    const byId = refs.filter((r) => r.entityId !== undefined && r.documentId === '');
    if (!byId.length) return;
    const rows = await this.run<{ id: number; document_id: string; locale: string | null }>(W.rowsById(target.table), [byId.map((r) => r.entityId)]);
    const found = new Map(rows.map((r) => [Number(r.id), r]));
    // An id to disconnect that names no entry disconnects nothing (Strapi 5.54, checked live); to link, it is an error.
    const optional = new Set(disconnect);
    const missing = new Set(byId.filter((r) => !found.has(r.entityId!) && !optional.has(r)).map((r) => r.entityId!));
    if (missing.size && !lenient) throw fieldErrors([missingEntries(missing.size, target.uid)]);
    for (const r of byId) {
      const hit = found.get(r.entityId!);
      if (!hit) continue;
      r.documentId = hit.document_id;
      if (target.localized && r.locale === undefined && hit.locale !== null) r.locale = hit.locale;
    }
  }

  /** Rows of each referenced document (positions' anchors included) this row may link to. */
  private async resolve(target: ContentType, row: RowRef, refs: RelRef[], source: LinkSource): Promise<Map<string, TargetRow[]>> {
    // (A disconnected id that named no entry has no document: nothing to resolve.)
    const docs = [...new Set(refs.flatMap((r) => [r.documentId, r.position?.before, r.position?.after].filter((x): x is string => typeof x === 'string' && x !== '')))];
    const out = new Map<string, TargetRow[]>();
    if (!docs.length) return out;
    const rows = await this.run<{ id: number; document_id: string; locale: string | null; published: boolean }>(W.targetRows(target.table), [docs]);
    const refLocale = new Map(refs.map((r) => [r.documentId, r.locale]));
    const refStatus = new Map(refs.flatMap((r) => (r.status ? [[r.documentId, r.status] as const] : [])));
    for (const r of rows) {
      if (target.draftAndPublish && source.draftAndPublish && r.published !== row.published) continue;
      // A source without draft & publish links both versions, or the one its reference's status names
      // (`published`; any other status is the draft: Strapi's getRelationTargetStatus).
      const status = target.draftAndPublish && !source.draftAndPublish ? refStatus.get(r.document_id) : undefined;
      if (status !== undefined && r.published !== (status === 'published')) continue;
      if (target.localized && r.locale !== (source.localized ? row.locale : refLocale.get(r.document_id) ?? this.schema.defaultLocale)) continue;
      out.set(r.document_id, [...(out.get(r.document_id) ?? []), { ...r, id: Number(r.id) }]);
    }
    // Ids name the very rows they link (Strapi keeps an `{id}` reference as it is: checked live, a tag given
    // articles [2, 4] links those two rows, en and fr, not a locale's versions; a draft shop given a
    // product's published row links that row), unless the document is also named by its documentId.
    const exact = new Map<string, number[]>();
    for (const r of refs) if (r.entityId !== undefined && r.documentId) exact.set(r.documentId, [...(exact.get(r.documentId) ?? []), r.entityId]);
    const byId = new Map(rows.map((r) => [Number(r.id), { ...r, id: Number(r.id) }]));
    for (const [doc, ids] of exact) {
      if (refs.some((r) => r.documentId === doc && r.entityId === undefined)) continue;
      out.set(doc, [...new Set(ids)].flatMap((id) => byId.get(id) ?? []));
    }
    for (const d of docs) {
      if (out.has(d)) continue;
      const loc = !target.localized ? null : source.localized ? row.locale : refLocale.get(d) ?? this.schema.defaultLocale;
      throw validation(`Document with id "${d}", locale "${loc}" not found`);
    }
    return out;
  }

  /**
   * A publish: the draft's links (every relation attribute, both sides) carried over to the new
   * published row, and one-way links other types held to the replaced published row moved to it.
   * `keepsPlaces`: the new links take the draft's or the replaced row's places in the other sides' lists,
   * else they go last there (W.publishLinks).
   */
  async publish(draft: number, published: number, previous: number | null, keepsPlaces = true): Promise<void> {
    for (const a of this.ct.attributes) {
      if (a.kind !== 'relation') continue;
      const target = this.schema.contentTypes.get(a.target)!;
      await this.run(W.publishLinks(a.join, target.table, target.draftAndPublish, 'published', this.ct.localized && target.localized ? this.ct.table : null, keepsPlaces), [draft, published, previous]);
      if (takesTargets(a)) await this.run(W.takeLinkedTargets(a.join, this.ct.table), [published]);
    }
    for (const other of [...this.schema.contentTypes.values(), ...this.schema.components.values()]) {
      for (const a of other.attributes) {
        if (a.kind !== 'relation' || a.target !== this.ct.uid || !a.owner || a.inversedBy !== undefined) continue;
        if (previous !== null) await this.run(W.repointLinks(a.join), [previous, published]);
        if ('kind' in other && !other.draftAndPublish) await this.run(W.copyLinks(a.join), [draft, published]);
      }
    }
  }

  /**
   * Strapi's discardDraft of a published row, when a type's draft & publish was switched on: the new
   * draft links (every relation attribute, both sides) to its targets' drafts (targets without draft &
   * publish are their own), and rows of types without draft & publish that link one-way to the
   * published row link to the draft too. One-way links of draft & publish types stay on the published row.
   */
  async discard(published: number, draft: number): Promise<void> {
    for (const a of this.ct.attributes) {
      if (a.kind !== 'relation') continue;
      const target = this.schema.contentTypes.get(a.target)!;
      await this.run(W.publishLinks(a.join, target.table, target.draftAndPublish, 'draft', this.ct.localized && target.localized ? this.ct.table : null), [published, draft, null]);
    }
    for (const other of this.schema.contentTypes.values()) {
      if (other.draftAndPublish || other.uid === this.ct.uid) continue;
      for (const a of other.attributes) {
        if (a.kind !== 'relation' || a.target !== this.ct.uid || !a.owner || a.inversedBy !== undefined) continue;
        await this.run(W.copyLinks(a.join), [published, draft]);
      }
    }
  }

  /** Component rows cloned by a publish (`pairs`: draft's instance → published one; or the reverse for a discarded draft) carry their links over too. */
  async publishComponentLinks(c: Component, pairs: Array<[number, number]>, status: 'published' | 'draft' = 'published'): Promise<void> {
    for (const a of c.attributes) {
      if (a.kind !== 'relation') continue;
      const target = this.schema.contentTypes.get(a.target)!;
      for (const [from, to] of pairs) await this.run(W.publishLinks(a.join, target.table, target.draftAndPublish, status), [from, to, null]);
    }
  }
}

/** The other side holds one of this side (a bidirectional oneToOne or oneToMany): linking a target takes it from other documents. */
export function takesTargets(a: RelationAttr): boolean {
  return (a.mappedBy !== undefined || a.inversedBy !== undefined) && (a.relation === 'oneToOne' || a.relation === 'oneToMany');
}

/**
 * Disconnect, then connect (with positions) on the rows of a list, as Strapi orders them: each document
 * stands for the rows it resolved to (a draft before its published version), a position for the first
 * row of its anchor (relation-order.ts).
 */
function connectRows(current: Array<{ id: number; doc: string }>, op: RelationOp, rows: Map<string, TargetRow[]>, locale: string | null): number[] {
  const drop = new Set(op.disconnect.map((r) => r.documentId));
  const remaining = current.filter((c) => !drop.has(c.doc)).map((c) => c.id);
  const rowsOf = (doc: string) => [...(rows.get(doc) ?? [])].sort((x, y) => Number(x.published) - Number(y.published) || x.id - y.id).map((t) => t.id);
  const positioned = new Set<string>();
  const connects: Array<Connect<number>> = [];
  for (const r of op.connect) {
    if (r.position) {
      if (positioned.has(r.documentId)) {
        throw validation(`The relation with id ${rows.get(r.documentId)?.[0]?.id} is already connected. You cannot connect the same relation twice.`);
      }
      positioned.add(r.documentId);
    }
    const p = r.position;
    // An id that names no row of the list's documents stays itself: the strict orderer then refuses it in
    // Strapi's words ("The relation with id 999 needs to be connected first", checked live).
    const anchor = (d: string | number | undefined) => (d === undefined ? undefined : rowsOf(String(d))[0] ?? (typeof d === 'number' ? d : undefined));
    const position = p ? { before: anchor(p.before), after: anchor(p.after), start: p.start, end: p.end } : undefined;
    // As Strapi's strict orderer prints it: the position as sent, anchors as row ids, then the locale given to it.
    const shown = p && JSON.stringify({
      ...Object.fromEntries(Object.entries(p).map(([k, v]) => [k, k === 'before' || k === 'after' ? anchor(v as string | number) : v])),
      ...(locale !== null && r.entityId === undefined && !('locale' in p) ? { locale } : {}),
    });
    // A row named by its id is that row alone where it is among the document's (see resolve()).
    const ids = r.entityId !== undefined && rows.get(r.documentId)?.some((t) => t.id === r.entityId) ? [r.entityId] : rowsOf(r.documentId);
    for (const id of ids) connects.push({ id, position, shown: shown || undefined });
  }
  return orderAfterConnect(remaining, connects, op.strict ?? true);
}
