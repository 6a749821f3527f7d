// morphToMany writes on Strapi 5's `<table>_<attribute>_mph` tables. A link names a row of any
// content-type (`<attr>_id`, `<attr>_type`); which rows a document reference reaches follows the same
// rules as relations (write-relations.ts): a draft links to drafts, a published row to published rows,
// a localized target in the row's locale (or the one the reference names). An item given by `id` links
// that very row, as Strapi's entity manager does. Like Strapi, links made on create have no `field`,
// links connected or set on update name the attribute, and a publish re-resolves the draft's links
// toward the targets' published versions.
import type { ContentType, MorphJoin, Schema } from '../../compiler/schema.ts';
import * as W from '../../compiler/write-sql.ts';
import { validation } from '../../compiler/errors.ts';
import type { MorphOp, MorphRef } from './validate.ts';
import type { RowRef } from './write-relations.ts';

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
      const drop = new Set(op.disconnect.flatMap((r) => idsOf(r).map((id) => linkKey(r.type, id))));
      links = current.filter((l) => !drop.has(linkKey(l.type, l.id)));
      for (const r of op.connect) {
        const add = idsOf(r).map((id): Link => ({ id, type: r.type, field }));
        const present = add.filter((a) => links.some((l) => l.id === a.id && l.type === a.type));
        // Connecting a linked item again keeps its place unless a position moves it.
        if (present.length === add.length && !r.position) continue;
        links = links.filter((l) => !add.some((a) => a.id === l.id && a.type === l.type));
        links.splice(this.position(links, r, rows), 0, ...add);
      }
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

  /** Where a connected item goes: before/after an item of the list (a document of the position's type), first, or last. */
  private position(links: Link[], r: MorphRef, rows: Map<string, number[]>): number {
    const p = r.position;
    if (p?.start) return 0;
    const anchor = p?.before ?? p?.after;
    if (anchor === undefined) return links.length;
    const ids = rows.get(docKey(r.type, anchor)) ?? [];
    const i = links.findIndex((l) => l.type === r.type && ids.includes(l.id));
    if (i < 0) return links.length;
    return p?.before !== undefined ? i : i + 1;
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
        if (missing.length) {
          const message = `${missing.length} relation(s) of type ${type} associated with this entity do not exist`;
          throw validation(message, { errors: [{ path: [], message, name: 'ValidationError' }] });
        }
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
