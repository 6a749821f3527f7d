// users-permissions roles on Strapi's `up_roles`, `up_permissions` and their link tables: list, one role
// with its actions map, create, update (name, description and the full set of enabled actions), delete
// (users move to the public role). Answers as Strapi 5.54's role controller (`{roles}`, `{role}`, `{ok}`).
// Every write is announced before its answer: the next request on any node is judged by the new permissions.
import type { Sql, TransactionSql } from 'postgres';
import type { Schema } from '../../compiler/schema.ts';
import type { RestContext } from '../rest/router.ts';
import type { Reply } from '../rest/reply.ts';
import { ApiError } from '../../compiler/errors.ts';
import { newDocumentId } from '../db/document-id.ts';
import { UP } from '../auth/tables.ts';
import { FILES } from '../../compiler/layout.ts';
import { deleteMediaOf, ownsMedia } from '../../compiler/write-sql.ts';
import { pluginFields } from './user-json.ts';
import { usersPermissionsTypes } from '../plugin-types.ts';
import { actionMap, enabledActions } from './actions.ts';
import { validate, type Body } from './validate.ts';
import { announce, ROLE_TABLES, USER_TABLES } from './announce.ts';

const P = UP.permissionRole;
const L = UP.userRole;
const NOW = `date_trunc('milliseconds', now())`;
const roleNotFound = () => new ApiError(404, 'NotFoundError', 'Role not found', {});
const emptyBody = () => new ApiError(400, 'ValidationError', 'Request body cannot be empty', {});

/** A role id from the path, or null (Strapi's ids are PostgreSQL integers). */
export function roleId(segment: string | undefined): number | null {
  return segment !== undefined && /^\d{1,10}$/.test(segment) && Number(segment) >= 1 && Number(segment) <= 2147483647 ? Number(segment) : null;
}

const isEmpty = (b: Body) => Object.keys(b).length === 0;

/** lodash's snakeCase(deburr(toLower(name))): Strapi's type for a role created without one. */
export function roleType(name: string): string {
  return (name.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '').match(/[a-z]+|[0-9]+/g) ?? []).join('_');
}

export async function listRoles(ctx: RestContext): Promise<Reply> {
  const rows = await ctx.db.unsafe<Array<{ data: string | null }>>(
    // string_agg of row_to_json, not json_agg: json_agg separates its items with ", " and a newline.
    `select '[' || coalesce(string_agg(row_to_json(x)::text, ',' order by x.name, x.id), '') || ']' as data from (
       select ${pluginFields(usersPermissionsTypes(ctx.schema).roles, 'r', true)}, (select count(*)::int from ${L.table} l where l.${L.role} = r.id) as nb_users from ${UP.roles} r) x`, [], { prepare: true });
  ctx.count(1);
  return { status: 200, body: `{"roles":${rows[0]?.data ?? '[]'}}` };
}

export async function findRole(ctx: RestContext, schema: Schema, id: number | null): Promise<Reply> {
  if (id === null) throw roleNotFound();
  const rows = await ctx.db.unsafe<Array<{ data: string; actions: string[] }>>(
    `select row_to_json(x)::text as data, coalesce((select array_agg(p.action order by l.${P.order}, p.id) from ${P.table} l join ${UP.permissions} p on p.id = l.${P.permission}
       where l.${P.role} = $1 and p.action is not null), '{}') as actions
     from (select ${pluginFields(usersPermissionsTypes(schema).roles, 'r', true)} from ${UP.roles} r where r.id = $1) x`, [id], { prepare: true });
  ctx.count(1);
  if (!rows.length) throw roleNotFound();
  const role = JSON.parse(rows[0].data) as Record<string, unknown>;
  return { status: 200, body: JSON.stringify({ role: { ...role, permissions: actionMap(schema, new Set(rows[0].actions)) } }) };
}

function roleFields(b: Body, creating: boolean): { name?: string; description?: string | null; type?: string } {
  validate(b, [{ key: 'name', required: creating }, { key: 'type' }]);
  if (b.description !== undefined && b.description !== null && typeof b.description !== 'string') {
    throw new ApiError(400, 'ValidationError', `description must be a \`string\` type, but the final value was: \`${JSON.stringify(b.description)}\`.`,
      { errors: [{ path: ['description'], message: 'description must be a `string` type', name: 'ValidationError' }] });
  }
  return { name: b.name as string | undefined, description: b.description as string | null | undefined, type: b.type as string | undefined };
}

async function addPermissions(tx: TransactionSql, role: number, actions: string[]): Promise<void> {
  for (const action of actions) {
    // permission_ord: the new permission goes last in the role's list.
    await tx.unsafe(`with p as (insert into ${UP.permissions} (document_id, action, created_at, updated_at, published_at)
        values ($1, $2, ${NOW}, ${NOW}, ${NOW}) returning id)
      insert into ${P.table} (${P.permission}, ${P.role}, ${P.order})
      select p.id, $3, coalesce((select max(${P.order}) from ${P.table} where ${P.role} = $3), 0) + 1 from p`, [newDocumentId(), action, role]);
  }
}

