// The project's own global middlewares (config/middlewares: `global::<name>`, `api::<api>.<name>`,
// `{ name, config }`, `{ resolve }`), run as Strapi runs its list: around every request (REST, GraphQL, the
// plugins' routes), in the list's order, before routing. Strapi's own entries (`strapi::…`) are this
// server's own handling and are not run, except for where `strapi::body` stands: a middleware listed before
// it sees no `ctx.request.body`, as in Strapi. After `await next()` a middleware sees the answer (ctx.status,
// ctx.body parsed only when read, ctx.state.user of the route's caller) and may change it or set headers.
// Errors the route answered are answers here, not exceptions (they are already Strapi's envelope).
import { dirname, relative } from 'node:path';
import { ApiError } from '../../compiler/errors.ts';
import type { Caller } from '../auth/permissions.ts';
import { toApiError } from '../db/errors.ts';
import { log } from '../log.ts';
import { errorReply, type Reply } from '../rest/reply.ts';
import type { RestContext } from '../rest/router.ts';
import type { Task } from '../task.ts';
import { parsedAsData, requestBody } from '../request-body.ts';
import { compose, type Middleware, type Next } from './compose.ts';
import { KoaContext, type KoaState } from './ctx.ts';
import { ProjectLoadError, type GlobalMiddlewares } from './load.ts';
import type { ProjectStrapi } from './strapi.ts';

/** What the request's own handling answered, and for whom. */
export interface Answered { reply: Reply; caller: Caller | null }
/** The request's own handling (routing, auth, the route); `state` is ctx.state, shared with a project route's ctx. */
export type Inner = (task: Task, state: KoaState) => Promise<Answered>;
/** Sets ctx.state.user/auth for the caller the route authenticated (as Strapi's authentication does). */
export type FillState = (rest: RestContext, caller: Caller | null, state: KoaState) => Promise<void> | void;

/** The task a global ctx was made for (read where strapi::body stands in the chain). */
const TASK = Symbol('task');
type TaskContext = KoaContext & { [TASK]: Task };

/** An answer is JSON unless it says otherwise (REST replies carry no content type). */
const jsonAnswer = (contentType: string | undefined) => !contentType || /json/i.test(contentType);

/** ctx.request.body as strapi::body leaves it; a body it cannot parse is the route's error to answer, `{}` here. */
function bodyOf(task: Task): unknown {
  try { return requestBody(task); } catch { return {}; }
}

export class GlobalChain {
  /** The names of the project's middlewares, in order (start log). */
  readonly names: string[] = [];
  private chain: (ctx: KoaContext, last: Next) => Promise<unknown>;

  constructor(strapi: ProjectStrapi, list: GlobalMiddlewares, src: string, private fillState: FillState) {
    const where = relative(dirname(src), list.file);
    const fns: Middleware[] = [];
    let body = false;
    const bodyMark: Middleware = (ctx, next) => { ctx.request.body = bodyOf((ctx as TaskContext)[TASK]); return next(); };
    for (const e of list.entries) {
      if (!e.resolved && e.name.startsWith('strapi::')) {
        if (e.name === 'strapi::body' && !body) { body = true; fns.push(bodyMark); }
        continue;
      }
      let factory: unknown;
      if (e.resolved) factory = e.resolved.value;
      else if (/^(plugin|admin)::/.test(e.name)) {
        throw new ProjectLoadError(`${where}: the global middleware ${e.name} is Strapi's own, which this server does not run, and may decide who gets what: it does not serve this project's code (PROJECT_CODE=false serves the models without any of it)`);
      } else factory = strapi.middlewares.get(e.name)?.factory;
      if (typeof factory !== 'function') {
        throw new ProjectLoadError(e.resolved ? `${relative(dirname(src), e.resolved.file)}: a middleware must export a function (config, { strapi }) => async (ctx, next) => {…}` : `${where}: Middleware ${e.name} not found.`);
      }
      let mw: unknown;
      try { mw = (factory as (c: Record<string, unknown>, o: { strapi: unknown }) => unknown)(e.config, { strapi: strapi.api }); } catch (err) {
        throw new ProjectLoadError(`${where}: Middleware "${e.name}": ${(err as Error)?.stack ?? String(err)}`);
      }
      if (typeof mw !== 'function') throw new ProjectLoadError(`${where}: Middleware "${e.name}" must return a function (ctx, next) => …`);
      fns.push(mw as Middleware);
      this.names.push(e.name);
    }
    // Without strapi::body in the list Strapi parses no body; the routes here still read theirs.
    if (!body) fns.push(bodyMark);
    this.chain = compose(fns);
  }

