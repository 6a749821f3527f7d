// Runs the render cache (compiler/render-cache.ts): its tables in this server's own schema, made or
// rebuilt at start when what is rendered changed, and a background refresh that renders rows whose
// entry is missing or stale — new rows, and rows Strapi itself wrote. Reads never depend on it being
// current: a stale entry is a miss, rendered live.
import type { Sql } from 'postgres';
import type { Schema } from '../../compiler/schema.ts';
import { CACHE_DDL, CACHE_META, cacheTables, type CacheTable } from '../../compiler/render-cache.ts';
import { log } from '../log.ts';

/** Serializes the cache's DDL between nodes starting together (not Strapi's schema lock). */
const LOCK_KEY = 7215004114;
/** Rows rendered per statement, and statements per table per tick at most (the rest waits for the next tick). */
const BATCH = 1000;
const BATCHES_PER_TICK = 20;
/** Every this many ticks, entries of deleted rows are dropped. */
const ORPHAN_TICKS = 60;

export async function setupRenderCache(sql: Sql, schema: Schema): Promise<CacheTable[]> {
  const tables = cacheTables(schema);
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${LOCK_KEY}::bigint)`;
    for (const ddl of CACHE_DDL) await tx.unsafe(ddl);
    const known = new Map((await tx.unsafe<Array<{ source: string; version: string }>>(`select source, version from ${CACHE_META}`)).map((r) => [r.source, r.version]));
    for (const t of tables) {
      if (known.get(t.source) === t.version) continue;
      await tx.unsafe(`drop table if exists ${t.table}`);
      await tx.unsafe(t.create);
      await tx.unsafe(`insert into ${CACHE_META} (source, version) values ($1, $2) on conflict (source) do update set version = excluded.version`, [t.source, t.version]);
    }
  });
  return tables;
}

export interface RenderCacheRefresher {
  /** Resolves once every row has a current entry (the first time a refresh pass found nothing to do). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

export function startRefresher(sql: Sql, tables: CacheTable[], intervalMs: number): RenderCacheRefresher {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let ticks = 0;
  let running: Promise<void> = Promise.resolve();
  let markReady: () => void = () => {};
  const ready = new Promise<void>((r) => { markReady = r; });
  const tick = async () => {
    let caughtUp = true;
    for (const t of tables) {
      for (let i = 0; i < BATCHES_PER_TICK && !stopped; i++) {
        const r = await sql.unsafe(t.refreshStale, [BATCH]);
        if (r.count < BATCH) break;
        if (i === BATCHES_PER_TICK - 1) caughtUp = false;
      }
      if (ticks % ORPHAN_TICKS === ORPHAN_TICKS - 1 && !stopped) await sql.unsafe(t.dropOrphans);
    }
    ticks++;
    if (caughtUp) markReady();
  };
  const loop = () => {
    if (stopped) return;
    const started = Date.now();
    running = tick().catch((e: unknown) => log.warn('render cache refresh failed (reads render live meanwhile)', { error: String(e) }))
      // A pass scans every table: on a large database it waits nine times as long as it took, so the
      // refresh never takes more than a tenth of one database connection's time.
      .finally(() => { if (!stopped) timer = setTimeout(loop, Math.max(intervalMs, (Date.now() - started) * 9)); });
  };
  loop();
  return {
    ready,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
