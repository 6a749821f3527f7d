// Which tables a read depends on and which a content-type write may change: the response cache
// (src/cache/) keys its invalidation on these names. Reads name every table their statement reads
// (rows, link tables, `_cmps`, component tables, media, morph tables, and those only filters or sort
// go through); a write names every table a create, update, publish or delete of the type can touch.
import type { Attribute, Component, ContentType, Schema } from './schema.ts';
import type { ComponentSelection, Filter, Populate, ReadQuery, Selection, SortTerm } from './ast.ts';
import { FILES } from './layout.ts';

const MEDIA = [FILES.table, FILES.related];

function filterTables(schema: Schema, f: Filter | null, out: Set<string>): void {
  if (!f) return;
  switch (f.t) {
    case 'and': case 'or': for (const i of f.items) filterTables(schema, i, out); return;
    case 'not': filterTables(schema, f.item, out); return;
    case 'relation': out.add(f.attr.join.table); out.add(f.target.table); filterTables(schema, f.sub, out); return;
    case 'media': for (const t of MEDIA) out.add(t); filterTables(schema, f.sub, out); return;
    case 'component': out.add(f.attr.cmpsTable); out.add(f.component.table); filterTables(schema, f.sub, out); return;
    case 'morph': out.add(f.target.table); if (f.by.join) out.add(f.by.join.table); filterTables(schema, f.sub, out); return;
    case 'localizations': out.add(f.ct.table); filterTables(schema, f.sub, out); return;
    default: return;
  }
}

function sortTables(schema: Schema, sort: SortTerm[], out: Set<string>): void {
  for (const s of sort) {
    for (const step of s.path) {
      if (step.kind === 'relation') { out.add(step.join.table); out.add(schema.contentTypes.get(step.target)!.table); } else if (step.kind === 'media') MEDIA.forEach((t) => out.add(t)); else { out.add(step.cmpsTable); out.add(schema.components.get(step.component)!.table); }
    }
  }
}

function selectionTables(schema: Schema, sel: Selection | ComponentSelection, out: Set<string>): void {
  for (const p of sel.populate) populateTables(schema, p, out);
  if ('where' in sel) filterTables(schema, sel.where ?? null, out);
}

function populateTables(schema: Schema, p: Populate, out: Set<string>): void {
  switch (p.kind) {
    case 'relation':
      out.add(p.attr.join.table); out.add(p.target.table);
      selectionTables(schema, p.select, out); filterTables(schema, p.where, out); sortTables(schema, p.sort, out);
      return;
    case 'morphBy':
      out.add(p.target.table); if (p.by.join) out.add(p.by.join.table);
      selectionTables(schema, p.select, out); filterTables(schema, p.where, out); sortTables(schema, p.sort, out);
      return;
    case 'morphTo':
      if (p.attr.join) out.add(p.attr.join.table);
      for (const t of p.types) { out.add(t.ct.table); selectionTables(schema, t.select, out); }
      for (const c of p.components?.values() ?? []) { out.add(c.component.table); selectionTables(schema, c, out); }
      return;
    case 'media':
      for (const t of MEDIA) out.add(t);
      for (const c of p.populate ?? []) populateTables(schema, c, out);
      return;
    case 'component': out.add(p.attr.cmpsTable); out.add(p.select.component.table); selectionTables(schema, p.select, out); return;
    case 'dynamiczone':
      out.add(p.attr.cmpsTable);
      for (const c of p.on.values()) { out.add(c.component.table); selectionTables(schema, c, out); }
      return;
    case 'localizations': selectionTables(schema, p.select, out); filterTables(schema, p.where ?? null, out); sortTables(schema, p.sort ?? [], out); return;
  }
}

/** Every table a read's statement reads. */
export function readTables(schema: Schema, q: ReadQuery): string[] {
  const out = new Set<string>([q.ct.table]);
  selectionTables(schema, q.select, out);
  filterTables(schema, q.where, out);
  sortTables(schema, q.sort, out);
  return [...out];
}

/** Tables holding what a row of `model` owns: components (nested), links, media links, morph links. */
function ownedTables(schema: Schema, attributes: Attribute[], out: Set<string>, seen: Set<string>): void {
  for (const a of attributes) {
    switch (a.kind) {
      case 'relation': out.add(a.join.table); break;
      case 'morph': if (a.join) out.add(a.join.table); break;
      case 'media': out.add(FILES.related); break;
      case 'component': case 'dynamiczone': {
        out.add(a.cmpsTable);
        for (const uid of a.kind === 'component' ? [a.component] : a.components) {
          if (seen.has(uid)) continue;
          seen.add(uid);
          const c: Component = schema.components.get(uid)!;
          out.add(c.table);
          ownedTables(schema, c.attributes, out, seen);
        }
        break;
      }
      default: break;
    }
  }
}

/**
 * Every table a write of `ct` may change: its rows and what they own, and the link tables of other
 * types' relations toward it (a publish moves their links to the new published row).
 */
export function writeTables(schema: Schema, ct: ContentType): string[] {
  const out = new Set<string>([ct.table]);
  ownedTables(schema, ct.attributes, out, new Set());
  for (const m of [...schema.contentTypes.values(), ...schema.components.values()]) {
    for (const a of m.attributes) if (a.kind === 'relation' && a.target === ct.uid) out.add(a.join.table);
  }
  return [...out];
}
