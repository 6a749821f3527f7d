// Server configuration: typed defaults, overridden by environment variables and command-line flags,
// validated once at start so a bad value stops the server with a message naming the key.
import Type from 'typebox';
import { Compile } from 'typebox/compile';
import { resolve, join } from 'node:path';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { isIP } from 'node:net';
import { CUSTOM_FIELD_TYPES, CUSTOM_FIELD_UID } from './src/project/custom-field-types.ts';
import { postgresUrl } from './src/db/url.ts';

const Int = (min: number, max = Number.MAX_SAFE_INTEGER) => Type.Integer({ minimum: min, maximum: max });

export const ConfigSchema = Type.Object({
  port: Int(0, 65535),
  host: Type.String({ minLength: 1 }),
  env: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')]),
  /** Worker threads doing database work; 0 runs everything on the main thread. */
  workers: Int(0, 64),
  databaseUrl: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  /** Use the embedded PostgreSQL; null = only when no database is configured and not in production. */
  databaseEmbedded: Type.Union([Type.Boolean(), Type.Null()]),
  /** Holds the embedded PostgreSQL cluster (when no databaseUrl) and uploads. */
  dataDir: Type.String({ minLength: 1 }),
  modelsDir: Type.String({ minLength: 1 }),
  /** Run the project's own code (routes, middlewares, policies, controllers, services) when modelsDir is a Strapi project. */
  projectCode: Type.Boolean(),
  /**
   * Custom field uid → the type it stores, for a field whose plugin is not installed here (an installed
   * plugin's own registration is read from its code; see src/project/custom-fields.ts).
   */
  customFields: Type.Record(Type.String({ pattern: CUSTOM_FIELD_UID.source }), Type.Union(CUSTOM_FIELD_TYPES.map((t) => Type.Literal(t)))),
  logLevel: Type.Union([Type.Literal('debug'), Type.Literal('http'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error'), Type.Literal('silent')]),
  /**
   * Strapi's `server.proxy`: false ignores X-Forwarded-* headers; true trusts every hop; a number trusts
   * that many hops from this server; a list trusts the hops whose address matches (IPs or CIDRs).
   */
  proxy: Type.Union([Type.Boolean(), Int(0, 100), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })]),
  /** Prometheus /metrics; null = on except in production. */
  metrics: Type.Object({
    enabled: Type.Union([Type.Boolean(), Type.Null()]),
    /** When set, /metrics needs `Authorization: Bearer <token>`. */
    token: Type.String(),
  }),
  db: Type.Object({
    /** Connections per worker for content reads (each worker has its own pools). */
    poolSize: Int(1, 500),
    /** Connections per worker for everything else: writes, authentication, users-permissions, upload. */
    writePoolSize: Int(1, 500),
    /** Port of the embedded PostgreSQL; 0 picks a free one at start. */
    embeddedPort: Int(0, 65535),
    /** Allow schema sync to drop columns and tables that the models no longer have, and to narrow column types. */
    allowDestructive: Type.Boolean(),
    /**
     * Who owns the schema: `manage` migrates it to the models at start as Strapi's schema sync does,
     * `verify` never alters it and refuses to start when it does not fit; `auto` manages a database this
     * server created (or an empty one) and verifies one Strapi made.
     */
    schema: Type.Union([Type.Literal('auto'), Type.Literal('manage'), Type.Literal('verify')]),
    /** Log every SQL statement with its parameter count (debug aid; counts statements per request). */
    logQueries: Type.Boolean(),
    /** Milliseconds a statement may run before PostgreSQL cancels it (→ 503); 0 = no limit. */
    statementTimeout: Int(0, 3_600_000),
    /** PostgreSQL's plan_cache_mode for the server's connections (see src/db/connect.ts). */
    planCacheMode: Type.Union([Type.Literal('auto'), Type.Literal('force_generic_plan'), Type.Literal('force_custom_plan')]),
    /** PostgreSQL's JIT compilation on the server's connections (off: it compiled every populate statement anew). */
    jit: Type.Boolean(),
    /** PostgreSQL's random_page_cost on the server's connections (0: the database's own); see src/db/connect.ts. */
    randomPageCost: Type.Number({ minimum: 0, maximum: 1000 }),
    /** Tables estimated to hold at least this many rows are large: their filtered lists are planned with their values (0: never). */
    customPlanRows: Int(0, 2_000_000_000),
    /**
     * Milliseconds a statement may wait for a connection (the pool busy, the database unreachable or
     * restarting) before the request gets 503 with Retry-After; also each connection attempt's timeout.
     */
    connectionDeadline: Int(100, 60_000),
    /** Drop or cancel a read's statement when its client goes away (see readStatement() in src/db/connect.ts). */
    cancelOnDisconnect: Type.Boolean(),
    /**
     * Statements a read connection may have in flight when every connection is busy: light reads (their
     * own runs lately under 20 ms) are sent behind one another; 1 = one at a time.
     */
    readPipeline: Int(1, 64),
    /**
     * Connections per worker for light reads (a statement whose recent runs all took under 20 ms), pipelined
     * on them; heavier and new statements keep `poolSize`'s. 0 = light reads share `poolSize`'s connections.
     */
    lightPoolSize: Int(0, 500),
    /** Deep list reads run as two statements at once when no other read is running (src/rest/split-read.ts). */
    splitReads: Type.Boolean(),
    /** Read replicas (streaming standbys of the primary): reads that may go to one (see src/db/replicas.ts). */
    readUrls: Type.Array(Type.String({ minLength: 1 })),
    /** Bytes of WAL a replica may lag behind the primary and still take reads. */
    replicaMaxLag: Int(0),
    /** Milliseconds between checks of the replicas' health and replay position. */
    replicaCheckInterval: Int(20, 60_000),
  }),
  http: Type.Object({
    maxBodySize: Int(1024),
    /** Deepest nesting of arrays/objects in a JSON body or GraphQL variables (deeper → 400, before any work). */
    maxJsonDepth: Int(2, 10000),
    /** Largest REST or GraphQL response data in bytes (larger → 400 naming the limit; checked in PostgreSQL). */
    maxResponseSize: Int(1024),
    maxQueryStringLength: Int(64),
    /** Seconds to wait for in-flight requests on shutdown. */
    shutdownTimeout: Int(0, 600),
    /** One `http`-level log line per request (method, path, status, duration, bytes, request id). */
    accessLog: Type.Boolean(),
    /** ETag on GET responses and 304 for a matching If-None-Match. */
    etag: Type.Boolean(),
    compression: Type.Object({
      enabled: Type.Boolean(),
      /** Bodies smaller than this many bytes are sent as they are (compressing them costs more than it saves). */
      threshold: Int(0),
      gzipLevel: Int(1, 9),
      brotliQuality: Int(0, 11),
    }),
    /** Strapi's `strapi::cors` (koa-cors) options. */
    cors: Type.Object({
      enabled: Type.Boolean(),
      /** Allowed origins; `*` allows any (the request's Origin is reflected when credentials is on). config.ts may give a function instead. */
      origin: Type.Array(Type.String({ minLength: 1 })),
      credentials: Type.Boolean(),
      headers: Type.Array(Type.String({ minLength: 1 })),
      methods: Type.Array(Type.String({ minLength: 1 })),
      /** Seconds a browser may cache a preflight answer. */
      maxAge: Int(0),
      /** Response headers a page may read (Access-Control-Expose-Headers). */
      expose: Type.Array(Type.String({ minLength: 1 })),
      keepHeaderOnError: Type.Boolean(),
    }),
    /** Strapi's `strapi::security` (helmet) headers. */
    security: Type.Object({ enabled: Type.Boolean() }),
  }),
  api: Type.Object({
    rest: Type.Object({
      defaultLimit: Int(1, 10000),
      maxLimit: Int(1, 100000),
      withCount: Type.Boolean(),
      /** Deepest populate nesting a query may ask for. */
      maxPopulateDepth: Int(1, 20),
      /** Most rows returned for one populated to-many relation of one entry. */
      maxRelationRows: Int(1, 1000000),
      /** Most populated attributes in one read, all levels counted (more → 400, before the database works). */
      maxPopulate: Int(1, 100000),
      /** Compiled query plans kept per worker (LRU). */
      planCacheSize: Int(1, 1000000),
      /** Pages (LIMIT/OFFSET pairs) of one statement shape run as prepared statements; later ones unprepared. */
      preparedPages: Int(0, 10000),
      /** Largest number of parameters in one query string. */
      maxParameters: Int(1, 100000),
      /** Copy rows' default responses from the render cache in this server's own schema (see README). */
      renderCache: Type.Boolean(),
      /** Milliseconds between background refreshes of the render cache. */
      renderCacheRefresh: Int(50, 3_600_000),
      /** Unfiltered list totals from the row counters `npm run indexes -- --apply` installs (compiler/counts.ts). */
      rowCounters: Type.Boolean(),
      /** Strapi's `api.rest.strictParams`: an unknown top-level query key on a content-type route is a 400. */
      strictParams: Type.Boolean(),
    }),
    documents: Type.Object({
      /** Strapi's `api.documents.strictParams`: a status or locale (and, for project code, a page) the document service cannot use is a 400. */
      strictParams: Type.Boolean(),
      /** Strapi's `api.documents.strictRelations`: a required relation or media must hold something in an entry written as published. */
      strictRelations: Type.Boolean(),
    }),
  }),
  i18n: Type.Object({
    defaultLocale: Type.String({ minLength: 2 }),
    locales: Type.Array(Type.String({ minLength: 2 }), { minItems: 1 }),
  }),
  upload: Type.Object({
    /** Where the local provider keeps uploaded files; '' means `<dataDir>/uploads`. */
    folder: Type.String(),
    /** Largest accepted file in bytes (a bigger one is answered 413). */
    maxFileSize: Int(1),
    /** Strapi's upload `provider`: `local` (files in `folder`, served at /uploads) or `aws-s3` (see src/upload/s3.ts). */
    provider: Type.Union([Type.Literal('local'), Type.Literal('aws-s3')]),
    /** Strapi's upload `security`: MIME type patterns (`image/*`) a file must match / must not match; null = no list (src/upload/file-type.ts). */
    security: Type.Object({ allowedTypes: Type.Union([Type.Array(Type.String()), Type.Null()]), deniedTypes: Type.Union([Type.Array(Type.String()), Type.Null()]) }),
    /** Strapi's upload `breakpoints`: the responsive formats made of an image wider or taller than each (name → pixels); null = Strapi's large 1000, medium 750, small 500. */
    breakpoints: Type.Union([Type.Record(Type.String({ pattern: '^[A-Za-z0-9_-]+$' }), Int(1, 100000)), Type.Null()]),
    /** Strapi's `providerOptions` of @strapi/provider-upload-aws-s3 (used when provider is `aws-s3`). */
    providerOptions: Type.Object({
      /** A CDN or custom domain object URLs start with ('' = the bucket's own URL). */
      baseUrl: Type.String(),
      /** Key prefix of every object ('' = none). */
      rootPath: Type.String(),
      s3Options: Type.Object({
        /** Both '' = the AWS SDK's default chain (AWS_SECRET_ACCESS_KEY, a profile, an instance role). */
        credentials: Type.Object({ accessKeyId: Type.String(), secretAccessKey: Type.String() }),
        region: Type.String(),
        /** An S3-compatible service's URL ('' = AWS S3). */
        endpoint: Type.String(),
        /** null: path-style URLs with an endpoint, virtual-hosted on AWS. */
        forcePathStyle: Type.Union([Type.Boolean(), Type.Null()]),
        params: Type.Object({
          Bucket: Type.String(),
          /** Canned ACL of new objects ('' = none sent, for buckets with ACLs disabled); `private` signs read URLs. */
          ACL: Type.String(),
          /** Seconds a signed URL is valid. */
          signedUrlExpires: Int(1, 604800),
        }),
      }),
    }),
  }),
  auth: Type.Object({
    /** Until real permissions are configured, make every content-type readable and writable by anyone. */
    publicAccess: Type.Boolean(),
    /** `<content-type|*>:<action,...>;...` granted to unauthenticated callers. */
    publicPermissions: Type.String(),
    /** Same format, granted to users logged in with a JWT. */
    authenticatedPermissions: Type.String(),
    /** `name:type:accessKey,...` (type: full-access | read-only). */
    apiTokens: Type.String(),
    apiTokenSalt: Type.String({ minLength: 1 }),
    /** Strapi's admin.secrets.encryptionKey: API tokens a project's bootstrap creates keep their key encrypted with it (Strapi's admin shows it). */
    encryptionKey: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
    /** Secret for users-permissions JWTs (HS256); required in production. */
    jwtSecret: Type.Union([Type.String({ minLength: 16 }), Type.Null()]),
    jwtExpiresIn: Type.String({ minLength: 2 }),
    /** Auth requests allowed per minute per client address, route and email (users-permissions' ratelimit.max; 0 = unlimited). */
    authRateLimit: Int(0, 1000000),
    /**
     * Milliseconds a worker keeps roles, role permissions and stored API tokens read from the database
     * before reading them again: changes made in Strapi's admin apply within this time.
     */
    permissionsCacheTtl: Int(0, 3600000),
  }),
  /** Strapi's `server.url`: this API's absolute URL, for links in emails ('' = http://localhost:<port>). */
  publicUrl: Type.String(),
  /**
   * users-permissions `advanced` settings; null = as stored in Strapi's core store
   * (`plugin_users-permissions_advanced`, edited in Strapi's admin), or Strapi's default.
   */
  usersPermissions: Type.Object({
    emailConfirmation: Type.Union([Type.Boolean(), Type.Null()]),
    emailConfirmationRedirection: Type.Union([Type.String(), Type.Null()]),
    defaultRole: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
    emailResetPassword: Type.Union([Type.String(), Type.Null()]),
    uniqueEmail: Type.Union([Type.Boolean(), Type.Null()]),
    allowRegister: Type.Union([Type.Boolean(), Type.Null()]),
    /** `register.allowedFields` of the plugin's config: the user's attributes a registration may set besides username, email and password. */
    registerAllowedFields: Type.Array(Type.String()),
  }),
  /** Outgoing email (users-permissions confirmation and reset-password messages). */
  email: Type.Object({
    /** null = smtp when smtp.host is set, else log (a JSON log line per message). */
    provider: Type.Union([Type.Literal('log'), Type.Literal('smtp'), Type.Null()]),
    /** Default sender when a template names none. */
    from: Type.String(),
    replyTo: Type.String(),
    smtp: Type.Object({
      host: Type.String(),
      port: Int(1, 65535),
      user: Type.String(),
      password: Type.String(),
      /** TLS from the start (port 465); false = STARTTLS when the server offers it. */
      secure: Type.Boolean(),
    }),
  }),
  /** The response cache (src/cache/): final replies of reads, invalidated by what writes change. */
  cache: Type.Object({
    enabled: Type.Boolean(),
    /** Bytes of replies kept per worker (least recently used out first). */
    maxBytes: Int(1024),
    /** Milliseconds between checks for writes made outside this server (Strapi's admin, SQL). */
    watchInterval: Int(50, 3_600_000),
    /**
     * Tables up to this many bytes are also scanned at each check (row count, latest `updated_at`); larger
     * ones are watched by their highest id and PostgreSQL's statistics counters only (see README).
     */
    watchScanBytes: Int(0),
  }),
  /**
   * Webhooks (src/webhooks/): the rows of `strapi_webhooks` (re-read within auth.permissionsCacheTtl) are
   * called after each committed write, as Strapi 5 calls them.
   */
  webhooks: Type.Object({
    /** Strapi's `config/server` `webhooks.defaultHeaders`: sent with every webhook, under each row's own headers. */
    defaultHeaders: Type.Record(Type.String(), Type.String()),
    /** Milliseconds a receiver has to answer (Strapi: 10 s); then the call is given up and logged. */
    timeout: Int(1, 600_000),
    /** Calls in flight at once per worker thread (Strapi's webhook queue: 5). */
    concurrency: Int(1, 1000),
    /** Calls waiting per worker thread; beyond it new ones are dropped and logged (a receiver far too slow). */
    queueSize: Int(1, 1_000_000),
  }),
  graphql: Type.Object({
    /** Path of the GraphQL endpoint. */
    endpoint: Type.String({ pattern: '^/[A-Za-z0-9/_-]*$' }),
    /** Schema shape: v4 (Entity/attributes wrappers) or v5 (flat, documentId; Strapi 5's v4CompatibilityMode). */
    shape: Type.Union([Type.Literal('v4'), Type.Literal('v5')]),
    /** v5 shape: keep Strapi's v4CompatibilityMode fields (deprecated `id`, `attributes`, `data`, `meta`); off, operations naming them are refused as Strapi 5's are. */
    v4CompatibilityMode: Type.Boolean(),
    /** Generate queries and mutations from the models. */
    shadowCRUD: Type.Boolean(),
    /** Deepest selection nesting an operation may have (checked before execution). */
    depthLimit: Int(1, 1000),
    /** Largest pageSize/limit at any level (larger values are clamped). */
    amountLimit: Int(1, 100000),
    /** The plugin's `defaultLimit`: a list's page size when the query gives none; null = api.rest.defaultLimit (within amountLimit). */
    defaultLimit: Type.Union([Int(1, 100000), Type.Null()]),
    /** The plugin's `maxLimit`: larger page sizes are clamped to it (within amountLimit); null (or -1) = amountLimit. */
    maxLimit: Type.Union([Int(1, 100000), Type.Null()]),
    /** Largest operation cost (fields × list sizes, aliases each counted; src/graphql/cost.ts) run; more → 400. */
    maxCost: Int(1),
    /**
     * Seconds between reads of what the tables hold for the cost (the most rows one row links to, a table's
     * rows: src/graphql/fan-outs.ts), so a list is priced no larger than its data; 0 = by page sizes alone.
     */
    costStatsInterval: Int(0),
    /** Most lexical tokens a GraphQL document may have (graphql's parse maxTokens); more → 400 while parsing. */
    maxTokens: Int(1),
    /** Most selections a document may make once its fragments are expanded (src/graphql/size.ts); more → 400 before validation. */
    maxSelections: Int(1),
    /** Serve the playground on GET also in production. */
    playgroundAlways: Type.Boolean(),
    /** Allow introspection; null = everywhere but production. */
    introspection: Type.Union([Type.Boolean(), Type.Null()]),
    /** Extension module (.ts/.js) whose default export registers with the extension service; '' = none. */
    extensions: Type.String(),
  }),
});

type StaticConfig = Type.Static<typeof ConfigSchema>;
/**
 * A function deciding CORS per request origin (config.ts only; environment variables give lists): true
 * allows it (reflected), a string is sent as Access-Control-Allow-Origin, false refuses. It runs on the
 * main thread, so it may not be used by worker threads (they get a list; see cloneableConfig).
 */
export type CorsOriginFn = (origin: string, request: { method: string; path: string }) => boolean | string | Promise<boolean | string>;
type StaticCors = StaticConfig['http']['cors'];
export type CorsConfig = Omit<StaticCors, 'origin'> & { origin: StaticCors['origin'] | CorsOriginFn };
export type Config = Omit<StaticConfig, 'http'> & { http: Omit<StaticConfig['http'], 'cors'> & { cors: CorsConfig } };

export const defaults: Config = {
  port: 1337,
  host: '0.0.0.0',
  env: 'development',
  // Measured with `npm run bench` on 2 cores: inline handling beat 1 or 2 workers (PostgreSQL needs
  // those cores); with more cores, workers take the JSON and HTTP work off the main thread.
  workers: availableParallelism() <= 2 ? 0 : availableParallelism() - 1,
  databaseUrl: null,
  databaseEmbedded: null,
  dataDir: './data',
  modelsDir: './models',
  projectCode: true,
  customFields: {},
  // Strapi's default level: one access line per request.
  logLevel: 'http',
  proxy: false,
  metrics: { enabled: null, token: '' },
  db: { poolSize: 8, writePoolSize: 4, embeddedPort: 0, allowDestructive: false, schema: 'auto', logQueries: false, statementTimeout: 30_000, planCacheMode: 'force_generic_plan', jit: false, randomPageCost: 1.1, customPlanRows: 10_000, connectionDeadline: 2000, cancelOnDisconnect: true, readPipeline: 8, lightPoolSize: 2, splitReads: true, readUrls: [], replicaMaxLag: 16 * 1024 * 1024, replicaCheckInterval: 200 },
  http: {
    maxBodySize: 1024 * 1024, maxJsonDepth: 64, maxResponseSize: 16 * 1024 * 1024, maxQueryStringLength: 16 * 1024, shutdownTimeout: 10, accessLog: true, etag: true,
    // Levels chosen by measurement (README, "Compression"): the cheapest settings; brotli 1 is both
    // smaller and faster than gzip 1 on JSON, and higher levels cost throughput on a CPU-bound node.
    compression: { enabled: true, threshold: 1024, gzipLevel: 1, brotliQuality: 1 },
    // Strapi's strapi::cors defaults.
    cors: {
      enabled: true, origin: ['*'], credentials: true,
      headers: ['Content-Type', 'Authorization', 'Origin', 'Accept'],
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'],
      maxAge: 31536000, expose: [], keepHeaderOnError: true,
    },
    security: { enabled: true },
  },
  api: {
    rest: {
      defaultLimit: 25, maxLimit: 100, withCount: true, maxPopulateDepth: 6, maxRelationRows: 1000, maxPopulate: 250,
      planCacheSize: 2000, preparedPages: 8, maxParameters: 1000, renderCache: true, renderCacheRefresh: 1000, rowCounters: true, strictParams: false,
    },
    documents: { strictParams: false, strictRelations: false },
  },
  i18n: { defaultLocale: 'en', locales: ['en', 'fr'] },
  upload: {
    folder: '', maxFileSize: 200 * 1024 * 1024, provider: 'local', security: { allowedTypes: null, deniedTypes: null },
    breakpoints: null,
    providerOptions: {
      baseUrl: '', rootPath: '',
      s3Options: {
        credentials: { accessKeyId: '', secretAccessKey: '' }, region: '', endpoint: '', forcePathStyle: null,
        // Strapi's provider sends `public-read` unless told otherwise; signed URLs last 15 minutes.
        params: { Bucket: '', ACL: 'public-read', signedUrlExpires: 15 * 60 },
      },
    },
  },
  auth: {
    publicAccess: false,
    publicPermissions: '',
    authenticatedPermissions: '',
    apiTokens: '',
    apiTokenSalt: 'change-me-api-token-salt',
    encryptionKey: null,
    jwtSecret: null,
    jwtExpiresIn: '30d',
    authRateLimit: 10,
    permissionsCacheTtl: 5000,
  },
  publicUrl: '',
  usersPermissions: {
    emailConfirmation: null, emailConfirmationRedirection: null, defaultRole: null, emailResetPassword: null, uniqueEmail: null, allowRegister: null,
    registerAllowedFields: [],
  },
  email: { provider: null, from: '', replyTo: '', smtp: { host: '', port: 587, user: '', password: '', secure: false } },
  cache: { enabled: true, maxBytes: 64 * 1024 * 1024, watchInterval: 1000, watchScanBytes: 8 * 1024 * 1024 },
  webhooks: { defaultHeaders: {}, timeout: 10_000, concurrency: 5, queueSize: 10_000 },
  graphql: {
    endpoint: '/graphql', shape: 'v4', v4CompatibilityMode: true, shadowCRUD: true, depthLimit: 10, amountLimit: 100, defaultLimit: null, maxLimit: null, maxCost: 1000000, costStatsInterval: 60, maxTokens: 15000, maxSelections: 10000, playgroundAlways: false, introspection: null, extensions: '',
  },
};

/** Environment variable → config path, with how to read its text. */
type EnvKind = 'int' | 'number' | 'bool' | 'string' | 'list' | 'proxy' | 'headers' | 'customFields';
const ENV: Array<[string, string, EnvKind]> = [
  ['PORT', 'port', 'int'],
  ['HOST', 'host', 'string'],
  ['NODE_ENV', 'env', 'string'],
  ['WORKERS', 'workers', 'int'],
  ['DATABASE_URL', 'databaseUrl', 'string'],
  ['DATA_DIR', 'dataDir', 'string'],
  ['MODELS_DIR', 'modelsDir', 'string'],
  ['PROJECT_CODE', 'projectCode', 'bool'],
  ['CUSTOM_FIELDS', 'customFields', 'customFields'],
  ['LOG_LEVEL', 'logLevel', 'string'],
  ['DB_POOL_SIZE', 'db.poolSize', 'int'],
  ['DB_WRITE_POOL_SIZE', 'db.writePoolSize', 'int'],
  ['DB_PORT', 'db.embeddedPort', 'int'],
  ['ALLOW_DESTRUCTIVE_SCHEMA', 'db.allowDestructive', 'bool'],
  ['DATABASE_SCHEMA', 'db.schema', 'string'],
  ['LOG_QUERIES', 'db.logQueries', 'bool'],
  ['DB_STATEMENT_TIMEOUT', 'db.statementTimeout', 'int'],
  ['DB_PLAN_CACHE_MODE', 'db.planCacheMode', 'string'],
  ['DB_CUSTOM_PLAN_ROWS', 'db.customPlanRows', 'int'],
  ['DB_RANDOM_PAGE_COST', 'db.randomPageCost', 'number'],
  ['DB_JIT', 'db.jit', 'bool'],
  ['DB_CONNECTION_DEADLINE', 'db.connectionDeadline', 'int'],
  ['DB_CANCEL_ON_DISCONNECT', 'db.cancelOnDisconnect', 'bool'],
  ['DB_READ_PIPELINE', 'db.readPipeline', 'int'],
  ['DB_LIGHT_POOL_SIZE', 'db.lightPoolSize', 'int'],
  ['DB_SPLIT_READS', 'db.splitReads', 'bool'],
  ['DATABASE_READ_URL', 'db.readUrls', 'list'],
  ['DB_REPLICA_MAX_LAG', 'db.replicaMaxLag', 'int'],
  ['DB_REPLICA_CHECK_INTERVAL', 'db.replicaCheckInterval', 'int'],
  ['MAX_BODY_SIZE', 'http.maxBodySize', 'int'],
  ['MAX_JSON_DEPTH', 'http.maxJsonDepth', 'int'],
  ['MAX_RESPONSE_SIZE', 'http.maxResponseSize', 'int'],
  ['REST_MAX_POPULATE', 'api.rest.maxPopulate', 'int'],
  ['MAX_QUERY_STRING_LENGTH', 'http.maxQueryStringLength', 'int'],
  ['SHUTDOWN_TIMEOUT', 'http.shutdownTimeout', 'int'],
  ['ACCESS_LOG', 'http.accessLog', 'bool'],
  ['ETAG', 'http.etag', 'bool'],
  ['COMPRESSION', 'http.compression.enabled', 'bool'],
  ['COMPRESSION_THRESHOLD', 'http.compression.threshold', 'int'],
  ['COMPRESSION_GZIP_LEVEL', 'http.compression.gzipLevel', 'int'],
  ['COMPRESSION_BROTLI_QUALITY', 'http.compression.brotliQuality', 'int'],
  ['CORS_ENABLED', 'http.cors.enabled', 'bool'],
  ['CORS_ORIGIN', 'http.cors.origin', 'list'],
  ['CORS_CREDENTIALS', 'http.cors.credentials', 'bool'],
  ['CORS_HEADERS', 'http.cors.headers', 'list'],
  ['CORS_METHODS', 'http.cors.methods', 'list'],
  ['CORS_MAX_AGE', 'http.cors.maxAge', 'int'],
  ['CORS_EXPOSE', 'http.cors.expose', 'list'],
  ['SECURITY_HEADERS', 'http.security.enabled', 'bool'],
  ['PROXY', 'proxy', 'proxy'],
  ['PROXY_TRUST', 'proxy', 'list'],
  ['METRICS_ENABLED', 'metrics.enabled', 'bool'],
  ['METRICS_TOKEN', 'metrics.token', 'string'],
  ['DATABASE_EMBEDDED', 'databaseEmbedded', 'bool'],
  ['REST_DEFAULT_LIMIT', 'api.rest.defaultLimit', 'int'],
  ['REST_MAX_LIMIT', 'api.rest.maxLimit', 'int'],
  ['REST_MAX_POPULATE_DEPTH', 'api.rest.maxPopulateDepth', 'int'],
  ['REST_MAX_RELATION_ROWS', 'api.rest.maxRelationRows', 'int'],
  ['PLAN_CACHE_SIZE', 'api.rest.planCacheSize', 'int'],
  ['PREPARED_PAGES', 'api.rest.preparedPages', 'int'],
  ['RENDER_CACHE', 'api.rest.renderCache', 'bool'],
  ['RENDER_CACHE_REFRESH', 'api.rest.renderCacheRefresh', 'int'],
  ['ROW_COUNTERS', 'api.rest.rowCounters', 'bool'],
  ['REST_STRICT_PARAMS', 'api.rest.strictParams', 'bool'],
  ['DOCUMENTS_STRICT_PARAMS', 'api.documents.strictParams', 'bool'],
  ['DOCUMENTS_STRICT_RELATIONS', 'api.documents.strictRelations', 'bool'],
  ['DEFAULT_LOCALE', 'i18n.defaultLocale', 'string'],
  ['LOCALES', 'i18n.locales', 'list'],
  ['UPLOAD_DIR', 'upload.folder', 'string'],
  ['UPLOAD_MAX_FILE_SIZE', 'upload.maxFileSize', 'int'],
  ['UPLOAD_PROVIDER', 'upload.provider', 'string'],
  ['UPLOAD_ALLOWED_TYPES', 'upload.security.allowedTypes', 'list'],
  ['UPLOAD_DENIED_TYPES', 'upload.security.deniedTypes', 'list'],
  ['AWS_ACCESS_KEY_ID', 'upload.providerOptions.s3Options.credentials.accessKeyId', 'string'],
  ['AWS_ACCESS_SECRET', 'upload.providerOptions.s3Options.credentials.secretAccessKey', 'string'],
  ['AWS_REGION', 'upload.providerOptions.s3Options.region', 'string'],
  ['AWS_ENDPOINT', 'upload.providerOptions.s3Options.endpoint', 'string'],
  ['AWS_FORCE_PATH_STYLE', 'upload.providerOptions.s3Options.forcePathStyle', 'bool'],
  ['AWS_BUCKET', 'upload.providerOptions.s3Options.params.Bucket', 'string'],
  ['AWS_ACL', 'upload.providerOptions.s3Options.params.ACL', 'string'],
  ['AWS_SIGNED_URL_EXPIRES', 'upload.providerOptions.s3Options.params.signedUrlExpires', 'int'],
  ['CDN_URL', 'upload.providerOptions.baseUrl', 'string'],
  ['CDN_ROOT_PATH', 'upload.providerOptions.rootPath', 'string'],
  ['PUBLIC_ACCESS', 'auth.publicAccess', 'bool'],
  ['PUBLIC_PERMISSIONS', 'auth.publicPermissions', 'string'],
  ['AUTHENTICATED_PERMISSIONS', 'auth.authenticatedPermissions', 'string'],
  ['API_TOKENS', 'auth.apiTokens', 'string'],
  ['API_TOKEN_SALT', 'auth.apiTokenSalt', 'string'],
  ['ENCRYPTION_KEY', 'auth.encryptionKey', 'string'],
  ['JWT_SECRET', 'auth.jwtSecret', 'string'],
  ['JWT_EXPIRES_IN', 'auth.jwtExpiresIn', 'string'],
  ['AUTH_RATE_LIMIT', 'auth.authRateLimit', 'int'],
  ['PERMISSIONS_CACHE_TTL', 'auth.permissionsCacheTtl', 'int'],
  ['PUBLIC_URL', 'publicUrl', 'string'],
  ['UP_EMAIL_CONFIRMATION', 'usersPermissions.emailConfirmation', 'bool'],
  ['UP_EMAIL_CONFIRMATION_REDIRECTION', 'usersPermissions.emailConfirmationRedirection', 'string'],
  ['UP_DEFAULT_ROLE', 'usersPermissions.defaultRole', 'string'],
  ['UP_EMAIL_RESET_PASSWORD', 'usersPermissions.emailResetPassword', 'string'],
  ['UP_UNIQUE_EMAIL', 'usersPermissions.uniqueEmail', 'bool'],
  ['UP_ALLOW_REGISTER', 'usersPermissions.allowRegister', 'bool'],
  ['UP_REGISTER_ALLOWED_FIELDS', 'usersPermissions.registerAllowedFields', 'list'],
  ['EMAIL_PROVIDER', 'email.provider', 'string'],
  ['EMAIL_FROM', 'email.from', 'string'],
  ['EMAIL_REPLY_TO', 'email.replyTo', 'string'],
  ['SMTP_HOST', 'email.smtp.host', 'string'],
  ['SMTP_PORT', 'email.smtp.port', 'int'],
  ['SMTP_USER', 'email.smtp.user', 'string'],
  ['SMTP_PASSWORD', 'email.smtp.password', 'string'],
  ['SMTP_SECURE', 'email.smtp.secure', 'bool'],
  ['GRAPHQL_ENDPOINT', 'graphql.endpoint', 'string'],
  ['GRAPHQL_SHAPE', 'graphql.shape', 'string'],
  ['GRAPHQL_V4_COMPATIBILITY_MODE', 'graphql.v4CompatibilityMode', 'bool'],
  ['GRAPHQL_SHADOW_CRUD', 'graphql.shadowCRUD', 'bool'],
  ['GRAPHQL_DEPTH_LIMIT', 'graphql.depthLimit', 'int'],
  ['GRAPHQL_AMOUNT_LIMIT', 'graphql.amountLimit', 'int'],
  ['GRAPHQL_DEFAULT_LIMIT', 'graphql.defaultLimit', 'int'],
  ['GRAPHQL_MAX_LIMIT', 'graphql.maxLimit', 'int'],
  ['GRAPHQL_MAX_COST', 'graphql.maxCost', 'int'],
  ['GRAPHQL_COST_STATS_INTERVAL', 'graphql.costStatsInterval', 'int'],
  ['GRAPHQL_MAX_TOKENS', 'graphql.maxTokens', 'int'],
  ['GRAPHQL_MAX_SELECTIONS', 'graphql.maxSelections', 'int'],
  ['RESPONSE_CACHE', 'cache.enabled', 'bool'],
  ['WEBHOOK_DEFAULT_HEADERS', 'webhooks.defaultHeaders', 'headers'],
  ['WEBHOOK_TIMEOUT', 'webhooks.timeout', 'int'],
  ['WEBHOOK_CONCURRENCY', 'webhooks.concurrency', 'int'],
  ['WEBHOOK_QUEUE_SIZE', 'webhooks.queueSize', 'int'],
  ['RESPONSE_CACHE_SIZE', 'cache.maxBytes', 'int'],
  ['RESPONSE_CACHE_WATCH', 'cache.watchInterval', 'int'],
  ['RESPONSE_CACHE_WATCH_SCAN', 'cache.watchScanBytes', 'int'],
  ['GRAPHQL_PLAYGROUND_ALWAYS', 'graphql.playgroundAlways', 'bool'],
  ['GRAPHQL_INTROSPECTION', 'graphql.introspection', 'bool'],
  ['GRAPHQL_EXTENSIONS', 'graphql.extensions', 'string'],
];

export class ConfigError extends Error {}

function parseEnvValue(name: string, text: string, kind: EnvKind): unknown {
  if (kind === 'string') return text;
  if (kind === 'proxy') return /^\d+$/.test(text.trim()) ? Number(text) : parseEnvValue(name, text, 'bool');
  if (kind === 'headers') {
    let v: unknown;
    try { v = JSON.parse(text); } catch { v = null; }
    if (!v || typeof v !== 'object' || Array.isArray(v) || Object.values(v).some((x) => typeof x !== 'string')) {
      throw new ConfigError(`Invalid configuration: ${name} must be a JSON object of header names to string values, e.g. {"Authorization":"Bearer …"}`);
    }
    return v;
  }
  if (kind === 'customFields') {
    // `plugin::x.y:richtext,global::z:string`: the type follows the uid's last colon.
    const out: Record<string, string> = {};
    for (const entry of text.split(',').map((s) => s.trim()).filter(Boolean)) {
      const at = entry.lastIndexOf(':');
      const uid = entry.slice(0, at).trim(), type = entry.slice(at + 1).trim();
      if (at < 0 || !CUSTOM_FIELD_UID.test(uid) || !(CUSTOM_FIELD_TYPES as readonly string[]).includes(type)) {
        throw new ConfigError(`Invalid configuration: ${name} entry "${entry}" must be <custom field uid>:<type>, e.g. plugin::ckeditor.CKEditor:richtext (a uid plugin::<plugin>.<name> or global::<name>; a type among ${CUSTOM_FIELD_TYPES.join(', ')})`);
      }
      out[uid] = type;
    }
    return out;
  }
  if (kind === 'list') return text.split(',').map((s) => s.trim()).filter(Boolean);
  if (kind === 'bool') {
    if (/^(1|true|yes|on)$/i.test(text)) return true;
    if (/^(0|false|no|off)$/i.test(text)) return false;
    throw new ConfigError(`Invalid configuration: ${name}="${text}" must be true or false`);
  }
  if (kind === 'number') {
    if (!/^\d+(\.\d+)?$/.test(text.trim())) throw new ConfigError(`Invalid configuration: ${name}="${text}" must be a number`);
    return Number(text);
  }
  if (!/^-?\d+$/.test(text.trim())) throw new ConfigError(`Invalid configuration: ${name}="${text}" must be an integer`);
  return Number(text);
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const k of keys.slice(0, -1)) node = node[k] as Record<string, unknown>;
  node[keys[keys.length - 1]] = value;
}

