// REST writes: create, update (with publish), localizations and delete — each one transaction.
// Draft & publish as Strapi 5's document service: a create makes the draft row and, unless
// `status=draft`, publishes it; an update changes the draft row and publishes again; publishing copies
// the draft onto a fresh published row (src/rest/writer.ts).
import type { Config } from '../../config.ts';
import type { ContentType, Schema } from '../../compiler/schema.ts';
import { notFound, validation } from '../../compiler/errors.ts';
import type { Compiler } from '../../compiler/index.ts';
import { selectsLocale } from '../../compiler/params.ts';
import type { QueryValue } from '../../compiler/querystring.ts';
import { anyDocument, documentLockKey, rowValues, rowsValues } from '../../compiler/write-sql.ts';
import { writeTables } from '../../compiler/tables.ts';
import type { Db } from '../db/connect.ts';
import { newDocumentId } from '../db/document-id.ts';
import type { Task } from '../task.ts';
import { requestBody } from '../request-body.ts';
import type { Reply } from './reply.ts';
import { noContent } from './reply.ts';
import { findOne, type ReadContext } from './read.ts';
import { BodyValidator, omitKeys, publishOnly, requiredScalars, routeBody, storedDraftErrors, throwIfErrors, withoutUnknownKeys, type ExistingComponents, type MediaValue, type Normalized, type RelationOp, type UniqueValue } from './validate.ts';
import { show } from './yup-print.ts';
import { Writer, fileDocuments, type VersionRow } from './writer.ts';
import { RelationWriter } from './write-relations.ts';
import { strapiEntry } from './strapi-entry.ts';
import { byPlace, storeCheck, storedUniques, withUniqueErrors, type Run } from './write-checks.ts';
import type { Webhooks } from '../webhooks/index.ts';
import type { Lifecycles } from '../project/lifecycles.ts';
import { RowHooks, columnsOnly } from './write-hooks.ts';
import { checkPublishedLinks, showLinkIds } from './required-links.ts';
import { contentApi, routeParams, type CoreAction } from './route-params.ts';

export interface WriteContext extends ReadContext {
  schema: Schema; config: Config; compiler: Compiler; db: Db;
  /**
   * Called once a write's transaction committed, with every table it may have changed (the response
   * cache; read replicas learn the position the next reads must have replayed). Awaited before the
   * write's answer is read.
   */
  onWrite?: (tables: string[]) => void | Promise<void>;
  /** Told each committed write's events (src/webhooks/): sent in the background, never awaited. */
  webhooks?: Webhooks;
  /** The project's lifecycle hooks (src/project/lifecycles.ts), called in each write's transaction. */
  lifecycles?: Lifecycles;
  /**
   * Set within project code's strapi.db.transaction (src/project/transaction.ts): `db` is its connection and
   * a write joins it. Writes of one document then skip this thread's turns: an earlier write of the
   * transaction holds the document's lock until it commits, and a write waiting its turn on that lock would
   * hold up the transaction's next write of it for ever.
   */
  inTransaction?: boolean;
}

/**
 * A write's `data` and parameters, its query checked before them as Strapi's controller does (after the
 * body parser's syntax check, before `data` and the body's validation), so a bad query writes nothing.
 */
