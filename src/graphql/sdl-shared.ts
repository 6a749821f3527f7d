// SDL both GraphQL shapes share: the locale scalar, users-permissions auth types and PaginationArg.
import type { Attribute, ContentType, ScalarAttr, Schema } from '../../compiler/schema.ts';
import { registryOrder } from '../../compiler/schema.ts';
import { FILTER_INPUT, componentTypeName, typeName } from './names.ts';
// Only v5 gives the logged-in user a documentId.
export const sharedAuthSdl = (withDocumentId: boolean): string => `"""A string used to identify an i18n locale"""
scalar I18NLocaleCode

type UsersPermissionsMe {
  id: ID!
${withDocumentId ? '  documentId: ID!\n' : ''}  username: String!
  email: String
  confirmed: Boolean
  blocked: Boolean
  role: UsersPermissionsMeRole
}

type UsersPermissionsMeRole {
  id: ID!
  name: String!
  description: String
  type: String
}

input UsersPermissionsRegisterInput {
  username: String!
  email: String!
  password: String!
}

input UsersPermissionsLoginInput {
  identifier: String!
  password: String!
  provider: String! = "local"
}

type UsersPermissionsLoginPayload {
  jwt: String
  user: UsersPermissionsMe!
}

type UsersPermissionsPasswordPayload {
  ok: Boolean!
}

type UsersPermissionsCreateRolePayload {
  ok: Boolean!
}

type UsersPermissionsUpdateRolePayload {
  ok: Boolean!
}

type UsersPermissionsDeleteRolePayload {
  ok: Boolean!
}

input PaginationArg {
  page: Int
  pageSize: Int
  start: Int
  limit: Int
}`;


/** users-permissions account mutations, as Strapi 5.54 declares them (after login and register). */
export const ACCOUNT_MUTATIONS = [
  '\n  """Request a reset password token"""\n  forgotPassword(email: String!): UsersPermissionsPasswordPayload',
  '\n  """\n  Reset user password. Confirm with a code (resetToken from forgotPassword)\n  """\n  resetPassword(password: String!, passwordConfirmation: String!, code: String!): UsersPermissionsLoginPayload',
  '\n  """Change user password. Confirm with the current password."""\n  changePassword(currentPassword: String!, password: String!, passwordConfirmation: String!): UsersPermissionsLoginPayload',
  '\n  """Confirm an email users email address"""\n  emailConfirmation(confirmation: String!): UsersPermissionsLoginPayload',
];

/** users-permissions role and user mutations, as Strapi 5.54 declares them (both shapes: numeric ids). */
export const USERS_PERMISSIONS_MUTATIONS = [
  '\n  """Create a new role"""\n  createUsersPermissionsRole(data: UsersPermissionsRoleInput!): UsersPermissionsCreateRolePayload',
  '\n  """Update an existing role"""\n  updateUsersPermissionsRole(id: ID!, data: UsersPermissionsRoleInput!): UsersPermissionsUpdateRolePayload',
  '\n  """Delete an existing role"""\n  deleteUsersPermissionsRole(id: ID!): UsersPermissionsDeleteRolePayload',
  '\n  """Create a new user"""\n  createUsersPermissionsUser(data: UsersPermissionsUserInput!): UsersPermissionsUserEntityResponse!',
  '\n  """Update an existing user"""\n  updateUsersPermissionsUser(id: ID!, data: UsersPermissionsUserInput!): UsersPermissionsUserEntityResponse!',
  '\n  """Delete an existing user"""\n  deleteUsersPermissionsUser(id: ID!): UsersPermissionsUserEntityResponse!',
];

/** The user and role inputs of the CRUD mutations; v5 adds Strapi 5's `publishedAt` and `locale` to every input. */
export function usersPermissionsInputs(v5: boolean): { user: string; role: string } {
  const extra = v5 ? '\n  publishedAt: DateTime\n  locale: String' : '';
  return {
    user: `input UsersPermissionsUserInput {
  username: String
  email: String
  provider: String
  password: String
  resetPasswordToken: String
  confirmationToken: String
  confirmed: Boolean
  blocked: Boolean
  role: ID${extra}
}`,
    role: `input UsersPermissionsRoleInput {
  name: String
  description: String
  type: String
  permissions: [ID]
  users: [ID]${extra}
}`,
  };
}

/** users-permissions' own role attributes; the others a project's extension added. */
const ROLE_OWN = new Set(['name', 'description', 'type', 'permissions', 'users']);

/**
 * The plugin's role blocks of `types` (either shape) with the scalars a project's extension added to the role, in
 * attribute order after the plugin's relations, as Strapi 5.54's type builder places them (recorded:
 * test/fixtures/role-ext-cases): public ones in the type and its filters, every one in its input.
 */
