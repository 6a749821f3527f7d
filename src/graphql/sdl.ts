// The Shadow CRUD schema as SDL, generated from the models with Strapi's names (v5 shape: flat types
// addressed by documentId, `<plural>_connection`, relation fields plus `<relation>_connection`).
import type { Attribute, ScalarAttr, ScalarType, Schema } from '../../compiler/schema.ts';
import {
  FILTER_INPUT, OUTPUT_SCALAR, componentTypeName, dynamicZoneUnion, enumTypeName, enumValueName, pluralQuery, singularQuery, targeted, typeName,
} from './names.ts';
import { roleOthers, withRecordAttributes, withRoleScalars, ACCOUNT_MUTATIONS, USERS_PERMISSIONS_MUTATIONS, sharedAuthSdl, usersPermissionsInputs, genericMorphMembers } from './sdl-shared.ts';
import { FILE_UID, LOCALE_UID, USERS_UID, type PluginTypes } from '../plugin-types.ts';
import { isExtended } from '../models.ts';

const DEPRECATED_SELF = '@deprecated(reason: "Use root level fields instead")';
const COLLECTION_ARGS = (filters: string) => `(filters: ${filters}, pagination: PaginationArg = {}, sort: [String] = [])`;
const PUBLICATION_ARGS = 'status: PublicationStatus = PUBLISHED, hasPublishedVersion: Boolean, publicationFilter: PublicationFilter';
const LOCALE_ARG = '\n    """The locale to use for the query"""\n    locale: I18NLocaleCode';

const FILTER_OPS = ['eq', 'eqi', 'ne', 'nei', 'startsWith', 'endsWith', 'contains', 'notContains', 'containsi', 'notContainsi', 'gt', 'gte', 'lt', 'lte'];

export function filterInput(name: string, scalar: string): string {
  return `input ${name} {
  and: [${scalar}]
  or: [${scalar}]
  not: ${name}
${FILTER_OPS.map((o) => `  ${o}: ${scalar}`).join('\n')}
  null: Boolean
  notNull: Boolean
  in: [${scalar}]
  notIn: [${scalar}]
  between: [${scalar}]
}`;
}

export const SCALAR_DOCS: Record<string, string> = {
  JSON: 'The `JSON` scalar type represents JSON values as specified by [ECMA-404](http://www.ecma-international.org/publications/files/ECMA-ST/ECMA-404.pdf).',
  DateTime: 'A date-time string at UTC, such as 2007-12-03T10:15:30Z, compliant with the `date-time` format outlined in section 5.6 of the RFC 3339 profile of the ISO 8601 standard for representation of dates and times using the Gregorian calendar.',
  Date: 'A date string, such as 2007-12-03, compliant with the `full-date` format outlined in section 5.6 of the RFC 3339 profile of the ISO 8601 standard for representation of dates and times using the Gregorian calendar.',
  Time: 'A time string with format HH:mm:ss.SSS',
  Long: 'The `BigInt` scalar type represents non-fractional signed whole numeric values.',
};