function writeInput(ctx: WriteContext, ct: ContentType, task: Task, action: CoreAction): { data: Record<string, unknown>; p: WriteParams } {
  const body = requestBody(task);
  const own = routeParams(ctx, ct, action);
  const { query, documentChecks } = ctx.compiler.checkWriteQuery(ct, task.query, own ?? !!ctx.contentApi);
  let data = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).data : undefined;
  // A list passes Strapi's object check (lodash isObject) and fails its body schema's cast to an object.
  if (Array.isArray(data)) {
    const message = `this must be a \`object\` type, but the final value was: \`null\` (cast from the value \`${show(data)}\`).`;
    throw validation(message, { errors: [{ path: [], message, name: 'ValidationError', value: null }] });
  }
  if (!data || typeof data !== 'object') throw validation('Missing "data" payload in the request body');
  // The route's own body params: its other keys are checked first, then their values; the writer never sees them.
  if (own?.inputKeys.size) data = routeBody(ctx.schema, ct, data as Record<string, unknown>, own, true);
  // Strapi's core create and update routes take a `data` key at the root of `data` (their body schema's own
  // key), which is written nowhere.
  else if (ctx.contentApi) data = omitKeys(data as Record<string, unknown>, (k) => k === 'data' && !ct.byName.has(k));
  // Strapi's document service passes over what is no attribute (project code's writes).
  else data = withoutUnknownKeys(ct, data as Record<string, unknown>);
  // Strapi's controller refuses a body's unknown key before its document service looks at the query or for
  // the document (checked live: an unknown key in an update of no document is a 400).
  new BodyValidator(ctx.schema, ct, true).checkKeys(data as Record<string, unknown>);
  documentChecks();
  // A create or update writes one locale: the document service refuses every one (checked live on
  // Strapi 5.54: nothing is written).
  if (ct.localized && query.locale === '*') throw validation('Invalid locale param * provided. Document locales must be strings.');
  return { data: data as Record<string, unknown>, p: writeParams(ctx, ct, query) };
}

interface WriteParams {
  publish: boolean;
  locale: string | null;
  /**
   * A publish restores the published row's places in the other sides' lists (Strapi's bidirectional sync)
   * only when the entry Strapi's publish returns holds its locale: a request whose `fields` leave `locale`
   * out has its new links go last there, on a first publish as on a republish (checked live on 5.54: the
   * sync maps old rows to new ones by locale, and finds none).
   */
  keepsPlaces: boolean;
}

/**
 * A body as Strapi's document service checks it: a draft & publish type writes its draft first (draft
 * rules: errors there are the only ones reported), then validates again to publish (full rules). `w`: the
 * write's transaction when there is one (a lookup must not take a second connection).
 */
