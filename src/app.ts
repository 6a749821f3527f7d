// Everything one worker (or the main thread with WORKERS=0) needs to answer requests: models,
// database pool, compiler, authorizer; and the function that turns a Task into a Reply.
import type { Config } from '../config.ts';
import { loadModels } from './models.ts';
import { splitReadStats } from './rest/read.ts';
import { addLightPool, cancelledReads, connect, endPool, lightPoolReads, pipelinedReads, ping, type Db } from './db/connect.ts';
import { toApiError } from './db/errors.ts';
import { Compiler } from '../compiler/index.ts';
import { notFound, serviceUnavailable } from '../compiler/errors.ts';
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
import { RenderCacheGate } from './db/render-gate.ts';
import { TableSizes } from './db/table-sizes.ts';
import { FanOuts } from './db/fan-outs.ts';
import { schemaSources } from '../compiler/fan-outs.ts';
import { ReadRouter, type WrittenPosition } from './db/replicas.ts';
import { cacheKey, hitForm, serve, storable, unconditional, wantsFresh } from './cache/http-cache.ts';
import { UP } from './auth/tables.ts';
import { FILES } from '../compiler/layout.ts';
import { startProject } from './project/start-project.ts';
import type { ProjectRuntime } from './project/runtime.ts';
import { projectSrc } from './project/load.ts';
import type { KoaState } from './project/ctx.ts';
import type { Answered } from './project/global.ts';
import type { Caller } from './auth/permissions.ts';
import { Webhooks } from './webhooks/index.ts';
import { keyedColumns, type KeyedColumn } from '../compiler/foreign-keys.ts';

/** What a worker tells /metrics about itself. */
export interface AppStats { poolSize: number; planCache: ReturnType<Compiler['stats']>; responseCache?: CacheStats; cancelledReads: number; pipelinedReads: number; lightPoolReads: number; splitReads: number; splitReadsAgain: number }

/** The path the front end sends readiness probes on (never routed from outside: /_ready is answered by the front end). */
export const READY_PATH = '/_ready';

export interface App { handle(task: Task): Promise<Reply>; close(): Promise<void>; stats(): AppStats; db: Db }

export interface AppOptions {
  /** The project's runtime the main thread loaded (register() ran there): used instead of loading it again. */
  project?: ProjectRuntime | null;
  /**
   * An app only giving a project's bootstrap() its database access (server.ts): no plugins, and it does not
   * listen for other nodes' writes (it answers no request; its own writes still tell the others).
   */
  bootstrapOnly?: boolean;
  /** Link columns whose targets a foreign key keeps (src/db/foreign-keys.ts, read by the main thread at start). */
  keyedColumns?: readonly KeyedColumn[];
}

/**
 * `written`: the node's shared write position (read replicas), when several threads serve it; `renderGate`:
 * whether reads may use the render cache yet (src/db/render-gate.ts; unset: as soon as it is on).
 */