export function withRoleScalars(types: string, roles: ContentType, out: (a: ScalarAttr) => string, otherInputs?: (a: Attribute) => string[]): string {
  const added = roles.attributes.filter((a): a is ScalarAttr => a.kind === 'scalar' && !ROLE_OWN.has(a.name));
  // The input takes the added relations, media and components too, in attribute order (recorded: role-data-cases).
  const inputs = roles.attributes.filter((a) => !ROLE_OWN.has(a.name))
    .flatMap((a) => (a.kind === 'scalar' ? [`  ${a.name}: ${out(a)}`] : otherInputs?.(a) ?? []));
  if (!inputs.length) return types;
  const shown = added.filter((a) => !a.private && a.type !== 'password');
  const insert = (block: RegExp, before: string, lines: string[]) => types.replace(block, (b) => b.replace(before, `${lines.map((l) => `${l}\n`).join('')}${before}`));
  types = insert(/type UsersPermissionsRole \{[\s\S]*?\n\}/, '  createdAt: DateTime\n', shown.map((a) => `  ${a.name}: ${out(a)}${a.required ? '!' : ''}`));
  types = insert(/input UsersPermissionsRoleFiltersInput \{[\s\S]*?\n\}/, '  createdAt: DateTimeFilterInput\n', shown.map((a) => `  ${a.name}: ${FILTER_INPUT[a.type]}`));
  // The input's added fields follow `users` (its last plugin field).
  return types.replace(/input UsersPermissionsRoleInput \{[\s\S]*?\n\}/, (b) => b.replace('  users: [ID]', ['  users: [ID]', ...inputs].join('\n')));
}

/** A field's lines in a type block and in its filters' block. */
export interface AddedLines { field: string[]; filter: string[] }

/**
 * The plugin blocks of `types` (either shape) with the attributes a project's extension added to upload's file
 * (`UploadFile`), i18n's locale (`I18NLocale`) and users-permissions' permission (`UsersPermissionsPermission`),
 * each before the next attribute of the merged order the block lists (the timestamps after the last), as Strapi
 * 5.54's type builder places them (recorded: test/fixtures/plugin-ext-cases, plugin-data-cases): in the type and
 * its filters (no input of theirs takes them). `lines` writes an attribute's lines (none for what a shape does not show).
 */
export function withRecordAttributes(types: string, schema: Schema, permissions: ContentType | null, lines: (typeName: string, a: Attribute) => AddedLines, roles: ContentType | null = null): string {
  const place = (name: string, order: string[], added: Attribute[]) => {
    for (const a of added) {
      if (a.private || (a.kind === 'scalar' && a.type === 'password')) continue;
      const after = order.slice(order.indexOf(a.name) + 1);
      const into = (block: RegExp, text: string[]) => {
        if (!text.length) return;
        types = types.replace(block, (b) => {
          const next = after.find((n) => b.includes(`\n  ${n}:`) || b.includes(`\n  ${n}_connection(`));
          const before = next ? (b.includes(`\n  ${next}_connection(`) ? `\n  ${next}_connection(` : `\n  ${next}:`) : '\n  createdAt:';
          return b.replace(before, `\n${text.join('\n')}${before}`);
        });
      };
      const { field, filter } = lines(name, a);
      into(new RegExp(`\ntype ${name} \\{[\\s\\S]*?\\n\\}`), field);
      into(new RegExp(`input ${name}FiltersInput \\{[\\s\\S]*?\\n\\}`), filter);
    }
  };
  for (const [name, ext] of [['UploadFile', schema.pluginRecords?.file], ['I18NLocale', schema.pluginRecords?.locale]] as const) {
    if (ext) place(name, ext.order, ext.order.flatMap((n) => [...ext.added, ...ext.others].filter((a) => a.name === n)));
  }
  if (permissions) place('UsersPermissionsPermission', permissions.attributes.map((a) => a.name), permissions.attributes.filter((a) => !PERMISSION_OWN.has(a.name)));
  // The role's added scalars are placed by withRoleScalars (its input takes them too); its other attributes here.
  if (roles) place('UsersPermissionsRole', roles.attributes.map((a) => a.name), roleOthers(roles));
  return types;
}

/** What a project's extension added to the role besides scalars (relations, media, components, zones), in order. */
export function roleOthers(roles: ContentType): Attribute[] {
  return roles.attributes.filter((a) => a.kind !== 'scalar' && !ROLE_OWN.has(a.name));
}

/** users-permissions' own permission attributes; the others a project's extension added (scalars only, src/models.ts). */
const PERMISSION_OWN = new Set(['action', 'role']);

/**
 * GenericMorph's members as Strapi's schema names them: the components in its registry order, the plugins'
 * types, then the content-types.
 */
export function genericMorphMembers(schema: Schema): string[] {
  return [...registryOrder(schema).map((uid) => componentTypeName(schema.components.get(uid)!)), 'UploadFile', 'I18NLocale', 'UsersPermissionsPermission', 'UsersPermissionsRole', 'UsersPermissionsUser',
    ...[...schema.contentTypes.values()].map(typeName)];
}