export async function createRole(ctx: RestContext, b: Body): Promise<Reply> {
  if (isEmpty(b)) throw emptyBody();
  const f = roleFields(b, true);
  const actions = [...new Set(enabledActions(b.permissions))];
  await ctx.db.begin(async (tx) => {
    const [{ id }] = await tx.unsafe<Array<{ id: number }>>(
      `insert into ${UP.roles} (document_id, name, description, type, created_at, updated_at, published_at)
       values ($1, $2, $3, $4, ${NOW}, ${NOW}, ${NOW}) returning id`, [newDocumentId(), f.name!, f.description ?? null, f.type || roleType(f.name!)]);
    await addPermissions(tx, Number(id), actions);
  });
  ctx.count(1 + actions.length);
  await announce(ctx, ROLE_TABLES);
  return { status: 200, body: '{"ok":true}' };
}

export async function updateRole(ctx: RestContext, id: number | null, b: Body): Promise<Reply> {
  if (isEmpty(b)) throw emptyBody();
  const f = roleFields(b, false);
  if (id === null) throw roleNotFound();
  // Strapi replaces the role's actions with the enabled ones of the body: a body without `permissions`
  // leaves the role with none.
  const wanted = new Set(enabledActions(b.permissions));
  await ctx.db.begin(async (tx) => {
    const found = await tx.unsafe(`select id from ${UP.roles} where id = $1 for update`, [id]);
    if (!found.length) throw roleNotFound();
    const sets: string[] = [];
    const params: unknown[] = [id];
    if (f.name !== undefined) { params.push(f.name); sets.push(`name = $${params.length}`); }
    if (f.description !== undefined) { params.push(f.description); sets.push(`description = $${params.length}`); }
    if (sets.length) await tx.unsafe(`update ${UP.roles} set ${sets.join(', ')}, updated_at = ${NOW} where id = $1`, params as never[]);
    const current = await tx.unsafe<Array<{ id: number; action: string | null }>>(
      `select p.id, p.action from ${P.table} l join ${UP.permissions} p on p.id = l.${P.permission} where l.${P.role} = $1`, [id]);
    const stale = current.filter((p) => !p.action || !wanted.has(p.action)).map((p) => p.id);
    if (stale.length) await tx.unsafe(`delete from ${UP.permissions} where id = any($1::int[])`, [stale]);
    const have = new Set(current.map((p) => p.action));
    await addPermissions(tx, id, [...wanted].filter((a) => !have.has(a)));
  });
  ctx.count(4);
  await announce(ctx, ROLE_TABLES);
  return { status: 200, body: '{"ok":true}' };
}

export async function deleteRole(ctx: RestContext, id: number | null): Promise<Reply> {
  const pub = await ctx.db.unsafe<Array<{ id: number }>>(`select id from ${UP.roles} where type = 'public' order by id limit 1`);
  ctx.count(1);
  if (id !== null && pub.length && Number(pub[0].id) === id) throw new ApiError(400, 'ApplicationError', 'Cannot delete public role', {});
  if (id === null) throw roleNotFound();
  const roles = usersPermissionsTypes(ctx.schema).roles;
  const media = ownsMedia(roles);
  await ctx.db.begin(async (tx) => {
    const found = await tx.unsafe(`select id from ${UP.roles} where id = $1 for update`, [id]);
    if (!found.length) throw roleNotFound();
    if (pub.length) {
      // The role's users join the end of the public role's list, in their old order.
      await tx.unsafe(`update ${L.table} l set ${L.role} = $2, ${L.order} = n.ord from (
          select id, coalesce((select max(${L.order}) from ${L.table} where ${L.role} = $2), 0) + row_number() over (order by ${L.order}, id) as ord
          from ${L.table} where ${L.role} = $1) n where l.id = n.id`, [id, Number(pub[0].id)]);
    }
    await tx.unsafe(`delete from ${UP.permissions} where id in (select ${P.permission} from ${P.table} where ${P.role} = $1)`, [id]);
    await tx.unsafe(`delete from ${UP.roles} where id = $1`, [id]);
    // Its media links go with it, as Strapi's database layer deletes them (recorded: role-data-cases).
    if (media) await tx.unsafe(deleteMediaOf, [[id], roles.uid]);
  });
  ctx.count(media ? 6 : 5);
  // Its users moved to the public role.
  await announce(ctx, [...ROLE_TABLES, ...USER_TABLES, ...(media ? [FILES.related] : [])]);
  return { status: 200, body: '{"ok":true}' };
}

export function permissionsReply(schema: Schema): Reply {
  return { status: 200, body: JSON.stringify({ permissions: actionMap(schema) }) };
}
