// A user as Strapi's content API sanitizes it: no password or tokens; `role` only when the answer
// comes from a write that populated it (Strapi's user service add/edit) and the caller may read roles.
import type { Sql } from 'postgres';
import type { ContentType, ScalarAttr, Schema } from '../../compiler/schema.ts';
import { visibleScalars } from '../../compiler/schema.ts';
import { isoTs, scalarOut } from '../../compiler/sql.ts';
import { UP } from '../auth/tables.ts';
import { usersPermissionsTypes } from '../plugin-types.ts';

const L = UP.userRole;
/** A plugin row's timestamps as answered, from the row aliased `t`. */
export const timestamps = (t: string) => `${isoTs(`${t}.created_at`)} as "createdAt", ${isoTs(`${t}.updated_at`)} as "updatedAt", ${isoTs(`${t}.published_at`)} as "publishedAt"`;

/**
 * A user's or role's fields as answered, from the row aliased `t`: its public scalars in attribute order (a
 * project's extension adds some: `name`, `description`, `type`, then a role's added ones, as Strapi 5.54), then the
 * timestamps. `unsanitized`: private scalars too, as Strapi 5.54's role controller answers the role's row (recorded).
 */
const FIELDS = new WeakMap<ContentType, Map<string, string>>();
export function pluginFields(ct: ContentType, t: string, unsanitized = false): string {
  let byAlias = FIELDS.get(ct);
  if (!byAlias) FIELDS.set(ct, byAlias = new Map());
  const key = `${t}${unsanitized ? '+' : ''}`;
  let f = byAlias.get(key);
  if (f === undefined) {
    const scalars = unsanitized ? ct.attributes.filter((a): a is ScalarAttr => a.kind === 'scalar') : visibleScalars(ct.attributes);
    f = [`${t}.id`, `${t}.document_id as "documentId"`, ...scalars.map((a) => `${scalarOut(a, t)} as "${a.name}"`), timestamps(t)].join(', ');
    byAlias.set(key, f);
  }
  return f;
}
const roleOf = (roles: ContentType) => `(select row_to_json(r) from (select ${pluginFields(roles, 'r')} from ${L.table} l join ${UP.roles} r on r.id = l.${L.role}
  where l.${L.user} = u.id order by l.id limit 1) r) as role`;

/** One user's JSON text, or null; `withRole` adds the populated role (null when it has none). */
export async function userJson(ctx: { db: Sql; schema: Schema }, id: number, withRole = false): Promise<string | null> {
  if (!Number.isSafeInteger(id) || id < 1 || id > 2147483647) return null;
  const { users, roles } = usersPermissionsTypes(ctx.schema);
  const rows = await ctx.db.unsafe<Array<{ data: string }>>(
    `select row_to_json(x)::text as data from (select ${pluginFields(users, 'u')}${withRole ? `, ${roleOf(roles)}` : ''} from ${UP.users} u where u.id = $1) x`, [id], { prepare: true });
  return rows[0]?.data ?? null;
}

/** A user id from a path segment (Strapi's numeric ids), or null. */
export function userId(segment: string | undefined): number | null {
  return segment !== undefined && /^\d{1,10}$/.test(segment) && Number(segment) >= 1 && Number(segment) <= 2147483647 ? Number(segment) : null;
}