const FILE_TYPES = `input UploadFileFiltersInput {
  documentId: IDFilterInput
  name: StringFilterInput
  alternativeText: StringFilterInput
  caption: StringFilterInput
  focalPoint: JSONFilterInput
  width: IntFilterInput
  height: IntFilterInput
  formats: JSONFilterInput
  hash: StringFilterInput
  ext: StringFilterInput
  mime: StringFilterInput
  size: FloatFilterInput
  url: StringFilterInput
  previewUrl: StringFilterInput
  provider: StringFilterInput
  provider_metadata: JSONFilterInput
  createdAt: DateTimeFilterInput
  updatedAt: DateTimeFilterInput
  publishedAt: DateTimeFilterInput
  and: [UploadFileFiltersInput]
  or: [UploadFileFiltersInput]
  not: UploadFileFiltersInput
}

type UploadFile {
  id: ID! @deprecated(reason: "Use \`documentId\` instead")
  documentId: ID!
  attributes: UploadFile! ${DEPRECATED_SELF}
  data: UploadFile! ${DEPRECATED_SELF}
  name: String!
  alternativeText: String
  caption: String
  focalPoint: JSON
  width: Int
  height: Int
  formats: JSON
  hash: String!
  ext: String
  mime: String!
  size: Float!
  url: String!
  previewUrl: String
  provider: String!
  provider_metadata: JSON
  related: [GenericMorph]
  createdAt: DateTime
  updatedAt: DateTime
  publishedAt: DateTime
}

type UploadFileEntityResponseCollection {
  nodes: [UploadFile!]!
  pageInfo: Pagination!
  data: [UploadFile!]! @deprecated(reason: "Use \`nodes\` field instead")
  meta: ResponseCollectionMeta! @deprecated(reason: "Use the \`pageInfo\` field instead")
}

type UploadFileRelationResponseCollection {
  nodes: [UploadFile!]!
  data: [UploadFile!]! @deprecated(reason: "Use \`nodes\` field instead")
}

input I18NLocaleFiltersInput {
  documentId: IDFilterInput
  name: StringFilterInput
  code: StringFilterInput
  createdAt: DateTimeFilterInput
  updatedAt: DateTimeFilterInput
  publishedAt: DateTimeFilterInput
  and: [I18NLocaleFiltersInput]
  or: [I18NLocaleFiltersInput]
  not: I18NLocaleFiltersInput
}

type I18NLocale {
  id: ID! @deprecated(reason: "Use \`documentId\` instead")
  documentId: ID!
  attributes: I18NLocale! ${DEPRECATED_SELF}
  data: I18NLocale! ${DEPRECATED_SELF}
  name: String
  code: String
  createdAt: DateTime
  updatedAt: DateTime
  publishedAt: DateTime
}

type I18NLocaleEntityResponseCollection {
  nodes: [I18NLocale!]!
  pageInfo: Pagination!
  data: [I18NLocale!]! @deprecated(reason: "Use \`nodes\` field instead")
  meta: ResponseCollectionMeta! @deprecated(reason: "Use the \`pageInfo\` field instead")
}

input UsersPermissionsPermissionFiltersInput {
  documentId: IDFilterInput
  action: StringFilterInput
  role: UsersPermissionsRoleFiltersInput
  createdAt: DateTimeFilterInput
  updatedAt: DateTimeFilterInput
  publishedAt: DateTimeFilterInput
  and: [UsersPermissionsPermissionFiltersInput]
  or: [UsersPermissionsPermissionFiltersInput]
  not: UsersPermissionsPermissionFiltersInput
}

type UsersPermissionsPermission {
  id: ID! @deprecated(reason: "Use \`documentId\` instead")
  documentId: ID!
  attributes: UsersPermissionsPermission! ${DEPRECATED_SELF}
  data: UsersPermissionsPermission! ${DEPRECATED_SELF}
  action: String!
  role: UsersPermissionsRole
  createdAt: DateTime
  updatedAt: DateTime
  publishedAt: DateTime
}

type UsersPermissionsPermissionRelationResponseCollection {
  nodes: [UsersPermissionsPermission!]!
  data: [UsersPermissionsPermission!]! @deprecated(reason: "Use \`nodes\` field instead")
}

input UsersPermissionsRoleFiltersInput {
  documentId: IDFilterInput
  name: StringFilterInput
  description: StringFilterInput
  type: StringFilterInput
  permissions: UsersPermissionsPermissionFiltersInput
  users: UsersPermissionsUserFiltersInput
  createdAt: DateTimeFilterInput
  updatedAt: DateTimeFilterInput
  publishedAt: DateTimeFilterInput
  and: [UsersPermissionsRoleFiltersInput]
  or: [UsersPermissionsRoleFiltersInput]
  not: UsersPermissionsRoleFiltersInput
}

${usersPermissionsInputs(true).role}

type UsersPermissionsRole {
  id: ID! @deprecated(reason: "Use \`documentId\` instead")
  documentId: ID!
  attributes: UsersPermissionsRole! ${DEPRECATED_SELF}
  data: UsersPermissionsRole! ${DEPRECATED_SELF}
  name: String!
  description: String
  type: String
  permissions_connection${COLLECTION_ARGS('UsersPermissionsPermissionFiltersInput')}: UsersPermissionsPermissionRelationResponseCollection
  permissions${COLLECTION_ARGS('UsersPermissionsPermissionFiltersInput')}: [UsersPermissionsPermission]!
  users_connection${COLLECTION_ARGS('UsersPermissionsUserFiltersInput')}: UsersPermissionsUserRelationResponseCollection
  users${COLLECTION_ARGS('UsersPermissionsUserFiltersInput')}: [UsersPermissionsUser]!
  createdAt: DateTime
  updatedAt: DateTime
  publishedAt: DateTime
}

type UsersPermissionsRoleEntityResponseCollection {
  nodes: [UsersPermissionsRole!]!
  pageInfo: Pagination!
  data: [UsersPermissionsRole!]! @deprecated(reason: "Use \`nodes\` field instead")
  meta: ResponseCollectionMeta! @deprecated(reason: "Use the \`pageInfo\` field instead")
}

input UsersPermissionsUserFiltersInput {
  documentId: IDFilterInput
  username: StringFilterInput
  email: StringFilterInput
  provider: StringFilterInput
  confirmed: BooleanFilterInput
  blocked: BooleanFilterInput
  role: UsersPermissionsRoleFiltersInput
  createdAt: DateTimeFilterInput
  updatedAt: DateTimeFilterInput
  publishedAt: DateTimeFilterInput
  and: [UsersPermissionsUserFiltersInput]
  or: [UsersPermissionsUserFiltersInput]
  not: UsersPermissionsUserFiltersInput
}

${usersPermissionsInputs(true).user}

type UsersPermissionsUser {
  id: ID! @deprecated(reason: "Use \`documentId\` instead")
  documentId: ID!
  attributes: UsersPermissionsUser! ${DEPRECATED_SELF}
  data: UsersPermissionsUser! ${DEPRECATED_SELF}
  username: String!
  email: String!
  provider: String
  confirmed: Boolean
  blocked: Boolean
  role: UsersPermissionsRole
  createdAt: DateTime
  updatedAt: DateTime
  publishedAt: DateTime
}

type UsersPermissionsUserEntityResponse {
  data: UsersPermissionsUser
}

type UsersPermissionsUserEntityResponseCollection {
  nodes: [UsersPermissionsUser!]!
  pageInfo: Pagination!
  data: [UsersPermissionsUser!]! @deprecated(reason: "Use \`nodes\` field instead")
  meta: ResponseCollectionMeta! @deprecated(reason: "Use the \`pageInfo\` field instead")
}

type UsersPermissionsUserRelationResponseCollection {
  nodes: [UsersPermissionsUser!]!
  data: [UsersPermissionsUser!]! @deprecated(reason: "Use \`nodes\` field instead")
}

${sharedAuthSdl(true)}`;