async function validateBody(ctx: WriteContext, ct: ContentType, creating: boolean, p: WriteParams, data: Record<string, unknown>, existing: ExistingComponents, w?: Writer, documentId = '', stored: readonly UniqueValue[] = []): Promise<Normalized> {
  const run = runner(ctx, w);
  const rel = new RelationWriter(ctx.schema, ct, run);
  // Strapi's order (5.54, checked live): documentIds are mapped to rows before validation (a body with both
  // a bad value and a documentId of no entry is answered with the latter; looked up only when the body has
  // errors); yup's errors come with one error per type of which entries named by id (relations, media) do
  // not exist (the relations store's check, replaced by its own error when it cannot be built); then a value
  // the database layer cannot parse (a date) as the draft is written; only then the publish's own
  // validation (full rules), whose store check the draft already passed.
  const first = async (v: BodyValidator): Promise<Normalized> => {
    v.deferParse = true;
    const n = v.run(data, existing);
    // Every body that names an entry (the store's check and unique values come after the mapping): a
    // disconnect's documentId of no entry is that error too, before the publish's own validation (checked
    // live: a PUT disconnecting a gone tag, its required component value missing, is the documentId's 400).
    const rowsOf = new Map<string, Map<string, number[]>>();
    const relations = v.errors.length || v.deferred || n.relations.some((op) => (op.set?.length ?? 0) + op.connect.length + op.disconnect.length > 0);
    // Files named by documentId are mapped in the same pass, in the body's order (checked live: `cover: "x"`
    // is "Document with id "x" … not found" before a missing required value and a later relation's).
    for (const item of inBodyOrder([...(relations ? n.relations : []), ...n.mediaValues], data)) {
      if (item.attr.kind === 'media') { for (const id of await fileDocuments(run, [item as MediaValue])) n.fileIds.add(id); continue; }
      const op = item as RelationOp;
      const rows = await rel.checkReferences({ locale: p.locale, published: !ct.draftAndPublish }, op);
      const known = rowsOf.get(op.attr.target) ?? new Map<string, number[]>();
      for (const [doc, r] of rows) known.set(doc, r);
      rowsOf.set(op.attr.target, known);
    }
    // The entry as Strapi's validation saw it, its references mapped: its relations store is counted over
    // it, and the store's errors carry it.
    const entry = strapiEntry({ schema: ctx.schema, creating, ids: (target, doc) => rowsOf.get(target)?.get(doc) ?? [] }, ct, data, p.locale, creating ? documentId : '');
    const store = v.storeFailed ? [] : await storeCheck(ctx.schema, ct, entry, rowsOf, run);
    for (const e of [...store, ...v.entryErrors]) e.value = entry;
    if (v.errors.length || store.length || v.deferred) await withUniqueErrors(ctx.schema, ct, v.errors, n.uniques, documentId, p.locale, run);
    v.errors.push(...store);
    if (v.errors.length && v.unresolved.length) await showLinkIds(ctx.schema, run, v.unresolved);
    throwIfErrors(v.errors);
    if (v.deferred) throw v.deferred;
    return n;
  };
  if (ct.draftAndPublish) {
    const n = await first(new BodyValidator(ctx.schema, ct, creating, p.locale, true));
    if (!p.publish) return n;
  }
  const v = new BodyValidator(ctx.schema, ct, creating, p.locale);
  v.strictRelations = ctx.config.api.documents.strictRelations;
  if (!ct.draftAndPublish) return first(v);
  const n = v.run(data, existing);
  if (v.errors.length) await withUniqueErrors(ctx.schema, ct, v.errors, [...n.uniques, ...stored].sort(byPlace(ct)), documentId, p.locale, run);
  if (v.errors.length && v.unresolved.length) await showLinkIds(ctx.schema, run, v.unresolved);
  throwIfErrors(v.errors);
  return n;
}

/**
 * The body's relation references mapped to entries as Strapi's document service does before it looks for
 * the document to update: one naming no entry is its 400 even when the document is gone (checked live).
 */
async function mapReferences(ctx: WriteContext, ct: ContentType, p: WriteParams, data: Record<string, unknown>, w: Writer): Promise<void> {
  const v = new BodyValidator(ctx.schema, ct, false, p.locale, ct.draftAndPublish);
  v.deferParse = true;
  let n: Normalized;
  // A body its validation refuses outright is answered after the 404, as Strapi validates after its lookup.
  try { n = v.run(data, new Map()); } catch { return; }
  const rel = new RelationWriter(ctx.schema, ct, runner(ctx, w));
  for (const op of inBodyOrder(n.relations, data)) await rel.checkReferences({ locale: p.locale, published: !ct.draftAndPublish }, op);
}

/**
 * A body's relation operations (and media values, a component's at its key) in the order its keys name them,
 * as Strapi's traversal maps their references.
 */
function inBodyOrder<T extends { attr: { name: string }; bodyKey?: string }>(ops: T[], data: Record<string, unknown>): T[] {
  const keys = Object.keys(data);
  const at = (x: T) => keys.indexOf(x.bodyKey ?? x.attr.name);
  return [...ops].sort((x, y) => at(x) - at(y));
}

/** Statements on the write's transaction, or (before it has one) on the pool. */
function runner(ctx: WriteContext, w?: Writer): Run {
  return w ? w.query : <T>(text: string, params: unknown[] = []): Promise<T[]> => ctx.db.unsafe(text, params as never[]) as unknown as Promise<T[]>;
}

/**
 * A write answers the entry it wrote with the query's fields and populate: its `filters` and `_q` (checked
 * before the write) select nothing there (Strapi 5.54, checked live: `POST ?filters[name]=x` answers 201 with
 * the entry, which this server read back through them and answered 404 after writing it).
 */
