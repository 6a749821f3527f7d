// A user as Strapi's content API sanitizes it: no password or tokens; `role` only when the answer
// comes from a write that populated it (Strapi's user service add/edit) and the caller may read roles.
import type { Sql } from 'postgres';
import type { ContentType, Schema } from '../../compiler/schema.ts';
import { visibleScalars } from '../../compiler/schema.ts';
import { isoTs, scalarOut } from '../../compiler/sql.ts';
import { UP } from '../auth/tables.ts';
import { usersPermissionsTypes } from '../plugin-types.ts';

const L = UP.userRole;
const ts = (t: string) => `${isoTs(`${t}.created_at`)} as "createdAt", ${isoTs(`${t}.updated_at`)} as "updatedAt", ${isoTs(`${t}.published_at`)} as "publishedAt"`;

export const ROLE_FIELDS = (t: string) => `${t}.id, ${t}.document_id as "documentId", ${t}.name, ${t}.description, ${t}.type, ${ts(t)}`;
/** A user's fields as answered: its public scalars in attribute order (a project's extension adds some), then the timestamps. */
const FIELDS = new WeakMap<ContentType, string>();
function userFields(users: ContentType): string {
  let f = FIELDS.get(users);
  if (f === undefined) {
    f = ['u.id', 'u.document_id as "documentId"', ...visibleScalars(users.attributes).map((a) => `${scalarOut(a, 'u')} as "${a.name}"`), ts('u')].join(', ');
    FIELDS.set(users, f);
  }
  return f;
}
const ROLE_OF = `(select row_to_json(r) from (select ${ROLE_FIELDS('r')} from ${L.table} l join ${UP.roles} r on r.id = l.${L.role}
  where l.${L.user} = u.id order by l.id limit 1) r) as role`;

/** One user's JSON text, or null; `withRole` adds the populated role (null when it has none). */
export async function userJson(ctx: { db: Sql; schema: Schema }, id: number, withRole = false): Promise<string | null> {
  if (!Number.isSafeInteger(id) || id < 1 || id > 2147483647) return null;
  const fields = userFields(usersPermissionsTypes(ctx.schema).users);
  const rows = await ctx.db.unsafe<Array<{ data: string }>>(
    `select row_to_json(x)::text as data from (select ${fields}${withRole ? `, ${ROLE_OF}` : ''} from ${UP.users} u where u.id = $1) x`, [id], { prepare: true });
  return rows[0]?.data ?? null;
}

/** A user id from a path segment (Strapi's numeric ids), or null. */
export function userId(segment: string | undefined): number | null {
  return segment !== undefined && /^\d{1,10}$/.test(segment) && Number(segment) >= 1 && Number(segment) <= 2147483647 ? Number(segment) : null;
}