const COMMON_TYPES = `type Error {
  code: String!
  message: String
}

type Pagination {
  total: Int!
  page: Int!
  pageSize: Int!
  pageCount: Int!
}

type ResponseCollectionMeta {
  pagination: Pagination!
}

type DeleteMutationResponse {
  documentId: ID!
}

enum PublicationStatus {
  DRAFT
  PUBLISHED
}

enum PublicationFilter {
  NEVER_PUBLISHED
  HAS_PUBLISHED_VERSION
  MODIFIED
  UNMODIFIED
  NEVER_PUBLISHED_DOCUMENT
  HAS_PUBLISHED_VERSION_DOCUMENT
  PUBLISHED_WITHOUT_DRAFT
  PUBLISHED_WITH_DRAFT
}`;

/** Which scalar types the models use (and so which scalars and filter inputs exist). */
export function usedScalars(schema: Schema): Set<ScalarType> {
  const out = new Set<ScalarType>();
  const visit = (attrs: Attribute[]) => { for (const a of attrs) if (a.kind === 'scalar' && !a.private) out.add(a.type); };
  for (const ct of schema.contentTypes.values()) visit(ct.attributes);
  for (const c of schema.components.values()) visit(c.attributes);
  return out;
}

/** Components reached through component attributes (they get FiltersInput and Input types). */
/** `extra`: attributes of other owners (what a project's extension added to upload's file or i18n's locale). */
export function componentsAsAttributes(schema: Schema, extra: Attribute[] = []): Set<string> {
  const out = new Set<string>();
  const visit = (attrs: Attribute[]) => {
    for (const a of attrs) {
      if (a.kind === 'component' && !out.has(a.component)) { out.add(a.component); visit(schema.components.get(a.component)!.attributes); }
    }
  };
  for (const ct of schema.contentTypes.values()) visit(ct.attributes);
  visit(extra);
  // A component no content-type uses still has a type whose repeatable components take filters.
  for (const c of schema.components.values()) visit(c.attributes);
  return out;
}

