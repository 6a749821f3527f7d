// The `Strapi-Response-Format: v4` request header (Strapi 5's migration aid): the same answers in
// Strapi v4's shape, as Strapi 5.54 gives them (checked live). Each entry is `{id, documentId,
// attributes: {…}}`; relations (localizations and morphOne/morphMany too) and media are wrapped in
// `{data: …}`; components and dynamic-zone entries stay plain objects whose own relations and media are
// wrapped; morphTo items stay as they are. Only this header's answers pay for a parse and a re-serialize.
import type { Attribute, Component, ContentType, Schema } from '../../compiler/schema.ts';
import { bodyText, type Reply } from './reply.ts';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a request asks for v4-format answers. */
export const wantsV4 = (headers: Record<string, string> | undefined): boolean => headers?.['strapi-response-format']?.trim().toLowerCase() === 'v4';

function entry(schema: Schema, ct: ContentType | null, v: unknown): unknown {
  if (!isObj(v)) return v;
  const { id, documentId, ...rest } = v;
  const attributes: Json = {};
  for (const [k, x] of Object.entries(rest)) attributes[k] = ct ? value(schema, k === 'localizations' ? 'localizations' : ct.byName.get(k), ct, x) : x;
  return documentId === undefined ? { id, attributes } : { id, documentId, attributes };
}

const wrap = (schema: Schema, ct: ContentType | null, v: unknown) => ({ data: Array.isArray(v) ? v.map((x) => entry(schema, ct, x)) : v === null || v === undefined ? null : entry(schema, ct, v) });

function component(schema: Schema, c: Component | undefined, v: unknown): unknown {
  if (!isObj(v) || !c) return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) out[k] = value(schema, c.byName.get(k), null, x);
  return out;
}

function value(schema: Schema, a: Attribute | 'localizations' | undefined, owner: ContentType | null, v: unknown): unknown {
  if (a === 'localizations') return wrap(schema, owner, v);
  if (!a) return v;
  switch (a.kind) {
    case 'relation': return wrap(schema, schema.contentTypes.get(a.target) ?? null, v);
    case 'morph': return a.target ? wrap(schema, schema.contentTypes.get(a.target) ?? null, v) : v;
    case 'media': return wrap(schema, null, v);
    case 'component': {
      const c = schema.components.get(a.component);
      return Array.isArray(v) ? v.map((x) => component(schema, c, x)) : component(schema, c, v);
    }
    case 'dynamiczone': return Array.isArray(v) ? v.map((x) => component(schema, isObj(x) && typeof x.__component === 'string' ? schema.components.get(x.__component) : undefined, x)) : v;
    default: return v;
  }
}

/** Entries of `ct` (one, a list, or null) in the v4 shape (a project controller's transformResponse). */
export function v4Data(schema: Schema, ct: ContentType, data: unknown): unknown {
  return Array.isArray(data) ? data.map((x) => entry(schema, ct, x)) : data === null ? null : entry(schema, ct, data);
}

/** A content-type answer (`{data, meta}`) in the v4 shape; errors and empty bodies pass through. */
export function toV4(schema: Schema, ct: ContentType, reply: Reply): Reply {
  if (reply.status >= 300 || reply.status === 204) return reply;
  const body = JSON.parse(bodyText(reply)) as Json;
  if (!('data' in body)) return reply;
  const data = v4Data(schema, ct, body.data);
  return { ...reply, body: JSON.stringify({ ...body, data }) };
}
