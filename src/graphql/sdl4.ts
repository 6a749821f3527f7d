// The Shadow CRUD schema in Strapi v4's shape: `<Type>` holds the attributes, `<Type>Entity {id,
// attributes}` wraps it, responses are `<Type>EntityResponse {data}` and
// `<Type>EntityResponseCollection {data, meta}`; relations and media answer with the same wrappers;
// documents are addressed by numeric `id` and read with `publicationState`.
import type { Attribute, ScalarAttr, Schema } from '../../compiler/schema.ts';
import { isExtended } from '../models.ts';
import { USERS_UID, type PluginTypes } from '../plugin-types.ts';
import {
  FILTER_INPUT, OUTPUT_SCALAR, componentTypeName, dynamicZoneUnion, enumTypeName, enumValueName, pluralQuery, singularQuery, targeted, typeName,
} from './names.ts';
import { SCALAR_DOCS, componentsAsAttributes, filterInput, usedScalars, type SdlResult } from './sdl.ts';
import { ACCOUNT_MUTATIONS, USERS_PERMISSIONS_MUTATIONS, sharedAuthSdl, usersPermissionsInputs, withRecordAttributes, withRoleScalars, genericMorphMembers } from './sdl-shared.ts';

const ARGS = (filters: string, publication: boolean) =>
  `(filters: ${filters}, pagination: PaginationArg = {}, sort: [String] = []${publication ? ', publicationState: PublicationState = LIVE' : ''})`;

const wrappers = (n: string, collection: boolean) => [
  `type ${n}Entity {\n  id: ID\n  attributes: ${n}\n}`,
  `type ${n}EntityResponse {\n  data: ${n}Entity\n}`,
  ...(collection ? [`type ${n}EntityResponseCollection {\n  data: [${n}Entity!]!\n  meta: ResponseCollectionMeta!\n}`] : []),
  `type ${n}RelationResponseCollection {\n  data: [${n}Entity!]!\n}`,
];

const PLUGIN_TYPES = `input UploadFileFiltersInput {
  id: IDFilterInput
  name: StringFilterInput
  alternativeText: StringFilterInput
  caption: StringFilterInput
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
  and: [UploadFileFiltersInput]
  or: [UploadFileFiltersInput]
  not: UploadFileFiltersInput
}

type UploadFile {
  name: String!
  alternativeText: String
  caption: String
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
}

${wrappers('UploadFile', true).join('\n\n')}

input I18NLocaleFiltersInput {
  id: IDFilterInput
  name: StringFilterInput
  code: StringFilterInput
  createdAt: DateTimeFilterInput
  updatedAt: DateTimeFilterInput
  and: [I18NLocaleFiltersInput]
  or: [I18NLocaleFiltersInput]
  not: I18NLocaleFiltersInput
}

type I18NLocale {
  name: String
  code: String
  createdAt: DateTime
  updatedAt: DateTime
}

${wrappers('I18NLocale', true).join('\n\n')}

input UsersPermissionsPermissionFiltersInput {
  id: IDFilterInput
  action: StringFilterInput
  role: UsersPermissionsRoleFiltersInput
  createdAt: DateTimeFilterInput
  updatedAt: DateTimeFilterInput
  and: [UsersPermissionsPermissionFiltersInput]
  or: [UsersPermissionsPermissionFiltersInput]
  not: UsersPermissionsPermissionFiltersInput
}

type UsersPermissionsPermission {
  action: String!
  role: UsersPermissionsRoleEntityResponse
  createdAt: DateTime
  updatedAt: DateTime
}

${wrappers('UsersPermissionsPermission', true).join('\n\n')}

type UsersPermissionsRole {
  name: String!
  description: String
  type: String
  permissions${ARGS('UsersPermissionsPermissionFiltersInput', false)}: UsersPermissionsPermissionRelationResponseCollection
  users${ARGS('UsersPermissionsUserFiltersInput', false)}: UsersPermissionsUserRelationResponseCollection
  createdAt: DateTime
  updatedAt: DateTime
}

${wrappers('UsersPermissionsRole', true).join('\n\n')}

input UsersPermissionsRoleFiltersInput {
  id: IDFilterInput
  name: StringFilterInput
  description: StringFilterInput
  type: StringFilterInput
  permissions: UsersPermissionsPermissionFiltersInput
  users: UsersPermissionsUserFiltersInput
  createdAt: DateTimeFilterInput
  updatedAt: DateTimeFilterInput
  and: [UsersPermissionsRoleFiltersInput]
  or: [UsersPermissionsRoleFiltersInput]
  not: UsersPermissionsRoleFiltersInput
}

${usersPermissionsInputs(false).role}

input UsersPermissionsUserFiltersInput {
  id: IDFilterInput
  username: StringFilterInput
  email: StringFilterInput
  provider: StringFilterInput
  confirmed: BooleanFilterInput
  blocked: BooleanFilterInput
  role: UsersPermissionsRoleFiltersInput
  createdAt: DateTimeFilterInput
  updatedAt: DateTimeFilterInput
  and: [UsersPermissionsUserFiltersInput]
  or: [UsersPermissionsUserFiltersInput]
  not: UsersPermissionsUserFiltersInput
}

${usersPermissionsInputs(false).user}

type UsersPermissionsUser {
  username: String!
  email: String!
  provider: String
  confirmed: Boolean
  blocked: Boolean
  role: UsersPermissionsRoleEntityResponse
  createdAt: DateTime
  updatedAt: DateTime
}

${wrappers('UsersPermissionsUser', true).join('\n\n')}

${sharedAuthSdl(false)}

type Error {
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

enum PublicationState {
  LIVE
  PREVIEW
}`;

