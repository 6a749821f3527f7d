// The cost's list sizes from the data (compiler/fan-outs.ts) by the names GraphQL gives them: a type's list
// field (and its `_connection`) → the link column its entries are counted in; a root list → its table's rows.
import { listSource, type Counted } from '../../compiler/fan-outs.ts';
import type { Attribute, Schema } from '../../compiler/schema.ts';
import { componentTypeName, pluralQuery, typeName } from './names.ts';

export type MostOf = (source: Counted) => number | undefined;

export function listSizes(schema: Schema, mostOf: MostOf): (type: string, field: string) => number | undefined {
  const sources = new Map<string, Counted>();
  const field = (type: string, name: string, s: Counted) => {
    sources.set(`${type}\u0000${name}`, s);
    sources.set(`${type}\u0000${name}_connection`, s);
  };
  const lists = (type: string, attributes: readonly Attribute[]) => {
    for (const a of attributes) { const s = listSource(a); if (s) field(type, a.name, s); }
  };
  for (const ct of schema.contentTypes.values()) {
    lists(ct.builtin?.graphqlName ?? typeName(ct), ct.attributes);
    if (ct.kind === 'collectionType') field('Query', pluralQuery(ct), { table: ct.table, column: null });
  }
  for (const c of schema.components.values()) lists(componentTypeName(c), c.attributes);
  if (schema.files) lists('UploadFile', schema.files.attributes);
  return (type, name) => {
    const s = sources.get(`${type}\u0000${name}`);
    return s ? mostOf(s) : undefined;
  };
}
