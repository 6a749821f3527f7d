// users-permissions `/users` writes and count on Strapi's `up_users` and `up_users_role_lnk`, with
// Strapi 5.54's user controller checks (its yup body schemas, then uniqueness, then the user
// model's own rules: username ≥ 3, email ≥ 6, password ≥ 6 characters). Each write is one transaction,
// which locks the username and email it sets and checks them again (src/users/identity-lock.ts), and is
// announced before its answer, so a blocked, deleted or re-roled user's JWT is judged anew at once.
// With document middlewares, the write itself is Strapi's user service add/edit through them (user-documents.ts).
import type { Sql, TransactionSql } from 'postgres';
import type { RestContext } from '../rest/router.ts';
import type { Reply } from '../rest/reply.ts';
import { ApiError, fieldErrors, type FieldError } from '../../compiler/errors.ts';
import { UP } from '../auth/tables.ts';
import { FILES } from '../../compiler/layout.ts';
import { deleteMediaOf, ownsMedia } from '../../compiler/write-sql.ts';
import { usersPermissionsTypes } from '../plugin-types.ts';
import type { Config } from '../../config.ts';
import { readAdvanced } from './settings.ts';
import { userJson } from './user-json.ts';
import { validate, type Body } from './validate.ts';
import { announce, userWritten, USER_TABLES } from './announce.ts';
import { insertUser, modelChecks, resolveRole, findRole, MISSING_ROLE, roleRef, updateUserRow, userColumns, type RoleRef, type UserWrite } from './user-write.ts';
import { addUser, asApplicationError, editUser, sanitizedUser } from './user-documents.ts';

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

export async function createUser(ctx: RestContext, config: Config, b: Body, withRole: boolean): Promise<Reply> {
  const advanced = await readAdvanced(ctx.db, config.usersPermissions);
  ctx.count(1);
  // Strapi's createUserBodySchema (email, username, password, role): every field's errors at once.
  let ref: RoleRef | null | undefined;
  let roleIssues: FieldError[] = [];
  try { ref = roleRef(b.role, true); } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    roleIssues = ((e.details as { errors?: FieldError[] } | null)?.errors ?? []);
  }
  const v = validate(b, [{ key: 'email', required: true, email: true }, { key: 'username', required: true, minLength: 1 }, { key: 'password', required: true, minLength: 1 }],
    { keys: ['email', 'username', 'password', 'role'], extra: roleIssues, plugin: true });
  const taker = (db: Sql | TransactionSql, d: Body = b) => taken(db, d.username, advanced.unique_email ? d.email : null);
  const before = await taker(ctx.db);
  ctx.count(1);
  if (before.email) throw appError('Email already taken');
  // Strapi wraps what the user model's validator says in an ApplicationError here: its yup errors, the
  // relations store's and a taken username's (one validation: `2 errors occurred`, checked live).
  let w: UserWrite | null = null;
  let issues: string[] = [];
  try { w = modelChecks(b); } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    const listed = (e.details as { errors?: FieldError[] } | null)?.errors;
    issues = listed?.length ? listed.map((x) => x.message) : [e.message];
  }
  const role = await findRole(ctx.db, ref!);
  ctx.count(1);
  if (role === null) issues.push(MISSING_ROLE);
  if (before.username) issues.push('This attribute must be unique');
  if (issues.length || role === null || w === null) throw appError(issues.length === 1 ? issues[0] : `${issues.length} errors occurred`);
  const recheck = async (tx: TransactionSql, d: Body) => {
    const now = await taker(tx, d);
    if (now.email) throw appError('Email already taken');
    if (now.username) throw appError('This attribute must be unique');
  };
  const chain = ctx.userDocuments;
  if (chain) {
    // Strapi's controller passes the body on, email lower-cased, provider local; its service's errors,
    // a middleware's included, become an ApplicationError of their message.
    const data: Body = { ...b, email: String(b.email).toLowerCase(), provider: 'local' };
    let added: { id: number; result: unknown };
    try { added = await addUser(ctx, chain, data, recheck); } catch (e) { throw asApplicationError(e); }
    if (added.id) await announce(ctx, USER_TABLES);
    return { status: 201, body: sanitizedUser(added.result, withRole) };
  }
  const cols = await userColumns(ctx.schema, { ...w, provider: 'local' }, b, true);
  // Again under the locks: a write of the same name may have committed since the check above.
  const id = await insertUser(ctx, cols, role, b, [v.username, v.email], (tx) => recheck(tx, b));
  await announce(ctx, USER_TABLES);
  userWritten(ctx, 'entry.create', id);
  return { status: 201, body: (await userJson(ctx, id, withRole)) ?? 'null' };
}

