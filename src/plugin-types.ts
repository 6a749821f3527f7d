// The plugin types served next to the models (media library files, users-permissions users, roles and
// permissions: GraphQL's plugin types, the users REST routes' queries),
// described as content-types so the same compiler reads them in one statement.
import type { Attribute, ContentType, MorphAttr, RelationAttr, ScalarAttr, ScalarType, Schema } from '../compiler/schema.ts';
import { snake } from '../compiler/schema.ts';
import { FILES } from '../compiler/layout.ts';
import { UP, UPLOAD_FOLDERS } from './auth/tables.ts';

function scalar(name: string, type: ScalarType, column = snake(name)): ScalarAttr {
  return { kind: 'scalar', name, type, column, unique: false, required: false, private: false, localized: false };
}

function synthetic(uid: string, table: string, singular: string, plural: string, attributes: Attribute[], graphqlName?: string): ContentType {
  return {
    uid, kind: 'collectionType', singularName: singular, pluralName: plural, apiName: singular, table,
    draftAndPublish: false, localized: false, attributes, byName: new Map(attributes.map((a) => [a.name, a])),
    // Plugin types: no route, no Shadow CRUD of their own, a morph or populate `on` target only with media of their
    // own (compiler/schema.ts morphLinkable).
    ...(graphqlName ? { builtin: { graphqlName } } : {}),
  };
}

export function filesType(schema: Schema): ContentType {
  const own = pluginFileAttributes();
  const ext = schema.pluginRecords?.file;
  if (!ext) return synthetic('plugin::upload.file', FILES.table, 'file', 'files', own);
  // A project's extension: its added scalars among the plugin's, in the merged attribute order.
  const byName = new Map<string, Attribute>([...own.map((a) => [a.name, a] as const), ...ext.added.map((a) => [a.name, a] as const)]);
  return synthetic('plugin::upload.file', FILES.table, 'file', 'files', ext.order.flatMap((n) => byName.get(n) ?? []));
}

/**
 * The file as upload's content-API reads see it (`GET /api/upload/files`, `/files/page`, `/files/:id`): the
 * record's attributes, then the plugin's `related` (morphToMany through `files_related_mph`: every link of the
 * file, whatever its field), the private `folder` and `folderPath` (named by Strapi's errors as attributes that
 * exist, never answered), and what a project's extension added beyond scalars (schema.pluginRecords), in the merged order.
 */
export function fileReadType(schema: Schema): ContentType {
  const base = filesType(schema);
  const related: MorphAttr = {
    kind: 'morph', name: 'related', relation: 'morphToMany', toMany: true, required: false, private: false, localized: false,
    join: { table: FILES.related, owner: FILES.file, id: FILES.relatedId, type: FILES.relatedType, field: FILES.field, order: FILES.order },
  };
  const folder: RelationAttr = {
    kind: 'relation', name: 'folder', relation: 'manyToOne', target: FOLDER_UID, toMany: false, owner: true, inversedBy: 'files',
    join: { table: '', source: '', target: '', order: null, inverseOrder: null }, required: false, private: true, localized: false,
  };
  // Upload's file schema marks folderPath `searchable: false`: `_q` never reads it (checked live: `_q=/1` finds no file).
  const plugin: Attribute[] = [related, folder, { ...scalar('folderPath', 'string'), private: true, searchable: false }];
  const ext = schema.pluginRecords?.file;
  const byName = new Map<string, Attribute>([...base.attributes, ...plugin, ...(ext?.others ?? [])].map((a) => [a.name, a]));
  const order = ext ? ext.order : [...base.attributes, ...plugin].map((a) => a.name);
  return synthetic(FILE_UID, FILES.table, 'file', 'files', order.flatMap((n) => byName.get(n) ?? []));
}

export const FILE_UID = 'plugin::upload.file';

/**
 * i18n's locale as GraphQL reads it through the compiler when a project's extension added relations, media or
 * components to it (null otherwise: its scalars come from the locale list, src/i18n/locales.ts): its scalars and
 * those attributes in the merged order.
 */
export function localeReadType(schema: Schema): ContentType | null {
  const ext = schema.pluginRecords?.locale;
  if (!ext?.others.length) return null;
  const byName = new Map<string, Attribute>([...ext.ct.attributes, ...ext.others].map((a) => [a.name, a]));
  return synthetic(ext.ct.uid, ext.ct.table, 'locale', 'locales', ext.order.flatMap((n) => byName.get(n) ?? []));
}
/**
 * Upload's file or i18n's locale as a relation target of the project's content-types (their side of a two-way
 * relation with an extension's attribute, or a one-way relation to them): a plugin type (no route, no Shadow
 * CRUD, its own GraphQL type) whose attributes fillRecordTarget sets once the extensions are read.
 */
