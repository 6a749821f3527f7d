// Runs the render cache (compiler/render-cache.ts): its tables in this server's own schema, made or
// rebuilt at start when what is rendered changed, and a background refresh that renders rows whose
// entry is missing or stale — new rows, and rows Strapi itself wrote — and drops entries of deleted rows.
// Reads never depend on it being current: a stale entry is a miss, rendered live; and reads do not look
// at the cache at all before every table has been walked once (src/db/render-gate.ts).
import type { Sql } from 'postgres';
import type { Schema } from '../../compiler/schema.ts';
import { CACHE_DDL, CACHE_META, WALK_START, cacheTables, type CacheTable } from '../../compiler/render-cache.ts';
import type { RenderCacheGate } from './render-gate.ts';
import { log } from '../log.ts';

/** Serializes the cache's DDL between nodes starting together (not Strapi's schema lock). */
const LOCK_KEY = 7215004114;
/** Held by the node whose refresh is walking the tables: the others skip their pass meanwhile. */
export const WALK_KEY = 7215004115;
/** The node counts as idle once no request was in flight nor began for this many ms. */
const QUIET = 1000;
/** Otherwise a step is followed by a pause this many times its duration (the refresh takes ≤ 2% of one connection). */
const LOAD_RATIO = 49;
/** Between two passes that found nothing to do, a pause this many times the last pass's work at least (≤ 10%). */
const IDLE_RATIO = 9;
/** How often a refresh waiting for its turn looks at the node's requests again (ms). */
const POLL = 10;

export interface RenderCacheSetup {
  tables: CacheTable[];
  /** Sources whose cache table was walked whole since it was made (a fill was not interrupted). */
  filled: Set<string>;
}