  /** Runs the chain around `inner`; what it changed of the request (query, JSON body) reaches the route. */
  async handle(rest: RestContext, task: Task, inner: Inner): Promise<Reply> {
    const ctx = new KoaContext({
      method: task.method, path: task.path, querystring: task.query, headers: task.headers ?? {}, ip: task.ip, params: {}, body: undefined,
      parse: (raw) => rest.compiler.parse(raw), caller: null,
    });
    (ctx as TaskContext)[TASK] = task;
    let answered: Answered | null = null;
    let original: unknown;
    const last: Next = async () => {
      const query = ctx.querystring;
      const b = ctx.request.body;
      // A JSON or form body the middlewares may have changed in place goes to the route as they left it (as JSON).
      const json = b !== undefined && b !== null && typeof b === 'object' && parsedAsData(task.contentType) && task.body?.length;
      const t: Task = query === task.query && !json ? task : { ...task, query, ...(json ? { body: Buffer.from(JSON.stringify(b)), contentType: 'application/json' } : {}) };
      answered = await inner(t, ctx.state);
      const filling = this.fillState(rest, answered.caller, ctx.state);
      if (filling) await filling;
      const r = answered.reply;
      for (const [k, v] of r.headers ?? []) ctx.responseHeaders.set(k.toLowerCase(), v);
      if (r.contentType) ctx.responseHeaders.set('content-type', r.contentType);
      if (jsonAnswer(r.contentType) && r.body.length) {
        const bytes = typeof r.body === 'string' ? Buffer.from(r.body) : r.body;
        ctx.setRaw(r.status, bytes);
        original = bytes;
      } else {
        ctx.status = r.status;
        if (r.body.length) ctx.body = r.body;
        original = r.body.length ? r.body : undefined;
      }
    };
    try {
      await this.chain(ctx, last);
    } catch (e) {
      if (e instanceof ApiError || typeof (e as { code?: unknown })?.code === 'string') return errorReply(toApiError(e));
      log.error('a global middleware failed', { path: task.path, middlewares: this.names, error: String((e as Error)?.stack ?? e) });
      return errorReply(new ApiError(500, 'InternalServerError', 'Internal Server Error', null));
    }
    return toReply(ctx, answered, original);
  }
}


/** ctx's answer: the route's reply as it was when no middleware changed its body, else what ctx holds (Koa's rules). */
function toReply(ctx: KoaContext, answered: Answered | null, original: unknown): Reply {
  const headers = [...ctx.responseHeaders].filter(([k]) => k !== 'content-type');
  const contentType = ctx.responseHeaders.get('content-type');
  const extra = { ...(headers.length ? { headers } : {}), ...(contentType ? { contentType } : {}) };
  const raw = ctx.rawBody();
  if (answered && raw !== null && raw === original) return { ...answered.reply, status: ctx.status, ...extra, body: answered.reply.body };
  // Koa: nothing set the answer: 404 Not Found.
  if (!answered && !ctx.explicitStatus) return { status: 404, body: 'Not Found', contentType: 'text/plain; charset=utf-8', ...(headers.length ? { headers } : {}) };
  const body = ctx.body;
  if (answered && body !== undefined && body === original) return { ...answered.reply, status: ctx.status, ...extra };
  if (body === null || body === undefined) return { status: ctx.status, body: '', ...extra };
  if (typeof body === 'string') return { status: ctx.status, body, ...extra, contentType: contentType ?? (body.trimStart().startsWith('<') ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8') };
  if (body instanceof Uint8Array) return { status: ctx.status, body, ...extra, contentType: contentType ?? 'application/octet-stream' };
  return { status: ctx.status, body: JSON.stringify(body), ...extra };
}
