// The statements of one write transaction on Strapi 5's layout: version rows, component rows with
// their `_cmps` entries, media links and relation links, publishing (a draft copied onto a fresh
// published row, as Strapi's publish) and removing rows with everything they own. SQL text comes from
// compiler/write-sql.ts; this module decides what to run, in which order.
import type { RowHooks } from './write-hooks.ts';
import type { TransactionSql } from 'postgres';
import type { Db } from '../db/connect.ts';
import type { Component, ContentType, Schema } from '../../compiler/schema.ts';
import * as W from '../../compiler/write-sql.ts';
import { cacheTableOf } from '../../compiler/render-cache.ts';
import { fieldErrors, missingEntries, uniqueError, validation } from '../../compiler/errors.ts';
import { FILE_UID } from '../plugin-types.ts';
import { throwIfErrors, type RelationOp, type ComponentField, type ExistingComponents, type MediaValue, type Normalized, type RowValues, type UniqueValue } from './validate.ts';
import { RelationWriter, type RowRef } from './write-relations.ts';
import { MorphWriter } from './write-morphs.ts';
import { WriteLocks } from './write-locks.ts';
import type { EntryEvent } from '../webhooks/index.ts';

type Row = Record<string, unknown>;
/** A component instance an owner holds (a `_cmps` entry). */
type Held = { cmp: number; type: string };

/** A version row of the document being written. */
export interface VersionRow { id: number; locale: string | null; published: boolean }

/** The files a body names by id that do not exist, and the mime type of those that do (by id). */
async function filesById(run: <T extends Row>(text: string, params: unknown[]) => Promise<T[]>, n: Normalized): Promise<{ mime: Map<number, string>; missing: number[] }> {
  const ids = [...n.fileIds];
  if (!ids.length) return { mime: new Map(), missing: [] };
  const found = await run<{ id: number; mime: string | null }>(W.filesById, [ids]);
  const mime = new Map(found.map((r) => [Number(r.id), r.mime ?? '']));
  return { mime, missing: ids.filter((i) => !mime.has(i)) };
}

export class Writer {
  statements = 0;
  /** What this transaction did to version rows, for the webhooks sent once it committed (src/webhooks/). */
  readonly events: EntryEvent[] = [];
  /** The project's lifecycle hooks on this type's writes (src/rest/write-hooks.ts), or null when it has none. */
  hooks: RowHooks | null = null;
  private relationWriter: RelationWriter;
  private morphWriter: MorphWriter;
  /** Rows of the content-type this transaction wrote: their render-cache entries are renewed before commit. */
  private touched = new Set<number>();
  /** `api.documents.strictRelations`: a publish checks the draft's required links first (src/rest/required-links.ts). */
  strictRelations = false;
  constructor(readonly schema: Schema, private tx: TransactionSql, readonly ct: ContentType, private renderCache = false) {
    this.relationWriter = new RelationWriter(schema, ct, (text, params) => this.run(text, params));
    this.morphWriter = new MorphWriter(schema, ct, (text, params) => this.run(text, params));
  }

  /** The transaction as a database handle for reads (a write's answer read before the transaction ends). */
  db(): Db { return this.tx as unknown as Db; }

  /**
   * Statements are prepared (planning the cache refresh alone cost as much as a tag's create), except
   * those whose text depends on which attributes a body gave: their combinations are unbounded, and
   * every prepared statement stays on its connection.
   */
  async run<T extends Row = Row>(text: string, params: unknown[] = [], prepare = true): Promise<T[]> {
    this.statements++;
    return (await this.tx.unsafe(text, params as never[], { prepare })) as unknown as T[];
  }

  /** run() for callers that type the rows themselves (write-checks' Run, fileDocuments). */
  readonly query = <T>(text: string, params: unknown[] = []): Promise<T[]> => this.run(text, params) as unknown as Promise<T[]>;

