// The few services of Strapi's admin and i18n plugins that a project's bootstrap() calls to set up its
// data (a locale, an API token; the reference project's own src/index.js does both): i18n's `locales`,
// admin's `api-token` and `encryption`, and `strapi.db.query('admin::api-token')`. They write the rows
// Strapi's services write, in Strapi's tables; the admin panel's other services stay Strapi's.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Sql } from 'postgres';
import { API_TOKENS, CORE_STORE } from '../auth/tables.ts';
import { hashToken } from '../auth/permissions.ts';
import { insertToken } from '../auth/store.ts';
import { DEFAULT_LOCALE_SQL } from '../i18n/locales.ts';
import { newDocumentId } from '../db/document-id.ts';

type Row = Record<string, unknown>;
const NOW = `date_trunc('milliseconds', now())`;

/** The database at each call: project code may hold a service from register(), before the database is ready. */
const lazy = (db: () => Sql) => ({ unsafe: <T extends object[] = Row[]>(text: string, params?: unknown[]) => db().unsafe<T>(text, params as string[]) });

/** snake_case columns → Strapi's camelCase attribute names (the Query Engine's answer). */
const camel = (row: Row): Row => Object.fromEntries(Object.entries(row).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), v]));
const snake = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** i18n's `strapi.plugin('i18n').service('locales')`: the locale rows of i18n_locale and the default locale of the core store. */
export function localesService(db: () => Sql) {
  const sql = lazy(db);
  const one = async (where: string, value: unknown): Promise<Row | null> => {
    const [r] = await sql.unsafe<Row[]>(`select * from i18n_locale where ${where} = $1 order by id limit 1`, [value as string]);
    return r ? camel(r) : null;
  };
  const getDefaultLocale = async (): Promise<string | null> => {
    const [r] = await sql.unsafe<Array<{ code: string | null }>>(DEFAULT_LOCALE_SQL);
    return r?.code ?? null;
  };
  const setDefaultLocale = async ({ code }: { code: string }): Promise<void> => {
    const value = JSON.stringify(code);
    const done = await sql.unsafe(`update ${CORE_STORE.table} set value = $2 where key = $1`, [CORE_STORE.i18nDefaultLocale, value]);
    if (!done.count) await sql.unsafe(`insert into ${CORE_STORE.table} (key, value, type, environment, tag) values ($1, $2, 'string', null, null)`, [CORE_STORE.i18nDefaultLocale, value]);
  };
  return {
    find: async (): Promise<Row[]> => (await sql.unsafe<Row[]>(`select * from i18n_locale order by id`)).map(camel),
    findById: (id: number | string) => one('id', Number(id)),
    findByCode: (code: string) => one('code', String(code)),
    count: async (): Promise<number> => Number((await sql.unsafe<Array<{ n: number }>>(`select count(*)::int as n from i18n_locale`))[0].n),
    create: async (locale: { code: string; name?: string; isDefault?: boolean }): Promise<Row> => {
      const [r] = await sql.unsafe<Row[]>(`insert into i18n_locale (document_id, name, code, created_at, updated_at, published_at)
        values ($1, $2, $3, ${NOW}, ${NOW}, ${NOW}) returning *`, [newDocumentId(), locale.name ?? null, locale.code]);
      if (locale.isDefault) await setDefaultLocale({ code: locale.code });
      return camel(r);
    },
    delete: async ({ id }: { id: number }): Promise<Row | null> => {
      const [r] = await sql.unsafe<Row[]>(`delete from i18n_locale where id = $1 returning *`, [Number(id)]);
      return r ? camel(r) : null;
    },
    getDefaultLocale,
    setDefaultLocale,
  };
}

/** admin's `encryption` service: AES-256-GCM under sha256(admin.secrets.encryptionKey), Strapi's `v1:iv:data:tag` form. */
export function encryptionService(rawKey: string | null) {
  const key = () => (rawKey ? createHash('sha256').update(rawKey).digest() : null);
  return {
    encrypt(value: string): string | null {
      const k = key();
      if (!k) return null;
      const iv = randomBytes(16);
      const cipher = createCipheriv('aes-256-gcm', k, iv);
      const data = cipher.update(value, 'utf8', 'hex') + cipher.final('hex');
      return `v1:${iv.toString('hex')}:${data}:${cipher.getAuthTag().toString('hex')}`;
    },
    decrypt(value: string): string | null {
      const [version, iv, data, tag] = String(value).split(':');
      if (version !== 'v1') throw new Error(`Unsupported encryption version: ${version}`);
      if (!iv || !data || !tag) throw new Error('Invalid encrypted value format');
      const k = key();
      if (!k) return null;
      try {
        const d = createDecipheriv('aes-256-gcm', k, Buffer.from(iv, 'hex'));
        d.setAuthTag(Buffer.from(tag, 'hex'));
        return d.update(Buffer.from(data, 'hex'), undefined, 'utf8') + d.final('utf8');
      } catch { return null; }
    },
  };
}

const TOKEN_COLUMNS = ['id', 'document_id', 'name', 'description', 'type', 'access_key', 'encrypted_key', 'last_used_at', 'expires_at', 'lifespan', 'kind', 'created_at', 'updated_at', 'published_at'];