export interface SdlResult {
  typeDefs: string;
  /** Enum type name → GraphQL value name → model value (only where they differ). */
  enums: Map<string, Map<string, string>>;
  /** Dynamic zone union name → component type names. */
  unions: Map<string, string[]>;
}

/** Plugin types a relation may name (not among GraphQL's content-types: their types are the plugins'). */
const PLUGIN_TYPE_NAMES: Record<string, string> = {
  [USERS_UID]: 'UsersPermissionsUser', 'plugin::users-permissions.role': 'UsersPermissionsRole', [FILE_UID]: 'UploadFile', [LOCALE_UID]: 'I18NLocale',
};

/**
 * Strapi 5's schema without its v4CompatibilityMode: the deprecated `id` of documents (a component's
 * own `id` stays), `attributes`, `data` and `meta`, and the type only `meta` names. They are each a line
 * of their own, marked by their deprecation, in every type the SDL above writes (the plugins' included).
 */
function withoutV4Compatibility(typeDefs: string): string {
  return typeDefs
    .replace(/\n {2}(?:id|attributes|data|meta): [^\n]*@deprecated\(reason: "(?:Use `documentId` instead|Use root level fields instead|Use `nodes` field instead|Use the `pageInfo` field instead)"\)/g, '')
    .replace(/\n\ntype ResponseCollectionMeta \{\n {2}pagination: Pagination!\n\}/, '');
}

