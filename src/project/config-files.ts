// A Strapi project's own configuration (issue 23): its `.env` and `config/{server,api,admin,plugins,
// middlewares,database}` files, read as Strapi reads them (the object or `({ env }) => …` forms, merged
// with `config/env/<NODE_ENV>/`), mapped onto this server's configuration. They sit under the
// environment: a variable this server reads still wins (config.ts applies them as overrides).
// What a file sets that has no meaning here is named once in the log, never fatal.
import { existsSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { loadConfig, projectLocation, type Config, type DeepPartial } from '../../config.ts';
import { loadEnvFile } from '../env-file.ts';
import { codeFiles, loadFile, projectSrc, installProjectModules } from './load.ts';
import { configValue, deepMerge, isObject } from './config-eval.ts';
import { postgresUrl } from '../db/url.ts';

type Env = Record<string, string | undefined>;
type Json = Record<string, unknown>;

export interface ProjectConfig {
  /** Onto config.ts's defaults, under the environment. */
  overrides: DeepPartial<Config>;
  /** The variables the project's `.env` added to the environment. */
  fromEnvFile: string[];
  /** `config/<file>: <key>` this server does not use (logged once at start). */
  ignored: string[];
  /** The files read. */
  files: string[];
}

const FILES = ['server', 'api', 'admin', 'plugins', 'middlewares', 'database'] as const;

function configFile(dir: string, name: string): string | null {
  return codeFiles(dir).find((f) => basename(f, extname(f)) === name) ?? null;
}

async function evaluate(file: string, src: string, env: Env): Promise<unknown> {
  return await configValue((await loadFile(file, src)).value, env);
}

/**
 * The project's configuration, or null when MODELS_DIR is no Strapi project (models only) or the project
 * has no `config/` folder. Fills `env` from the project's `.env` first (never replacing a variable set),
 * as Strapi does, since its config files read them.
 */
export async function readProjectConfig(modelsDir: string, env: Env): Promise<ProjectConfig | null> {
  const src = projectSrc(modelsDir);
  if (!src) return null;
  const root = dirname(src);
  const dir = join(root, 'config');
  if (!existsSync(dir)) return null;
  const fromEnvFile = loadEnvFile(root, env);
  installProjectModules();
  const nodeEnv = env.NODE_ENV || 'development';
  const values: Partial<Record<(typeof FILES)[number], unknown>> = {};
  const files: string[] = [];
  for (const name of FILES) {
    let value: unknown;
    for (const f of [configFile(dir, name), configFile(join(dir, 'env', nodeEnv), name)]) {
      if (!f) continue;
      files.push(f);
      value = deepMerge(value, await evaluate(f, src, env));
    }
    if (value !== undefined) values[name] = value;
  }
  const out: ProjectConfig = { overrides: {}, fromEnvFile, ignored: [], files };
  mapConfig(values, out, env);
  return out;
}

/**
 * The server's configuration with the project's files under it (when MODELS_DIR is a Strapi project and
 * PROJECT_CODE is not false): what startServer and the CLIs run with.
 */
export async function loadServerConfig(env: Env, argv: string[], overrides: DeepPartial<Config> = {}): Promise<{ config: Config; project: ProjectConfig | null }> {
  const where = projectLocation(env, argv, overrides);
  const project = where.projectCode ? await readProjectConfig(where.modelsDir, env) : null;
  return { config: loadConfig(env, argv, overrides, project?.overrides ?? {}), project };
}

/** Maps each file's keys onto config.ts; what has no place here goes to `ignored`. */
function mapConfig(v: Partial<Record<(typeof FILES)[number], unknown>>, out: ProjectConfig, env: Env): void {
  const o = out.overrides as Json;
  const set = (path: string, value: unknown) => {
    if (value === undefined) return;
    const keys = path.split('.');
    let at = o;
    for (const k of keys.slice(0, -1)) at = (at[k] ??= {}) as Json;
    at[keys.at(-1)!] = value;
  };
  const ignore = (file: string, key: string) => out.ignored.push(`config/${file}: ${key}`);
  const each = (file: string, obj: unknown, known: Record<string, (value: unknown) => void>, silent: string[] = []) => {
    if (!isObject(obj)) return;
    for (const [k, value] of Object.entries(obj)) {
      if (known[k]) known[k](value);
      else if (!silent.includes(k)) ignore(file, k);
    }
  };
  const int = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? Math.trunc(x) : typeof x === 'string' && /^\d+$/.test(x) ? Number(x) : undefined);
  const str = (x: unknown) => (typeof x === 'string' && x !== '' ? x : undefined);
  const bool = (x: unknown) => (typeof x === 'boolean' ? x : undefined);

  each('server', v.server, {
    host: (x) => set('host', str(x)),
    port: (x) => set('port', int(x)),
    url: (x) => set('publicUrl', str(x)),
    // Strapi 5: `proxy: true` or `{ koa: true }` trusts X-Forwarded-* (koa's app.proxy).
    proxy: (x) => set('proxy', typeof x === 'boolean' ? x : isObject(x) ? x.koa === true : undefined),
    webhooks: (x) => each('server', x, {
      defaultHeaders: (h) => set('webhooks.defaultHeaders', isObject(h) ? Object.fromEntries(Object.entries(h).map(([k, s]) => [k, String(s)])) : undefined),
    }, ['populateRelations']),
  }, ['app', 'cron', 'dirs', 'admin', 'logger', 'emitErrors', 'transfer', 'http']);

  each('api', v.api, {
    rest: (x) => each('api', x, {
      defaultLimit: (n) => set('api.rest.defaultLimit', int(n)),
      maxLimit: (n) => set('api.rest.maxLimit', int(n)),
      withCount: (b) => set('api.rest.withCount', bool(b)),
      strictParams: (b) => set('api.rest.strictParams', bool(b)),
    }),
    documents: (x) => each('api', x, {
      strictParams: (b) => set('api.documents.strictParams', bool(b)),
      strictRelations: (b) => set('api.documents.strictRelations', bool(b)),
    }),
  });

  // The admin panel is Strapi's; only the API tokens' salt concerns this server.
  each('admin', v.admin, {
    apiToken: (x) => each('admin', x, { salt: (s) => set('auth.apiTokenSalt', str(s)) }),
    secrets: (x) => each('admin', x, { encryptionKey: (s) => set('auth.encryptionKey', str(s)) }),
  }, ['auth', 'transfer', 'flags', 'serveAdminPanel', 'url', 'path', 'host', 'port', 'autoOpen', 'watchIgnoreFiles', 'rateLimit', 'forgotPassword', 'auditLogs', 'ai']);

  const plugins = isObject(v.plugins) ? v.plugins : {};
  // The GraphQL plugin's defaults where the project leaves them: the flat shape, and pages of 10
  // (@strapi/utils' pagination default, used when the plugin's `defaultLimit` is not set). Strapi 5.54's
  // `v4CompatibilityMode: true` keeps the flat shape too, only adding the deprecated `id`, `attributes`,
  // `data` and `meta` fields (recorded live: test/fixtures/users-ext-cases/v4); without it (the plugin's
  // default: `STRAPI_GRAPHQL_V4_COMPATIBILITY_MODE ?? false`, read for truthiness) an operation naming
  // them is refused. v4's Entity shape is GRAPHQL_SHAPE=v4's alone.
  const gql = isObject(plugins.graphql) && isObject(plugins.graphql.config) ? plugins.graphql.config : {};
  set('graphql.shape', 'v5');
  set('graphql.v4CompatibilityMode', Boolean(gql.v4CompatibilityMode ?? env.STRAPI_GRAPHQL_V4_COMPATIBILITY_MODE ?? false));
  if (gql.defaultLimit === undefined) set('graphql.defaultLimit', 10);
  for (const [name, entry] of Object.entries(plugins)) {
    const cfg = isObject(entry) ? entry.config : undefined;
    if (isObject(entry) && entry.enabled === false && name === 'graphql') set('graphql.shadowCRUD', false);
    if (name === 'graphql') {
      each('plugins', cfg, {
        endpoint: (x) => set('graphql.endpoint', str(x)),
        shadowCRUD: (x) => set('graphql.shadowCRUD', bool(x)),
        depthLimit: (x) => set('graphql.depthLimit', int(x)),
        amountLimit: (x) => set('graphql.amountLimit', int(x)),
        playgroundAlways: (x) => set('graphql.playgroundAlways', bool(x)),
        apolloServer: (x) => set('graphql.introspection', isObject(x) ? bool(x.introspection) : undefined),
        defaultLimit: (x) => set('graphql.defaultLimit', int(x)),
        // -1: no limit of the plugin's own (amountLimit still applies).
        maxLimit: (x) => set('graphql.maxLimit', (int(x) ?? 0) > 0 ? int(x) : undefined),
        v4CompatibilityMode: () => {},
      }, ['landingPage', 'generateArtifacts', 'artifacts', 'subscriptions']);
    } else if (name === 'users-permissions') {
      each('plugins', cfg, {
        jwtSecret: (x) => set('auth.jwtSecret', str(x)),
        jwt: (x) => set('auth.jwtExpiresIn', isObject(x) ? (typeof x.expiresIn === 'number' ? `${x.expiresIn}s` : str(x.expiresIn)) : undefined),
        // Strapi's compact(): empty names are dropped; anything but a list is none.
        register: (x) => set('usersPermissions.registerAllowedFields', isObject(x) && Array.isArray(x.allowedFields) ? x.allowedFields.filter((f) => f).map(String) : undefined),
      }, ['ratelimit', 'jwtManagement', 'sessions', 'layout', 'email']);
    } else if (name === 'upload') {
      each('plugins', cfg, {
        provider: (x) => set('upload.provider', x === 'local' ? 'local' : x === 'aws-s3' || x === '@strapi/provider-upload-aws-s3' ? 'aws-s3' : (ignore('plugins', `upload.provider ${String(x)}`), undefined)),
        providerOptions: (x) => uploadOptions(x, set),
        sizeLimit: (x) => set('upload.maxFileSize', int(x)),
        // Lists of anything but strings are Strapi's "Invalid configuration" at every upload: refused at the start here.
        security: (x) => {
          if (!isObject(x)) return;
          for (const k of ['allowedTypes', 'deniedTypes'] as const) {
            if (x[k] === undefined || x[k] === null) continue;
            if (!Array.isArray(x[k]) || !x[k].every((t: unknown) => typeof t === 'string')) throw new Error(`config/plugins: upload.security.${k} must be an array of strings`);
            set(`upload.security.${k}`, x[k]);
          }
        },
        breakpoints: (x) => {
          if (!isObject(x)) return;
          const sizes = Object.entries(x).map(([k, n]) => [k, int(n)] as const);
          if (sizes.some(([, n]) => n === undefined || n < 1)) throw new Error('config/plugins: upload.breakpoints must give each format a size in pixels');
          set('upload.breakpoints', Object.fromEntries(sizes));
        },
      }, ['actionOptions']);
    } else if (name === 'email') {
      each('plugins', cfg, {
        provider: (x) => set('email.provider', x === 'nodemailer' || x === '@strapi/provider-email-nodemailer' ? 'smtp' : (ignore('plugins', `email.provider ${String(x)}`), undefined)),
        providerOptions: (x) => {
          if (!isObject(x)) return;
          set('email.smtp.host', str(x.host));
          set('email.smtp.port', int(x.port));
          set('email.smtp.secure', bool(x.secure));
          if (isObject(x.auth)) { set('email.smtp.user', str(x.auth.user)); set('email.smtp.password', str(x.auth.pass)); }
        },
        settings: (x) => { if (isObject(x)) { set('email.from', str(x.defaultFrom)); set('email.replyTo', str(x.defaultReplyTo)); } },
      });
    } else if (name !== 'i18n' && name !== 'documentation' && name !== 'cloud') {
      ignore('plugins', name);
    }
  }

  if (Array.isArray(v.middlewares)) {
    const named = new Map<string, unknown>();
    for (const m of v.middlewares) {
      if (typeof m === 'string') named.set(m, undefined);
      else if (isObject(m) && typeof m.name === 'string') named.set(m.name, m.config);
    }
    // A Strapi middleware left out of the list does not run: its work is not done here either.
    set('http.cors.enabled', named.has('strapi::cors'));
    set('http.security.enabled', named.has('strapi::security'));
    each('middlewares', named.get('strapi::cors'), {
      origin: (x) => set('http.cors.origin', typeof x === 'string' ? x.split(',').map((s) => s.trim()) : Array.isArray(x) ? x.map(String) : (ignore('middlewares', 'strapi::cors origin (a function)'), undefined)),
      credentials: (x) => set('http.cors.credentials', bool(x)),
      headers: (x) => set('http.cors.headers', typeof x === 'string' ? x.split(',').map((s) => s.trim()) : Array.isArray(x) ? x.map(String) : undefined),
      methods: (x) => set('http.cors.methods', typeof x === 'string' ? x.split(',').map((s) => s.trim()) : Array.isArray(x) ? x.map(String) : undefined),
      maxAge: (x) => set('http.cors.maxAge', int(x)),
      expose: (x) => set('http.cors.expose', typeof x === 'string' ? x.split(',').map((s) => s.trim()) : Array.isArray(x) ? x.map(String) : undefined),
      keepHeaderOnError: (x) => set('http.cors.keepHeaderOnError', bool(x)),
    }, ['enabled']);
    each('middlewares', named.get('strapi::body'), {
      jsonLimit: (x) => set('http.maxBodySize', bytes(x)),
      formidable: (x) => set('upload.maxFileSize', isObject(x) ? int(x.maxFileSize) : undefined),
    }, ['formLimit', 'textLimit', 'includeUnparsed', 'multipart', 'patchKoa']);
  }

  const db = isObject(v.database) ? v.database.connection : undefined;
  if (isObject(db)) {
    const client = db.client;
    const c = db.connection;
    if (client !== 'postgres' && client !== 'pg' && client !== 'postgresql') {
      ignore('database', `client ${String(client)} (this server needs PostgreSQL: DATABASE_URL)`);
    } else if (isObject(c)) {
      const url = typeof c.connectionString === 'string' && c.connectionString ? c.connectionString : connectionUrl(c);
      if (url) set('databaseUrl', url);
      if (typeof c.schema === 'string' && c.schema !== 'public') ignore('database', `connection.schema ${c.schema} (only public)`);
    }
  }
}

