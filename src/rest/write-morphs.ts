// morphToMany writes on Strapi 5's `<table>_<attribute>_mph` tables. A link names a row of any
// content-type (`<attr>_id`, `<attr>_type`); which rows a document reference reaches follows the same
// rules as relations (write-relations.ts): a draft links to drafts, a published row to published rows,
// a localized target in the row's locale (or the one the reference names). An item given by `id` links
// that very row, as Strapi's entity manager does. Like Strapi, links made on create have no `field`,
// links connected or set on update name the attribute, connected links are ordered as Strapi's
// relations orderer does, and a publish re-resolves the draft's links toward the targets' published versions.
import type { ContentType, MorphJoin, Schema } from '../../compiler/schema.ts';
import * as W from '../../compiler/write-sql.ts';
import { fieldErrors, missingEntries, validation } from '../../compiler/errors.ts';
import type { MorphOp, MorphRef } from './validate.ts';
import type { RowRef } from './write-relations.ts';
import { orderAfterConnect, type Connect } from './relation-order.ts';

type Run = <T extends Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

interface Link { id: number; type: string; field: string | null }
const linkKey = (type: string, id: number) => `${type}\u0000${id}`;
const docKey = (type: string, documentId: string) => `${type}\u0000${documentId}`;

export class MorphWriter {
  constructor(private schema: Schema, private ct: ContentType, private run: Run) {}

  async apply(row: RowRef, op: MorphOp, creating: boolean): Promise<void> {
    const j = op.attr.join!;
    const refs = [...(op.set ?? []), ...op.connect, ...op.disconnect];
    const rows = await this.resolve(row, refs);
    const idsOf = (r: MorphRef): number[] => (r.entityId !== undefined ? [r.entityId] : rows.get(docKey(r.type, r.documentId)) ?? []);
    const field = creating ? null : op.attr.name;
    const current = (await this.run<{ id: number; type: string; field: string | null }>(W.morphLinks(j), [row.id]))
      .map((l): Link => ({ id: Number(l.id), type: l.type, field: l.field }));
    let links: Link[];
    if (op.set) {
      links = op.set.flatMap((r) => idsOf(r).map((id) => ({ id, type: r.type, field })));
    } else {
      // Ordered as Strapi's relations orderer does (relation-order.ts), on `type:id` keys.
      const drop = new Set(op.disconnect.flatMap((r) => idsOf(r).map((id) => linkKey(r.type, id))));
      const remaining = current.filter((l) => !drop.has(linkKey(l.type, l.id)));
      const byKey = new Map(remaining.map((l) => [linkKey(l.type, l.id), l]));
      const anchor = (type: string, doc: string | undefined) => {
        const id = doc === undefined ? undefined : rows.get(docKey(type, doc))?.[0];
        return id === undefined ? undefined : linkKey(type, id);
      };
      const connects: Array<Connect<string>> = op.connect.flatMap((r) => {
        const t = (r.position as { __type?: string } | undefined)?.__type ?? r.type;
        const position = r.position ? { before: anchor(t, r.position.before), after: anchor(t, r.position.after), start: r.position.start, end: r.position.end } : undefined;
        return idsOf(r).map((id) => { byKey.set(linkKey(r.type, id), { id, type: r.type, field }); return { id: linkKey(r.type, id), position }; });
      });
      links = orderAfterConnect(remaining.map((l) => linkKey(l.type, l.id)), connects).map((k) => byKey.get(k)!);
    }
    const seen = new Set<string>();
    links = links.filter((l) => { const k = linkKey(l.type, l.id); if (seen.has(k)) return false; seen.add(k); return true; });
    await this.write(j, row.id, links);
  }

  /** A publish: the draft's links carried to the new published row, toward the targets' published versions. */
  async publish(draft: number, published: number): Promise<void> {
    for (const a of this.ct.attributes) {
      if (a.kind !== 'morph' || !a.join) continue;
      const links: Link[] = [];
      for (const l of await this.run<{ id: number; type: string }>(W.morphLinks(a.join), [draft])) {
        const target = this.schema.contentTypes.get(l.type);
        if (!target) continue;
        let id: number | null = Number(l.id);
        if (target.draftAndPublish) {
          const [p] = await this.run<{ id: number }>(W.publishedVersionOf(target.table), [id]);
          id = p ? Number(p.id) : null;
        }
        if (id !== null && !links.some((x) => x.id === id && x.type === l.type)) links.push({ id, type: l.type, field: null });
      }
      await this.write(a.join, published, links);
    }
  }

  private async write(j: MorphJoin, owner: number, links: Link[]): Promise<void> {
    await this.run(W.deleteMorphLinks(j), [owner]);
    if (links.length) await this.run(W.insertMorphLinks(j), [owner, links.map((l) => l.id), links.map((l) => l.type), links.map((l) => l.field)]);
  }

  /** The rows each referenced document (and position anchor) reaches; items by id must exist. */
  private async resolve(row: RowRef, refs: MorphRef[]): Promise<Map<string, number[]>> {
    const out = new Map<string, number[]>();
    const byType = new Map<string, MorphRef[]>();
    for (const r of refs) byType.set(r.type, [...(byType.get(r.type) ?? []), r]);
    for (const [type, list] of byType) {
      const target = this.schema.contentTypes.get(type)!;
      const byId = [...new Set(list.filter((r) => r.entityId !== undefined).map((r) => r.entityId!))];
      if (byId.length) {
        const found = new Set((await this.run<{ id: number }>(W.rowsById(target.table), [byId])).map((r) => Number(r.id)));
        const missing = byId.filter((id) => !found.has(id));
        if (missing.length) throw fieldErrors([missingEntries(missing.length, type)]);
      }
      const docs = [...new Set(list.flatMap((r) => [r.entityId === undefined ? r.documentId : undefined, r.position?.before, r.position?.after]).filter((x): x is string => typeof x === 'string' && x !== ''))];
      if (!docs.length) continue;
      const refLocale = new Map(list.map((r) => [r.documentId, r.locale]));
      const rows = await this.run<{ id: number; document_id: string; locale: string | null; published: boolean }>(W.targetRows(target.table), [docs]);
      for (const t of rows) {
        if (target.draftAndPublish && this.ct.draftAndPublish && t.published !== row.published) continue;
        if (target.localized && t.locale !== (this.ct.localized ? row.locale : refLocale.get(t.document_id) ?? this.schema.defaultLocale)) continue;
        const k = docKey(type, t.document_id);
        out.set(k, [...(out.get(k) ?? []), Number(t.id)]);
      }
      for (const d of docs) {
        if (out.has(docKey(type, d))) continue;
        const loc = !target.localized ? null : this.ct.localized ? row.locale : refLocale.get(d) ?? this.schema.defaultLocale;
        throw validation(`Document with id "${d}", locale "${loc}" not found`);
      }
    }
    return out;
  }
}