  /**
   * A row's column values as parameters. A json or blocks value goes as JSON whatever it is: the driver
   * types a list by its first item (`[true, null]` went as a boolean array, which a jsonb column refuses).
   */
  private values(model: ContentType | Component, columns: Map<string, unknown>): unknown[] {
    return [...columns].map(([column, v]) => {
      if (v === null || v === undefined) return v;
      const a = model.attributes.find((x) => x.kind === 'scalar' && x.column === column);
      return a?.kind === 'scalar' && (a.type === 'json' || a.type === 'blocks') ? this.tx.json(v as never) : v;
    });
  }

  /**
   * The document's rows, read once the document's lock is held (until the transaction ends): writes of
   * one document, on any thread or node, run one after the other, each seeing what the one before
   * committed. The lock and the read are pipelined (one round trip); the read's snapshot still comes
   * after the lock, since PostgreSQL runs them in order.
   */
  async documentRows(documentId: string): Promise<VersionRow[]> {
    const [, rows] = await Promise.all([
      this.run(W.lockKey, [W.documentLockKey(this.ct, documentId)]),
      this.run<{ id: number; locale: string | null; published: boolean }>(W.documentRows(this.ct), [documentId]),
    ]);
    return rows.map((r) => ({ id: Number(r.id), locale: r.locale, published: r.published }));
  }

  /**
   * The row locks of a write (write-locks.ts), before it changes anything: its own draft `own` (null for
   * a row not made yet), the documents the body's relations name or leave, and, when it publishes, every
   * document of a draft & publish type its draft links to (the publish links to their published rows,
   * which their own publishes replace).
   */
  async lockWrite(own: VersionRow | null, relations: RelationOp[], publishing: boolean): Promise<void> {
    const locks = new WriteLocks();
    if (own) locks.row(this.ct.table, own.id, 'no key update');
    const ops = new Map(relations.map((op) => [op.attr.name, op]));
    await Promise.all(this.ct.attributes.flatMap((a) => {
      if (a.kind !== 'relation') return [];
      const op = ops.get(a.name);
      if (!op && !(publishing && this.schema.contentTypes.get(a.target)!.draftAndPublish)) return [];
      return [this.relationWriter.plan(locks, own, a, op, publishing)];
    }));
    await locks.take((t, p) => this.run(t, p));
    this.relationWriter.prelocked = true;
  }

  /** A single type's lock (its document's key): taken before looking for its document, which may not exist yet. */
  async lockSingleType(): Promise<void> {
    await this.run(W.lockKey, [W.documentLockKey(this.ct, '')]);
  }


  /** Files exist and fit their attribute's allowedTypes; unique values are free. Throws before any write. */
  async check(n: Normalized, documentId: string, locale: string | null): Promise<void> {
    await this.fileDocuments(n);
    if (n.fileIds.size) {
      const { mime, missing } = await filesById((t, p) => this.run(t, p), n);
      if (missing.length) throw fieldErrors([missingEntries(missing.length, FILE_UID)]);
      throwIfErrors(n.mediaTypes.flatMap((m) => (m.refs ? m.refs.map((r) => r.id!) : m.ids).filter((i) => !allowedType(m.allowed, mime.get(i)!)).map((i) => ({
        path: m.path, message: `${m.path.join('.')} must be a file of type ${m.allowed.join(', ')}`, name: 'ValidationError' as const, value: i,
      }))));
    }
    const errors = [];
    // Locks taken in a stable order, so two writers of the same two values cannot deadlock; the checks
    // then run in the model's order, which is the order Strapi reports them in.
    const key = (u: UniqueValue) => `${this.ct.table}.${[...u.chain.map((l) => `${l.attr.name}:${l.comp.uid}`), u.attr.column].join('.')}=${JSON.stringify(u.value)}`;
    for (const k of n.uniques.map(key).sort()) await this.run(W.lockKey, [k]);
    for (const u of n.uniques) {
      const [text, params] = uniqueLookup(this.ct, u, documentId, locale);
      if ((await this.run(text, params)).length) errors.push(uniqueError(u.path, u.value));
    }
    throwIfErrors(errors);
  }