function writtenEntry(q: { [key: string]: QueryValue }): { [key: string]: QueryValue } {
  const { filters: _f, _q, ...rest } = q;
  return rest;
}

function writeParams(ctx: WriteContext, ct: ContentType, q: { [key: string]: QueryValue }): WriteParams {
  const publish = !ct.draftAndPublish || q.status === undefined || q.status === 'published';
  let locale: string | null = null;
  if (ct.localized) {
    const l = q.locale;
    locale = typeof l === 'string' && l !== '' && l !== '*' ? l : ctx.schema.defaultLocale;
    // Strapi 5.54's Content API writes any locale it is given (checked live: `?locale=zz` stores rows in
    // `zz`); only one its column cannot hold is refused here, before anything is written.
    if (locale.length > 255) throw validation(`This locale doesn't exist: ${locale.slice(0, 32)}…`);
  }
  return { publish, locale, keepsPlaces: selectsLocale(q.fields) };
}

/**
 * Runs `fn` in one transaction on a fresh Writer. A deadlock or serialization failure (two writes whose
 * relation links meet in another order), or a link to a row another write just replaced (RETRYABLE),
 * rolls everything back: it runs again, from the start, after the other committed.
 */
async function transaction(ctx: WriteContext, ct: ContentType, fn: (w: Writer) => Promise<void>, documentId: string | null = null): Promise<void> {
  if (documentId !== null && !ctx.inTransaction) return inTurn(documentLockKey(ct, documentId), () => transaction(ctx, ct, fn));
  let n = 0;
  let committed: Writer | null = null;
  try {
    await retried(() => ctx.db.begin(async (tx) => {
      const w = committed = new Writer(ctx.schema, tx, ct, ctx.config.api.rest.renderCache);
      w.strictRelations = ctx.config.api.documents.strictRelations;
      if (ctx.lifecycles?.active(ct.uid)) w.hooks = new RowHooks(ctx.lifecycles, ctx.compiler, ct, (t, p, prepare) => w.run(t, p, prepare));
      try {
        await fn(w);
        await w.refreshRenders();
      } finally { n += w.statements; }
    }));
  } finally { ctx.count(n); }
  // Committed (a rolled-back write changed nothing): cached reads of what it may have changed go now,
  // before its answer is sent.
  await ctx.onWrite?.(writeTables(ctx.schema, ct));
  if (committed) ctx.webhooks?.written(ct, (committed as Writer).events);
}
/**
 * Writes of one document from this thread wait their turn here, before taking a connection: 50 writers
 * of one document would otherwise hold every connection of the write pool waiting on its lock, and the
 * writes of other documents would time out for want of one. Across threads and nodes the document's
 * advisory lock still decides.
 */
const turns = new Map<string, Promise<void>>();
export async function inTurn(key: string, fn: () => Promise<void>): Promise<void> {
  const before = turns.get(key);
  let done!: () => void;
  const mine = new Promise<void>((resolve) => { done = resolve; });
  const tail = (before ?? Promise.resolve()).then(() => mine);
  turns.set(key, tail);
  try {
    await before;
    await fn();
  } finally {
    done();
    if (turns.get(key) === tail) turns.delete(key);
  }
}

/**
 * deadlock_detected, serialization_failure, and foreign_key_violation: every reference a write makes was
 * found before it is written (a missing one is the client's 400 with its own message), so a link to a
 * row that is gone by then means another write replaced that row meanwhile (a publish makes a new
 * published row): run again, the references are found anew. A reference still gone after the last
 * attempt answers 400 as before.
 */
const RETRYABLE: ReadonlySet<string> = new Set(['40P01', '40001', '23503', '55P03']);
const MAX_ATTEMPTS = 5;

/** Runs a transaction, again (up to MAX_ATTEMPTS in all) while it fails with one of `codes`. */
export async function retried(attempt: () => Promise<unknown>, codes: ReadonlySet<string> = RETRYABLE): Promise<void> {
  for (let n = 1; ; n++) {
    try {
      await attempt();
      return;
    } catch (e) {
      if (n >= MAX_ATTEMPTS || !codes.has((e as { code?: unknown })?.code as string)) throw e;
    }
  }
}

