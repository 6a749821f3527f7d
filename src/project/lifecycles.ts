// A project's lifecycle hooks (issue 23): `src/api/<api>/content-types/<name>/lifecycles.(js|ts)` and
// what `strapi.db.lifecycles.subscribe(…)` registers, called for this server's writes as Strapi 5.54's
// database layer calls them for the document service (recorded live: test/fixtures/lifecycles/):
//   create            beforeCreate/afterCreate of the draft, then of the published version
//   update            beforeUpdate/afterUpdate of the draft; a publish then deletes the old published
//                     version (beforeDelete/afterDelete) and creates the new one (beforeCreate/afterCreate)
//   delete            beforeDelete of every version, then afterDelete of every version
// `event` is `{ action, model, params: { where, data }, state, result }`; `params.data` holds the scalar
// attributes by name (with locale, publishedAt, createdAt, updatedAt) and what a `before*` hook sets there
// is written; `result` is the version row's own fields. The hooks run inside the write's transaction: a
// throw rolls it back (an `errors.*` with its status, anything else 500, logged with the file).
// Hooks on reads (find*, count) decide what a read returns (an access rule, a computed field): this server
// compiles reads to SQL and cannot run them, so every route of such a type answers 501 naming the file.
import type { ContentType, Schema } from '../../compiler/schema.ts';
import { ApiError } from '../../compiler/errors.ts';
import { dirname, join, relative, sep } from 'node:path';
import { log } from '../log.ts';
import { installProjectModules, lifecycleFiles, loadFile, projectSrc, ProjectLoadError } from './load.ts';

export type Hook = (event: LifecycleEvent) => unknown;
export interface LifecycleEvent {
  action: string;
  model: Record<string, unknown>;
  params: { where?: Record<string, unknown>; data?: Record<string, unknown> };
  state: Record<string, unknown>;
  result?: unknown;
}

const WRITE_ACTIONS = ['Create', 'Update', 'Delete'].flatMap((a) => [`before${a}`, `after${a}`]);
/** Hooks this server never calls: on reads, and on the bulk queries its writes never make. */
const READ_ACTIONS = ['FindOne', 'FindMany', 'Count'].flatMap((a) => [`before${a}`, `after${a}`]);

interface Subscriber { file: string; models: Set<string> | null; hooks: Record<string, Hook> | null; each: Hook | null }

/** Per write, each subscriber's `state`, shared by its before and after hooks of one query. */
export type HookState = Map<Subscriber, Record<string, unknown>>;

export class Lifecycles {
  private subs: Subscriber[] = [];
  private closed = new Map<string, string>();

  constructor(private modelOf: (uid: string) => Record<string, unknown>) {}

  /**
   * Strapi's `strapi.db.lifecycles.subscribe`: an object `{ models?, beforeCreate, … }` (every model when
   * `models` is absent) or a function called with every event. A function is called for writes only here
   * (said at start): what it does for reads cannot run.
   */
  subscribe(s: unknown, file = 'strapi.db.lifecycles.subscribe'): void {
    if (typeof s === 'function') {
      this.subs.push({ file, models: null, hooks: null, each: s as Hook });
      return;
    }
    if (!s || typeof s !== 'object') throw new TypeError(`${file}: a lifecycle subscriber must be an object of hooks or a function`);
    const o = s as Record<string, unknown>;
    const models = Array.isArray(o.models) ? new Set(o.models.map(String)) : null;
    const hooks: Record<string, Hook> = {};
    for (const [k, v] of Object.entries(o)) if (typeof v === 'function') hooks[k] = v as Hook;
    const reads = Object.keys(hooks).filter((k) => READ_ACTIONS.includes(k));
    if (reads.length) {
      const why = `${file}: the lifecycle hooks ${reads.join(', ')} run on reads, which this server compiles to SQL without them`;
      for (const uid of models ?? ['*']) this.closed.set(uid, why);
    }
    this.subs.push({ file, models, hooks, each: null });
  }

