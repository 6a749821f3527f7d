// `api.documents.strictRelations` (Strapi 5.54): a required relation or media must hold something in an
// entry written as published. A type without draft & publish is checked on the body (src/rest/validate.ts
// BodyValidator); a draft & publish type's published copy on the draft as written, before it is copied —
// what Strapi's publish validates: links to draft & publish targets without a published version do not
// count (its publish drops them). Both answer Strapi's `<name> must be defined.` with the value its
// validation saw (checked live: test/fixtures/strict-relations).
import type { Component, ContentType, Schema } from '../../compiler/schema.ts';
import * as W from '../../compiler/write-sql.ts';
import { fieldErrors, type FieldError } from '../../compiler/errors.ts';
import type { ShownLink } from './validate.ts';
import type { Writer } from './writer.ts';

type Run = <T>(text: string, params: unknown[]) => Promise<T[]>;

/** Fills in the row ids of the documents a failed required link's value names (Strapi shows `{ id }`). */
export async function showLinkIds(schema: Schema, run: Run, unresolved: ShownLink[]): Promise<void> {
  for (const u of unresolved) {
    const target = schema.contentTypes.get(u.target);
    if (!target) continue;
    const [row] = await run<{ id: number }>(W.documentRowId(target), [u.documentId]);
    if (row) u.shown.id = Number(row.id);
  }
}

/**
 * Throws Strapi's ValidationError when draft row `id` leaves a required relation or media of `ct` empty for
 * its published copy, its components' (and zones') included: `["box", "person"]`, `["boxes", "1", "person"]`
 * (checked live), in the order of the attributes.
 */
export async function checkPublishedLinks(schema: Schema, w: Writer, ct: ContentType, id: number): Promise<void> {
  const errors: FieldError[] = [];
  await checkModel(schema, w, ct, id, [], errors);
  if (errors.length) throw fieldErrors(errors);
}

async function checkModel(schema: Schema, w: Writer, model: ContentType | Component, id: number, path: string[], errors: FieldError[]): Promise<void> {
  const table = requiredLinksIn(schema, model).nested ? W.cmpsTableOf(model) : null;
  const entries = table ? await w.run<{ cmp: number; type: string; field: string }>(W.cmpsOf(table), [[id]]) : [];
  for (const a of model.attributes) {
    if (a.kind === 'component' || a.kind === 'dynamiczone') {
      let i = 0;
      for (const e of entries) {
        if (e.field !== a.name) continue;
        const c = schema.components.get(e.type);
        const at = a.kind === 'component' && !a.repeatable ? [...path, a.name] : [...path, a.name, String(i)];
        i++;
        if (c && requiredLinksIn(schema, c).any) await checkModel(schema, w, c, Number(e.cmp), at, errors);
      }
      continue;
    }
    if (!a.required || (a.kind !== 'relation' && a.kind !== 'media')) continue;
    let n = 0;
    if (a.kind === 'media') {
      [{ n }] = await w.run<{ n: number }>(W.mediaLinkCount, [id, model.uid, a.name]);
    } else {
      const target = schema.contentTypes.get(a.target);
      if (!target || a.creator) continue;
      [{ n }] = await w.run<{ n: number }>(W.keptLinks(a.join, target), [id]);
    }
    if (n > 0) continue;
    // The draft as Strapi's publish reads it: a to-one link is null, a list `{ set: [] }`.
    const toMany = a.kind === 'relation' ? a.toMany : a.multiple;
    errors.push({ path: [...path, a.name], message: `${a.name} must be defined.`, name: 'ValidationError', value: toMany ? { set: [] } : null });
  }
}

/** Found once per model: whether it (`any`), or its components (`nested`), hold a required relation or media: only those are read. */
const found = new WeakMap<ContentType | Component, { any: boolean; nested: boolean }>();
function requiredLinksIn(schema: Schema, model: ContentType | Component): { any: boolean; nested: boolean } {
  let f = found.get(model);
  if (!f) found.set(model, f = { any: holdsRequiredLinks(schema, model), nested: holdsRequiredLinks(schema, model, true) });
  return f;
}

/** Whether a model's components (or, unless `nested`, the model itself) hold a required relation or media. */
function holdsRequiredLinks(schema: Schema, model: ContentType | Component, nested = false, seen = new Set<string>()): boolean {
  if (seen.has(model.uid)) return false;
  seen.add(model.uid);
  for (const a of model.attributes) {
    if (!nested && a.required && (a.kind === 'relation' || a.kind === 'media')) return true;
    const uids = a.kind === 'component' ? [a.component] : a.kind === 'dynamiczone' ? a.components : [];
    for (const uid of uids) {
      const c = schema.components.get(uid);
      if (c && holdsRequiredLinks(schema, c, false, seen)) return true;
    }
  }
  return false;
}