  /** Files named by documentId get their ids (those the body's validation has not mapped yet: fileDocuments). */
  private async fileDocuments(n: Normalized): Promise<void> {
    for (const id of await fileDocuments(this.query, n.mediaValues)) n.fileIds.add(id);
  }

  // ------------------------------------------------------------ rows

  async insertRow(n: Normalized, documentId: string, locale: string | null, published: boolean): Promise<number> {
    const cols = [...n.columns.keys()];
    const [row] = await this.run<{ id: number }>(W.insertRow(this.ct, cols, published), [documentId, locale, ...this.values(this.ct, n.columns)], false);
    const id = Number(row.id);
    this.touched.add(id);
    await this.writeOwned(this.ct, id, n, { id, locale, published }, true);
    return id;
  }

  async updateRow(row: VersionRow, n: Normalized): Promise<void> {
    this.touched.add(row.id);
    await this.run(W.updateRow(this.ct, [...n.columns.keys()]), [row.id, ...this.values(this.ct, n.columns)], false);
    await this.writeOwned(this.ct, row.id, n, row, false);
  }

  /** Only the media and components of `n` on an existing row (a users-permissions user's extension: its own row is written by src/users/). */
  async ownedOnly(row: VersionRow, n: Normalized, creating: boolean): Promise<void> {
    await this.writeOwned(this.ct, row.id, n, row, creating);
  }

  /** Renders the rows written into the render cache, in the writing transaction: the first read after it hits. */
  async refreshRenders(): Promise<void> {
    if (!this.renderCache || !this.touched.size) return;
    await this.run(cacheTableOf(this.schema, this.ct).refreshIds, [[...this.touched]]);
  }

  /** Relation and morph operations of the body on one version row (`creating`: the row is new). */
  async relations(row: RowRef, n: Normalized, documentId: string, creating: boolean): Promise<void> {
    for (const op of n.relations) await this.relationWriter.apply(row, op, documentId);
    for (const op of n.morphs) await this.morphWriter.apply(row, op, creating);
  }

  /**
   * What the document's first row shares with the other locales before a write (null: not localized), as
   * i18n's document middleware reads it to decide whether a write changed anything shared (syncShared).
   */
  async sharedBefore(documentId: string): Promise<string | null> {
    if (!this.ct.localized) return null;
    const [row] = await this.run<{ v: string }>(W.firstRowShared(this.schema, this.ct), [documentId]);
    return row?.v ?? null;
  }

  /**
   * Non-localized attributes are shared by the document's locales, as i18n's syncNonLocalizedAttributes
   * copies them after a write: when the version written (`published`: the published one a publishing write
   * made) shares something else than the document's first row did before the write (`before`, sharedBefore;
   * null: no row), everything it shares goes to the other locales' rows in the same status only (checked
   * live: a publishing update leaves the other locales' drafts as they were; a draft update whose body names
   * nothing shared still passes on what its draft holds). Scalars are copied where they differ; components
   * and dynamic zones are replaced by copies (new ids) and media links by the version's, as Strapi's.
   */
  async syncShared(documentId: string, locale: string | null, published: boolean, before: string | null): Promise<void> {
    if (!this.ct.localized) return;
    const [source] = await this.run<{ id: number }>(W.versionRowId(this.ct), [documentId, locale, published], false);
    if (!source) return;
    if (before !== null) {
      const [now] = await this.run<{ v: string }>(W.rowShared(this.schema, this.ct), [Number(source.id)]);
      if (now?.v === before) return;
    }
    const targets = (await this.run<{ id: number }>(W.otherLocaleRows(this.ct), [documentId, locale, published], false)).map((r) => Number(r.id));
    if (!targets.length) return;
    const scalars = this.ct.attributes.flatMap((a) => (a.kind === 'scalar' && !a.localized && a.type !== 'uid' ? [a] : []));
    if (scalars.length) {
      const changed = await this.run<{ id: number }>(W.copyColumns(this.ct, scalars.map((a) => a.column)), [Number(source.id), targets], false);
      for (const r of changed) this.touched.add(Number(r.id));
    }
    const owned = new Set(this.ct.attributes.filter((a) => !a.localized && (a.kind === 'component' || a.kind === 'dynamiczone')).map((a) => a.name));
    const media = this.ct.attributes.filter((a) => !a.localized && a.kind === 'media').map((a) => a.name);
    if (owned.size) await this.removeHeld(await this.run<Held>(W.deleteCmpsFields(W.cmpsTableOf(this.ct)!), [targets, [...owned]]));
    if (media.length) await this.run(W.deleteMediaFields, [targets, this.ct.uid, media]);
    if (owned.size || media.length) {
      await this.cloneOwned(this.ct, targets.map((t): [number, number] => [Number(source.id), t]), new Set([...owned, ...media]), published ? 'published' : 'draft');
      for (const t of targets) this.touched.add(t);
    }
  }

