// Query parameters of users-permissions' `GET /users`, `/users/:id`, `/users/me` and `/users/count`, as
// Strapi 5.54 reads them (checked live): `filters`, `sort`, `fields`, `populate` (the role, and a role's
// permissions and users), `_q`, validated as the content API's (`Invalid key password`), and the
// database-query spelling of pagination: top-level `start`/`limit`, all users when there is no limit
// (`limit` -1 or 0 too); `pagination[…]`, `page`, `pageSize`, `status` and `locale` are ignored. The answer
// is Strapi's sanitized users: a bare array or object, no envelope; a populated role only for a caller
// that may read roles. One statement each, compiled (and cached) like any content-type read.
import type { ContentType, Schema } from '../../compiler/schema.ts';
import { Compiler, type QueryRewrite } from '../../compiler/index.ts';
import type { QueryValue } from '../../compiler/querystring.ts';
import { validation } from '../../compiler/errors.ts';
import type { Config } from '../../config.ts';
import type { RestContext } from '../rest/router.ts';
import { planRow } from '../rest/read.ts';
import type { Caller } from '../auth/permissions.ts';
import { usersPermissionsTypes, withTypes } from '../plugin-types.ts';

type Query = { [k: string]: QueryValue };
const ALL = 2147483647;

/** lodash's toNumber as Strapi's convertStart/LimitQueryParams use it (strings of digits, else NaN). */
function toNumber(v: QueryValue): number {
  if (typeof v !== 'string') return Number.NaN;
  const t = v.trim();
  return t === '' ? 0 : Number(t);
}

function offsetOf(q: Query): { start: number; limit: number } {
  let start = 0;
  let limit = ALL;
  if (q.start !== undefined) {
    start = toNumber(q.start);
    if (!Number.isInteger(start) || start < 0) throw validation(`convertStartQueryParams expected a positive integer got ${start}`);
  }
  if (q.limit !== undefined) {
    const n = toNumber(q.limit);
    if (!Number.isInteger(n) || n < -1) throw validation(`convertLimitQueryParams expected a positive integer got ${n}`);
    if (n > 0) limit = n;
  }
  return { start, limit };
}

/** The users routes' parameters as a content API list query (one page holding the asked window). */
const listRewrite: QueryRewrite = (q) => {
  const { start, limit } = offsetOf(q);
  const out: Query = {};
  for (const k of ['filters', 'sort', 'fields', 'populate', '_q'] as const) if (q[k] !== undefined) out[k] = q[k];
  out.pagination = { start: String(start), limit: String(limit), withCount: 'false' };
  return out;
};

/** One user by id: the id joins the filters (Strapi's `$and: [{id}, where]`), one row at most. */
const oneRewrite = (id: number): QueryRewrite => (q) => {
  const out = listRewrite(q);
  out.filters = q.filters === undefined ? { id: { $eq: String(id) } } : { $and: [{ id: { $eq: String(id) } }, q.filters] };
  out.pagination = { start: '0', limit: '1', withCount: 'false' };
  return out;
};

/**
 * `count`'s query as Strapi's validateQuery reads it before counting: sort, fields and populate are checked
 * (`sort=password` is `Invalid key password`, checked live), then left out of the count.
 */
const countCheckRewrite: QueryRewrite = (q) => {
  const out: Query = {};
  for (const k of ['filters', 'sort', 'fields', 'populate', '_q'] as const) if (q[k] !== undefined) out[k] = q[k];
  out.pagination = { start: '0', limit: '1', withCount: 'false' };
  return out;
};

/** `count`: the filters only, counted (the window is one row; its total is what is answered). */
const countRewrite: QueryRewrite = (q) => ({
  ...(q.filters !== undefined ? { filters: q.filters } : {}),
  ...(q._q !== undefined ? { _q: q._q } : {}),
  fields: ['id'], pagination: { start: '0', limit: '1', withCount: 'true' },
});

export class UsersQuery {
  private compiler: Compiler;
  private users: ContentType;

  constructor(schema: Schema, config: Config) {
    const t = usersPermissionsTypes(schema);
    this.users = t.users;
    // No default or maximum page: Strapi's users service queries the database without one.
    this.compiler = new Compiler(withTypes(schema, [t.roles, t.users, t.permissions]), { ...config.api.rest, defaultLimit: ALL, maxLimit: ALL, withCount: false, maxResponseSize: config.http.maxResponseSize,
      renderCache: false }); // the render cache holds the models' rows only
  }

  private async run(ctx: RestContext, caller: Caller, raw: string, rewrite: QueryRewrite, key: string): Promise<Array<Buffer | null>> {
    // The rewrite differs per id: the exact-text plan cache is keyed by it through the raw text.
    const plan = this.compiler.read(this.users, 'list', `${key}&${raw}`, undefined, ctx.auth.access(caller), rewrite);
    // On the primary: user writes announce no WAL position for replicas to wait for.
    return (await planRow(ctx, plan, ctx.primaryReads))!;
  }

  /** `GET /users`: a JSON array. */
  async list(ctx: RestContext, caller: Caller, raw: string): Promise<Buffer> {
    const row = await this.run(ctx, caller, raw, listRewrite, '');
    return Buffer.concat([Buffer.from('['), row[0] ?? Buffer.alloc(0), Buffer.from(']')]);
  }

  /** One user as asked, or null (Strapi answers 204 then). */
  async one(ctx: RestContext, caller: Caller, id: number, raw: string): Promise<Buffer | null> {
    const row = await this.run(ctx, caller, raw, oneRewrite(id), `__user=${id}`);
    return row[0] ?? null;
  }

  /** `GET /users/count`: the number of users the filters keep. */
  async count(ctx: RestContext, caller: Caller, raw: string): Promise<number> {
    // Compiled for its checks only (and cached by its text like any plan): nothing of it runs.
    this.compiler.read(this.users, 'list', `__countcheck&${raw}`, undefined, ctx.auth.access(caller), countCheckRewrite);
    const row = await this.run(ctx, caller, raw, countRewrite, '__count');
    return Number(String(row[1]));
  }
}
