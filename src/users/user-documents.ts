// users-permissions' user writes through a project's document service middlewares, as Strapi 5.54's user
// service makes them: `add` is `strapi.documents('plugin::users-permissions.user').create({ data,
// populate: ['role'] })`, `edit` finds the user's documentId then `update({ documentId, data, populate:
// ['role'] })` (recorded: test/fixtures/doc-middlewares/strapi-5.54-users.json). The chain's last step is
// this server's native write (user-write.ts: the model's checks, one transaction under the identity locks)
// of the `data` the middlewares passed on; it answers the entity Strapi's document service answers (every
// attribute, private ones included, `locale`, the populated role), which the routes sanitize.
import type { RestContext, UserDocumentChain } from '../rest/router.ts';
import { ApiError } from '../../compiler/errors.ts';
import { scalarOut } from '../../compiler/sql.ts';
import type { ScalarAttr } from '../../compiler/schema.ts';
import { UP } from '../auth/tables.ts';
import { usersPermissionsTypes } from '../plugin-types.ts';
import { pluginFields, timestamps } from './user-json.ts';
import { announce, userWritten, USER_TABLES } from './announce.ts';
import { insertUser, modelChecks, resolveRole, roleRef, updateUserRow, userColumns, type Recheck } from './user-write.ts';
import type { Body } from './validate.ts';

const L = UP.userRole;

/** `params.data` as the last step got it: an object, or nothing to write. */
function dataOf(params: Record<string, unknown>): Body {
  const d = params.data;
  return d && typeof d === 'object' && !Array.isArray(d) ? d as Body : {};
}

const PRIVATE = new Set(['password', 'resetPasswordToken', 'confirmationToken', 'locale']);
function entityFields(ctx: RestContext): string {
  const attrs = usersPermissionsTypes(ctx.schema).users.attributes.filter((a): a is ScalarAttr => a.kind === 'scalar');
  const scalars = attrs.map((a) => `${a.type === 'password' ? `u.${a.column}` : scalarOut(a, 'u')} as "${a.name}"`);
  return ['u.id', 'u.document_id as "documentId"', ...scalars, timestamps('u'), 'null::text as locale'].join(', ');
}

/** The entity Strapi's document service answers for user `id`: every attribute, `locale`, the populated role. */
export async function userEntity(ctx: RestContext, id: number): Promise<Record<string, unknown> | null> {
  const role = `(select row_to_json(r) from (select ${pluginFields(usersPermissionsTypes(ctx.schema).roles, 'r')}, null::text as locale from ${L.table} l join ${UP.roles} r on r.id = l.${L.role}
    where l.${L.user} = u.id order by l.id limit 1) r) as role`;
  const rows = await ctx.db.unsafe<Array<{ data: Record<string, unknown> }>>(
    `select row_to_json(x) as data from (select ${entityFields(ctx)}, ${role} from ${UP.users} u where u.id = $1) x`, [id]);
  ctx.count(1);
  return rows[0]?.data ?? null;
}

/**
 * What the chain answered, as Strapi's sanitizeOutput answers it: without private attributes and `locale`,
 * the role only when the caller may read roles; a key a middleware added is kept, in its place.
 */
export function sanitizedUser(result: unknown, withRole: boolean): string {
  if (!result || typeof result !== 'object' || Array.isArray(result)) return JSON.stringify(result ?? null);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(result as Record<string, unknown>)) {
    if (PRIVATE.has(k) || v === undefined) continue;
    if (k === 'role') {
      if (!withRole) continue;
      out.role = v && typeof v === 'object' ? Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([rk]) => rk !== 'locale')) : v;
      continue;
    }
    out[k] = v;
  }
  return JSON.stringify(out);
}

/** The model's checks and columns of a `data` (a new user: its defaults first). */
const columns = (ctx: RestContext, d: Body, creating: boolean) => userColumns(ctx.schema, modelChecks(d), d, creating);

/**
 * Strapi's user service `add` through the chain: the last step writes `data` (its role required), with
 * `recheck(tx, data)` under the locks of its username and email. The chain's answer (the entity, or what a
 * middleware made of it) and the id written (0: none). A new user changes nobody's permissions: the routes
 * announce it as their native writes do.
 */
export async function addUser(ctx: RestContext, chain: UserDocumentChain, data: Body, recheck: (tx: Parameters<Recheck>[0], d: Body) => Promise<void>): Promise<{ id: number; result: unknown }> {
  let id = 0;
  const result = await chain('create', { data, populate: ['role'] }, async (params) => {
    const d = dataOf(params);
    const cols = await columns(ctx, d, true);
    const role = await resolveRole(ctx.db, roleRef(d.role, true)!);
    ctx.count(1);
    id = await insertUser(ctx, cols, role, d, [d.username, d.email], (tx) => recheck(tx, d));
    return userEntity(ctx, id);
  });
  // Told once the write committed, whatever the chain did with its result afterwards.
  if (id) userWritten(ctx, 'entry.create', id);
  return { id, result };
}

/**
 * Strapi's user service `edit(id, data)` through the chain (`documentId`: the user's, which Strapi reads
 * first; read here when not given). Null when there is no such user, as Strapi's.
 */
export async function editUser(ctx: RestContext, chain: UserDocumentChain, id: number, data: Body,
  opts: { documentId?: string; recheck?: (tx: Parameters<Recheck>[0], d: Body) => Promise<void>; announce?: boolean } = {}): Promise<unknown> {
  let documentId = opts.documentId;
  if (documentId === undefined) {
    const rows = await ctx.db.unsafe<Array<{ document_id: string }>>(`select document_id from ${UP.users} where id = $1`, [id]);
    ctx.count(1);
    if (!rows.length) return null;
    documentId = rows[0].document_id;
  }
  let written = false;
  const result = await chain('update', { documentId, data, populate: ['role'] }, async (params) => {
    const d = dataOf(params);
    const ref = roleRef(d.role, false);
    const cols = await columns(ctx, d, false);
    const role = ref ? await resolveRole(ctx.db, ref, { body: d, lowerEmail: false }) : null;
    await updateUserRow(ctx, id, documentId!, cols, role, d, [d.username, d.email], (tx) => opts.recheck?.(tx, d) ?? Promise.resolve());
    written = true;
    return userEntity(ctx, id);
  });
  if (written) {
    // As the native routes: /users edits announce (a block, a role), the account flows' tokens and passwords do not.
    if (opts.announce) await announce(ctx, USER_TABLES);
    userWritten(ctx, 'entry.update', id);
  }
  return result;
}

/** Strapi's user controller `create` wraps whatever its service throws in an ApplicationError of its message. */
export function asApplicationError(e: unknown): unknown {
  if (e instanceof Error) return new ApiError(400, 'ApplicationError', e.message, {});
  return e;
}