  /**
   * The row a new localization takes its non-localized values from: Strapi's copyNonLocalizedFields reads
   * it with `order by published_at desc limit 1` ("prefer published", but PostgreSQL puts a draft's null
   * first), so the same statement picks the same row here (checked live: a draft's values, not en's).
   */
  async shareSource(documentId: string): Promise<number | undefined> {
    const [row] = await this.run<{ id: number }>(W.shareSourceRow(this.ct), [documentId]);
    return row ? Number(row.id) : undefined;
  }

  /** A new localization starts with the document's non-localized scalar values (those not given). */
  async sharedValues(fromRow: number, n: Normalized): Promise<void> {
    const cols = this.ct.attributes.flatMap((a) => (a.kind === 'scalar' && !a.localized && !n.columns.has(a.column) ? [a.column] : []));
    if (!cols.length) return;
    const [row] = await this.run(W.rowValues(this.ct, cols), [fromRow], false);
    for (const c of cols) n.columns.set(c, row[c]);
  }

  /** A new localization also starts with copies of the non-localized components and media the body did not give. */
  async sharedOwned(fromRow: number, toRow: number, n: Normalized): Promise<void> {
    const given = new Set([...n.components.map((f) => f.attr.name), ...n.media.map((m) => m.attr.name)]);
    const fields = new Set(this.ct.attributes.filter((a) => !a.localized && !given.has(a.name) &&
      (a.kind === 'component' || a.kind === 'dynamiczone' || a.kind === 'media')).map((a) => a.name));
    if (fields.size) await this.cloneOwned(this.ct, [[fromRow, toRow]], fields);
  }

  /**
   * Publishes draft `draft`: a fresh published row copied from it (scalars, components cloned with new
   * ids, media, links toward the targets' published versions), then the previous published row goes.
   * Links other rows held to the previous one move to the new one.
   */
  async publish(draft: VersionRow, previous: VersionRow[], keepsPlaces = true): Promise<number> {
    const [row] = await this.run<{ id: number }>(W.publishRow(this.ct), [draft.id]);
    const id = Number(row.id);
    this.touched.add(id);
    await this.cloneOwned(this.ct, [[draft.id, id]]);
    // The newest published row is the one whose places in other lists the new one takes; any older one
    // (left by a writer that did not serialize, as this server's before it did) goes too.
    await this.relationWriter.publish(draft.id, id, previous.at(-1)?.id ?? null, keepsPlaces);
    await this.morphWriter.publish(draft.id, id);
    await this.removeRows(this.ct, previous.map((r) => r.id));
    return id;
  }

  /**
   * Strapi's discardDraft for every published row `published` of a type whose draft & publish was just
   * switched on (src/db/content-migrations.ts): a draft copied from each (scalars; components cloned with
   * new ids; media; links toward the targets' drafts). Every draft row exists before any link is made,
   * so that a self relation finds the drafts of the other rows.
   */
  async discardDrafts(published: number[]): Promise<void> {
    if (!published.length) return;
    const fresh = (await this.run<{ id: number }>(W.nextIds, [this.ct.table, published.length])).map((r) => Number(r.id));
    await this.run(W.draftRows(this.ct), [published, fresh]);
    const pairs = published.map((p, i): [number, number] => [p, fresh[i]]);
    await this.cloneOwned(this.ct, pairs, null, 'draft');
    for (const [p, d] of pairs) await this.relationWriter.discard(p, d);
  }

