// Webhooks as Strapi 5.54 sends them (its webhook runner and document service's event manager):
// the enabled rows of `strapi_webhooks` subscribed to an event get one POST each, with the headers
// `{...webhooks.defaultHeaders, ...row.headers, 'X-Strapi-Event': event, 'Content-Type': 'application/json'}`
// and the body `{"event","createdAt",...info}` — info `{model, uid, entry}` for `entry.*`, `{media}` for
// `media.*`. An entry of create, update and publish is the written row read after the commit with every
// relation (its own fields), media, component and dynamic zone populated, as Strapi's getDeepPopulate; a
// deleted row is its own fields, read in the transaction before it goes.
//
// Sent only by the node (and thread) that wrote, after the commit, never on the request path: calls
// wait in a bounded queue, `concurrency` at a time, each given up after `timeout`; a failure is logged
// with the webhook's name and changes nothing for the write.
import http from 'node:http';
import https from 'node:https';
import type { Config } from '../../config.ts';
import type { Compiler } from '../../compiler/index.ts';
import type { ContentType, Schema } from '../../compiler/schema.ts';
import { readStatement, type Db } from '../db/connect.ts';
import { readVersion, type RunStatement } from '../rest/version-row.ts';
import { log } from '../log.ts';

export type EntryEventName = 'entry.create' | 'entry.update' | 'entry.publish' | 'entry.delete' | 'entry.unpublish' | 'entry.draft-discard';
export type MediaEventName = 'media.create' | 'media.update' | 'media.delete';

/** What a write did to one version row, recorded in its transaction. */
export interface EntryEvent {
  event: EntryEventName;
  documentId: string;
  locale: string | null;
  published: boolean;
  /** A deleted row's fields, read before it went (the others are read after the commit). */
  entry?: unknown;
}

interface Hook { id: number; name: string; url: string; headers: Record<string, string>; events: string[] }


export class Webhooks {
  private hooks: Hook[] = [];
  private loadedAt = -Infinity;
  private loading: Promise<Hook[]> | null = null;
  private queue: Array<{ hook: Hook; event: string; body: string }> = [];
  private running = 0;
  private closed = false;
  private inFlight = new Set<AbortController>();
  private readonly opts: Config['webhooks'];
  private readonly ttl: number;
  private populates = new Map<string, string>();
  /** Entries being read for calls not queued yet (drain() waits for them too). */
  private preparing = new Set<Promise<unknown>>();

  constructor(private db: Db, private compiler: Compiler, private schema: Schema, config: Config) {
    this.opts = config.webhooks;
    this.ttl = config.auth.permissionsCacheTtl;
  }

  /** The enabled webhooks, read again once older than PERMISSIONS_CACHE_TTL (as roles and permissions). */
  private async list(): Promise<Hook[]> {
    if (performance.now() - this.loadedAt < this.ttl) return this.hooks;
    this.loading ??= this.load().finally(() => { this.loading = null; });
    return this.loading;
  }

  private async load(): Promise<Hook[]> {
    try {
      const rows = await this.db.unsafe('select id, name, url, headers, events, enabled from strapi_webhooks where enabled is true order by id') as unknown as Array<Record<string, unknown>>;
      this.hooks = rows.map((r) => ({
        id: Number(r.id), name: String(r.name ?? ''), url: String(r.url ?? ''),
        headers: json(r.headers) as Record<string, string> ?? {},
        events: Array.isArray(json(r.events)) ? (json(r.events) as string[]) : [],
      }));
    } catch (e) {
      // No such table (a database Strapi never ran on): no webhooks.
      if ((e as { code?: string })?.code !== '42P01') log.warn('could not read the webhooks (strapi_webhooks)', { error: String(e) });
      this.hooks = [];
    }
    this.loadedAt = performance.now();
    return this.hooks;
  }

  /** Whether some enabled webhook listens to `event` (a write reads a deleted row's fields only then). */
  async wants(event: string): Promise<boolean> {
    return (await this.list()).some((h) => h.events.includes(event));
  }

