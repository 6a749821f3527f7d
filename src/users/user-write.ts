// A user's row written as Strapi's document service writes `plugin::users-permissions.user`: the user
// model's own checks, its role relation, the columns a project's extension adds, in one transaction that
// locks the username and email it sets and checks them again (src/users/identity-lock.ts). Shared by the
// native users routes (users-crud.ts) and their runs through a project's document middlewares
// (user-documents.ts), so that both write alike.
import type { Sql, TransactionSql } from 'postgres';
import type { RestContext } from '../rest/router.ts';
import type { Schema } from '../../compiler/schema.ts';
import { ApiError, fieldErrors } from '../../compiler/errors.ts';
import { newDocumentId } from '../db/document-id.ts';
import { UP } from '../auth/tables.ts';
import { hashPassword } from './password.ts';
import { validate, type Body } from './validate.ts';
import { addedColumns, writeAddedLinks } from './user-columns.ts';
import { lockIdentities } from './identity-lock.ts';

const L = UP.userRole;
const NOW = `date_trunc('milliseconds', now())`;
const appError = (message: string) => new ApiError(400, 'ApplicationError', message, {});

/** A role reference as Strapi's relation inputs take it: an id, a documentId, or `{connect: [{id | documentId}]}`. */
export type RoleRef = { id: number } | { documentId: string };

export function roleRef(v: unknown, required: boolean): RoleRef | null | undefined {
  // yup's errors: the path it reached (`role.disconnect`, `role.connect[0]` as its parts) and the value there.
  const fail = (message: string, path: string[] = ['role'], value?: unknown) => fieldErrors([{ path, message, name: 'ValidationError', ...(value !== undefined ? { value } : {}) }]);
  if (v === undefined || v === null) {
    if (required) throw fail('role is a required field');
    // A user always has a role: an update setting it to null is refused in yup's words (Strapi 5.54, checked live).
    if (v === null) throw fieldErrors([{ path: ['role'], message: 'role must be a `object` type, but the final value was: `null`.', name: 'ValidationError', value: null }]);
    return undefined;
  }
  const one = (x: unknown): RoleRef => {
    if (typeof x === 'number' && Number.isInteger(x)) return { id: x };
    if (typeof x === 'string' && /^\d+$/.test(x)) return { id: Number(x) };
    if (typeof x === 'string' && x) return { documentId: x };
    throw fail(`role must be a \`strapiID\` type, but the final value was: \`${JSON.stringify(x)}\`.`);
  };
  if (typeof v !== 'object' || Array.isArray(v)) return one(v);
  const r = v as Body;
  const entries = (list: unknown, key: 'connect' | 'disconnect'): RoleRef[] => {
    if (list === undefined) return [];
    if (!Array.isArray(list)) throw fail(`role.${key} must be a \`array\` type`, ['role', key], list);
    return list.map((e, i) => {
      const o = e && typeof e === 'object' ? e as Body : {};
      if (o.id != null) return one(typeof o.id === 'string' && !/^\d+$/.test(o.id) ? '' : o.id);
      if (o.documentId != null) return one(String(o.documentId));
      throw fail('Relation entry must include an id or documentId', ['role', key, String(i)], e);
    });
  };
  const connect = entries(r.connect, 'connect');
  const disconnect = entries(r.disconnect, 'disconnect');
  if (required && connect.length === 0) throw fail(r.connect === undefined ? 'role.connect is a required field' : 'Users must have a role', ['role', 'connect'], r.connect);
  if (!connect.length && disconnect.length) throw fail('Cannot remove role', ['role', 'disconnect'], r.disconnect);
  // A manyToOne keeps the last connected target.
  return connect.length ? connect[connect.length - 1] : null;
}

/**
 * The role row a reference names. One named by an id that is no role is refused as Strapi 5.54's entity
 * layer words it (checked live): on a create an ApplicationError; on an update (`update`: its body) the
 * relations store's validation error, carrying the data Strapi's validation saw (`value`: the body's keys
 * in order, a role id as `{set: [{id}]}`, the email lower-cased where emails are unique, then the document
 * service's `publishedAt`). A documentId that is none is refused as its document service does (findRole).
 */
export async function resolveRole(db: Sql, ref: RoleRef, update?: { body: Body; lowerEmail: boolean }): Promise<number> {
  const id = await findRole(db, ref);
  if (id === null) {
    if (!update) throw appError(MISSING_ROLE);
    const value: Body = {};
    for (const [k, v] of Object.entries(update.body)) {
      value[k] = k === 'role' && (typeof v === 'number' || typeof v === 'string') ? { set: [{ id: v }] }
        : k === 'email' && update.lowerEmail && typeof v === 'string' ? v.toLowerCase() : v;
    }
    value.publishedAt = new Date().toISOString();
    throw fieldErrors([{ path: [], message: MISSING_ROLE, name: 'ValidationError', value }]);
  }
  return id;
}

/** The relations store's error for a role id that names no role. */
export const MISSING_ROLE = '1 relation(s) of type plugin::users-permissions.role associated with this entity do not exist';

/** The role a reference names; null for an id that names none (a documentId that names none is Strapi's own error). */
export async function findRole(db: Sql, ref: RoleRef): Promise<number | null> {
  const rows = 'id' in ref
    ? await db.unsafe<Array<{ id: number }>>(`select id from ${UP.roles} where id = $1`, [ref.id > 2147483647 ? 0 : ref.id])
    : await db.unsafe<Array<{ id: number }>>(`select id from ${UP.roles} where document_id = $1 order by id limit 1`, [ref.documentId]);
  if (rows.length) return Number(rows[0].id);
  if ('id' in ref) return null;
  throw appError(`Document with id "${ref.documentId}", locale "null" not found`);
}