  /** Removes rows of a content-type with their components and media links (links cascade). */
  async removeRows(model: ContentType, ids: number[]): Promise<void> {
    if (!ids.length) return;
    await this.removeOwned(model, ids);
    await this.run(W.deleteRows(model.table), [ids]);
  }

  // ------------------------------------------------------------ what a row owns

  /**
   * Media and component fields given for row `id` of `model` (a content-type or a component), and a
   * component's relations; `owner` is the version row everything belongs to (its status and locale
   * decide which rows a component's relations link to). A content row's relations are `relations()`'.
   */
  private async writeOwned(model: ContentType | Component, id: number, v: RowValues, owner: RowRef, creating: boolean): Promise<void> {
    for (const m of v.media) await this.media(model.uid, id, m, creating);
    for (const f of v.components) await this.componentField(id, f, owner);
    if ('kind' in model) return;
    const source = { table: model.table, draftAndPublish: this.ct.draftAndPublish, localized: this.ct.localized };
    for (const op of v.relations) await this.relationWriter.apply({ id, locale: owner.locale, published: owner.published }, op, '', source);
  }

  /**
   * A media field's links (`files_related_mph`), as Strapi 5.54's entity manager writes them: a new list
   * replaces them (`order` from 1); connect/disconnect (on an existing row only) removes the links to
   * the files named, then links the connected ones after the row's highest `order` in any media field.
   * Neither empty: every link of the field goes. Checked live.
   */
  private async media(uid: string, id: number, m: MediaValue, creating: boolean): Promise<void> {
    const name = m.attr.name;
    if (m.ops) {
      if (creating) return;
      const connect = m.ops.connect.map((r) => r.id!);
      const drop = [...m.ops.disconnect.map((r) => r.id!), ...connect];
      if (!drop.length) { await this.run(W.deleteMediaField, [id, uid, name]); return; }
      await this.run(W.deleteMediaFiles, [id, uid, name, drop]);
      if (connect.length) await this.run(W.connectMedia, [id, uid, name, connect]);
      return;
    }
    await this.run(W.deleteMediaField, [id, uid, name]);
    if (m.ids.length) await this.run(W.insertMedia, [id, uid, name, m.ids]);
  }

  /**
   * A component or dynamic-zone attribute takes its new instances in order: kept ones are updated,
   * new ones inserted, the ones no longer there removed with what they own.
   */
  private async componentField(ownerId: number, f: ComponentField, version: RowRef): Promise<void> {
    const table = f.attr.cmpsTable;
    const before = await this.run<Held>(W.deleteCmpsFields(table), [[ownerId], [f.attr.name]]);
    const ids: number[] = [];
    for (const item of f.items) {
      const c = item.component;
      let id = item.id;
      if (id === null) {
        const cols = [...item.columns.keys()];
        const [row] = await this.run<{ id: number }>(W.insertComponent(c, cols), [...this.values(c, item.columns)], false);
        id = Number(row.id);
      } else if (item.columns.size) {
        await this.run(W.updateComponent(c, [...item.columns.keys()]), [id, ...this.values(c, item.columns)], false);
      }
      ids.push(id);
      await this.writeOwned(c, id, item, version, item.id === null);
    }
    if (ids.length) {
      // Strapi orders repeatable components and dynamic zones from 1; a single component has no order.
      const single = f.attr.kind === 'component' && !f.attr.repeatable;
      await this.run(W.insertCmps(table), [
        ids.map(() => ownerId), ids, f.items.map((i) => i.component.uid), ids.map(() => f.attr.name), ids.map((_, i) => (single ? null : i + 1)),
      ]);
    }
    const kept = new Set(f.items.map((i, k) => `${i.component.uid}:${ids[k]}`));
    await this.removeHeld(before.filter((b) => !kept.has(`${b.type}:${Number(b.cmp)}`)));
  }