const check = Compile(ConfigSchema);

/** Strapi's database variables (config/database of a Strapi project) → a PostgreSQL URL, or null when none is set. */
function databaseFromEnv(env: Record<string, string | undefined>): { url: string; from: string } | null {
  const client = env.DATABASE_CLIENT;
  if (client && !/^(postgres|postgresql|pg)$/i.test(client)) {
    throw new ConfigError(`Invalid configuration: DATABASE_CLIENT="${client}" is not supported: this server serves PostgreSQL only (DATABASE_CLIENT=postgres)`);
  }
  if (!env.DATABASE_HOST) return null;
  const port = env.DATABASE_PORT || '5432';
  if (!/^\d+$/.test(port) || Number(port) > 65535) throw new ConfigError(`Invalid configuration: DATABASE_PORT="${port}" must be a port number`);
  // Strapi's project template defaults; a host starting with `/` is a Unix-socket directory, as for pg.
  const ssl = Boolean(env.DATABASE_SSL && parseEnvValue('DATABASE_SSL', env.DATABASE_SSL, 'bool'));
  const url = postgresUrl({
    host: env.DATABASE_HOST, port, user: env.DATABASE_USERNAME || 'strapi', password: env.DATABASE_PASSWORD ?? 'strapi',
    database: env.DATABASE_NAME || 'strapi', sslmode: ssl ? 'require' : null,
  });
  return { url, from: 'DATABASE_HOST' };
}