/**
 * A new version row for `locale` (a new document, or a new localization sharing the non-localized values
 * of row `shareFrom`), published unless asked not to.
 */
async function createVersion(w: Writer, ct: ContentType, n: Normalized, documentId: string, p: WriteParams, previous: VersionRow[] = [], shareFrom?: number): Promise<void> {
  const published = !ct.draftAndPublish;
  await w.lockWrite(null, n.relations, ct.draftAndPublish && p.publish);
  const afterCreate = w.hooks ? await w.hooks.beforeCreate(n, documentId, { locale: p.locale, published }) : null;
  const id = await w.insertRow(n, documentId, p.locale, published);
  if (shareFrom !== undefined) await w.sharedOwned(shareFrom, id, n);
  const row = { id, locale: p.locale, published };
  await w.relations(row, n, documentId, true);
  await afterCreate?.();
  w.events.push({ event: 'entry.create', documentId, locale: p.locale, published });
  if (ct.draftAndPublish && p.publish) await publish(w, row, previous, documentId, p.keepsPlaces);
}

/**
 * The draft `row` published (its published version replaced), as Strapi's publish: one entry.publish.
 * `keepsPlaces`: WriteParams'.
 */
async function publish(w: Writer, row: VersionRow, previous: VersionRow[], documentId: string, keepsPlaces = true): Promise<void> {
  // Strapi's publish validates the draft as written (its required links: api.documents.strictRelations).
  if (w.strictRelations) await checkPublishedLinks(w.schema, w, w.ct, row.id);
  if (w.hooks) await w.hooks.publish(documentId, row, previous, () => w.publish(row, previous, keepsPlaces), (r, cols) => w.updateRow(r, columnsOnly(cols)));
  else await w.publish(row, previous, keepsPlaces);
  w.events.push({ event: 'entry.publish', documentId, locale: row.locale, published: true });
}

export async function createDocument(ctx: WriteContext, ct: ContentType, task: Task): Promise<Reply> {
  const { data, p } = writeInput(ctx, ct, task, 'create');
  const n = await validateBody(ctx, ct, true, p, data, new Map());
  const documentId = newDocumentId();
  await transaction(ctx, ct, async (w) => {
    await w.check(n, documentId, p.locale);
    await createVersion(w, ct, n, documentId, p);
  });
  return findOne(ctx, ct, task.query, documentId, 201, 'create', writtenEntry);
}

export async function updateDocument(ctx: WriteContext, ct: ContentType, task: Task, documentId: string, event: 'entry.update' | 'entry.draft-discard' = 'entry.update'): Promise<Reply> {
  const { data, p } = writeInput(ctx, ct, task, 'update');
  let found = true;
  let reply: Reply | undefined;
  await transaction(ctx, ct, async (w) => {
    reply = undefined;
    found = await updateIn(ctx, w, ct, p, data, documentId, event, answerBeforeSync(ctx, w, ct, task, documentId, (r) => { reply = r; }));
  }, documentId);
  if (!found) throw notFound();
  return reply ?? findOne(ctx, ct, task.query, documentId, 200, 'update', writtenEntry);
}

/**
 * A localized type's write answer, read on the write's transaction just before the non-localized sync:
 * Strapi's answer shows the other locales (a populated `localizations`) as they were, its i18n middleware
 * syncing once the action returned its populated entry (checked live). Read without the client's signal, so
 * a client going away does not roll the write back.
 */
function answerBeforeSync(ctx: WriteContext, w: Writer, ct: ContentType, task: Task, documentId: string, keep: (r: Reply) => void): (() => Promise<void>) | undefined {
  if (!ct.localized) return undefined;
  const db = w.db();
  const onTx: WriteContext = { ...ctx, reader: () => db, primaryReads: db, customReads: undefined, signal: undefined };
  return async () => keep(await findOne(onTx, ct, task.query, documentId, 200, 'update', writtenEntry));
}

