// Everything one worker (or the main thread with WORKERS=0) needs to answer requests: models,
// database pool, compiler, authorizer; and the function that turns a Task into a Reply.
import type { Config } from '../config.ts';
import { loadModels } from './models.ts';
import { connect, ping, type Db } from './db/connect.ts';
import { Compiler } from '../compiler/index.ts';
import { ApiError, notFound } from '../compiler/errors.ts';
import { Authorizer, type AuthLookups } from './auth/permissions.ts';
import { findToken, loadRoles, touchToken, userState } from './auth/store.ts';
import { routeRest, type RestContext } from './rest/router.ts';
import { errorReply, type Reply } from './rest/reply.ts';
import { setMaxJsonDepth, type Task } from './task.ts';
import { log } from './log.ts';
import type { Plugin } from './plugins/types.ts';
import { plugins as loadPlugins } from './plugins/index.ts';
import { represent } from './http/representation.ts';
import { ResponseCache, type CacheStats } from './cache/response-cache.ts';
import { Invalidator } from './cache/invalidation.ts';
import { ReadRouter, type WrittenPosition } from './db/replicas.ts';
import { cacheKey, serve, storable, unconditional, wantsFresh } from './cache/http-cache.ts';
import { UP } from './auth/tables.ts';
import { FILES } from '../compiler/layout.ts';

/** What a worker tells /metrics about itself. */
export interface AppStats { poolSize: number; planCache: ReturnType<Compiler['stats']>; responseCache?: CacheStats }

/** The path the front end sends readiness probes on (never routed from outside: /_ready is answered by the front end). */
export const READY_PATH = '/_ready';

export interface App { handle(task: Task): Promise<Reply>; close(): Promise<void>; stats(): AppStats; db: Db }

/** `written`: the node's shared write position (read replicas), when several threads serve it. */
export function createApp(config: Config, databaseUrl: string, written?: WrittenPosition): App {
  const schema = loadModels(config.modelsDir, config.i18n);
  setMaxJsonDepth(config.http.maxJsonDepth);
  const db = connect(databaseUrl, config.db.poolSize, config.db.logQueries, config.db.statementTimeout, config.db.planCacheMode);
  const compiler = new Compiler(schema, { ...config.api.rest, maxResponseSize: config.http.maxResponseSize });
  const auth = new Authorizer(config, schema);
  const exposeCount = config.env !== 'production';
  const plugins: Plugin[] = loadPlugins(config, schema);
  const lookups: AuthLookups = {
    roles: () => loadRoles(db),
    token: (hex) => findToken(db, hex),
    touch: (id) => { touchToken(db, id).catch((e) => log.warn('could not record an API token use', { error: String(e) })); },
    user: (id) => userState(db, id),
  };
  const representation = { etag: config.http.etag, compression: config.http.compression };
  const cache = config.cache.enabled ? new ResponseCache(config.cache.maxBytes) : null;
  const replicas = config.db.readUrls.length
    ? new ReadRouter(db, config.db.readUrls, (url) => connect(url, config.db.poolSize, config.db.logQueries, config.db.statementTimeout, config.db.planCacheMode),
      { maxLagBytes: config.db.replicaMaxLag, checkInterval: config.db.replicaCheckInterval }, written)
    : null;
  const invalidator = cache || replicas ? new Invalidator(db, cache, schema, { watchInterval: config.cache.watchInterval }, replicas) : null;
  // Nothing is served from the cache (or a replica) before this node hears other nodes' writes.
  let live = false;
  Promise.all([invalidator?.start(), replicas?.start()]).then(() => { live = true; },
    (e: unknown) => log.warn('could not listen for other nodes\' writes; the response cache and read replicas stay off', { error: String(e) }));
  const reader = replicas ? () => (live ? replicas.reader() : db) : undefined;
  const onWrite = invalidator ? (tables: string[]) => invalidator.written(tables) : undefined;
  return {
    db,
    stats: () => ({ poolSize: config.db.poolSize, planCache: compiler.stats(), ...(cache ? { responseCache: cache.stats() } : {}) }),
    async handle(task: Task): Promise<Reply> {
      if (task.path === READY_PATH && task.internal) {
        try { await ping(db); return { status: 204, body: '' }; } catch (e) {
          log.warn('readiness: the database does not answer', { error: String(e), requestId: task.requestId });
          return errorReply(new ApiError(503, 'ServiceUnavailableError', 'Database unavailable', {}));
        }
      }
      let statements = 0;
      const ctx: RestContext = { db, compiler, schema, auth, config, count: (n) => { statements += n; }, onWrite, reader, signal: task.signal };
      let reply: Reply;
      let key: string | null = null;
      let since = 0;
      try {
        const plugin = plugins.find((p) => p.claims(task.path));
        if (!plugin && !task.path.startsWith('/api/')) throw notFound();
        const caller = await auth.caller(task.authorization, lookups);
        if (cache && live && caller) {
          key = cacheKey(task, auth.access(caller).key, plugin?.name === 'graphql');
          const hit = key === null || wantsFresh(task) ? undefined : cache.get(key);
          if (hit) return serve(hit, task, exposeCount);
          since = cache.begin();
          ctx.reads = new Set();
        }
        reply = plugin ? await plugin.handle(ctx, task, caller) : await routeRest(ctx, task, caller);
        if (cache && plugin && task.method !== 'GET' && reply.status < 400) cache.invalidate(PLUGIN_WRITES[plugin.name] ?? []);
      } catch (e) {
        reply = errorReply(toApiError(e));
      }
      if (exposeCount) (reply.headers ??= []).push(['x-sql-statements', String(statements)]);
      if (!key || !reply.cacheable || !ctx.reads?.size) return represent(reply, task, representation);
      // Stored as the full 200 (with its ETag); this client's If-None-Match is answered by serve().
      const full = represent(reply, unconditional(task), representation);
      if (storable(reply, full)) cache!.set(key, full, ctx.reads, since);
      return serve(full, task, exposeCount, false);
    },
    close: async () => { await invalidator?.stop(); await replicas?.stop(); await db.end({ timeout: 5 }); },
  };
}

