// Storage names of Strapi's users-permissions, admin API token, upload folder and core store tables
// (as Strapi 5.54 names them; see the blog dump). Kept in one place like compiler/layout.ts keeps the
// content-type names; auth, users, upload and the token CLI read them from here.

/** users-permissions: users, roles, permissions and their link tables (`_ord` = position in the other side's list). */
export const UP = {
  users: 'up_users',
  roles: 'up_roles',
  permissions: 'up_permissions',
  /** permission_id, role_id, permission_ord (position of the permission in the role's list). */
  permissionRole: { table: 'up_permissions_role_lnk', permission: 'permission_id', role: 'role_id', order: 'permission_ord' },
  /** user_id, role_id, user_ord (position of the user in the role's list). */
  userRole: { table: 'up_users_role_lnk', user: 'user_id', role: 'role_id', order: 'user_ord' },
} as const;

/** Admin API tokens and the actions of `custom` ones. */
export const API_TOKENS = {
  table: 'strapi_api_tokens',
  permissions: 'strapi_api_token_permissions',
  /** api_token_permission_id, api_token_id, api_token_permission_ord (position in the token's list). */
  permissionToken: { table: 'strapi_api_token_permissions_token_lnk', permission: 'api_token_permission_id', token: 'api_token_id', order: 'api_token_permission_ord' },
} as const;

/** Media library folders and the link of a file to its folder. */
export const UPLOAD_FOLDERS = {
  table: 'upload_folders',
  parent: { table: 'upload_folders_parent_lnk', folder: 'folder_id' },
  /** file_id, folder_id, file_ord (position of the file in the folder's list). */
  fileFolder: { table: 'files_folder_lnk', file: 'file_id', folder: 'folder_id', order: 'file_ord' },
} as const;

/** Strapi's key/value store (plugin settings) and the keys we read. */
export const CORE_STORE = {
  table: 'strapi_core_store_settings',
  /** users-permissions advanced settings: default_role, allow_register, email_confirmation, … */
  usersPermissionsAdvanced: 'plugin_users-permissions_advanced',
  /** users-permissions email templates: reset_password, email_confirmation (`options.{from, response_email, object, message}`). */
  usersPermissionsEmail: 'plugin_users-permissions_email',
  /** users-permissions providers (grant's configuration): `{ "<provider>": { "enabled": …, "key", "secret", … } }`. */
  usersPermissionsGrant: 'plugin_users-permissions_grant',
  /** `{"id": <folder id>}` of the folder that Content API uploads go to. */
  uploadApiFolder: 'plugin_upload_api-folder',
  /** i18n's default locale code, a JSON string (`"en"`). */
  i18nDefaultLocale: 'plugin_i18n_default_locale',
} as const;