export function createApp(config: Config, databaseUrl: string, written?: WrittenPosition, renderGate?: RenderCacheGate, opts: AppOptions = {}): App {
  const schema = loadModels(config.modelsDir, { ...config.i18n, customFields: config.customFields });
  setMaxJsonDepth(config.http.maxJsonDepth);
  // Two pools: content reads, which a client that goes away cancels (readStatement()), never share a
  // connection with writes and the rest, which a cancel meant for a read could otherwise stop.
  const pool = (url: string, size: number, readsOnly: boolean, planCacheMode = config.db.planCacheMode, applicationName?: string) => connect(url, size, { logQueries: config.db.logQueries, statementTimeout: config.db.statementTimeout, planCacheMode, jit: config.db.jit, readsOnly, applicationName });
  // A content-read pool, with its pool for light statements (src/db/connect.ts addLightPool) unless db.lightPoolSize is 0.
  const readPool = (url: string) => {
    const reads = pool(url, config.db.poolSize, true);
    if (config.db.lightPoolSize > 0) addLightPool(reads, pool(url, config.db.lightPoolSize, true));
    return reads;
  };
  const db = pool(databaseUrl, config.db.writePoolSize, false);
  const primaryReads = readPool(databaseUrl);
  // Filtered lists on large tables (compiler/index.ts planFor); its connections open only when one comes.
  const customReads = config.db.customPlanRows > 0 ? pool(databaseUrl, config.db.poolSize, true, 'force_custom_plan', 'fastrapi-custom-plans') : undefined;
  const sizes = new TableSizes(db, config.db.customPlanRows);
  sizes.start();
  const compiler = new Compiler(schema, { ...config.api.rest, strictKeys: config.api.rest.strictParams, strictDocuments: config.api.documents.strictParams, maxResponseSize: config.http.maxResponseSize, renderCacheGate: renderGate && (() => renderGate.isOpen()), largeTable: sizes.isLarge, smallTable: sizes.isSmall, sizeEpoch: sizes.epoch, keyedColumns: keyedColumns(opts.keyedColumns ?? []), splitReads: config.db.splitReads });
  const auth = new Authorizer(config, schema);
  const exposeCount = config.env !== 'production';
  const lookups: AuthLookups = {
    roles: () => loadRoles(db),
    token: (hex) => findToken(db, hex),
    touch: (id) => { touchToken(db, id).catch((e) => log.warn('could not record an API token use', { error: String(e) })); },
    user: (id) => userState(db, id),
  };
  const representation = { etag: config.http.etag, compression: config.http.compression };
  const cache = config.cache.enabled ? new ResponseCache(config.cache.maxBytes) : null;
  const replicas = config.db.readUrls.length
    ? new ReadRouter(primaryReads, db, config.db.readUrls, readPool,
      { maxLagBytes: config.db.replicaMaxLag, checkInterval: config.db.replicaCheckInterval }, written)
    : null;
  // Always one: besides the response cache and replicas, it tells every thread and node of revocations.
  const invalidator = new Invalidator(db, cache, schema, { watchInterval: config.cache.watchInterval, watchScanBytes: config.cache.watchScanBytes }, replicas, auth);
  // Nothing is served from the cache (or a replica) before this node hears other nodes' writes.
  let live = false;
  Promise.all([opts.bootstrapOnly ? undefined : invalidator.start(), replicas?.start()]).then(() => { live = true; },
    (e: unknown) => log.warn('could not listen for other nodes\' writes; the response cache and read replicas stay off', { error: String(e) }));
  const reader = replicas ? () => (live ? replicas.reader() : primaryReads) : () => primaryReads;
  const onWrite = (tables: string[]) => invalidator.written(tables);
  // Webhooks are sent by the thread that wrote (so once per write across nodes), after its commit.
  // Their entries are read on the read pool: a slow receiver's backlog must not hold the writes' connections.
  const webhooks = new Webhooks(primaryReads, compiler, schema, config);
  // The project's own code (routes, middlewares, policies, controllers, services), when MODELS_DIR has some:
  // undefined until loaded, null when there is none.
  let project: ProjectRuntime | null | undefined;
  const base = (): RestContext => ({ db, compiler, schema, auth, config, count: () => {}, onWrite, webhooks, lifecycles: project?.hooks, shadowCrudClosed: project?.shadowCrudClosed, shadowDocuments: project?.shadowDocuments, userDocuments: project?.userDocuments, reader, primaryReads, customReads });
  let projectReady: Promise<void>;
  if (opts.project !== undefined) {
    project = opts.project;
    project?.bind(base);
    projectReady = Promise.resolve();
  } else {
    projectReady = startProject(config, schema, base).then((p) => { project = p; });
    projectReady.catch((e: unknown) => log.error('could not load the project\'s code', { error: String((e as Error)?.stack ?? e) }));
  }
  // GraphQL is built with what the project's register() gave the extension service (none without a project).
  const fromProject = config.projectCode && projectSrc(config.modelsDir) ? projectReady.then(() => (project ? { ...project.strapi.extensions(), usersGuard: project.usersGuard } : null)) : undefined;
  // What the tables hold, so GraphQL prices a list no larger than its data (src/graphql/cost.ts).
  const fanOuts = config.graphql.costStatsInterval > 0 && !opts.bootstrapOnly ? new FanOuts(db, schemaSources(schema), config.graphql.costStatsInterval * 1000) : null;
  fanOuts?.start();
  const plugins: Plugin[] = opts.bootstrapOnly ? [] : loadPlugins(config, schema, fromProject, fanOuts?.mostOf);
  // An extended plugin's own actions (src/extensions/<plugin>/strapi-server) answer through these plugins.
  if (opts.project !== undefined) opts.project?.bindPlugins(plugins);
  else projectReady.then(() => project?.bindPlugins(plugins), () => { /* logged above */ });
  /**
   * A request's own handling: routing, auth, the route (errors are answers). `store` (no global middlewares:
   * they may decide per request) lets the response cache answer, or notes what the route read for storing it.
   */
  const route = async (ctx: RestContext, task: Task, state?: KoaState, store?: CacheSlot): Promise<Answered & { hit?: boolean }> => {
    let caller: Caller | null = null;
    try {
      const plugin = plugins.find((p) => p.claims(task.path));
      if (!plugin && !task.path.startsWith('/api/')) throw notFound();
      caller = await auth.caller(task.authorization, lookups);
      if (project === undefined) await projectReady;
      // A route the project's code answers is not cached: its code may decide by anything (the user, time…).
      const routed = project ? project.match(task.method, task.path, plugin?.name) : null;
      if (store && cache && live && caller && !routed) {
        store.key = cacheKey(task, auth.access(caller).key, plugin?.name === 'graphql');
        const hit = store.key === null || wantsFresh(task) ? undefined : cache.get(store.key);
        if (hit) return { reply: serve(hit, task), caller, hit: true };
        store.since = cache.begin();
        ctx.reads = new Set();
      }
      const closed = plugin ? null : project?.hooks.closedPath(schema, task.path);
      if (closed) throw closed;
      const reply = routed ? await project!.handle(ctx, task, caller, routed, state) : plugin ? await plugin.handle(ctx, task, caller) : await routeRest(ctx, task, caller);
      if (cache && plugin && task.method !== 'GET' && reply.status < 400) cache.invalidate(PLUGIN_WRITES[plugin.name] ?? []);
      return { reply, caller };
    } catch (e) {
      return { reply: errorReply(toApiError(e)), caller };
    }
  };
  return {
    db,
    stats: () => ({ poolSize: config.db.poolSize + config.db.lightPoolSize + config.db.writePoolSize, planCache: compiler.stats(), cancelledReads: cancelledReads(), pipelinedReads: pipelinedReads(), lightPoolReads: lightPoolReads(), ...splitReadStats(), ...(cache ? { responseCache: cache.stats() } : {}) }),
    async handle(task: Task): Promise<Reply> {
      if (task.path === READY_PATH && task.internal) {
        try { await ping(db); return { status: 204, body: '' }; } catch (e) {
          log.warn('readiness: the database does not answer', { error: String(e), requestId: task.requestId });
          return errorReply(serviceUnavailable('Database unavailable'));
        }
      }
      let statements = 0;
      if (project === undefined) await projectReady.catch(() => { /* answered below, as without global middlewares */ });
      // `count` is set after the literal: a function written in it would get its name defined per request (tsx keeps names).
      const ctx: RestContext = { db, compiler, schema, auth, config, count: noCount, onWrite, webhooks, lifecycles: project?.hooks, shadowCrudClosed: project?.shadowCrudClosed, shadowDocuments: project?.shadowDocuments, userDocuments: project?.userDocuments, reader, primaryReads, customReads, signal: task.signal, contentApi: true, coreRouteParams: project?.coreRouteParams, route: undefined };
      ctx.count = (n) => { statements += n; };
      // The project's global middlewares run around everything (no response cache: they may decide per request).
      if (project?.global) {
        let reply: Reply;
        try { reply = await project.global.handle(ctx, task, (t, state) => route(ctx, t, state)); } catch (e) { reply = errorReply(toApiError(e)); }
        if (exposeCount) (reply.headers ??= []).push(['x-sql-statements', String(statements)]);
        return represent(reply, task, representation);
      }
      const slot: CacheSlot = { key: null, since: 0 };
      const { reply, hit } = await route(ctx, task, undefined, slot);
      if (hit) return reply;
      const key = slot.key;
      const since = slot.since;
      if (exposeCount) (reply.headers ??= []).push(['x-sql-statements', String(statements)]);
      if (!key || !reply.cacheable || !ctx.reads?.size) return represent(reply, task, representation);
      // Stored as the full 200 (with its ETag); this client's If-None-Match is answered by serve().
      const full = represent(reply, unconditional(task), representation);
      if (storable(reply, full)) cache!.set(key, hitForm(full, exposeCount), ctx.reads, since);
      return serve(full, task);
    },
    // bootstrap()'s app first sends what its writes owe (a hanging receiver delays the start by one call's timeout at most).
    close: async () => { sizes.stop(); fanOuts?.stop(); if (opts.bootstrapOnly) await webhooks.drain(config.webhooks.timeout + 1000); webhooks.close(); await invalidator?.stop(); await replicas?.stop(); await Promise.all([db.end({ timeout: 5 }), endPool(primaryReads), customReads?.end({ timeout: 5 })]); },
  };
}

const noCount = (): void => {};

/** Where a request's response-cache key and start are kept while its route runs. */
interface CacheSlot { key: string | null; since: number }

/** Tables the plugins' writes change (users, uploads): cached reads that populated them are dropped. */
const PLUGIN_WRITES: Record<string, string[]> = { 'users-permissions': [UP.users, UP.userRole.table], upload: [FILES.table, FILES.related] };