  /**
   * A deleted version row's fields as Strapi's entry.delete gives them (no relations, media nor
   * components), read by `run` in the deleting transaction before the row goes.
   */
  deletedEntry(run: RunStatement, ct: ContentType, documentId: string, locale: string | null, published: boolean): Promise<unknown> {
    return readVersion(this.compiler, run, ct, { documentId, locale, published });
  }

  /** A committed write's events: their entries read and their calls queued, in the background. */
  written(ct: ContentType, events: EntryEvent[]): void {
    if (!events.length || this.closed) return;
    this.track(this.entries(ct, events).catch((e: unknown) => log.warn('could not prepare webhooks', { uid: ct.uid, error: String(e) })));
  }

  /**
   * A users-permissions user created or edited (register, the users API, a password or token change, an
   * email confirmation): Strapi 5.54's user service sends `entry.create`/`entry.update` of model `user`
   * with its role for each, and nothing for a delete. `read` gives the user's JSON after the commit.
   */
  user(event: 'entry.create' | 'entry.update', read: () => Promise<string | null>): void {
    if (this.closed) return;
    this.track(this.list().then(async (hooks) => {
      if (!hooks.some((h) => h.events.includes(event))) return;
      const text = await read();
      if (text !== null) this.enqueue(hooks, event, { model: 'user', uid: 'plugin::users-permissions.user', entry: JSON.parse(text) });
    }).catch((e: unknown) => log.warn('could not prepare webhooks', { event, uid: 'plugin::users-permissions.user', error: String(e) })));
  }

  /** Files the upload plugin created, updated or deleted (its answer's file objects). */
  media(event: MediaEventName, files: unknown[]): void {
    if (!files.length || this.closed) return;
    this.track(this.list().then((hooks) => {
      for (const media of files) this.enqueue(hooks, event, { media });
    }).catch((e: unknown) => log.warn('could not prepare webhooks', { event, error: String(e) })));
  }

  private async entries(ct: ContentType, events: EntryEvent[]): Promise<void> {
    const hooks = await this.list();
    for (const e of events) {
      const targets = hooks.filter((h) => h.events.includes(e.event));
      if (!targets.length) continue;
      // A full queue (receivers that hang) drops the calls: their entries are not read at all, so a dead
      // receiver's backlog stops costing the writes anything once it is full.
      if (this.queue.length >= this.opts.queueSize) {
        for (const hook of targets) log.warn('webhook queue full: call dropped', { webhook: hook.name, event: e.event, url: hook.url, queueSize: this.opts.queueSize });
        continue;
      }
      let entry = e.entry;
      if (entry === undefined) {
        // Prepared as the reads' own statements are: planning a deep populate took as long as the write itself.
        const run: RunStatement = async (text, params, prepare) => await readStatement(this.db, text, params, undefined, false, prepare) as Array<Record<string, unknown>>;
        entry = await readVersion(this.compiler, run, ct, e, this.populate(ct));
        if (entry == null) continue; // gone again before it could be read (Strapi would send null)
      }
      this.enqueue(hooks, e.event, { model: ct.singularName, uid: ct.uid, entry });
    }
  }