export async function updateUser(ctx: RestContext, config: Config, id: number | null, b: Body, withRole: boolean): Promise<Reply> {
  const advanced = await readAdvanced(ctx.db, config.usersPermissions);
  const found = id === null ? [] : await ctx.db.unsafe<Array<{ provider: string | null; document_id: string }>>(`select provider, document_id from ${UP.users} where id = $1`, [id]);
  ctx.count(2);
  if (!found.length || id === null) throw new ApiError(404, 'NotFoundError', 'User not found', {});
  // Strapi's updateUserBodySchema: role, password, username, email (its strings: min(1), not nullable).
  const ref = roleRef(b.role, false);
  validate(b, [{ key: 'email', email: true, minLength: 1 }, { key: 'username', minLength: 1 }], { plugin: true });
  if (b.password !== undefined && b.password !== null && typeof b.password !== 'string') {
    throw fieldErrors([{ path: ['password'], message: 'Password must be at least 1 character', name: 'ValidationError', value: b.password }]);
  }
  if (found[0].provider === 'local' && 'password' in b && !b.password) throw new ApiError(400, 'ValidationError', 'password.notNull', {});
  const check = async (db: Sql | TransactionSql, d: Body = b) => {
    const email = advanced.unique_email ? str(d.email) : null;
    if (str(d.username) === null && email === null) return;
    const t = await taken(db, d.username, email, id);
    ctx.count(1);
    if (t.username) throw appError('Username already taken');
    if (t.email) throw appError('Email already taken');
  };
  await check(ctx.db);
  const chain = ctx.userDocuments;
  if (chain) {
    // Strapi's controller passes the body on (its email lower-cased when emails are unique).
    const data: Body = { ...b };
    if ('email' in b && advanced.unique_email && typeof b.email === 'string') data.email = b.email.toLowerCase();
    const result = await editUser(ctx, chain, id, data, { documentId: found[0].document_id, recheck: check, announce: true });
    return { status: 200, body: sanitizedUser(result, withRole) };
  }
  const w = modelChecks(b);
  const role = ref ? await resolveRole(ctx.db, ref, { body: b, lowerEmail: advanced.unique_email }) : null;
  const cols = await userColumns(ctx.schema, w, b, false);
  // Again under the locks of a new username or email: another write of it may have committed meanwhile.
  await updateUserRow(ctx, id, found[0].document_id, cols, role, b, [b.username, b.email], (tx) => check(tx));
  await announce(ctx, USER_TABLES);
  userWritten(ctx, 'entry.update', id);
  return { status: 200, body: (await userJson(ctx, id, withRole)) ?? 'null' };
}

export async function deleteUser(ctx: RestContext, id: number | null): Promise<Reply> {
  const before = id === null ? null : await userJson(ctx, id);
  ctx.count(1);
  // Strapi sends the deleted user, or nothing (Koa turns an empty body into 204) when there was none.
  if (before === null || id === null) return { status: 204, body: '' };
  // Strapi's database layer deletes the row's media links with it (recorded: role-data-cases); links and `_cmps`
  // entries go by their foreign keys, component rows stay, as Strapi leaves them.
  const users = usersPermissionsTypes(ctx.schema).users;
  const media = ownsMedia(users);
  await ctx.db.begin(async (tx) => {
    await tx.unsafe(`delete from ${UP.users} where id = $1`, [id]);
    if (media) await tx.unsafe(deleteMediaOf, [[id], users.uid]);
  });
  ctx.count(media ? 2 : 1);
  await announce(ctx, media ? [...USER_TABLES, FILES.related] : USER_TABLES);
  return { status: 200, body: before };
}
