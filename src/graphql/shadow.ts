// shadowCRUD switches applied to the generated schema: the SDL is parsed and pruned — types of a
// disabled content-type or component, the root fields of disabled actions, fields whose output, input
// or filters were disabled — and everything that then names a removed type goes too (fields, arguments,
// union members, relation inputs), until nothing changes.
import {
  Kind, parse,
  type DefinitionNode, type DocumentNode, type FieldDefinitionNode, type InputValueDefinitionNode, type TypeNode,
} from 'graphql';
import type { Attribute, ContentType, Schema } from '../../compiler/schema.ts';
import { ACTIONS } from '../auth/permissions.ts';
import { log } from '../log.ts';
import { componentTypeName, dynamicZoneUnion, enumTypeName, pluralQuery, singularQuery, typeName } from './names.ts';
import type { TypeConfig } from './context.ts';

interface Owner {
  T: string;
  kind: 'collectionType' | 'singleType' | 'component' | 'plugin';
  attributes: Attribute[];
  singular?: string;
  plural?: string;
  localized: boolean;
}

/** Plugin types the schema exposes next to the models. */
const PLUGIN_TYPES: Record<string, { T: string; singular?: string; plural?: string }> = {
  'plugin::upload.file': { T: 'UploadFile', singular: 'uploadFile', plural: 'uploadFiles' },
  'plugin::i18n.locale': { T: 'I18NLocale', singular: 'i18NLocale', plural: 'i18NLocales' },
  'plugin::users-permissions.user': { T: 'UsersPermissionsUser', singular: 'usersPermissionsUser', plural: 'usersPermissionsUsers' },
  'plugin::users-permissions.role': { T: 'UsersPermissionsRole' },
};

function ownerOf(schema: Schema, uid: string): Owner | null {
  const ct = schema.contentTypes.get(uid);
  if (ct) return { T: typeName(ct), kind: ct.kind, attributes: ct.attributes, singular: singularQuery(ct), plural: pluralQuery(ct), localized: ct.localized };
  const c = schema.components.get(uid);
  if (c) return { T: componentTypeName(c), kind: 'component', attributes: c.attributes, localized: false };
  const p = PLUGIN_TYPES[uid];
  return p ? { ...p, kind: 'plugin', attributes: [], localized: false } : null;
}

/** The root fields an action of a type answers on. */
function rootFields(o: Owner, action: string): Array<[string, string]> {
  const T = o.T;
  if (o.kind === 'component') return [];
  if (o.kind === 'plugin' || o.kind === 'collectionType') {
    switch (action) {
      case 'find': return o.plural ? [['Query', o.plural], ['Query', `${o.plural}_connection`]] : [];
      case 'findOne': return o.singular ? [['Query', o.singular]] : [];
    }
    if (o.kind === 'plugin') return [];
    switch (action) {
      case 'create': return [['Mutation', `create${T}`]];
      // v4's create<Type>Localization is an update of the document (as PUT ?locale= in REST).
      case 'update': return o.localized ? [['Mutation', `update${T}`], ['Mutation', `create${T}Localization`]] : [['Mutation', `update${T}`]];
      case 'delete': return [['Mutation', `delete${T}`]];
    }
    return [];
  }
  switch (action) {
    case 'find': return [['Query', o.singular!]];
    case 'update': return [['Mutation', `update${T}`]];
    case 'delete': return [['Mutation', `delete${T}`]];
  }
  return [];
}

/** `Query.articles`, … : the root fields a content-type's action answers on. */
export function crudRootPaths(ct: ContentType, action: string): string[] {
  return rootFields({ T: typeName(ct), kind: ct.kind, attributes: ct.attributes, singular: singularQuery(ct), plural: pluralQuery(ct), localized: ct.localized }, action)
    .map(([root, f]) => `${root}.${f}`);
}

/** The types generated for a content-type or component (response wrappers, inputs, its enums and unions). */
function ownTypes(o: Owner): string[] {
  const T = o.T;
  const out = [T, `${T}Entity`, `${T}EntityResponse`, `${T}EntityResponseCollection`, `${T}RelationResponseCollection`, `${T}Input`, `${T}FiltersInput`];
  for (const a of o.attributes) {
    if (a.kind === 'scalar' && a.type === 'enumeration') out.push(enumTypeName(T, a));
    if (a.kind === 'dynamiczone') out.push(dynamicZoneUnion(T, a.name), `${dynamicZoneUnion(T, a.name)}Input`);
  }
  return out;
}

export interface PrunePlan { types: Set<string>; fields: Map<string, Set<string>> }