export async function setupRenderCache(sql: Sql, schema: Schema): Promise<RenderCacheSetup> {
  const tables = cacheTables(schema);
  const filled = new Set<string>();
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${LOCK_KEY}::bigint)`;
    for (const ddl of CACHE_DDL) await tx.unsafe(ddl);
    const known = new Map((await tx.unsafe<Array<{ source: string; version: string; filled: boolean }>>(`select source, version, filled from ${CACHE_META}`)).map((r) => [r.source, r]));
    for (const t of tables) {
      const k = known.get(t.source);
      if (k?.version === t.version) {
        if (k.filled) filled.add(t.source);
        continue;
      }
      await tx.unsafe(`drop table if exists ${t.table}`);
      await tx.unsafe(t.create);
      await tx.unsafe(`insert into ${CACHE_META} (source, version, filled) values ($1, $2, false)
        on conflict (source) do update set version = excluded.version, filled = false`, [t.source, t.version]);
    }
  });
  return { tables, filled };
}

export interface RenderCacheRefresher {
  /** Resolves once every row has a current entry (the first time a refresh pass found nothing to do). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

export interface RefresherOptions {
  /** Milliseconds between passes (config `api.rest.renderCacheRefresh`). */
  intervalMs: number;
  /**
   * True while this node answers requests (any in flight, or one began since the last call). Without it
   * the node counts as idle.
   */
  busy?: () => boolean;
  /** Opened once every table has been walked whole (at once when setup found them all filled). */
  gate?: RenderCacheGate;
}

/**
 * The background refresh. A pass walks each table down from its highest id (`refreshWindow`, one window
 * of rows per step), rendering the rows whose entry is missing or stale and dropping entries whose row is
 * gone, so a pass reads each table once whatever its size, and a step costs the same at 1k or 1M rows.
 * Newest rows first: what Strapi creates or publishes (a publish makes a new row) is found first.
 * Pace: once the node has had no request for QUIET ms, steps run back to back — a first fill goes at the
 * database's pace —; otherwise each step is followed by a pause of LOAD_RATIO times its duration, so the
 * refresh never takes more than 2% of one connection from the node's reads; after a pass that found nothing
 * to do, the next waits max(intervalMs, IDLE_RATIO × the pass's statements' time).
 * With several nodes, one walks at a time (an advisory lock), the others skip their turn.
 */
export function startRefresher(sql: Sql, setup: RenderCacheSetup, opts: RefresherOptions): RenderCacheRefresher {
  const { tables } = setup;
  const filled = new Set(setup.filled);
  const busy = opts.busy ?? (() => false);
  let stopped = false;
  let wake: (() => void) | null = null;
  let timer: NodeJS.Timeout | null = null;
  let markReady: () => void = () => {};
  let isReady = false;
  const ready = new Promise<void>((r) => { markReady = r; });
  const started = Date.now();
  let rendered = 0;
  let lastBusy = 0;
  const sleep = (ms: number) => new Promise<void>((resolve) => {
    if (stopped) return resolve();
    wake = () => { if (timer) clearTimeout(timer); timer = null; wake = null; resolve(); };
    timer = setTimeout(wake, ms);
  });
  const openIfFilled = () => {
    if (opts.gate && !opts.gate.isOpen() && tables.every((t) => filled.has(t.source))) {
      opts.gate.open();
      log.info('render cache filled: reads use it', { rows: rendered, seconds: Math.round((Date.now() - started) / 100) / 10 });
    }
  };
  openIfFilled();
  /** Waits until the node has been quiet for QUIET ms, or until the pause after the last step is over. */
  const turn = async (earliest: number) => {
    for (;;) {
      if (stopped) return;
      const now = Date.now();
      if (busy()) lastBusy = now;
      if (now - lastBusy >= QUIET || now >= earliest) return;
      await sleep(Math.max(1, Math.min(POLL, earliest - now)));
    }
  };
  /** Another node walks: learn from the database which tables it has filled. */
  const learnFilled = async () => {
    const rows = await sql.unsafe<Array<{ source: string; version: string }>>(`select source, version from ${CACHE_META} where filled`);
    for (const r of rows) if (tables.some((t) => t.source === r.source && t.version === r.version)) filled.add(r.source);
    openIfFilled();
  };
  /** One pass over every table; answers how many entries it changed, and its statements' time (null: another node walks). */
  const pass = async (): Promise<{ changed: number; work: number } | null> => {
    const [lock] = await sql<Array<{ ok: boolean }>>`select pg_try_advisory_lock(${WALK_KEY}::bigint) as ok`;
    if (!lock.ok) return null;
    let changed = 0;
    let work = 0;
    let earliest = 0;
    try {
      for (const t of tables) {
        let next: number | null = WALK_START;
        while (next !== null && !stopped) {
          await turn(earliest);
          if (stopped) break;
          const t0 = Date.now();
          let r: { next: number | null; rendered: number; dropped: number };
          try {
            [r] = await sql.unsafe<Array<{ next: number | null; rendered: number; dropped: number }>>(t.refreshWindow, [next], { prepare: true });
          } catch (e) {
            // This table's walk stops here until the next pass; the other tables go on.
            log.warn('render cache refresh failed (reads render live meanwhile)', { table: t.source, error: String(e) });
            changed++;
            break;
          }
          const took = Date.now() - t0;
          work += took;
          earliest = Date.now() + took * LOAD_RATIO;
          next = r.next;
          changed += r.rendered + r.dropped;
          rendered += r.rendered;
        }
        if (next === null && !filled.has(t.source)) {
          await sql.unsafe(`update ${CACHE_META} set filled = true where source = $1 and version = $2`, [t.source, t.version]);
          filled.add(t.source);
          openIfFilled();
        }
      }
    } finally {
      await sql`select pg_advisory_unlock(${WALK_KEY}::bigint)`.catch(() => {});
    }
    return { changed, work };
  };
  const loop = async () => {
    while (!stopped) {
      let pause = opts.intervalMs;
      try {
        const t0 = Date.now();
        const r = await pass();
        if (r) log.debug('render cache pass', { changed: r.changed, statementsMs: r.work, ms: Date.now() - t0 });
        if (!r) await learnFilled();
        else if (!r.changed && !stopped) {
          if (!isReady) {
            isReady = true;
            markReady();
          }
          // Caught up: walking again finds what changed since, at a tenth of one connection at most.
          pause = Math.max(opts.intervalMs, r.work * IDLE_RATIO);
        }
      } catch (e) {
        log.warn('render cache refresh failed (reads render live meanwhile)', { error: String(e) });
      }
      await sleep(pause);
    }
  };
  const running = loop();
  return {
    ready,
    async stop() {
      stopped = true;
      wake?.();
      await running;
    },
  };
}