  private enqueue(hooks: Hook[], event: string, info: Record<string, unknown>): void {
    for (const hook of hooks) {
      if (!hook.events.includes(event)) continue;
      if (this.queue.length >= this.opts.queueSize) {
        log.warn('webhook queue full: call dropped', { webhook: hook.name, event, url: hook.url, queueSize: this.opts.queueSize });
        continue;
      }
      this.queue.push({ hook, event, body: JSON.stringify({ event, createdAt: new Date(), ...info }) });
    }
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.running < this.opts.concurrency && this.queue.length) {
      const call = this.queue.shift()!;
      this.running++;
      this.send(call.hook, call.event, call.body).finally(() => { this.running--; this.pump(); });
    }
  }

  /**
   * One call, by node:http(s) with keep-alive agents: fetch (undici) cost several times the CPU per call,
   * taken from the writes this thread serves (bench/webhook-receivers.ts).
   */
  private async send(hook: Hook, event: string, body: string): Promise<void> {
    const abort = new AbortController();
    this.inFlight.add(abort);
    const timer = setTimeout(() => abort.abort(new Error(`no answer within ${this.opts.timeout} ms`)), this.opts.timeout);
    try {
      const res = await post(hook.url, { ...this.opts.defaultHeaders, ...hook.headers, 'X-Strapi-Event': event, 'Content-Type': 'application/json' }, body, abort.signal);
      if (res.status < 200 || res.status >= 300) log.warn('webhook answered an error', { webhook: hook.name, event, url: hook.url, status: res.status, body: res.text.slice(0, 500) });
    } catch (e) {
      if (!this.closed) log.warn('webhook call failed', { webhook: hook.name, event, url: hook.url, error: String((e as Error)?.message ?? e) });
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(abort);
    }
  }

  private track(p: Promise<unknown>): void {
    this.preparing.add(p);
    void p.finally(() => this.preparing.delete(p));
  }

  /**
   * Waits until every call of the writes made so far was sent (answered, failed or timed out), at most
   * `ms`: the app bootstrap() writes through closes after it, so its writes' webhooks go out as Strapi's.
   */
  async drain(ms: number): Promise<void> {
    const until = performance.now() + ms;
    while ((this.preparing.size || this.queue.length || this.running) && !this.closed && performance.now() < until) {
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Stops: calls not yet sent are dropped, those in flight aborted. */
  close(): void {
    this.closed = true;
    if (this.queue.length) log.warn('webhook calls dropped at shutdown', { calls: this.queue.length });
    this.queue = [];
    for (const a of this.inFlight) a.abort(new Error('server stopping'));
  }

  /** The populate of Strapi's events for `ct` (query-string form, made once per type). */
  private populate(ct: ContentType): string {
    let p = this.populates.get(ct.uid);
    if (p === undefined) { p = bracket('populate', this.deepPopulate(ct.attributes)); this.populates.set(ct.uid, p); }
    return p;
  }

  /** Strapi's getDeepPopulate: every relation and media, components and dynamic zones with theirs, to any depth. */
  private deepPopulate(attributes: ContentType['attributes']): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const a of attributes) {
      if (a.private) continue;
      if (a.kind === 'relation' || a.kind === 'media') out[a.name] = true;
      else if (a.kind === 'component') out[a.name] = this.componentPopulate(a.component);
      else if (a.kind === 'dynamiczone') out[a.name] = { on: Object.fromEntries(a.components.map((c) => [c, this.componentPopulate(c) === true ? { populate: '*' } : this.componentPopulate(c)])) };
    }
    return out;
  }

  private componentPopulate(uid: string): unknown {
    const c = this.schema.components.get(uid);
    if (!c) return true;
    const inner = this.deepPopulate(c.attributes);
    return Object.keys(inner).length ? { populate: inner } : true;
  }
}

const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

/** POSTs `body`; the answer's status and (for errors) its first KiB. Rejects on a network error or `signal`. */
function post(url: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    let u: URL;
    try { u = new URL(url); } catch { reject(new Error(`invalid URL ${url}`)); return; }
    const agent = agents[u.protocol as 'http:' | 'https:'];
    if (!agent) { reject(new Error(`unsupported protocol ${u.protocol}`)); return; }
    const payload = Buffer.from(body);
    const req = (u.protocol === 'https:' ? https : http).request(u, { method: 'POST', agent, signal, headers: { ...headers, 'Content-Length': String(payload.length) } }, (res) => {
      const ok = (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => { if (!ok && size < 1024) { chunks.push(c); size += c.length; } });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', (e) => reject(signal.aborted ? (signal.reason as Error) : e));
    req.end(payload);
  });
}

function json(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try { return JSON.parse(v); } catch { return null; }
}

/** `{a: {b: true}}` → `populate[a][b]=true` (the bracket form the query compiler parses). */
function bracket(prefix: string, v: unknown): string {
  if (v && typeof v === 'object') return Object.entries(v).map(([k, x]) => bracket(`${prefix}[${encodeURIComponent(k)}]`, x)).filter(Boolean).join('&');
  return `${prefix}=${encodeURIComponent(String(v))}`;
}