/** The attributes a body may set, checked as the user model's validator does. */
export interface UserWrite { username?: string; email?: string; password?: string; provider?: string; confirmed?: boolean; blocked?: boolean;
  resetPasswordToken?: string | null; confirmationToken?: string | null }

export function modelChecks(b: Body): UserWrite {
  // Strapi's entity validator echoes every value in `details`, the password included (checked live on
  // register and PUT /api/users/:id), unlike the plugin's own body schemas.
  validate(b, [
    // The model's email minLength (6) is never checked: the email validator's min(1) replaces it; a varchar
    // column's 255 characters are, but for the password, hashed before it is stored (checked live: a longer
    // username is `must be at most 255 characters`, a 300-character password is taken).
    { key: 'username', minLength: 3, maxLength: 255 }, { key: 'email', email: true, maxLength: 255 }, { key: 'password', minLength: 6 },
    { key: 'provider' }, { key: 'resetPasswordToken' }, { key: 'confirmationToken' },
  ]);
  for (const k of ['confirmed', 'blocked'] as const) {
    if (b[k] !== undefined && b[k] !== null && typeof b[k] !== 'boolean') {
      throw fieldErrors([{ path: [k], message: `${k} must be a \`boolean\` type, but the final value was: \`${JSON.stringify(b[k])}\`.`, name: 'ValidationError', value: b[k] }]);
    }
  }
  const out: UserWrite = {};
  for (const k of ['username', 'email', 'password', 'provider', 'resetPasswordToken', 'confirmationToken', 'confirmed', 'blocked'] as const) {
    // An empty password (allowed for users of other providers) leaves the stored one alone.
    if (b[k] !== undefined && !(k === 'password' && !b[k])) (out as Record<string, unknown>)[k] = b[k];
  }
  return out;
}

const COLUMNS: Record<keyof UserWrite, string> = {
  username: 'username', email: 'email', password: 'password', provider: 'provider', confirmed: 'confirmed', blocked: 'blocked',
  resetPasswordToken: 'reset_password_token', confirmationToken: 'confirmation_token',
};

/** A write's columns: the checked attributes (a new user's defaults first) and a project's added scalars of `d`. */
export async function userColumns(schema: Schema, w: UserWrite, d: Body, creating: boolean): Promise<Array<[string, unknown]>> {
  return [...await columnsOf(creating ? { confirmed: false, blocked: false, ...w } : w), ...addedColumns(schema, d, { withDefaults: creating })];
}

async function columnsOf(w: UserWrite): Promise<Array<[string, unknown]>> {
  const out: Array<[string, unknown]> = [];
  for (const [k, v] of Object.entries(w) as Array<[keyof UserWrite, unknown]>) {
    out.push([COLUMNS[k], k === 'password' && typeof v === 'string' ? await hashPassword(v) : k === 'email' && typeof v === 'string' ? v.toLowerCase() : v]);
  }
  return out;
}

export async function setRole(tx: TransactionSql, user: number, role: number): Promise<void> {
  await tx.unsafe(`delete from ${L.table} where ${L.user} = $1`, [user]);
  await tx.unsafe(`insert into ${L.table} (${L.user}, ${L.role}, ${L.order})
    select $1, $2, coalesce(max(${L.order}), 0) + 1 from ${L.table} where ${L.role} = $2`, [user, role]);
}


/** Checks again, under the identity locks, that nobody took the names meanwhile (throws the route's own error). */
export type Recheck = (tx: TransactionSql) => Promise<void>;

/**
 * Inserts the user with columns `cols` and role `role`, in one transaction under the locks of `names`
 * (`recheck` runs under them first), then the added links `b` sets (`only`: of these names alone). Its id.
 */
export async function insertUser(ctx: RestContext, cols: Array<[string, unknown]>, role: number, b: Body, names: unknown[], recheck: Recheck, only?: ReadonlySet<string>): Promise<number> {
  const id = await ctx.db.begin(async (tx) => {
    ctx.count(await lockIdentities(tx, names) + 1);
    await recheck(tx);
    const cs = cols.map(([c]) => c);
    const documentId = newDocumentId();
    const rows = await tx.unsafe<Array<{ id: number }>>(
      `insert into ${UP.users} (document_id, ${cs.join(', ')}, created_at, updated_at, published_at)
       values ($1, ${cs.map((_, i) => `$${i + 2}`).join(', ')}, ${NOW}, ${NOW}, ${NOW}) returning id`, [documentId, ...cols.map(([, x]) => x)] as never[]);
    const uid = Number(rows[0].id);
    await setRole(tx, uid, role);
    ctx.count(await writeAddedLinks(ctx.schema, tx, uid, documentId, b, true, only));
    return uid;
  });
  ctx.count(3);
  return id;
}

/** Updates user `id` (document `documentId`) as insertUser writes: columns, role when given, added links, one transaction. */
export async function updateUserRow(ctx: RestContext, id: number, documentId: string, cols: Array<[string, unknown]>, role: number | null, b: Body, names: unknown[], recheck: Recheck): Promise<void> {
  await ctx.db.begin(async (tx) => {
    ctx.count(await lockIdentities(tx, names));
    await recheck(tx);
    const sets = cols.map(([c], i) => `${c} = $${i + 2}`);
    // Strapi's user service stamps publishedAt again on every edit (a type without draft & publish).
    await tx.unsafe(`update ${UP.users} set ${[...sets, `updated_at = ${NOW}`, `published_at = ${NOW}`].join(', ')} where id = $1`, [id, ...cols.map(([, x]) => x)] as never[]);
    if (role !== null) await setRole(tx, id, role);
    ctx.count(await writeAddedLinks(ctx.schema, tx, id, documentId, b, false));
  });
  ctx.count(2);
}
