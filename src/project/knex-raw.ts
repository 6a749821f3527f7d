// `strapi.db.connection` as project code mostly uses it: knex's `raw(sql, bindings)` on the project's
// PostgreSQL (reports, aggregates, a statement the Query Engine cannot say). The statement is the
// project's own; only knex's placeholders become PostgreSQL's. Knex's query builder and its
// transactions name themselves: this server has no knex, and a half-emulated builder would answer wrong.
import type { RestContext } from '../rest/router.ts';
import { cacheTables, clearCacheSql } from '../../compiler/render-cache.ts';

/** What knex's raw answers on PostgreSQL (node-postgres' result), the parts a project reads. */
export interface RawResult {
  command: string;
  rowCount: number;
  rows: Array<Record<string, unknown>>;
  fields: Array<{ name: string; dataTypeID: number; tableID: number; columnID: number }>;
}


/** knex's identifier quoting: `a.b` → `"a"."b"`, `*` kept. */
function identifier(name: unknown): string {
  if (typeof name !== 'string') throw new TypeError(`strapi.db.connection.raw: an identifier binding must be a string, got ${typeof name}`);
  return name.split('.').map((part) => (part === '*' ? part : `"${part.replace(/"/g, '""')}"`)).join('.');
}

/**
 * knex's bindings → `$n` parameters: positional (`?` a value, `??` an identifier, `\?` a literal `?`) or
 * named from an object (`:name` a value, `:name:` an identifier; names the object lacks are left as written,
 * as knex leaves `::casts`). A list is one value, a PostgreSQL array (`= any(?)`), as node-postgres sends it.
 */
export function knexBindings(sql: string, bindings: unknown): { text: string; params: unknown[] } {
  const params: unknown[] = [];
  const value = (v: unknown): string => {
    if (v === undefined) throw new Error(`Undefined binding(s) detected when compiling RAW query: ${sql}`);
    params.push(v);
    return `$${params.length}`;
  };
  if (bindings === undefined || bindings === null) return { text: sql, params };
  if (Array.isArray(bindings)) {
    let i = 0;
    const text = sql.replace(/\\\?|\?\??/g, (m) => {
      if (m === '\\?') return '?';
      if (i >= bindings.length) throw new Error(`Expected ${i + 1} bindings, saw ${bindings.length}`);
      const b = bindings[i++];
      return m === '??' ? identifier(b) : value(b);
    });
    if (i !== bindings.length) throw new Error(`Expected ${i} bindings, saw ${bindings.length}`);
    return { text, params };
  }
  // One value that is no plain object (a string, a number, a Date) is a list of one, as knex takes it.
  const proto = typeof bindings === 'object' ? Object.getPrototypeOf(bindings) : undefined;
  if (proto !== Object.prototype && proto !== null) return knexBindings(sql, [bindings]);
  const named = bindings as Record<string, unknown>;
  const text = sql.replace(/\\?(:(\w+):(?=::)|:(\w+):(?!:)|:(\w+))/g, (m, _all, idCast: string | undefined, id: string | undefined, key: string | undefined) => {
    if (m.startsWith('\\')) return m.slice(1);
    const name = idCast ?? id ?? key!;
    if (!Object.prototype.hasOwnProperty.call(named, name)) return m;
    return idCast !== undefined || id !== undefined ? identifier(named[name]) : value(named[name]);
  });
  return { text, params };
}

/**
 * `strapi.db.connection`: a function as knex is (calling it would start a query builder), with `raw`.
 * Its other members name themselves through strapi.ts's strictObject, as the rest of `strapi` does.
 */
export function knexConnection(ctx: () => RestContext): ((table?: unknown) => never) & { raw(sql: string, bindings?: unknown): Promise<RawResult> } {
  const connection = (table?: unknown): never => {
    throw new TypeError(`strapi.db.connection(${typeof table === 'string' ? `'${table}'` : ''}) (knex's query builder) is not supported by this server (only strapi.db.connection.raw(sql, bindings) is)`);
  };
  const raw = async (sql: string, bindings?: unknown): Promise<RawResult> => {
    if (typeof sql !== 'string') throw new TypeError('strapi.db.connection.raw: the statement must be a string');
    const { text, params } = knexBindings(sql, bindings);
    const c = ctx();
    const result = await c.db.unsafe(text, params as never[], { prepare: false });
    // Anything but a read may have changed rows of any table, their `updated_at` kept: every render is
    // dropped (reads render live until the background refresh renders them again), every cache told.
    if (result.command !== 'SELECT') {
      const tables = cacheTables(c.schema);
      // (A cache table not made yet holds nothing to drop.)
      if (c.config.api.rest.renderCache) for (const t of tables) await c.db.unsafe(clearCacheSql(t)).catch(() => {});
      await c.onWrite?.(tables.map((t) => t.source));
    }
    return {
      command: result.command,
      rowCount: result.count ?? result.length,
      rows: [...result] as Array<Record<string, unknown>>,
      fields: (result.columns ?? []).map((col) => ({ name: col.name, dataTypeID: col.type, tableID: col.table, columnID: col.number })),
    };
  };
  return Object.assign(connection, { raw });
}