/** Writes `data` onto an existing document (a new localization if `p.locale` has no row yet); false when there is no such document. */
async function updateIn(ctx: WriteContext, w: Writer, ct: ContentType, p: WriteParams, data: Record<string, unknown>, documentId: string, event: 'entry.update' | 'entry.draft-discard' = 'entry.update', beforeSync?: () => Promise<void>): Promise<boolean> {
  const rows = await w.documentRows(documentId);
  if (!rows.length) { await mapReferences(ctx, ct, p, data, w); return false; }
  const mine = rows.filter((r) => r.locale === p.locale);
  const published = mine.filter((r) => r.published);
  const draft = ct.draftAndPublish ? mine.find((r) => !r.published) : mine[0];
  if (!draft) {
    // A new localization of the document: non-localized attributes come from an existing locale.
    const n = await validateBody(ctx, ct, true, p, data, new Map(), w, documentId);
    // What the document shared before this write (syncShared's comparison), read once the body passed.
    const sharedBefore = await w.sharedBefore(documentId);
    const from = await w.shareSource(documentId) ?? rows[0].id;
    await w.sharedValues(from, n);
    await w.check(n, documentId, p.locale);
    await createVersion(w, ct, n, documentId, p, published, from);
    await beforeSync?.();
    // Non-localized values the body gave reach the document's other locales too (checked live).
    await w.syncShared(documentId, p.locale, !ct.draftAndPublish || p.publish, sharedBefore);
    return true;
  }
  const existing = await w.existingComponents(ct, draft.id);
  // Publishing validates the draft as written with the published rules (Strapi validates the whole entry):
  // what the body leaves as stored is checked too — required values, values only a publish checks, unique
  // values (reported with the body's other faults) — read once, and its components' required values.
  const publishing = ct.draftAndPublish && p.publish;
  const missing = publishing ? ct.attributes.filter((a) => a.required && !(a.name in data)) : [];
  const cols = publishing ? [...new Set(ct.attributes.filter((a) => !(a.name in data) && ((a.kind === 'scalar' && a.unique) || a.required || publishOnly(a)))
    .flatMap((a) => (a.kind === 'scalar' ? [a.column] : [])))] : [];
  const [values] = cols.length ? await w.run<Record<string, unknown>>(rowValues(ct, cols), [draft.id]) : [{}];
  const stored = storedUniques(ct, values ?? {}, data);
  const n = await validateBody(ctx, ct, false, p, data, existing, w, documentId, stored);
  if (stored.length) { n.uniques.push(...stored); n.uniques.sort(byPlace(ct)); }
  if (publishing) {
    // The stored instances of the components the body left as they were, with the values their required fields hold.
    const instances = new Map<string, Array<Record<string, unknown>>>();
    for (const a of ct.attributes) {
      const required = a.kind === 'component' && !(a.name in data) ? requiredScalars(ctx.schema.components.get(a.component)) : [];
      const ids = existing.get(a.name)?.map((c) => c.id) ?? [];
      if (a.kind !== 'component' || !required.length || !ids.length) continue;
      const rows = await w.run<Record<string, unknown>>(rowsValues(ctx.schema.components.get(a.component)!, required.map((f) => f.column)), [ids]);
      const byId = new Map(rows.map((r) => [Number(r.id), r]));
      instances.set(a.name, ids.map((id) => byId.get(id) ?? {}));
    }
    const errors = storedDraftErrors(ctx.schema, ct, missing, values ?? {}, existing, instances);
    if (errors.length) await withUniqueErrors(ctx.schema, ct, errors, n.uniques, documentId, p.locale, runner(ctx, w));
    throwIfErrors(errors);
  }
  await w.check(n, documentId, p.locale);
  const sharedBefore = await w.sharedBefore(documentId);
  await w.lockWrite(draft, n.relations, publishing);
  const afterUpdate = w.hooks ? await w.hooks.beforeUpdate(n, documentId, draft) : null;
  await w.updateRow(draft, n);
  await w.relations(draft, n, documentId, false);
  await afterUpdate?.();
  w.events.push({ event, documentId, locale: p.locale, published: draft.published });
  if (ct.draftAndPublish && p.publish) await publish(w, draft, published, documentId, p.keepsPlaces);
  await beforeSync?.();
  await w.syncShared(documentId, p.locale, !ct.draftAndPublish || p.publish, sharedBefore);
  return true;
}