  /** How many subscribers there are (server.ts tells the ones bootstrap() added). */
  size(): number { return this.subs.length; }

  /** Every reason a type is closed (said once at start). */
  closedReasons(): string[] { return [...new Set(this.closed.values())]; }

  /** Why a content-type's routes cannot be served (hooks on its reads), or null. */
  closedReason(uid: string): string | null {
    return this.closed.get(uid) ?? (uid.startsWith('api::') ? this.closed.get('*') ?? null : null);
  }

  /** A 501 for a type whose reads have hooks, or null. */
  closedError(ct: ContentType): ApiError | null {
    const why = this.closedReason(ct.uid);
    return why ? new ApiError(501, 'NotImplementedError', `This content-type's project code cannot run on this server (${why})`, {}) : null;
  }

  /** The 501 of a REST path whose content-type has hooks on its reads (`/api/<route>…`), or null. */
  closedPath(schema: Schema, path: string): ApiError | null {
    if (!this.closed.size || !path.startsWith('/api/')) return null;
    const ct = schema.routes.get(path.slice(5).split('/', 1)[0]);
    return ct ? this.closedError(ct) : null;
  }

  /** Whether any hook listens to writes of `uid` (the writers then prepare events; otherwise they pay nothing). */
  active(uid: string): boolean {
    return this.subs.some((s) => (!s.models || s.models.has(uid)) && (s.each || WRITE_ACTIONS.some((a) => s.hooks![a])));
  }

  /** Calls `action`'s hooks of `ct` in subscription order (content-type files first, as Strapi registers them). */
  async fire(action: string, ct: ContentType, params: LifecycleEvent['params'], state: HookState, result?: unknown): Promise<void> {
    for (const s of this.subs) {
      if (s.models && !s.models.has(ct.uid)) continue;
      const hook = s.each ?? s.hooks![action];
      if (!hook) continue;
      let st = state.get(s);
      if (!st) state.set(s, (st = {}));
      const event: LifecycleEvent = { action, model: this.modelOf(ct.uid), params, state: st, ...(action.startsWith('after') ? { result } : {}) };
      try {
        await hook(event);
      } catch (e) {
        if (!(e instanceof ApiError)) log.error('lifecycle hook failed', { file: s.file, action, uid: ct.uid, error: String((e as Error)?.stack ?? e) });
        throw e;
      }
    }
  }
}

/** Every hook name Strapi's database layer calls (the bulk ones too: only strapi.db.query's bulk writes make them here). */
const KNOWN = new Set([...WRITE_ACTIONS, ...READ_ACTIONS, ...['CreateMany', 'UpdateMany', 'DeleteMany'].flatMap((a) => [`before${a}`, `after${a}`])]);

/**
 * Subscribes each content-type's `lifecycles` file of the project at MODELS_DIR (none: nothing). A file
 * that throws while loading, or exports something else than hooks, stops the start naming it.
 */
export async function loadLifecycles(modelsDir: string, into: Lifecycles): Promise<void> {
  const src = projectSrc(modelsDir);
  if (!src) return;
  installProjectModules();
  for (const file of lifecycleFiles(src)) {
    const rel = relative(dirname(src), file);
    // src/api/<api>/content-types/<name>/lifecycles.*: the type api::<api>.<name>.
    const parts = relative(join(src, 'api'), file).split(sep);
    const uid = `api::${parts[0]}.${parts[2]}`;
    const value = (await loadFile(file, src)).value;
    if (!value || typeof value !== 'object') throw new ProjectLoadError(`${rel}: a lifecycles file must export an object of hooks`);
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === 'function' && !KNOWN.has(k)) log.warn(`${rel}: ${k} is no lifecycle hook Strapi calls`);
    }
    into.subscribe({ ...(value as Record<string, unknown>), models: [uid] }, rel);
  }
}