export function recordTarget(uid: string): ContentType | null {
  if (uid === FILE_UID) return synthetic(FILE_UID, FILES.table, 'file', 'files', [], 'UploadFile');
  if (uid === LOCALE_UID) return synthetic(LOCALE_UID, RECORD_PLUGIN_ATTRIBUTES.locale.table, 'locale', 'locales', [], 'I18NLocale');
  return null;
}

/** `target`'s attributes: the file as upload's reads see it, the locale's scalars and what its extension added. */
export function fillRecordTarget(target: ContentType, schema: Schema): void {
  const ext = schema.pluginRecords?.locale;
  const attributes = target.uid === FILE_UID ? fileReadType(schema).attributes
    : ext ? (localeReadType(schema) ?? ext.ct).attributes
    : RECORD_PLUGIN_ATTRIBUTES.locale.attributes.map(([name, type]) => scalar(name, type as ScalarType));
  target.attributes = attributes;
  target.byName = new Map(attributes.map((a) => [a.name, a]));
}

export const LOCALE_UID = 'plugin::i18n.locale';

/** Upload's folders: a private relation's target, never read (no content-type here). */
const FOLDER_UID = 'plugin::upload.folder';

function pluginFileAttributes(): Attribute[] {
  return [
    scalar('name', 'string'), scalar('alternativeText', 'string'), scalar('caption', 'string'), scalar('focalPoint', 'json'),
    scalar('width', 'integer'), scalar('height', 'integer'), scalar('formats', 'json'), scalar('hash', 'string'),
    scalar('ext', 'string'), scalar('mime', 'string'), scalar('size', 'decimal'), scalar('url', 'string'),
    scalar('previewUrl', 'string'), scalar('provider', 'string'), scalar('provider_metadata', 'json', 'provider_metadata'),
  ];
}

/**
 * upload's file and i18n's locale as their plugins define them (Strapi 5.54's schemas): each attribute's type in the
 * order of the plugin's schema, and whether it is private. A project's extension must keep them (src/models.ts);
 * relations have no column here (a file's `related` morph and private `folder` link are the plugin's own).
 */
export const RECORD_PLUGIN_ATTRIBUTES: Record<'file' | 'locale' | 'folder', { uid: string; table: string; attributes: Array<[name: string, type: string, isPrivate: boolean]> }> = {
  file: {
    uid: 'plugin::upload.file', table: FILES.table,
    attributes: [
      ['name', 'string', false], ['alternativeText', 'text', false], ['caption', 'text', false], ['focalPoint', 'json', false],
      ['width', 'integer', false], ['height', 'integer', false], ['formats', 'json', false], ['hash', 'string', false],
      ['ext', 'string', false], ['mime', 'string', false], ['size', 'decimal', false], ['url', 'text', false],
      ['previewUrl', 'text', false], ['provider', 'string', false], ['provider_metadata', 'json', false],
      ['related', 'relation', false], ['folder', 'relation', true], ['folderPath', 'string', true],
    ],
  },
  locale: { uid: 'plugin::i18n.locale', table: 'i18n_locale', attributes: [['name', 'string', false], ['code', 'string', false]] },
  // Upload's folders: no content-API read or GraphQL type answers them (checked live), only their table has the added columns.
  folder: {
    uid: 'plugin::upload.folder', table: UPLOAD_FOLDERS.table,
    attributes: [
      ['name', 'string', false], ['pathId', 'integer', false], ['parent', 'relation', false], ['children', 'relation', false],
      ['files', 'relation', false], ['path', 'string', false],
    ],
  },
};

/** users-permissions roles (`up_roles`), populated as a user's `role`. */
function rolesType(): ContentType {
  return synthetic('plugin::users-permissions.role', UP.roles, 'role', 'roles', [
    scalar('name', 'string'), scalar('description', 'string'), scalar('type', 'string'),
  ], 'UsersPermissionsRole');
}