/**
 * A single type's PUT: its document updated, or created by the first write. The type's lock is taken
 * before looking for the document, so concurrent first writes make one document, not one each.
 */
export async function putSingle(ctx: WriteContext, ct: ContentType, task: Task): Promise<Reply> {
  const { data, p } = writeInput(ctx, ct, task, 'update');
  let documentId = '';
  let reply: Reply | undefined;
  await transaction(ctx, ct, async (w) => {
    reply = undefined;
    await w.lockSingleType();
    const existing = await w.run<{ document_id: string }>(anyDocument(ct));
    if (existing.length) {
      documentId = existing[0].document_id;
      await updateIn(ctx, w, ct, p, data, documentId, 'entry.update', answerBeforeSync(ctx, w, ct, task, documentId, (r) => { reply = r; }));
      return;
    }
    const n = await validateBody(ctx, ct, true, p, data, new Map(), w);
    documentId = newDocumentId();
    await w.check(n, documentId, p.locale);
    await createVersion(w, ct, n, documentId, p);
  }, ''); // a single type's turn is the type's (documentLockKey)
  return reply ?? findOne(ctx, ct, task.query, documentId, 200, 'update', writtenEntry);
}

/** A single type's document (any version), or undefined: Strapi's core service reads it so, outside any transaction. */
export async function singleDocumentId(ctx: WriteContext, ct: ContentType): Promise<string | undefined> {
  const rows = await ctx.db.unsafe<Array<{ document_id: string }>>(anyDocument(ct));
  return rows[0]?.document_id;
}

/**
 * Deletes a document's versions in one locale (`locale` given, else the default one, as Strapi's
 * document service), or in every locale with `locale=*`. Strapi answers 204 whether or not there was
 * anything to delete (single types included).
 */
export async function deleteDocument(ctx: WriteContext, ct: ContentType, task: Task, documentId: string | undefined): Promise<Reply> {
  const { query: params, documentChecks } = ctx.compiler.checkWriteQuery(ct, task.query, contentApi(ctx, ct, 'delete'));
  documentChecks();
  // Strapi 5.54's document service refuses it (a bare Error there: a 500); nothing is deleted either way.
  if (ct.draftAndPublish && params.status === 'draft') throw validation('Cannot delete a draft document');
  const asked = typeof params.locale === 'string' && params.locale !== '' ? params.locale : ctx.schema.defaultLocale;
  // Asked before the transaction (it may read the webhooks on another connection of the pool).
  const hooked = ctx.webhooks ? await ctx.webhooks.wants('entry.delete') : false;
  await transaction(ctx, ct, async (w) => {
    let doc = documentId;
    if (doc === undefined) {
      const r = await w.run<{ document_id: string }>(anyDocument(ct));
      if (!r.length) return;
      doc = r[0].document_id;
    }
    const rows = await w.documentRows(doc);
    const gone = rows.filter((r) => !ct.localized || asked === '*' || r.locale === asked);
    if (hooked && ctx.webhooks) {
      for (const r of gone) w.events.push({ event: 'entry.delete', documentId: doc, locale: r.locale, published: r.published, entry: await ctx.webhooks.deletedEntry((t, p, prepare) => w.run(t, p, prepare), ct, doc, r.locale, r.published) });
    }
    const afterDelete = w.hooks ? await w.hooks.beforeDelete(doc, gone) : null;
    await w.removeRows(ct, gone.map((r) => r.id));
    await afterDelete?.();
  }, documentId ?? '');
  return noContent();
}