export function buildSdlV4(schema: Schema, opts: { shadowCRUD: boolean; plugin?: PluginTypes } = { shadowCRUD: true }): SdlResult {
  const out: string[] = [];
  const enums = new Map<string, Map<string, string>>();
  const unions = new Map<string, string[]>();
  // A user the project extended (src/extensions): its type, filters and input made from its attributes (as v5's).
  const users = opts.plugin && isExtended(opts.plugin.users) ? opts.plugin.users : null;
  const withUsers: Schema = users ? { ...schema, contentTypes: new Map([...schema.contentTypes, [users.uid, users]]) } : schema;
  const scalarNames = new Set(['JSON', 'DateTime', 'Date', ...[...usedScalars(withUsers)].map((t) => OUTPUT_SCALAR[t])]);
  for (const s of ['JSON', 'DateTime', 'Date', 'Time', 'Long']) if (scalarNames.has(s)) out.push(`"""\n${SCALAR_DOCS[s]}\n"""\nscalar ${s}`);
  const filterScalars: Array<[string, string]> = [['IDFilterInput', 'ID'], ['BooleanFilterInput', 'Boolean'], ['StringFilterInput', 'String'], ['IntFilterInput', 'Int']];
  if (scalarNames.has('Long')) filterScalars.push(['LongFilterInput', 'Long']);
  filterScalars.push(['FloatFilterInput', 'Float'], ['DateFilterInput', 'Date']);
  if (scalarNames.has('Time')) filterScalars.push(['TimeFilterInput', 'Time']);
  filterScalars.push(['DateTimeFilterInput', 'DateTime'], ['JSONFilterInput', 'JSON']);
  for (const [n, s] of filterScalars) out.push(filterInput(n, s));
  const pluginAt = out.push(PLUGIN_TYPES) - 1;
  const asAttr = componentsAsAttributes(withUsers);
  // Relations of the extended user name users-permissions' own types.
  const targetName = (uid: string) => (uid === USERS_UID ? 'UsersPermissionsUser' : uid === 'plugin::users-permissions.role' ? 'UsersPermissionsRole' : typeName(schema.contentTypes.get(uid)!));
  const toManyTarget = (uid: string) => (uid === USERS_UID || uid === 'plugin::users-permissions.role' ? false : schema.contentTypes.get(uid)!.draftAndPublish);

  const scalarOut = (owner: string, a: ScalarAttr) => {
    if (a.type !== 'enumeration') return OUTPUT_SCALAR[a.type];
    const name = enumTypeName(owner, a);
    if (!enums.has(name)) {
      const values = new Map<string, string>();
      for (const v of a.enum ?? []) values.set(enumValueName(v), v);
      enums.set(name, values);
      out.push(`enum ${name} {\n${[...values.keys()].map((v) => `  ${v}`).join('\n')}\n}`);
    }
    return name;
  };

  const fieldLines = (owner: string, attrs: Attribute[]): string[] => {
    const lines: string[] = [];
    for (const a of attrs) {
      if (a.private || (a.kind === 'scalar' && a.type === 'password')) continue;
      switch (a.kind) {
        case 'scalar': lines.push(`  ${a.name}: ${scalarOut(owner, a)}${a.required ? '!' : ''}`); break;
        case 'media':
          lines.push(a.multiple
            ? `  ${a.name}${ARGS('UploadFileFiltersInput', false)}: UploadFileRelationResponseCollection${a.required ? '!' : ''}`
            : `  ${a.name}: UploadFileEntityResponse${a.required ? '!' : ''}`);
          break;
        case 'relation': {
          const t = targetName(a.target);
          lines.push(a.toMany ? `  ${a.name}${ARGS(`${t}FiltersInput`, toManyTarget(a.target))}: ${t}RelationResponseCollection` : `  ${a.name}: ${t}EntityResponse`);
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
          lines.push(a.repeatable ? `  ${a.name}${ARGS(`${c}FiltersInput`, false)}: [${c}]${bang}` : `  ${a.name}: ${c}${bang}`);
          break;
        }
        case 'dynamiczone': {
          const u = dynamicZoneUnion(owner, a.name);
          unions.set(u, a.components.map((uid) => componentTypeName(schema.components.get(uid)!)));
          out.push(`union ${u} = ${unions.get(u)!.join(' | ')} | Error`);
          out.push(`scalar ${u}Input`);
          lines.push(`  ${a.name}: [${u}]${a.required ? '!' : ''}`);
          break;
        }
      }
    }
    return lines;
  };

  const filterLines = (attrs: Attribute[]): string[] => attrs.flatMap((a) => {
    if (a.private) return [];
    if (a.kind === 'scalar') return a.type === 'password' ? [] : [`  ${a.name}: ${FILTER_INPUT[a.type]}`];
    if (a.kind === 'relation') return [`  ${a.name}: ${targetName(a.target)}FiltersInput`];
    if (a.kind === 'component') return [`  ${a.name}: ${componentTypeName(schema.components.get(a.component)!)}FiltersInput`];
    return [];
  });

  const inputLines = (owner: string, attrs: Attribute[]): string[] => attrs.flatMap((a) => {
    if (a.readOnly || (a.private && !(a.kind === 'scalar' && a.type === 'password'))) return [];
    switch (a.kind) {
      case 'scalar': return [`  ${a.name}: ${scalarOut(owner, a)}`];
      case 'media': return [`  ${a.name}: ${a.multiple ? '[ID]' : 'ID'}`];
      case 'relation': return [`  ${a.name}: ${a.toMany ? '[ID]' : 'ID'}`];
      case 'component': {
        const c = componentTypeName(schema.components.get(a.component)!);
        return [`  ${a.name}: ${a.repeatable ? `[${c}Input]` : `${c}Input`}`];
      }
      case 'dynamiczone': return [`  ${a.name}: [${dynamicZoneUnion(owner, a.name)}Input!]`];
      // Strapi's GraphQL takes no morph relation in inputs.
      case 'morph': return [];
    }
  });

  /** The plugin's user blocks made again from the extended user's attributes, in their order. */
  const extendedUser = (types: string, attrs: Attribute[]): string => {
    const n = 'UsersPermissionsUser';
    const filters = ['  id: IDFilterInput', ...filterLines(attrs), '  createdAt: DateTimeFilterInput', '  updatedAt: DateTimeFilterInput',
      `  and: [${n}FiltersInput]`, `  or: [${n}FiltersInput]`, `  not: ${n}FiltersInput`];
    // Its input takes every attribute, private ones too (as Strapi 5.54's flat shape, recorded).
    const inputs = inputLines(n, attrs.map((a) => (a.private ? { ...a, private: false } : a)));
    const outAttrs = attrs.map((a) => (a.kind === 'scalar' && (a.name === 'username' || a.name === 'email') ? { ...a, required: true } : a));
    const fields = [...fieldLines(n, outAttrs), '  createdAt: DateTime', '  updatedAt: DateTime'];
    return types
      .replace(/input UsersPermissionsUserFiltersInput \{[\s\S]*?\n\}/, `input ${n}FiltersInput {\n${filters.join('\n')}\n}`)
      .replace(/input UsersPermissionsUserInput \{[\s\S]*?\n\}/, `input ${n}Input {\n${inputs.join('\n')}\n}`)
      .replace(/type UsersPermissionsUser \{[\s\S]*?\n\}/, `type ${n} {\n${fields.join('\n')}\n}`);
  };

  for (const c of schema.components.values()) {
    const n = componentTypeName(c);
    if (asAttr.has(c.uid)) {
      out.push(`input ${n}FiltersInput {\n${[...filterLines(c.attributes), `  and: [${n}FiltersInput]`, `  or: [${n}FiltersInput]`, `  not: ${n}FiltersInput`].join('\n')}\n}`);
      out.push(`input ${n}Input {\n${['  id: ID', ...inputLines(n, c.attributes)].join('\n')}\n}`);
    }
    out.push(`type ${n} {\n${['  id: ID!', ...fieldLines(n, c.attributes)].join('\n')}\n}`);
  }

  const q: string[] = [
    '  uploadFile(id: ID): UploadFileEntityResponse',
    `  uploadFiles${ARGS('UploadFileFiltersInput', false)}: UploadFileEntityResponseCollection`,
    '  i18NLocale(id: ID): I18NLocaleEntityResponse',
    `  i18NLocales${ARGS('I18NLocaleFiltersInput', false)}: I18NLocaleEntityResponseCollection`,
    '  usersPermissionsRole(id: ID): UsersPermissionsRoleEntityResponse',
    `  usersPermissionsRoles${ARGS('UsersPermissionsRoleFiltersInput', false)}: UsersPermissionsRoleEntityResponseCollection`,
    '  usersPermissionsUser(id: ID): UsersPermissionsUserEntityResponse',
    `  usersPermissionsUsers${ARGS('UsersPermissionsUserFiltersInput', false)}: UsersPermissionsUserEntityResponseCollection`,
  ];
  const m: string[] = [];
  for (const ct of schema.contentTypes.values()) {
    const n = typeName(ct);
    const dp = ct.draftAndPublish;
    const filters = ['  id: IDFilterInput', ...filterLines(ct.attributes), '  createdAt: DateTimeFilterInput', '  updatedAt: DateTimeFilterInput'];
    if (dp) filters.push('  publishedAt: DateTimeFilterInput');
    if (ct.localized) filters.push('  locale: StringFilterInput', `  localizations: ${n}FiltersInput`);
    filters.push(`  and: [${n}FiltersInput]`, `  or: [${n}FiltersInput]`, `  not: ${n}FiltersInput`);
    // Single types get one only when something filters them: their localizations, or a relation to them.
    if (ct.kind === 'collectionType' || ct.localized || targeted(schema, ct)) out.push(`input ${n}FiltersInput {\n${filters.join('\n')}\n}`);
    out.push(`input ${n}Input {\n${[...inputLines(n, ct.attributes), ...(dp ? ['  publishedAt: DateTime'] : [])].join('\n')}\n}`);
    const fields = [...fieldLines(n, ct.attributes), '  createdAt: DateTime', '  updatedAt: DateTime'];
    if (dp) fields.push('  publishedAt: DateTime');
    if (ct.localized) fields.push('  locale: String', `  localizations${ARGS(`${n}FiltersInput`, dp)}: ${n}RelationResponseCollection`);
    out.push(`type ${n} {\n${fields.join('\n')}\n}`);
    out.push(...wrappers(n, ct.kind === 'collectionType'));
    const loc = ct.localized ? ', locale: I18NLocaleCode' : '';
    const locOnly = ct.localized ? '(locale: I18NLocaleCode)' : '';
    if (!opts.shadowCRUD) continue;
    if (ct.kind === 'singleType') {
      q.push(dp || ct.localized
        ? `  ${singularQuery(ct)}(${[dp ? 'publicationState: PublicationState = LIVE' : '', ct.localized ? 'locale: I18NLocaleCode' : ''].filter(Boolean).join(', ')}): ${n}EntityResponse`
        : `  ${singularQuery(ct)}: ${n}EntityResponse`);
      m.push(`  update${n}(data: ${n}Input!${loc}): ${n}EntityResponse`, `  delete${n}${locOnly}: ${n}EntityResponse`);
      continue;
    }
    q.push(`  ${singularQuery(ct)}(id: ID${loc}): ${n}EntityResponse`);
    q.push(`  ${pluralQuery(ct)}${ARGS(`${n}FiltersInput`, dp).slice(0, -1)}${loc}): ${n}EntityResponseCollection`);
    m.push(`  create${n}(data: ${n}Input!${loc}): ${n}EntityResponse`);
    m.push(`  update${n}(id: ID!, data: ${n}Input!${loc}): ${n}EntityResponse`);
    m.push(`  delete${n}(id: ID!${loc}): ${n}EntityResponse`);
    if (ct.localized) m.push(`  create${n}Localization(id: ID, data: ${n}Input, locale: I18NLocaleCode): ${n}EntityResponse`);
  }
  const morph = genericMorphMembers(schema);
  unions.set('GenericMorph', morph);
  out.push(`union GenericMorph = ${morph.join(' | ')}`);
  q.push('  me: UsersPermissionsMe');
  m.push(...USERS_PERMISSIONS_MUTATIONS);
  m.push('  login(input: UsersPermissionsLoginInput!): UsersPermissionsLoginPayload!');
  m.push('\n  """Register a user"""\n  register(input: UsersPermissionsRegisterInput!): UsersPermissionsLoginPayload!', ...ACCOUNT_MUTATIONS);
  const roles = opts.plugin && isExtended(opts.plugin.roles) ? opts.plugin.roles : null;
  const pluginTypes = users ? extendedUser(PLUGIN_TYPES, users.attributes) : PLUGIN_TYPES;
  const withRoles = roles ? withRoleScalars(pluginTypes, roles, (a) => scalarOut('UsersPermissionsRole', a)) : pluginTypes;
  // v4's Entity shape shows the added scalars only (this server's own shape: no Strapi 5 serves it to compare with).
  const permissions = opts.plugin && isExtended(opts.plugin.permissions) ? opts.plugin.permissions : null;
  out[pluginAt] = schema.pluginRecords || permissions
    ? withRecordAttributes(withRoles, schema, permissions, (owner, a) => (a.kind === 'scalar'
      ? { field: [`  ${a.name}: ${scalarOut(owner, a)}${a.required ? '!' : ''}`], filter: [`  ${a.name}: ${FILTER_INPUT[a.type]}`] }
      : { field: [], filter: [] }))
    : withRoles;
  out.push(`type Query {\n${q.join('\n')}\n}`);
  out.push(`type Mutation {\n${m.join('\n')}\n}`);
  return { typeDefs: out.join('\n\n') + '\n', enums, unions };
}

