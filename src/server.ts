// Starts and stops a whole node: configuration, models, database (embedded or DATABASE_URL),
// schema sync, worker pool and HTTP front end. Used by src/main.ts and by the tests.
import { loadConfig, type Config, type DeepPartial } from '../config.ts';
import { loadModels } from './models.ts';
import { startEmbedded, type EmbeddedDb } from './db/embedded.ts';
import { connect } from './db/connect.ts';
import { syncSchema } from './db/schema-sync.ts';
import { setupRenderCache, startRefresher, type RenderCacheRefresher } from './db/render-cache.ts';
import { bootstrapUsersPermissions } from './auth/bootstrap.ts';
import { createPool, type Pool } from './pool.ts';
import { startFront, type Front } from './http/front.ts';
import { log, setLogLevel } from './log.ts';

export interface Server {
  config: Config; port: number; url: string; databaseUrl: string;
  /** Resolves when every row has a current render-cache entry (at once when the cache is off). */
  renderCacheReady(): Promise<void>;
  stop(): Promise<void>;
}

export async function startServer(opts: { env?: Record<string, string | undefined>; argv?: string[]; overrides?: DeepPartial<Config> } = {}): Promise<Server> {
  const config = loadConfig(opts.env ?? process.env, opts.argv ?? [], opts.overrides ?? {});
  setLogLevel(config.logLevel);
  const schema = loadModels(config.modelsDir, config.i18n);
  let embedded: EmbeddedDb | null = null;
  let pool: Pool | null = null;
  let front: Front | null = null;
  let refresher: RenderCacheRefresher | null = null;
  let cacheDb: ReturnType<typeof connect> | null = null;
  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      embedded = await startEmbedded(config.dataDir, config.db.embeddedPort);
      databaseUrl = embedded.url;
    }
    const admin = connect(databaseUrl, 1, false);
    try {
      await syncSchema(admin, schema, config.db.allowDestructive);
      await bootstrapUsersPermissions(admin);
    } finally { await admin.end({ timeout: 5 }); }
    if (config.api.rest.renderCache) {
      cacheDb = connect(databaseUrl, 1, false, config.db.statementTimeout);
      refresher = startRefresher(cacheDb, await setupRenderCache(cacheDb, schema), config.api.rest.renderCacheRefresh);
    }
    pool = createPool(config, databaseUrl);
    front = await startFront({ host: config.host, port: config.port, maxBodySize: config.http.maxBodySize, maxQueryStringLength: config.http.maxQueryStringLength, upload: config.upload }, pool.run);
    log.info(`listening on http://${config.host}:${front.port} (${config.workers} worker${config.workers === 1 ? '' : 's'}, ${schema.contentTypes.size} content-types)`);
    const f = front, p = pool, e = embedded, r = refresher, c = cacheDb;
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
        await p.close();
        if (e) await e.stop();
      })()),
    };
  } catch (err) {
    front?.close();
    await refresher?.stop().catch(() => {});
    await cacheDb?.end({ timeout: 5 }).catch(() => {});
    await pool?.close().catch(() => {});
    await embedded?.stop().catch(() => {});
    throw err;
  }
}