/** Locales a document-service call names: one locale (null on a type without i18n), a list of them, or every one (`'*'`). */
export type Locales = string | readonly string[] | null | '*';
const inLocales = (l: Locales) => (r: VersionRow) => l === '*' || (Array.isArray(l) ? l.includes(r.locale as string) : r.locale === l);

/**
 * The document service's publish (project code's `strapi.documents(uid).publish`): each draft of `locales`
 * copied onto a fresh published row as an update's publish does, the draft itself unchanged, in one
 * transaction holding the document's lock. `check(locale)` runs first for each draft (Strapi validates the
 * draft as a published entry: an error thrown there rolls everything back). The locales published, in the
 * order of their drafts' rows.
 */
export async function publishDocument(ctx: WriteContext, ct: ContentType, documentId: string, locales: Locales, check?: (locale: string | null) => Promise<void>): Promise<Array<string | null>> {
  let done: Array<string | null> = [];
  await transaction(ctx, ct, async (w) => {
    done = [];
    const rows = (await w.documentRows(documentId)).filter(inLocales(locales));
    for (const draft of rows.filter((r) => !r.published)) {
      await check?.(draft.locale);
      await w.lockWrite(draft, [], true);
      await publish(w, draft, rows.filter((r) => r.published && r.locale === draft.locale), documentId);
      done.push(draft.locale);
    }
  }, documentId);
  return done;
}

/**
 * The document service's unpublish: the published versions of `locales` removed (with what they own) in
 * one transaction holding the document's lock, the drafts kept. The ids removed.
 */
export async function unpublishDocument(ctx: WriteContext, ct: ContentType, documentId: string, locales: Locales): Promise<number[]> {
  let gone: number[] = [];
  // Asked before the transaction (it may read the webhooks on another connection of the pool).
  const hooked = ctx.webhooks ? await ctx.webhooks.wants('entry.unpublish') : false;
  await transaction(ctx, ct, async (w) => {
    const rows = (await w.documentRows(documentId)).filter((r) => r.published).filter(inLocales(locales));
    gone = rows.map((r) => r.id);
    // Strapi's entry.unpublish: each removed version's own fields, as a delete's.
    if (hooked && ctx.webhooks) {
      for (const r of rows) w.events.push({ event: 'entry.unpublish', documentId, locale: r.locale, published: true, entry: await ctx.webhooks.deletedEntry((t, p, prepare) => w.run(t, p, prepare), ct, documentId, r.locale, true) });
    }
    const afterDelete = w.hooks ? await w.hooks.beforeDelete(documentId, rows) : null;
    await w.removeRows(ct, gone);
    await afterDelete?.();
  }, documentId);
  return gone;
}

/**
 * The first half of the document service's discardDraft: in `locales`, the drafts of locales without a
 * published version removed (there is nothing to copy back), decided under the document's lock. The
 * locales that have a published version, in the order of those rows.
 */
export async function dropUnpublishedDrafts(ctx: WriteContext, ct: ContentType, documentId: string, locales: Locales): Promise<Array<string | null>> {
  let published: Array<string | null> = [];
  await transaction(ctx, ct, async (w) => {
    const rows = (await w.documentRows(documentId)).filter(inLocales(locales));
    published = rows.filter((r) => r.published).sort((a, b) => a.id - b.id).map((r) => r.locale);
    const drop = rows.filter((r) => !r.published && !published.includes(r.locale));
    const afterDelete = w.hooks ? await w.hooks.beforeDelete(documentId, drop) : null;
    await w.removeRows(ct, drop.map((r) => r.id));
    await afterDelete?.();
  }, documentId);
  return published;
}