/** What the shadowCRUD configuration removes from the generated schema. */
export function prunePlan(schema: Schema, configs: ReadonlyMap<string, TypeConfig>): PrunePlan {
  const plan: PrunePlan = { types: new Set(), fields: new Map() };
  const drop = (type: string, field: string) => {
    let s = plan.fields.get(type);
    if (!s) plan.fields.set(type, (s = new Set()));
    s.add(field);
  };
  const disabled = new Set<string>();
  for (const [uid, c] of configs) {
    const o = ownerOf(schema, uid);
    if (!o) { log.warn(`graphql extensions: shadowCRUD('${uid}') names no content-type, component or plugin type`); continue; }
    if (!c.enabled) {
      disabled.add(uid);
      for (const t of ownTypes(o)) plan.types.add(t);
      for (const a of ACTIONS) for (const [root, f] of rootFields(o, a)) drop(root, f);
      continue;
    }
    for (const a of ACTIONS) {
      const off = c.disabledActions.includes(a) || (!c.query && (a === 'find' || a === 'findOne')) || (!c.mutation && (a === 'create' || a === 'update' || a === 'delete'));
      if (off) for (const [root, f] of rootFields(o, a)) drop(root, f);
    }
    for (const [name, f] of c.fields) {
      if (!f.enabled || !f.output) { drop(o.T, name); drop(o.T, `${name}_connection`); }
      if (!f.enabled || !f.input) drop(`${o.T}Input`, name);
      if (!f.enabled || !f.filters) drop(`${o.T}FiltersInput`, name);
    }
  }
  // Relation and media inputs are IDs: they name a disabled type only through the model.
  if (disabled.size) {
    const owners: Array<[string, Attribute[]]> = [
      ...[...schema.contentTypes.values()].map((ct): [string, Attribute[]] => [typeName(ct), ct.attributes]),
      ...[...schema.components.values()].map((c): [string, Attribute[]] => [componentTypeName(c), c.attributes]),
    ];
    for (const [T, attrs] of owners) {
      for (const a of attrs) {
        if ((a.kind === 'relation' && disabled.has(a.target)) || (a.kind === 'media' && disabled.has('plugin::upload.file'))) drop(`${T}Input`, a.name);
      }
    }
  }
  return plan;
}

const named = (t: TypeNode): string => (t.kind === Kind.NAMED_TYPE ? t.name.value : named(t.type));
const required = (v: InputValueDefinitionNode) => v.type.kind === Kind.NON_NULL_TYPE && !v.defaultValue;

/** The document without what the plan removes, and without whatever then names a removed type. */
export function pruneDocument(doc: DocumentNode, plan: PrunePlan): DocumentNode {
  const removed = new Set(plan.types);
  let defs: DefinitionNode[] = doc.definitions.filter((d) => !('name' in d && d.name && removed.has(d.name.value)));
  for (let changed = true; changed;) {
    changed = false;
    const next: DefinitionNode[] = [];
    for (const d of defs) {
      if ('name' in d && d.name && removed.has(d.name.value)) { changed = true; continue; }
      if (d.kind === Kind.OBJECT_TYPE_DEFINITION || d.kind === Kind.INTERFACE_TYPE_DEFINITION) {
        const dropped = plan.fields.get(d.name.value);
        const all = d.fields ?? [];
        let fields: FieldDefinitionNode[] = all.filter((f) => !dropped?.has(f.name.value) && !removed.has(named(f.type))
          && !(f.arguments ?? []).some((a) => required(a) && removed.has(named(a.type))));
        let argsChanged = false;
        fields = fields.map((f) => {
          const args = f.arguments?.filter((a) => !removed.has(named(a.type)));
          if (!args || args.length === f.arguments!.length) return f;
          argsChanged = true;
          return { ...f, arguments: args };
        });
        if (fields.length === all.length && !argsChanged) { next.push(d); continue; }
        changed = true;
        if (!fields.length) { removed.add(d.name.value); continue; }
        next.push({ ...d, fields });
      } else if (d.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION) {
        const dropped = plan.fields.get(d.name.value);
        const all = d.fields ?? [];
        const gone = all.filter((f) => dropped?.has(f.name.value) || removed.has(named(f.type)));
        if (!gone.length) { next.push(d); continue; }
        changed = true;
        const fields = all.filter((f) => !gone.includes(f));
        if (!fields.length || gone.some((f) => required(f) && removed.has(named(f.type)))) { removed.add(d.name.value); continue; }
        next.push({ ...d, fields });
      } else if (d.kind === Kind.UNION_TYPE_DEFINITION) {
        const types = (d.types ?? []).filter((t) => !removed.has(t.name.value));
        if (types.length === (d.types ?? []).length) { next.push(d); continue; }
        changed = true;
        if (!types.length) { removed.add(d.name.value); continue; }
        next.push({ ...d, types });
      } else next.push(d);
    }
    defs = next;
  }
  return { ...doc, definitions: defs };
}

/** The generated SDL as shadowCRUD leaves it (the text itself when nothing was switched off). */
export function applyShadowCrud(schema: Schema, typeDefs: string, configs: ReadonlyMap<string, TypeConfig>): string | DocumentNode {
  if (!configs.size) return typeDefs;
  const plan = prunePlan(schema, configs);
  if (!plan.types.size && !plan.fields.size) return typeDefs;
  return pruneDocument(parse(typeDefs), plan);
}
