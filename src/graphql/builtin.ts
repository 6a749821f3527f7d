// The plugin types GraphQL exposes next to the models (media library files, users-permissions users),
// described as content-types so the same compiler reads them in one statement.
import type { Attribute, ContentType, ScalarAttr, ScalarType, Schema } from '../../compiler/schema.ts';
import { snake } from '../../compiler/schema.ts';
import { FILES } from '../../compiler/layout.ts';

function scalar(name: string, type: ScalarType, column = snake(name)): ScalarAttr {
  return { kind: 'scalar', name, type, column, unique: false, required: false, private: false, localized: false };
}

function synthetic(uid: string, table: string, singular: string, plural: string, attributes: Attribute[]): ContentType {
  return {
    uid, kind: 'collectionType', singularName: singular, pluralName: plural, apiName: singular, table,
    draftAndPublish: false, localized: false, attributes, byName: new Map(attributes.map((a) => [a.name, a])),
  };
}

export function filesType(schema: Schema): ContentType {
  return synthetic('plugin::upload.file', FILES.table, 'file', 'files', [
    scalar('name', 'string'), scalar('alternativeText', 'string'), scalar('caption', 'string'), scalar('focalPoint', 'json'),
    scalar('width', 'integer'), scalar('height', 'integer'), scalar('formats', 'json'), scalar('hash', 'string'),
    scalar('ext', 'string'), scalar('mime', 'string'), scalar('size', 'decimal'), scalar('url', 'string'),
    scalar('previewUrl', 'string'), scalar('provider', 'string'), scalar('provider_metadata', 'json', 'provider_metadata'),
  ]);
}

export function usersType(): ContentType {
  return synthetic('plugin::users-permissions.user', 'up_users', 'user', 'users', [
    scalar('username', 'string'), scalar('email', 'email'), scalar('provider', 'string'),
    scalar('confirmed', 'boolean'), scalar('blocked', 'boolean'), scalar('role', 'string'),
  ]);
}

const ROLES: Record<string, { id: number; name: string; description: string }> = {
  authenticated: { id: 1, name: 'Authenticated', description: 'Default role given to authenticated user.' },
  public: { id: 2, name: 'Public', description: 'Default role given to unauthenticated user.' },
};

/** The users-permissions role object of a role type stored on the user row. */
export function roleObject(type: unknown): Record<string, unknown> | null {
  if (typeof type !== 'string' || !type) return null;
  const r = ROLES[type] ?? { id: 0, name: type, description: '' };
  return { id: r.id, documentId: type, name: r.name, description: r.description, type, createdAt: null, updatedAt: null, publishedAt: null };
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