  /** Component instances, removed type by type with what they own. */
  private async removeHeld(held: Held[]): Promise<void> {
    const byType = new Map<string, number[]>();
    for (const r of held) byType.set(r.type, [...(byType.get(r.type) ?? []), Number(r.cmp)]);
    for (const [uid, list] of byType) {
      const c = this.schema.components.get(uid);
      if (c) await this.removeComponents(c, list);
    }
  }

  private async removeComponents(c: Component, ids: number[]): Promise<void> {
    await this.removeOwned(c, ids);
    await this.run(W.deleteRows(c.table), [ids]);
  }

  /** Components (recursively) and media links of rows `ids` of a model; their `_cmps` entries cascade. */
  private async removeOwned(model: ContentType | Component, ids: number[]): Promise<void> {
    const cmps = W.cmpsTableOf(model);
    if (cmps) await this.removeHeld(await this.run<Held>(W.cmpsOf(cmps), [ids]));
    if (W.ownsMedia(model)) await this.run(W.deleteMediaOf, [ids, model.uid]);
  }

  /** Rows `pairs[i][1]` get copies of what rows `pairs[i][0]` own: component instances (new ids) and media links. */
  private async cloneOwned(model: ContentType | Component, pairs: Array<[number, number]>, fields: Set<string> | null = null, status: 'published' | 'draft' = 'published'): Promise<void> {
    if (!pairs.length) return;
    if (model.attributes.some((a) => a.kind === 'media' && (!fields || fields.has(a.name)))) {
      await this.run(W.cloneMedia, [pairs.map((p) => p[0]), pairs.map((p) => p[1]), model.uid, fields ? [...fields] : null]);
    }
    const cmps = W.cmpsTableOf(model);
    if (!cmps) return;
    const rows = zoneMembers(model, (await this.run<{ entity: number; cmp: number; type: string; field: string; ord: number | null }>(W.cmpsOf(cmps), [[...new Set(pairs.map((p) => p[0]))]]))
      .filter((r) => !fields || fields.has(r.field)));
    if (!rows.length) return;
    // Each pair gets copies of its own: one source may go to several owners (the other locales of a sync).
    const bySource = new Map<number, typeof rows>();
    for (const r of rows) bySource.set(Number(r.entity), [...(bySource.get(Number(r.entity)) ?? []), r]);
    const entries = pairs.flatMap(([from, to]) => (bySource.get(from) ?? []).map((r) => ({ owner: to, row: r, fresh: 0 })));
    const byType = new Map<string, typeof entries>();
    for (const e of entries) byType.set(e.row.type, [...(byType.get(e.row.type) ?? []), e]);
    for (const [uid, list] of byType) {
      const c = this.schema.components.get(uid);
      if (!c) continue;
      const olds = list.map((e) => Number(e.row.cmp));
      const fresh = (await this.run<{ id: number }>(W.nextIds, [c.table, olds.length])).map((r) => Number(r.id));
      await this.run(W.cloneComponents(c), [olds, fresh]);
      list.forEach((e, i) => { e.fresh = fresh[i]; });
      const clones = olds.map((o, i): [number, number] => [o, fresh[i]]);
      await this.cloneOwned(c, clones, null, status);
      await this.relationWriter.publishComponentLinks(c, clones, status);
    }
    const kept = entries.filter((e) => e.fresh);
    await this.run(W.insertCmps(cmps), [
      kept.map((e) => e.owner), kept.map((e) => e.fresh), kept.map((e) => e.row.type), kept.map((e) => e.row.field), kept.map((e) => e.row.ord),
    ]);
  }

