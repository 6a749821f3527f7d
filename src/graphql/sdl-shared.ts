// SDL both GraphQL shapes share: the locale scalar, users-permissions auth types and PaginationArg.
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