/** Tables the plugins' writes change (users, uploads): cached reads that populated them are dropped. */
const PLUGIN_WRITES: Record<string, string[]> = { 'users-permissions': [UP.users, UP.userRole.table], upload: [FILES.table, FILES.related] };

/** Errors that mean the database cannot answer now (cancelled, shutting down, unreachable): 503, not 500. */
const UNAVAILABLE = new Set([
  '57014', '57P01', '57P02', '57P03', '57P04', '57P05', '53300', '08000', '08001', '08003', '08004', '08006',
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT', 'CONNECTION_DEADLINE', 'CLIENT_GONE',
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENOTFOUND', 'EAI_AGAIN',
]);

/** Anything thrown that is not an ApiError is a bug or an infrastructure failure: log it, answer 500. */
/** Messages for input PostgreSQL refused (SQLSTATE classes 22 and 23) that validation let through. */
const PG_INPUT_ERRORS: Record<string, string> = {
  '22001': 'A value is too long', '22003': 'A number is out of range', '22007': 'Invalid date or time', '22008': 'A date or time is out of range',
  '22P02': 'Invalid value for the attribute type', '22P05': 'Invalid character in a value', '22021': 'Invalid character in a value',
  '22012': 'Division by zero', '2201B': 'Invalid regular expression', '22025': 'Invalid escape in a pattern', '22019': 'Invalid escape character',
  '23505': 'This attribute must be unique', '23503': 'A related entry does not exist', '23502': 'A required value is missing',
};

export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  const pg = e as { code?: string; message?: string };
  // Invalid input that slipped past validation must not become a 500.
  // PostgreSQL's own text never reaches a client: the answer names the kind of problem.
  if (pg?.code && /^(22|23)/.test(pg.code)) return new ApiError(400, 'ValidationError', PG_INPUT_ERRORS[pg.code] ?? 'Invalid input', {});
  // Cancelled by statement_timeout, or the database is going away: the client may retry later.
  if (pg?.code && UNAVAILABLE.has(pg.code)) {
    // A statement cancelled because its client went away: nobody reads the answer, nothing to report.
    if (pg.code !== 'CLIENT_GONE' && !(pg.code === '57014' && pg.message?.includes('user request'))) log.warn('database unavailable', { code: pg.code, message: pg.message });
    return new ApiError(503, 'ServiceUnavailableError', 'Service Unavailable', {});
  }
  log.error('unhandled error', { error: String((e as Error)?.stack ?? e) });
  return new ApiError(500, 'InternalServerError', 'Internal Server Error', {});
}