  /** The component instances row `id` holds now, with theirs, so an update can keep them by id. */
  async existingComponents(model: ContentType | Component, id: number): Promise<ExistingComponents> {
    const out: ExistingComponents = new Map();
    const cmps = W.cmpsTableOf(model);
    if (!cmps) return out;
    const rows = await this.run<{ cmp: number; type: string; field: string }>(W.cmpsOf(cmps), [[id]]);
    for (const r of rows) {
      const c = this.schema.components.get(r.type);
      if (!c) continue;
      const cid = Number(r.cmp);
      const entry = { id: cid, uid: r.type, fields: await this.existingComponents(c, cid) };
      out.set(r.field, [...(out.get(r.field) ?? []), entry]);
    }
    return out;
  }
}

/**
 * A copy's `_cmps` entries: a zone keeps only the components it lists. Strapi's validator lets a draft
 * hold any component of the app, and its publish (a copy of the draft read with the zone's own
 * components) leaves the others out and numbers what is left from 1 (checked live on 5.54).
 */
function zoneMembers<R extends { entity: number; cmp: number; type: string; field: string; ord: number | null }>(model: ContentType | Component, rows: R[]): R[] {
  const lists = new Map(model.attributes.flatMap((a) => (a.kind === 'dynamiczone' ? [[a.name, a.components] as const] : [])));
  if (!lists.size || rows.every((r) => lists.get(r.field)?.includes(r.type) ?? true)) return rows;
  const left = rows.filter((r) => lists.get(r.field)?.includes(r.type) ?? true);
  const dropped = new Set(rows.filter((r) => !left.includes(r)).map((r) => `${r.entity}:${r.field}`));
  const next = new Map<string, number>();
  const ordered = [...left].sort((x, y) => (x.ord ?? 0) - (y.ord ?? 0) || Number(x.cmp) - Number(y.cmp));
  const ord = new Map<R, number>();
  for (const r of ordered) {
    const key = `${r.entity}:${r.field}`;
    if (!dropped.has(key)) continue;
    const n = (next.get(key) ?? 0) + 1;
    next.set(key, n);
    ord.set(r, n);
  }
  return left.map((r) => (ord.has(r) ? { ...r, ord: ord.get(r)! } : r));
}

/** Strapi's media categories: images, videos, audios by MIME family; files is everything else. */
function allowedType(allowed: string[], mime: string): boolean {
  const family = mime.startsWith('image/') ? 'images' : mime.startsWith('video/') ? 'videos' : mime.startsWith('audio/') ? 'audios' : 'files';
  return allowed.includes(family);
}

/** The statement (and its parameters) that finds another document's published row holding a unique value. */
export function uniqueLookup(ct: ContentType, u: UniqueValue, documentId: string, locale: string | null): [string, unknown[]] {
  const levels = u.chain.map((l) => ({ cmpsTable: l.attr.cmpsTable, table: l.comp.table }));
  return [W.uniqueTaken(ct, u.attr.column, levels), [u.value, documentId, locale, ...u.chain.flatMap((l) => [l.attr.name, l.comp.uid])]];
}

/**
 * Media values' files named by documentId, given their ids (Strapi's document service maps them before its
 * validator runs): the ids, or the first documentId no file has as Strapi's error.
 */
export async function fileDocuments(run: <T>(text: string, params?: unknown[]) => Promise<T[]>, values: MediaValue[]): Promise<number[]> {
  const refsOf = (m: MediaValue) => [...(m.refs ?? []), ...(m.ops?.connect ?? []), ...(m.ops?.disconnect ?? [])].filter((r) => r.documentId !== undefined && r.id === undefined);
  const docs = [...new Set(values.flatMap((m) => refsOf(m).map((r) => r.documentId!)))];
  if (!docs.length) return [];
  const rows = await run<{ id: number; document_id: string }>(W.filesByDocument, [docs]);
  const byDoc = new Map(rows.map((r) => [r.document_id, Number(r.id)]));
  for (const d of docs) if (!byDoc.has(d)) throw validation(`Document with id "${d}", locale "null" not found`);
  const ids: number[] = [];
  for (const m of values) {
    for (const r of refsOf(m)) { r.id = byDoc.get(r.documentId!); ids.push(r.id!); }
    if (m.refs) m.ids = m.refs.map((r) => r.id!);
  }
  return ids;
}
