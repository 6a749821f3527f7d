// Strapi's GraphQL naming rules: type, query, input, filter and enum names derived from the models,
// so the generated schema uses the names a Strapi client expects.
import type { Component, ContentType, ScalarAttr, ScalarType, Schema } from '../../compiler/schema.ts';

/** lodash-style word split: `rich-text` → [rich, text], `publishDate` → [publish, Date]. */
function words(s: string): string[] {
  return s.match(/[A-Z]{2,}(?=[A-Z][a-z]+[0-9]*|\b|[^A-Za-z0-9])|[A-Z]?[a-z]+[0-9]*|[A-Z]+|[0-9]+/g) ?? [];
}
const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
export function camelCase(s: string): string {
  return words(s).map((w, i) => (i === 0 ? w.toLowerCase() : upperFirst(w.toLowerCase()))).join('');
}
export const pascalCase = (s: string) => upperFirst(camelCase(s));

export const typeName = (ct: ContentType) => pascalCase(ct.singularName);
export const componentTypeName = (c: Component) => `Component${pascalCase(c.category)}${pascalCase(c.uid.slice(c.category.length + 1))}`;
export const singularQuery = (ct: ContentType) => camelCase(ct.singularName);
export const pluralQuery = (ct: ContentType) => camelCase(ct.pluralName);
export const dynamicZoneUnion = (owner: string, attr: string) => `${owner}${pascalCase(attr)}DynamicZone`;
export const enumTypeName = (owner: string, attr: ScalarAttr) => `ENUM_${owner.toUpperCase()}_${attr.name.toUpperCase()}`;

/** A GraphQL enum value name for a model value (model values that are not names get sanitized). */
export function enumValueName(v: string): string {
  let s = v.replace(/[^_A-Za-z0-9]/g, '_');
  if (!/^[_A-Za-z]/.test(s)) s = `_${s}`;
  return s;
}

export const OUTPUT_SCALAR: Record<ScalarType, string> = {
  string: 'String', text: 'String', richtext: 'String', email: 'String', password: 'String', uid: 'String', enumeration: 'String',
  blocks: 'JSON', json: 'JSON', boolean: 'Boolean', integer: 'Int', biginteger: 'Long', float: 'Float', decimal: 'Float',
  date: 'Date', time: 'Time', datetime: 'DateTime', timestamp: 'DateTime',
};

export const FILTER_INPUT: Record<ScalarType, string> = {
  string: 'StringFilterInput', text: 'StringFilterInput', richtext: 'StringFilterInput', email: 'StringFilterInput',
  password: 'StringFilterInput', uid: 'StringFilterInput', enumeration: 'StringFilterInput', blocks: 'JSONFilterInput',
  json: 'JSONFilterInput', boolean: 'BooleanFilterInput', integer: 'IntFilterInput', biginteger: 'LongFilterInput',
  float: 'FloatFilterInput', decimal: 'FloatFilterInput', date: 'DateFilterInput', time: 'TimeFilterInput',
  datetime: 'DateTimeFilterInput', timestamp: 'DateTimeFilterInput',
};

/** GraphQL object type name → what it stands for (content-type, component, or a dynamic zone union). */
export interface NameIndex {
  types: Map<string, ContentType>;
  components: Map<string, Component>;
  componentByUid: Map<string, string>;
  /** Content-type uid → its GraphQL object type (what a GenericMorph value resolves to). */
  typeByUid: Map<string, string>;
}

export function nameIndex(schema: Schema): NameIndex {
  const types = new Map<string, ContentType>();
  const typeByUid = new Map<string, string>();
  for (const ct of schema.contentTypes.values()) { types.set(typeName(ct), ct); typeByUid.set(ct.uid, typeName(ct)); }
  const components = new Map<string, Component>();
  const componentByUid = new Map<string, string>();
  for (const c of schema.components.values()) { components.set(componentTypeName(c), c); componentByUid.set(c.uid, componentTypeName(c)); }
  return { types, components, componentByUid, typeByUid };
}

/** Some content-type (or component) has a relation to `ct`: its filters input type is needed. */
export function targeted(schema: Schema, ct: ContentType): boolean {
  const models = [...schema.contentTypes.values(), ...schema.components.values()];
  return models.some((m) => m.attributes.some((a) => a.kind === 'relation' && a.target === ct.uid));
}
