// users-permissions `/users` writes and count on Strapi's `up_users` and `up_users_role_lnk`, with
// Strapi 5.54's user controller checks (its yup body schemas, then uniqueness, then the user
// model's own rules: username ≥ 3, email ≥ 6, password ≥ 6 characters). Each write is one transaction,
// which locks the username and email it sets and checks them again (src/users/identity-lock.ts), and is
// announced before its answer, so a blocked, deleted or re-roled user's JWT is judged anew at once.
import type { Sql, TransactionSql } from 'postgres';
import type { RestContext } from '../rest/router.ts';
import type { Reply } from '../rest/reply.ts';
import { ApiError } from '../../compiler/errors.ts';
import { newDocumentId } from '../db/document-id.ts';
import { UP } from '../auth/tables.ts';
import type { Config } from '../../config.ts';
import { hashPassword } from './password.ts';
import { readAdvanced } from './settings.ts';
import { userJson } from './user-json.ts';
import { validate, validationError, type Body } from './validate.ts';
import { addedColumns, writeAddedLinks } from './user-columns.ts';
import { lockIdentities } from './identity-lock.ts';
import { announce, userWritten, USER_TABLES } from './announce.ts';

const L = UP.userRole;
const NOW = `date_trunc('milliseconds', now())`;
const appError = (message: string) => new ApiError(400, 'ApplicationError', message, {});

interface Taken { username: boolean; email: boolean }
const str = (v: unknown) => (typeof v === 'string' ? v : null);

/**
 * Whether another user than `except` has exactly this username, or this email (stored lower-cased); a
 * value that is not a string is not checked. One statement, so that a writer racing another one is
 * answered as it would be after it (Strapi checks the email of a new user first, the username of an update).
 */
async function taken(db: Sql | TransactionSql, username: unknown, email: unknown, except = 0): Promise<Taken> {
  const [r] = await db.unsafe<Taken[]>(`select exists(select 1 from ${UP.users} where username = $1::text and id <> $3::int) as username,
    exists(select 1 from ${UP.users} where email = lower($2::text) and id <> $3::int) as email`, [str(username), str(email), except]);
  return r;
}

/** A role reference as Strapi's relation inputs take it: an id, a documentId, or `{connect: [{id | documentId}]}`. */
type RoleRef = { id: number } | { documentId: string };

function roleRef(v: unknown, required: boolean): RoleRef | null | undefined {
  const fail = (message: string) => validationError([{ path: ['role'], message, name: 'ValidationError' }]);
  if (v === undefined || v === null) { if (required) throw fail('role is a required field'); return undefined; }
  const one = (x: unknown): RoleRef => {
    if (typeof x === 'number' && Number.isInteger(x)) return { id: x };
    if (typeof x === 'string' && /^\d+$/.test(x)) return { id: Number(x) };
    if (typeof x === 'string' && x) return { documentId: x };
    throw fail(`role must be a \`strapiID\` type, but the final value was: \`${JSON.stringify(x)}\`.`);
  };
  if (typeof v !== 'object' || Array.isArray(v)) return one(v);
  const r = v as Body;
  const entries = (list: unknown): RoleRef[] => {
    if (list === undefined) return [];
    if (!Array.isArray(list)) throw fail('role.connect must be a `array` type');
    return list.map((e) => {
      const o = e && typeof e === 'object' ? e as Body : {};
      if (o.id != null) return one(typeof o.id === 'string' && !/^\d+$/.test(o.id) ? '' : o.id);
      if (o.documentId != null) return one(String(o.documentId));
      throw fail('Relation entry must include an id or documentId');
    });
  };
  const connect = entries(r.connect);
  const disconnect = entries(r.disconnect);
  if (required && connect.length === 0) throw fail('Users must have a role');
  if (!connect.length && disconnect.length) throw fail('Cannot remove role');
  // A manyToOne keeps the last connected target.
  return connect.length ? connect[connect.length - 1] : null;
}