/**
 * Where the models are and whether the project's code (and configuration files) may run, by the same
 * precedence as loadConfig: what must be known before the project's files can be read.
 */
export function projectLocation(env: Record<string, string | undefined>, argv: string[], overrides: DeepPartial<Config> = {}): { modelsDir: string; projectCode: boolean } {
  let modelsDir = overrides.modelsDir ?? defaults.modelsDir;
  let projectCode = overrides.projectCode ?? defaults.projectCode;
  if (env.MODELS_DIR) modelsDir = env.MODELS_DIR;
  if (env.PROJECT_CODE) projectCode = parseEnvValue('PROJECT_CODE', env.PROJECT_CODE, 'bool') as boolean;
  const i = argv.lastIndexOf('--models');
  if (i >= 0 && argv[i + 1]) modelsDir = argv[i + 1];
  return { modelsDir: resolve(modelsDir), projectCode };
}

/**
 * Builds the configuration: defaults ← the project's config files (src/project/config-files.ts) ←
 * overrides (tests) ← environment ← argv flags; throws ConfigError.
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  argv: string[] = process.argv.slice(2),
  overrides: DeepPartial<Config> = {},
  project: DeepPartial<Config> = {},
): Config {
  // A CORS origin function cannot be cloned nor validated as data: set it aside and put it back after.
  let originFn: CorsOriginFn | null = typeof defaults.http.cors.origin === 'function' ? defaults.http.cors.origin : null;
  const cfg = structuredClone(cloneableConfig(defaults)) as unknown as Record<string, unknown>;
  merge(cfg, structuredClone(project) as Record<string, unknown>);
  const overrideOrigin = overrides.http?.cors?.origin;
  if (typeof overrideOrigin === 'function') {
    originFn = overrideOrigin as CorsOriginFn;
    overrides = { ...overrides, http: { ...overrides.http, cors: { ...overrides.http!.cors, origin: ['*'] } } };
  }
  merge(cfg, overrides as Record<string, unknown>);
  const source = new Map<string, string>();
  const database = databaseFromEnv(env);
  if (database) { cfg.databaseUrl = database.url; source.set('databaseUrl', database.from); }
  for (const [name, path, kind] of ENV) {
    const text = env[name];
    if (text === undefined || text === '') continue;
    setPath(cfg, path, parseEnvValue(name, text, kind));
    source.set(path, name);
    if (path === 'http.cors.origin') originFn = null;
  }
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const next = argv[i + 1];
    if (flag === '--models' && next) { cfg.modelsDir = next; source.set('modelsDir', '--models'); i++; }
    else if (flag === '--port' && next) { cfg.port = parseEnvValue('--port', next, 'int'); source.set('port', '--port'); i++; }
  }
  // The plugin's `maxLimit: -1` (its default) is no limit of its own: amountLimit still bounds every page.
  const gql = cfg.graphql as { maxLimit?: unknown } | undefined;
  if (gql?.maxLimit === -1) gql.maxLimit = null;
  if (!check.Check(cfg)) {
    const first = [...check.Errors(cfg)][0];
    const path = (first?.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
    const key = source.get(path) ?? (path || 'config');
    throw new ConfigError(`Invalid configuration: ${key} ${first?.message ?? 'is invalid'} (got ${JSON.stringify(path ? getPath(cfg, path) : cfg)})`);
  }
  const config = cfg as unknown as Config;
  if (originFn) config.http.cors.origin = originFn;
  if (config.metrics.enabled === null) config.metrics.enabled = config.env !== 'production';
  if (Array.isArray(config.proxy)) {
    for (const entry of config.proxy) {
      const [addr, bits, more] = entry.split('/');
      const family = isIP(addr);
      if (!family || more !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32)))) {
        throw new ConfigError(`Invalid configuration: ${source.get('proxy') ?? 'proxy'} entry "${entry}" is not an IP address or CIDR range`);
      }
    }
  }
  if (config.api.rest.defaultLimit > config.api.rest.maxLimit) {
    throw new ConfigError('Invalid configuration: api.rest.defaultLimit must not exceed api.rest.maxLimit');
  }
  if (!config.i18n.locales.includes(config.i18n.defaultLocale)) {
    throw new ConfigError(`Invalid configuration: DEFAULT_LOCALE "${config.i18n.defaultLocale}" is not one of LOCALES (${config.i18n.locales.join(', ')})`);
  }
  if (!config.auth.jwtSecret) {
    if (config.env === 'production') throw new ConfigError('Invalid configuration: JWT_SECRET must be set in production (at least 16 characters)');
    // Development only: a per-start secret (tokens do not survive a restart). Made here, in the main
    // thread, so every worker verifies with the same one.
    config.auth.jwtSecret = randomBytes(32).toString('hex');
  }
  if (config.env === 'production' && config.auth.apiTokenSalt === defaults.auth.apiTokenSalt) {
    throw new ConfigError('Invalid configuration: API_TOKEN_SALT must be set in production');
  }
  if (config.env === 'production' && !config.databaseUrl && config.databaseEmbedded !== true) {
    throw new ConfigError('Invalid configuration: NODE_ENV=production needs a database: set DATABASE_URL (or DATABASE_HOST, DATABASE_PORT, DATABASE_NAME, DATABASE_USERNAME, DATABASE_PASSWORD), or DATABASE_EMBEDDED=true to run the embedded PostgreSQL in DATA_DIR');
  }
  if (config.databaseEmbedded === true && config.databaseUrl) {
    throw new ConfigError(`Invalid configuration: DATABASE_EMBEDDED=true and a database (${source.get('databaseUrl') ?? 'DATABASE_URL'}) are both set: choose one`);
  }
  if (config.databaseEmbedded === false && !config.databaseUrl) {
    throw new ConfigError('Invalid configuration: DATABASE_EMBEDDED=false but no database is set (DATABASE_URL or DATABASE_HOST)');
  }
  if (config.email.provider === null) config.email.provider = config.email.smtp.host ? 'smtp' : 'log';
  if (config.email.provider === 'smtp' && !config.email.smtp.host) {
    throw new ConfigError('Invalid configuration: EMAIL_PROVIDER=smtp needs SMTP_HOST');
  }
  config.dataDir = resolve(config.dataDir);
  config.modelsDir = resolve(config.modelsDir);
  config.upload.folder = resolve(config.upload.folder || join(config.dataDir, 'uploads'));
  if (config.upload.provider === 'aws-s3') {
    const s3 = config.upload.providerOptions.s3Options;
    // AWS_ACL=none: send no ACL (buckets whose ACLs are disabled refuse any).
    if (s3.params.ACL === 'none') s3.params.ACL = '';
    if (!s3.params.Bucket) throw new ConfigError('Invalid configuration: UPLOAD_PROVIDER=aws-s3 needs a bucket (AWS_BUCKET)');
    if (!s3.region && !s3.endpoint) throw new ConfigError('Invalid configuration: UPLOAD_PROVIDER=aws-s3 needs AWS_REGION (or AWS_ENDPOINT for an S3-compatible service)');
    for (const [key, name] of [[s3.endpoint, 'AWS_ENDPOINT'], [config.upload.providerOptions.baseUrl, 'CDN_URL']] as const) {
      if (key && !URL.canParse(/^[a-z][a-z0-9+.-]*:\/\//i.test(key) ? key : `https://${key}`)) throw new ConfigError(`Invalid configuration: ${name}="${key}" is not a URL`);
    }
  }
  if (config.graphql.extensions) {
    config.graphql.extensions = resolve(config.graphql.extensions);
    if (!existsSync(config.graphql.extensions)) {
      throw new ConfigError(`Invalid configuration: ${source.get('graphql.extensions') ?? 'graphql.extensions'} names no file (${config.graphql.extensions})`);
    }
  }
  return config;
}

/** The configuration without what cannot cross to a worker thread (a CORS origin function; workers never use it). */
export function cloneableConfig(config: Config): Config {
  if (typeof config.http.cors.origin !== 'function') return config;
  return { ...config, http: { ...config.http, cors: { ...config.http.cors, origin: [] } } };
}

function getPath(obj: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), obj);
}

function merge(target: Record<string, unknown>, src: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(src)) {
    if (v && typeof v === 'object' && !Array.isArray(v) && target[k] && typeof target[k] === 'object') merge(target[k] as Record<string, unknown>, v as Record<string, unknown>);
    else target[k] = v;
  }
}

export type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? (T[K] extends unknown[] ? T[K] : DeepPartial<T[K]>) : T[K] };