/** koa-body's limits: a number of bytes or a string such as `1mb`. */
function bytes(x: unknown): number | undefined {
  if (typeof x === 'number') return Math.trunc(x);
  const m = typeof x === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(x) : null;
  if (!m) return undefined;
  const unit = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(m[2] ?? 'b').toLowerCase() as 'b'];
  return Math.floor(Number(m[1]) * unit);
}

function connectionUrl(c: Json): string | null {
  if (typeof c.host !== 'string' || !c.host) return null;
  const ssl = c.ssl && c.ssl !== 'false' ? (isObject(c.ssl) && c.ssl.rejectUnauthorized === false ? 'no-verify' : 'require') : null;
  return postgresUrl({
    host: c.host, port: c.port === undefined || c.port === null ? null : String(c.port), user: String(c.user ?? 'postgres'),
    password: c.password ? String(c.password) : null, database: String(c.database ?? 'strapi'), sslmode: ssl,
  });
}

function uploadOptions(x: unknown, set: (path: string, value: unknown) => void): void {
  if (!isObject(x)) return;
  const str = (s: unknown) => (typeof s === 'string' ? s : undefined);
  set('upload.providerOptions.baseUrl', str(x.baseUrl));
  set('upload.providerOptions.rootPath', str(x.rootPath));
  const s3 = isObject(x.s3Options) ? x.s3Options : null;
  if (!s3) return;
  if (isObject(s3.credentials)) {
    set('upload.providerOptions.s3Options.credentials.accessKeyId', str(s3.credentials.accessKeyId));
    set('upload.providerOptions.s3Options.credentials.secretAccessKey', str(s3.credentials.secretAccessKey));
  }
  set('upload.providerOptions.s3Options.region', str(s3.region));
  set('upload.providerOptions.s3Options.endpoint', str(s3.endpoint));
  if (typeof s3.forcePathStyle === 'boolean') set('upload.providerOptions.s3Options.forcePathStyle', s3.forcePathStyle);
  if (isObject(s3.params)) {
    set('upload.providerOptions.s3Options.params.Bucket', str(s3.params.Bucket));
    set('upload.providerOptions.s3Options.params.ACL', str(s3.params.ACL));
    if (typeof s3.params.signedUrlExpires === 'number') set('upload.providerOptions.s3Options.params.signedUrlExpires', s3.params.signedUrlExpires);
  }
}