async function resolveRole(db: Sql, ref: RoleRef): Promise<number> {
  const rows = 'id' in ref
    ? await db.unsafe<Array<{ id: number }>>(`select id from ${UP.roles} where id = $1`, [ref.id > 2147483647 ? 0 : ref.id])
    : await db.unsafe<Array<{ id: number }>>(`select id from ${UP.roles} where document_id = $1 order by id limit 1`, [ref.documentId]);
  if (!rows.length) throw appError(`Document with id "${'id' in ref ? ref.id : ref.documentId}", locale "null" not found`);
  return Number(rows[0].id);
}

/** The attributes a body may set, checked as the user model's validator does. */
interface UserWrite { username?: string; email?: string; password?: string; provider?: string; confirmed?: boolean; blocked?: boolean;
  resetPasswordToken?: string | null; confirmationToken?: string | null }

function modelChecks(b: Body): UserWrite {
  validate(b, [
    { key: 'username', minLength: 3 }, { key: 'email', minLength: 6, email: true }, { key: 'password', minLength: 6, secret: true },
    { key: 'provider' }, { key: 'resetPasswordToken', secret: true }, { key: 'confirmationToken', secret: true },
  ]);
  for (const k of ['confirmed', 'blocked'] as const) {
    if (b[k] !== undefined && b[k] !== null && typeof b[k] !== 'boolean') {
      throw validationError([{ path: [k], message: `${k} must be a \`boolean\` type, but the final value was: \`${JSON.stringify(b[k])}\`.`, name: 'ValidationError', value: b[k] }]);
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

async function columnsOf(w: UserWrite): Promise<Array<[string, unknown]>> {
  const out: Array<[string, unknown]> = [];
  for (const [k, v] of Object.entries(w) as Array<[keyof UserWrite, unknown]>) {
    out.push([COLUMNS[k], k === 'password' && typeof v === 'string' ? await hashPassword(v) : k === 'email' && typeof v === 'string' ? v.toLowerCase() : v]);
  }
  return out;
}

async function setRole(tx: TransactionSql, user: number, role: number): Promise<void> {
  await tx.unsafe(`delete from ${L.table} where ${L.user} = $1`, [user]);
  await tx.unsafe(`insert into ${L.table} (${L.user}, ${L.role}, ${L.order})
    select $1, $2, coalesce(max(${L.order}), 0) + 1 from ${L.table} where ${L.role} = $2`, [user, role]);
}

export async function createUser(ctx: RestContext, config: Config, b: Body, withRole: boolean): Promise<Reply> {
  const advanced = await readAdvanced(ctx.db, config.usersPermissions);
  ctx.count(1);
  // Strapi's createUserBodySchema (yup reports role, password, username, email in that order).
  const ref = roleRef(b.role, true)!;
  const v = validate(b, [{ key: 'password', required: true, secret: true }, { key: 'username', required: true }, { key: 'email', required: true, email: true }]);
  const taker = (db: Sql | TransactionSql) => taken(db, v.username, advanced.unique_email ? v.email : null);
  const before = await taker(ctx.db);
  ctx.count(1);
  if (before.email) throw appError('Email already taken');
  // Strapi wraps what the user model's validator says in an ApplicationError here.
  let w: UserWrite;
  try { w = modelChecks(b); } catch (e) { throw e instanceof ApiError ? appError(e.message) : e; }
  const role = await resolveRole(ctx.db, ref);
  ctx.count(1);
  if (before.username) throw appError('This attribute must be unique');
  const cols = [...await columnsOf({ confirmed: false, blocked: false, ...w, provider: 'local' }), ...addedColumns(ctx.schema, b, { withDefaults: true })];
  const id = await ctx.db.begin(async (tx) => {
    // Again under the locks: a write of the same name may have committed since the check above.
    ctx.count(await lockIdentities(tx, [v.username, v.email]) + 1);
    const now = await taker(tx);
    if (now.email) throw appError('Email already taken');
    if (now.username) throw appError('This attribute must be unique');
    const names = cols.map(([c]) => c);
    const documentId = newDocumentId();
    const rows = await tx.unsafe<Array<{ id: number }>>(
      `insert into ${UP.users} (document_id, ${names.join(', ')}, created_at, updated_at, published_at)
       values ($1, ${names.map((_, i) => `$${i + 2}`).join(', ')}, ${NOW}, ${NOW}, ${NOW}) returning id`, [documentId, ...cols.map(([, x]) => x)] as never[]);
    const uid = Number(rows[0].id);
    await setRole(tx, uid, role);
    ctx.count(await writeAddedLinks(ctx.schema, tx, uid, documentId, b, true));
    return uid;
  });
  ctx.count(3);
  await announce(ctx, USER_TABLES);
  userWritten(ctx, 'entry.create', id);
  return { status: 201, body: (await userJson(ctx, id, withRole)) ?? 'null' };
}

export async function updateUser(ctx: RestContext, config: Config, id: number | null, b: Body, withRole: boolean): Promise<Reply> {
  const advanced = await readAdvanced(ctx.db, config.usersPermissions);
  const found = id === null ? [] : await ctx.db.unsafe<Array<{ provider: string | null; document_id: string }>>(`select provider, document_id from ${UP.users} where id = $1`, [id]);
  ctx.count(2);
  if (!found.length || id === null) throw new ApiError(404, 'NotFoundError', 'User not found', {});
  // Strapi's updateUserBodySchema: role, password, username, email.
  const ref = roleRef(b.role, false);
  validate(b, [{ key: 'username' }, { key: 'email', email: true }]);
  if (b.password !== undefined && b.password !== null && typeof b.password !== 'string') {
    throw validationError([{ path: ['password'], message: 'Password must be at least 1 character', name: 'ValidationError' }]);
  }
  if (found[0].provider === 'local' && 'password' in b && !b.password) throw new ApiError(400, 'ValidationError', 'password.notNull', {});
  const check = async (db: Sql | TransactionSql) => {
    const email = advanced.unique_email ? str(b.email) : null;
    if (str(b.username) === null && email === null) return;
    const t = await taken(db, b.username, email, id);
    ctx.count(1);
    if (t.username) throw appError('Username already taken');
    if (t.email) throw appError('Email already taken');
  };
  await check(ctx.db);
  const w = modelChecks(b);
  const role = ref ? await resolveRole(ctx.db, ref) : null;
  const cols = [...await columnsOf(w), ...addedColumns(ctx.schema, b)];
  await ctx.db.begin(async (tx) => {
    // Again under the locks of a new username or email: another write of it may have committed meanwhile.
    ctx.count(await lockIdentities(tx, [b.username, b.email]));
    await check(tx);
    const sets = cols.map(([c], i) => `${c} = $${i + 2}`);
    // Strapi's user service stamps publishedAt again on every edit (a type without draft & publish).
    await tx.unsafe(`update ${UP.users} set ${[...sets, `updated_at = ${NOW}`, `published_at = ${NOW}`].join(', ')} where id = $1`, [id, ...cols.map(([, x]) => x)] as never[]);
    if (role !== null) await setRole(tx, id, role);
    ctx.count(await writeAddedLinks(ctx.schema, tx, id, found[0].document_id, b, false));
  });
  ctx.count(2);
  await announce(ctx, USER_TABLES);
  userWritten(ctx, 'entry.update', id);
  return { status: 200, body: (await userJson(ctx, id, withRole)) ?? 'null' };
}

export async function deleteUser(ctx: RestContext, id: number | null): Promise<Reply> {
  const before = id === null ? null : await userJson(ctx, id);
  ctx.count(1);
  // Strapi sends the deleted user, or nothing (Koa turns an empty body into 204) when there was none.
  if (before === null || id === null) return { status: 204, body: '' };
  await ctx.db.unsafe(`delete from ${UP.users} where id = $1`, [id]);
  ctx.count(1);
  await announce(ctx, USER_TABLES);
  return { status: 200, body: before };
}