export function buildSdlV5(schema: Schema, opts: { shadowCRUD: boolean; v4CompatibilityMode?: boolean; plugin?: PluginTypes } = { shadowCRUD: true }): SdlResult {
  const out: string[] = [];
  const enums = new Map<string, Map<string, string>>();
  const unions = new Map<string, string[]>();
  // A user the project extended (src/extensions) has its type, filters and input made from its attributes.
  const users = opts.plugin && isExtended(opts.plugin.users) ? opts.plugin.users : null;
  const withUsers: Schema = users ? { ...schema, contentTypes: new Map([...schema.contentTypes, [users.uid, users]]) } : schema;
  const scalars = usedScalars(withUsers);
  const scalarNames = new Set(['JSON', 'DateTime', 'Date', ...[...scalars].map((t) => OUTPUT_SCALAR[t])]);
  for (const s of ['JSON', 'DateTime', 'Date', 'Time', 'Long']) {
    if (scalarNames.has(s)) out.push(`"""\n${SCALAR_DOCS[s]}\n"""\nscalar ${s}`);
  }
  out.push(COMMON_TYPES);
  const filterScalars: Array<[string, string]> = [['IDFilterInput', 'ID'], ['BooleanFilterInput', 'Boolean'], ['StringFilterInput', 'String'], ['IntFilterInput', 'Int']];
  if (scalarNames.has('Long')) filterScalars.push(['LongFilterInput', 'Long']);
  filterScalars.push(['FloatFilterInput', 'Float'], ['DateFilterInput', 'Date']);
  if (scalarNames.has('Time')) filterScalars.push(['TimeFilterInput', 'Time']);
  filterScalars.push(['DateTimeFilterInput', 'DateTime'], ['JSONFilterInput', 'JSON']);
  for (const [n, s] of filterScalars) out.push(filterInput(n, s));

  const extendedRoles = opts.plugin && isExtended(opts.plugin.roles) ? opts.plugin.roles : null;
  // What extensions added to plugin types besides scalars: their components and relations' targets get types too.
  const recordOthers = [...[schema.pluginRecords?.file, schema.pluginRecords?.locale].flatMap((ext) => ext?.others ?? []), ...(extendedRoles ? roleOthers(extendedRoles) : [])];
  const asAttr = componentsAsAttributes(withUsers, recordOthers);
  // Relations to users-permissions' types (a model's author, the user's role) name the plugin's GraphQL types.
  const targetName = (uid: string) => PLUGIN_TYPE_NAMES[uid] ?? typeName(schema.contentTypes.get(uid)!);
  const relationTargets = new Set<string>();
  for (const ct of schema.contentTypes.values()) if (ct.localized) relationTargets.add(ct.uid);
  for (const m of [...withUsers.contentTypes.values(), ...schema.components.values(), { attributes: recordOthers }]) {
    for (const a of m.attributes) if (a.kind === 'relation' && a.toMany) relationTargets.add(a.target);
  }

  const scalarOut = (owner: string, a: ScalarAttr) => {
    if (a.type === 'enumeration') {
      const name = enumTypeName(owner, a);
      if (!enums.has(name)) {
        const values = new Map<string, string>();
        for (const v of a.enum ?? []) values.set(enumValueName(v), v);
        enums.set(name, values);
        out.push(`enum ${name} {\n${[...values.keys()].map((v) => `  ${v}`).join('\n')}\n}`);
      }
      return name;
    }
    return OUTPUT_SCALAR[a.type];
  };

  const fieldLines = (owner: string, attrs: Attribute[]): string[] => {
    const lines: string[] = [];
    for (const a of attrs) {
      if (a.private || (a.kind === 'scalar' && a.type === 'password')) continue;
      switch (a.kind) {
        case 'scalar': lines.push(`  ${a.name}: ${scalarOut(owner, a)}${a.required ? '!' : ''}`); break;
        case 'media':
          if (a.multiple) {
            lines.push(`  ${a.name}_connection${COLLECTION_ARGS('UploadFileFiltersInput')}: UploadFileRelationResponseCollection`);
            lines.push(`  ${a.name}${COLLECTION_ARGS('UploadFileFiltersInput')}: [UploadFile]!`);
          } else lines.push(`  ${a.name}: UploadFile`);
          break;
        case 'relation': {
          const t = targetName(a.target);
          if (a.toMany) {
            lines.push(`  ${a.name}_connection${COLLECTION_ARGS(`${t}FiltersInput`)}: ${t}RelationResponseCollection`);
            lines.push(`  ${a.name}${COLLECTION_ARGS(`${t}FiltersInput`)}: [${t}]!`);
          } else lines.push(`  ${a.name}: ${t}`);
          break;
        }
        // Strapi's GraphQL: the morphTo sides are GenericMorph (any type); morphOne/morphMany are not shown.
        case 'morph':
          if (!a.target) lines.push(`  ${a.name}: ${a.toMany ? '[GenericMorph]' : 'GenericMorph'}`);
          break;
        case 'component': {
          const c = componentTypeName(schema.components.get(a.component)!);
          // As Strapi's type builder: a required component is non-null (a required list too).
          const bang = a.required ? '!' : '';
          lines.push(a.repeatable ? `  ${a.name}${COLLECTION_ARGS(`${c}FiltersInput`)}: [${c}]${bang}` : `  ${a.name}: ${c}${bang}`);
          break;
        }
        case 'dynamiczone': {
          const u = dynamicZoneUnion(owner, a.name);
          unions.set(u, a.components.map((uid) => componentTypeName(schema.components.get(uid)!)));
          out.push(`union ${u} = ${unions.get(u)!.join(' | ')} | Error`);
          out.push(`scalar ${u}Input`);
          lines.push(`  ${a.name}: [${u}]`);
          break;
        }
      }
    }
    return lines;
  };

  const filterLines = (attrs: Attribute[]): string[] => {
    const lines: string[] = [];
    for (const a of attrs) {
      if (a.private) continue;
      if (a.kind === 'scalar') { if (a.type !== 'password') lines.push(`  ${a.name}: ${FILTER_INPUT[a.type]}`); }
      else if (a.kind === 'relation') lines.push(`  ${a.name}: ${targetName(a.target)}FiltersInput`);
      else if (a.kind === 'component') lines.push(`  ${a.name}: ${componentTypeName(schema.components.get(a.component)!)}FiltersInput`);
    }
    return lines;
  };

  const inputLines = (owner: string, attrs: Attribute[]): string[] => {
    const lines: string[] = [];
    for (const a of attrs) {
      // Private attributes too: Strapi's input builder keeps every writable one (recorded live: a
      // mutation writes `privateCars`); only output types and filters leave them out.
      if (a.readOnly) continue;
      switch (a.kind) {
        case 'scalar': lines.push(`  ${a.name}: ${scalarOut(owner, a)}`); break;
        case 'media': lines.push(`  ${a.name}: ${a.multiple ? '[ID]' : 'ID'}`); break;
        case 'relation': lines.push(`  ${a.name}: ${a.toMany ? '[ID]' : 'ID'}`); break;
        case 'component': {
          const c = componentTypeName(schema.components.get(a.component)!);
          lines.push(`  ${a.name}: ${a.repeatable ? `[${c}Input]` : `${c}Input`}`);
          break;
        }
        case 'dynamiczone': lines.push(`  ${a.name}: [${dynamicZoneUnion(owner, a.name)}Input!]`); break;
      }
    }
    return lines;
  };

  /** The plugin's user blocks of `types` made again from the extended user's attributes, in their order (Strapi's). */
  const extendedUserTypes = (types: string, attrs: Attribute[]): string => {
    const n = 'UsersPermissionsUser';
    const filters = ['  documentId: IDFilterInput', ...filterLines(attrs), '  createdAt: DateTimeFilterInput', '  updatedAt: DateTimeFilterInput',
      '  publishedAt: DateTimeFilterInput', `  and: [${n}FiltersInput]`, `  or: [${n}FiltersInput]`, `  not: ${n}FiltersInput`];
    // Its input takes every attribute, private ones too (recorded live).
    const inputs = attrs.flatMap((a) => {
      switch (a.kind) {
        case 'scalar': return [`  ${a.name}: ${scalarOut(n, a)}`];
        case 'media': case 'relation': return [`  ${a.name}: ${a.kind === 'media' ? (a.multiple ? '[ID]' : 'ID') : a.toMany ? '[ID]' : 'ID'}`];
        case 'component': { const c = componentTypeName(schema.components.get(a.component)!); return [`  ${a.name}: ${a.repeatable ? `[${c}Input]` : `${c}Input`}`]; }
        default: return [];
      }
    });
    // username and email are required in the plugin's schema: non-null, as Strapi's type builder makes them (recorded).
    const outAttrs = attrs.map((a) => (a.kind === 'scalar' && (a.name === 'username' || a.name === 'email') ? { ...a, required: true } : a));
    const fields = ['  id: ID! @deprecated(reason: "Use `documentId` instead")', '  documentId: ID!', `  attributes: ${n}! ${DEPRECATED_SELF}`, `  data: ${n}! ${DEPRECATED_SELF}`,
      ...fieldLines(n, outAttrs), '  createdAt: DateTime', '  updatedAt: DateTime', '  publishedAt: DateTime'];
    return types
      .replace(/input UsersPermissionsUserFiltersInput \{[\s\S]*?\n\}/, `input ${n}FiltersInput {\n${filters.join('\n')}\n}`)
      .replace(/input UsersPermissionsUserInput \{[\s\S]*?\n\}/, `input ${n}Input {\n${[...inputs, '  publishedAt: DateTime', '  locale: String'].join('\n')}\n}`)
      .replace(/type UsersPermissionsUser \{[\s\S]*?\n\}/, `type ${n} {\n${fields.join('\n')}\n}`);
  };

  // Components
  for (const c of schema.components.values()) {
    const n = componentTypeName(c);
    if (asAttr.has(c.uid)) {
      out.push(`input ${n}FiltersInput {\n${[...filterLines(c.attributes), `  and: [${n}FiltersInput]`, `  or: [${n}FiltersInput]`, `  not: ${n}FiltersInput`].join('\n')}\n}`);
      out.push(`input ${n}Input {\n${['  id: ID', ...inputLines(n, c.attributes)].join('\n')}\n}`);
    }
    out.push(`type ${n} {\n${['  id: ID!', `  attributes: ${n}! ${DEPRECATED_SELF}`, `  data: ${n}! ${DEPRECATED_SELF}`, ...fieldLines(n, c.attributes)].join('\n')}\n}`);
  }
  const roles = opts.plugin && isExtended(opts.plugin.roles) ? opts.plugin.roles : null;
  const pluginTypes = users ? extendedUserTypes(FILE_TYPES, users.attributes) : FILE_TYPES;
  const withRoles = roles ? withRoleScalars(pluginTypes, roles, (a) => scalarOut('UsersPermissionsRole', a), (a) => inputLines('UsersPermissionsRole', [a])) : pluginTypes;
  const permissions = opts.plugin && isExtended(opts.plugin.permissions) ? opts.plugin.permissions : null;
  out.push(schema.pluginRecords || permissions || roles
    ? withRecordAttributes(withRoles, schema, permissions, (owner, a) => ({ field: fieldLines(owner, [a]), filter: filterLines([a]) }), roles)
    : withRoles);

  // Content-types
  for (const ct of schema.contentTypes.values()) {
    const n = typeName(ct);
    const filters = [`  documentId: IDFilterInput`, ...filterLines(ct.attributes),
      '  createdAt: DateTimeFilterInput', '  updatedAt: DateTimeFilterInput', '  publishedAt: DateTimeFilterInput'];
    if (ct.localized) filters.push('  locale: StringFilterInput', `  localizations: ${n}FiltersInput`);
    filters.push(`  and: [${n}FiltersInput]`, `  or: [${n}FiltersInput]`, `  not: ${n}FiltersInput`);
    // Single types get one only when something filters them: their localizations, or a relation to them.
    if (ct.kind === 'collectionType' || ct.localized || targeted(schema, ct)) out.push(`input ${n}FiltersInput {\n${filters.join('\n')}\n}`);
    const inputs = [...inputLines(n, ct.attributes), '  publishedAt: DateTime'];
    if (!ct.localized) inputs.push('  locale: String');
    out.push(`input ${n}Input {\n${inputs.join('\n')}\n}`);
    const fields = [
      '  id: ID! @deprecated(reason: "Use `documentId` instead")', '  documentId: ID!',
      `  attributes: ${n}! ${DEPRECATED_SELF}`, `  data: ${n}! ${DEPRECATED_SELF}`,
      ...fieldLines(n, ct.attributes), '  createdAt: DateTime', '  updatedAt: DateTime', '  publishedAt: DateTime',
    ];
    if (ct.localized) {
      fields.push('  locale: String', `  localizations_connection${COLLECTION_ARGS(`${n}FiltersInput`)}: ${n}RelationResponseCollection`,
        `  localizations${COLLECTION_ARGS(`${n}FiltersInput`)}: [${n}]!`);
    }
    out.push(`type ${n} {\n${fields.join('\n')}\n}`);
    if (ct.kind === 'collectionType') {
      out.push(`type ${n}EntityResponseCollection {
  nodes: [${n}!]!
  pageInfo: Pagination!
  data: [${n}!]! @deprecated(reason: "Use \`nodes\` field instead")
  meta: ResponseCollectionMeta! @deprecated(reason: "Use the \`pageInfo\` field instead")
}`);
    }
    if (relationTargets.has(ct.uid)) {
      out.push(`type ${n}RelationResponseCollection {
  nodes: [${n}!]!
  data: [${n}!]! @deprecated(reason: "Use \`nodes\` field instead")
}`);
    }
  }

  // The locale's (the file's is among the plugin's types): a content-type's to-many relation to locales.
  if (relationTargets.has(LOCALE_UID)) {
    out.push(`type I18NLocaleRelationResponseCollection {
  nodes: [I18NLocale!]!
  data: [I18NLocale!]! @deprecated(reason: "Use \`nodes\` field instead")
}`);
  }

  const morph = genericMorphMembers(schema);
  unions.set('GenericMorph', morph);
  out.push(`union GenericMorph = ${morph.join(' | ')}`);

  // Query and Mutation
  const list = (filters: string, loc: boolean) => loc
    ? `(\n    filters: ${filters}\n    pagination: PaginationArg = {}\n    sort: [String] = []\n    status: PublicationStatus = PUBLISHED\n    hasPublishedVersion: Boolean\n    publicationFilter: PublicationFilter\n${LOCALE_ARG}\n  )`
    : `(filters: ${filters}, pagination: PaginationArg = {}, sort: [String] = [], ${PUBLICATION_ARGS})`;
  const one = (withId: boolean, loc: boolean) => loc
    ? `(\n${withId ? '    documentId: ID!\n' : ''}    status: PublicationStatus = PUBLISHED\n    hasPublishedVersion: Boolean\n    publicationFilter: PublicationFilter\n${LOCALE_ARG}\n  )`
    : `(${withId ? 'documentId: ID!, ' : ''}${PUBLICATION_ARGS})`;
  const q: string[] = [
    `  uploadFile${one(true, false)}: UploadFile`,
    `  uploadFiles_connection${list('UploadFileFiltersInput', false)}: UploadFileEntityResponseCollection`,
    `  uploadFiles${list('UploadFileFiltersInput', false)}: [UploadFile]!`,
    `  i18NLocale${one(true, false)}: I18NLocale`,
    `  i18NLocales_connection${list('I18NLocaleFiltersInput', false)}: I18NLocaleEntityResponseCollection`,
    `  i18NLocales${list('I18NLocaleFiltersInput', false)}: [I18NLocale]!`,
    `  usersPermissionsRole${one(true, false)}: UsersPermissionsRole`,
    `  usersPermissionsRoles_connection${list('UsersPermissionsRoleFiltersInput', false)}: UsersPermissionsRoleEntityResponseCollection`,
    `  usersPermissionsRoles${list('UsersPermissionsRoleFiltersInput', false)}: [UsersPermissionsRole]!`,
    `  usersPermissionsUser${one(true, false)}: UsersPermissionsUser`,
    `  usersPermissionsUsers_connection${list('UsersPermissionsUserFiltersInput', false)}: UsersPermissionsUserEntityResponseCollection`,
    `  usersPermissionsUsers${list('UsersPermissionsUserFiltersInput', false)}: [UsersPermissionsUser]!`,
  ];
  const m: string[] = [];
  for (const ct of schema.contentTypes.values()) {
    const n = typeName(ct);
    const loc = ct.localized;
    if (!opts.shadowCRUD) continue;
    if (ct.kind === 'singleType') {
      q.push(`  ${singularQuery(ct)}${one(false, loc)}: ${n}`);
      m.push(loc
        ? `  update${n}(\n    status: PublicationStatus = PUBLISHED\n    data: ${n}Input!\n${LOCALE_ARG}\n  ): ${n}`
        : `  update${n}(status: PublicationStatus = PUBLISHED, data: ${n}Input!): ${n}`);
      m.push(loc ? `  delete${n}(${LOCALE_ARG}\n  ): DeleteMutationResponse` : `  delete${n}: DeleteMutationResponse`);
      continue;
    }
    q.push(`  ${singularQuery(ct)}${one(true, loc)}: ${n}`);
    q.push(`  ${pluralQuery(ct)}_connection${list(`${n}FiltersInput`, loc)}: ${n}EntityResponseCollection`);
    q.push(`  ${pluralQuery(ct)}${list(`${n}FiltersInput`, loc)}: [${n}]!`);
    if (loc) {
      m.push(`  create${n}(\n    status: PublicationStatus = PUBLISHED\n    data: ${n}Input!\n${LOCALE_ARG}\n  ): ${n}`);
      m.push(`  update${n}(\n    documentId: ID!\n    status: PublicationStatus = PUBLISHED\n    data: ${n}Input!\n${LOCALE_ARG}\n  ): ${n}`);
      m.push(`  delete${n}(\n    documentId: ID!\n${LOCALE_ARG}\n  ): DeleteMutationResponse`);
    } else {
      m.push(`  create${n}(status: PublicationStatus = PUBLISHED, data: ${n}Input!): ${n}`);
      m.push(`  update${n}(documentId: ID!, status: PublicationStatus = PUBLISHED, data: ${n}Input!): ${n}`);
      m.push(`  delete${n}(documentId: ID!): DeleteMutationResponse`);
    }
  }
  q.push('  me: UsersPermissionsMe');
  // The upload plugin's own mutations (Strapi adds them with Shadow CRUD).
  if (opts.shadowCRUD) {
    out.push('input FileInfoInput {\n  name: String\n  alternativeText: String\n  caption: String\n}');
    m.push('  updateUploadFile(id: ID!, info: FileInfoInput): UploadFile!', '  deleteUploadFile(id: ID!): UploadFile');
  }
  m.push(...USERS_PERMISSIONS_MUTATIONS);
  m.push('  login(input: UsersPermissionsLoginInput!): UsersPermissionsLoginPayload!');
  m.push('\n  """Register a user"""\n  register(input: UsersPermissionsRegisterInput!): UsersPermissionsLoginPayload!', ...ACCOUNT_MUTATIONS);
  out.push(`type Query {\n${q.join('\n')}\n}`);
  out.push(`type Mutation {\n${m.join('\n')}\n}`);
  const typeDefs = out.join('\n\n') + '\n';
  return { typeDefs: opts.v4CompatibilityMode === false ? withoutV4Compatibility(typeDefs) : typeDefs, enums, unions };
}