/** `where` of plain attribute equalities (what a bootstrap looks tokens up by), as SQL over the token table. */
function tokenWhere(where: unknown, params: unknown[]): string {
  if (where === undefined || where === null) return 'true';
  if (typeof where !== 'object' || Array.isArray(where)) throw new TypeError(`strapi.db.query('admin::api-token'): where must be an object`);
  const parts = Object.entries(where as Row).map(([k, v]) => {
    const col = snake(k);
    if (!TOKEN_COLUMNS.includes(col)) throw new TypeError(`strapi.db.query('admin::api-token'): no attribute ${k}`);
    if (v !== null && typeof v === 'object') throw new TypeError(`strapi.db.query('admin::api-token'): only plain values are supported in where (${k})`);
    if (v === null) return `${col} is null`;
    params.push(v);
    return `${col} = $${params.length}`;
  });
  return parts.length ? parts.join(' and ') : 'true';
}

function tokenSet(data: unknown, params: unknown[]): string[] {
  if (!data || typeof data !== 'object') throw new TypeError(`strapi.db.query('admin::api-token'): data must be an object`);
  return Object.entries(data as Row).map(([k, v]) => {
    const col = snake(k);
    if (!TOKEN_COLUMNS.includes(col) || col === 'id') throw new TypeError(`strapi.db.query('admin::api-token'): no writable attribute ${k}`);
    params.push(v instanceof Date ? v.toISOString() : v);
    return `${col} = $${params.length}`;
  });
}

/** `strapi.db.query('admin::api-token')`: findOne / findMany / update / delete by plain attribute values. */
export function apiTokenQuery(db: () => Sql) {
  const sql = lazy(db);
  const select = `select ${TOKEN_COLUMNS.join(', ')} from ${API_TOKENS.table}`;
  const run = async (text: string, params: unknown[]) => (await sql.unsafe<Row[]>(text, params as string[])).map(camel);
  return {
    findOne: async (q: { where?: unknown } = {}) => { const p: unknown[] = []; return (await run(`${select} where ${tokenWhere(q.where, p)} order by id limit 1`, p))[0] ?? null; },
    findMany: async (q: { where?: unknown } = {}) => { const p: unknown[] = []; return run(`${select} where ${tokenWhere(q.where, p)} order by id`, p); },
    count: async (q: { where?: unknown } = {}) => { const p: unknown[] = []; return Number((await sql.unsafe<Array<{ n: number }>>(`select count(*)::int as n from ${API_TOKENS.table} where ${tokenWhere(q.where, p)}`, p as string[]))[0].n); },
    update: async (q: { where?: unknown; data?: unknown }) => {
      const p: unknown[] = [];
      const set = tokenSet(q.data, p);
      const w = tokenWhere(q.where, p);
      return (await run(`with t as (select id from ${API_TOKENS.table} where ${w} order by id limit 1)
        update ${API_TOKENS.table} s set ${[...set, `updated_at = ${NOW}`].join(', ')} from t where s.id = t.id returning ${TOKEN_COLUMNS.map((c) => `s.${c}`).join(', ')}`, p))[0] ?? null;
    },
    delete: async (q: { where?: unknown } = {}) => {
      const p: unknown[] = [];
      return (await run(`with t as (select id from ${API_TOKENS.table} where ${tokenWhere(q.where, p)} order by id limit 1)
        delete from ${API_TOKENS.table} s using t where s.id = t.id returning ${TOKEN_COLUMNS.map((c) => `s.${c}`).join(', ')}`, p))[0] ?? null;
    },
  };
}

export type ApiTokenQuery = ReturnType<typeof apiTokenQuery>;

/** admin's `api-token` service: what a bootstrap creates tokens with (content-api tokens, Strapi's rows). */
export function apiTokenService(db: () => Sql, salt: string, encryption: ReturnType<typeof encryptionService>) {
  const hash = (accessKey: string): string => hashToken(accessKey, salt).toString('hex');
  const query = apiTokenQuery(db);
  return {
    hash,
    exists: async (where: Row = {}) => (await query.count({ where })) > 0,
    getByName: (name: string) => query.findOne({ where: { name } }),
    getById: (id: number) => query.findOne({ where: { id } }),
    list: () => query.findMany(),
    revoke: (id: number) => query.delete({ where: { id } }),
    async create(attributes: { name: string; description?: string; type?: string; lifespan?: number | null; permissions?: unknown }): Promise<Row> {
      if (attributes.permissions !== undefined && (attributes.type ?? 'read-only') === 'custom') {
        throw new TypeError(`strapi.service('admin::api-token').create: custom tokens' permissions are not supported by this server (create a full-access or read-only token, or use \`npm run token\`)`);
      }
      const accessKey = randomBytes(128).toString('hex');
      const id = await insertToken(db(), {
        name: attributes.name, description: attributes.description ?? '', type: attributes.type ?? 'read-only',
        accessKeyHash: hash(accessKey), encryptedKey: encryption.encrypt(accessKey), lifespan: attributes.lifespan ?? null,
      });
      return { ...await query.findOne({ where: { id } }), accessKey };
    },
  };
}