/** users-permissions users (`up_users`); `role` is Strapi's manyToOne relation to the roles, a link table. */
function usersType(roles: ContentType): ContentType {
  const L = UP.userRole;
  const role: RelationAttr = {
    kind: 'relation', name: 'role', relation: 'manyToOne', target: roles.uid, toMany: false, owner: true, inversedBy: 'users',
    join: { table: L.table, source: L.user, target: L.role, order: null, inverseOrder: L.order },
    required: false, private: false, localized: false,
  };
  return synthetic('plugin::users-permissions.user', UP.users, 'user', 'users', [
    scalar('username', 'string'), scalar('email', 'email'), scalar('provider', 'string'),
    // Private: never answered, and named in Strapi's `Invalid key` errors as attributes that exist.
    { ...scalar('password', 'password'), private: true }, { ...scalar('resetPasswordToken', 'string'), private: true },
    { ...scalar('confirmationToken', 'string'), private: true },
    scalar('confirmed', 'boolean'), scalar('blocked', 'boolean'), role,
  ], 'UsersPermissionsUser');
}

/**
 * users-permissions permissions (`up_permissions`: an action and its role), and the role's other sides:
 * `permissions` and `users` (oneToMany, mappedBy `role`), in Strapi's attribute order. Adds them to `roles`.
 */
function permissionsType(roles: ContentType, users: ContentType): ContentType {
  const P = UP.permissionRole;
  const L = UP.userRole;
  const role: RelationAttr = {
    kind: 'relation', name: 'role', relation: 'manyToOne', target: roles.uid, toMany: false, owner: true, inversedBy: 'permissions',
    join: { table: P.table, source: P.permission, target: P.role, order: null, inverseOrder: P.order },
    required: false, private: false, localized: false,
  };
  const permission = synthetic('plugin::users-permissions.permission', UP.permissions, 'permission', 'permissions',
    [scalar('action', 'string'), role], 'UsersPermissionsPermission');
  const side = (name: string, target: ContentType, table: string, self: string, other: string, order: string): RelationAttr => ({
    kind: 'relation', name, relation: 'oneToMany', target: target.uid, toMany: true, owner: false, mappedBy: 'role',
    join: { table, source: self, target: other, order, inverseOrder: null }, required: false, private: false, localized: false,
  });
  if (!roles.byName.has('permissions')) {
    // A role's users: never in a REST answer (users-permissions' output sanitizer removes them, checked live).
    const users_ = { ...side('users', users, L.table, L.role, L.user, L.order), neverAnswered: true };
    for (const a of [side('permissions', permission, P.table, P.role, P.permission, P.order), users_]) {
      roles.attributes.push(a);
      roles.byName.set(a.name, a);
    }
  }
  return permission;
}

const languageNames = new Intl.DisplayNames(['en'], { type: 'language' });

/** The i18n plugin's locales (configured, not stored). */
export function localeList(schema: Schema): Array<Record<string, unknown>> {
  return schema.locales.map((code, i) => {
    let name = code;
    try { name = languageNames.of(code) ?? code; } catch { /* not a BCP 47 tag */ }
    return { id: i + 1, documentId: code, name: `${name} (${code})`, code, createdAt: null, updatedAt: null, publishedAt: null };
  });
}

/** `schema` with these plugin types among its content-types, where a compiler must find them as relation targets. */
export function withTypes(schema: Schema, types: ContentType[]): Schema {
  return { ...schema, contentTypes: new Map([...schema.contentTypes, ...types.map((ct) => [ct.uid, ct] as const)]) };
}

export const USERS_UID = 'plugin::users-permissions.user';
const ROLES_UID = 'plugin::users-permissions.role';
export const PERMISSIONS_UID = 'plugin::users-permissions.permission';

/**
 * users-permissions' three types, related as in Strapi (a user's role, a role's users and permissions):
 * those of `schema` when the models hold them (a project's extension of the user adds its attributes
 * there, src/models.ts), else the plugin's own.
 */
/** users-permissions' three types. */
export interface PluginTypes { roles: ContentType; users: ContentType; permissions: ContentType }

export function usersPermissionsTypes(schema?: Schema): PluginTypes {
  const [users, roles, permissions] = [USERS_UID, ROLES_UID, PERMISSIONS_UID].map((uid) => schema?.contentTypes.get(uid));
  if (users && roles && permissions) return { roles, users, permissions };
  return (PLUGIN ??= pluginTypes());
}

/** The plugin's own types, shared and never changed (src/models.ts takes fresh ones, which it may extend). */
let PLUGIN: { roles: ContentType; users: ContentType; permissions: ContentType } | undefined;

/** A new set of users-permissions' types, for a registry of models to hold (and a project's extension to change). */
export function pluginTypes(): { roles: ContentType; users: ContentType; permissions: ContentType } {
  const roles = rolesType();
  const users = usersType(roles);
  return { roles, users, permissions: permissionsType(roles, users) };
}
