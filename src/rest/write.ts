// REST writes: create, update (with publish), localizations and delete — each one transaction.
// Draft & publish as Strapi v5: a document has a draft row and, once published, a published row that
// is a copy of the draft (scalars, components and links) made at publish time.
import { randomBytes } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { ContentType, Schema, RelationAttr } from '../../compiler/schema.ts';
import { notFound, validation } from '../../compiler/errors.ts';
import type { Compiler } from '../../compiler/index.ts';
import type { Db } from '../db/connect.ts';
import { jsonBody, type Task } from '../task.ts';
import type { Reply } from './reply.ts';
import { noContent } from './reply.ts';
import { findOne, type ReadContext } from './read.ts';
import { BodyValidator, throwIfErrors, type Normalized, type RelationOp, type RelRef } from './validate.ts';
import type { TransactionSql } from 'postgres';
import { desiredTables, componentSequence } from '../db/schema-sync.ts';

export interface WriteContext extends ReadContext { schema: Schema; config: Config; compiler: Compiler; db: Db }

type Tx = TransactionSql;
type Row = Record<string, unknown>;
const q = (id: string) => `"${id.replace(/"/g, '""')}"`;

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
export function newDocumentId(): string {
  const bytes = randomBytes(24);
  let s = '';
  for (const b of bytes) s += ALPHABET[b % 36];
  return s;
}

function parseBody(task: Task): Record<string, unknown> {
  const body = jsonBody(task);
  const data = body && typeof body === 'object' && !Array.isArray(body) ? (body as Row).data : undefined;
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw validation('Missing "data" payload in the request body');
  return data as Row;
}

interface WriteParams { publish: boolean; locale: string | null }

function writeParams(ctx: WriteContext, ct: ContentType, task: Task): WriteParams {
  const q = ctx.compiler.parse(task.query);
  const publish = !ct.draftAndPublish || q.status === undefined || q.status === 'published';
  let locale: string | null = null;
  if (ct.localized) {
    const l = q.locale;
    locale = typeof l === 'string' && l !== '' && l !== '*' ? l : ctx.schema.defaultLocale;
    if (!ctx.schema.locales.includes(locale)) throw validation(`This locale doesn't exist: ${locale}`);
  }
  return { publish, locale };
}

/** Every data column of a content-type's version table (what publish copies). */
const columnCache = new WeakMap<ContentType, string[]>();
function dataColumns(schema: Schema, ct: ContentType): string[] {
  let cols = columnCache.get(ct);
  if (!cols) {
    const t = desiredTables(schema).find((x) => x.name === ct.table)!;
    cols = t.columns.map(([c]) => c).filter((c) => !['id', 'document_id', 'locale', 'published_at', 'created_at', 'updated_at', 'doc_open'].includes(c) && !c.endsWith('__json'));
    columnCache.set(ct, cols);
  }
  return cols;
}

/** jsonb columns receive JSON text: validated json attributes arrive serialized, components as objects. */
const toJsonText = (v: unknown) => (v === null || v === undefined ? null : typeof v === 'string' ? v : JSON.stringify(v));

const jsonbColumns = (ct: ContentType) => new Set(ct.attributes.flatMap((a) =>
  a.kind === 'component' || a.kind === 'dynamiczone' || (a.kind === 'scalar' && (a.type === 'json' || a.type === 'blocks')) ? [a.column] : []));

class Writer {
  statements = 0;
  constructor(private ctx: WriteContext, private tx: Tx, private ct: ContentType) {}

  async run<T extends Row = Row>(text: string, params: unknown[] = []): Promise<T[]> {
    this.statements++;
    return (await this.tx.unsafe(text, params as never[])) as unknown as T[];
  }

  /** Fresh ids for component instances of the given types, in order, one statement for all. */
  async nextIds(uids: string[]): Promise<number[]> {
    if (!uids.length) return [];
    const rows = await this.run<{ id: string }>(
      `select nextval(u.seq)::text as id from unnest($1::text[]) with ordinality u(seq, n) order by u.n`, [uids.map(componentSequence)]);
    return rows.map((r) => Number(r.id));
  }

  /** Fills component ids, checks files, uniques and relation targets; throws before any write. */
  async prepare(n: Normalized, documentId: string, locale: string | null): Promise<void> {
    if (n.needIds.length) {
      const ids = await this.nextIds(n.needIds.map((x) => x.uid));
      // The objects are the ones inside the component values, so this fills them in place.
      n.needIds.forEach((x, i) => { x.c.id = ids[i]; });
    }
    if (n.fileIds.size) {
      const ids = [...n.fileIds];
      const found = await this.run<{ id: string; mime: string | null }>(`select id::text, mime from ${q(this.ctx.schema.filesTable)} where id = any($1::bigint[])`, [ids]);
      const mime = new Map(found.map((r) => [Number(r.id), r.mime ?? '']));
      const missing = ids.filter((i) => !mime.has(i));
      if (missing.length) throw validation(`Invalid file id${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`, { errors: [] });
      const wrong = n.mediaTypes.flatMap((m) => m.ids.filter((i) => !allowedType(m.allowed, mime.get(i)!)).map((i) => ({
        path: m.path, message: `${m.path.join('.')} must be a file of type ${m.allowed.join(', ')}`, name: 'ValidationError' as const, value: i,
      })));
      throwIfErrors(wrong);
    }
    const errors = [];
    for (const u of n.uniques) {
      const hit = await this.run(`select 1 from ${q(this.ct.table)} where ${q(u.attr.column)} = $1 and document_id <> $2::text and locale is not distinct from $3::text limit 1`, [u.value, documentId, locale]);
      if (hit.length) errors.push({ path: [u.attr.name], message: 'This attribute must be unique', name: 'ValidationError' as const, value: u.value });
    }
    throwIfErrors(errors);
  }

  async insertRow(n: Normalized, documentId: string, locale: string | null, publishedAt: 'now' | null, base?: Row): Promise<number> {
    const jsonb = jsonbColumns(this.ct);
    const values = new Map<string, unknown>();
    if (base) for (const c of dataColumns(this.ctx.schema, this.ct)) values.set(c, base[c]);
    for (const [c, v] of n.columns) values.set(c, v);
    const cols = ['document_id', 'locale', ...values.keys()];
    const params: unknown[] = [documentId, locale, ...[...values].map(([c, v]) => (jsonb.has(c) ? toJsonText(v) : v))];
    const ph = cols.map((c, i) => (jsonb.has(c) ? `$${i + 1}::text::jsonb` : `$${i + 1}`));
    const pub = publishedAt === 'now' ? 'now()' : 'null';
    const rows = await this.run<{ id: string }>(
      `insert into ${q(this.ct.table)} (${cols.map(q).join(', ')}, published_at) values (${ph.join(', ')}, ${pub}) returning id::text`, params);
    return Number(rows[0].id);
  }

  async updateRow(rowId: number, n: Normalized): Promise<void> {
    const jsonb = jsonbColumns(this.ct);
    const sets: string[] = ['updated_at = now()'];
    const params: unknown[] = [rowId];
    for (const [c, v] of n.columns) {
      params.push(jsonb.has(c) ? toJsonText(v) : v);
      sets.push(`${q(c)} = $${params.length}${jsonb.has(c) ? '::text::jsonb' : ''}`);
    }
    await this.run(`update ${q(this.ct.table)} set ${sets.join(', ')} where id = $1`, params);
  }

  async applyLinks(rowId: number, n: Normalized, documentId: string, locale: string | null): Promise<void> {
    for (const m of n.media) {
      await this.run(`delete from ${q(m.attr.linkTable)} where source_id = $1`, [rowId]);
      if (m.ids.length) {
        await this.run(`insert into ${q(m.attr.linkTable)} (source_id, file_id, position) select $1, f, p from unnest($2::bigint[]) with ordinality u(f, p)`, [rowId, m.ids]);
      }
    }
    for (const op of n.relations) await this.relation(rowId, op, documentId, locale);
  }

  private async targets(attr: RelationAttr, refs: RelRef[], locale: string | null): Promise<Map<string, number>> {
    const target = this.ctx.schema.contentTypes.get(attr.target)!;
    const docs = [...new Set(refs.flatMap((r) => [r.documentId, r.position?.before, r.position?.after].filter((x): x is string => typeof x === 'string')))];
    const out = new Map<string, number>();
    if (!docs.length) return out;
    const rows = await this.run<{ document_id: string; id: string }>(
      `select document_id, min(id)::text as id from ${q(target.table)} where document_id = any($1::text[]) group by document_id`, [docs]);
    for (const r of rows) out.set(r.document_id, Number(r.id));
    for (const d of docs) {
      if (!out.has(d)) {
        const ref = refs.find((r) => r.documentId === d);
        const loc = ref?.locale ?? (target.localized ? locale : null);
        throw validation(`Document with id "${d}", locale "${loc}" not found`);
      }
    }
    return out;
  }

  private async relation(rowId: number, op: RelationOp, documentId: string, locale: string | null): Promise<void> {
    const a = op.attr;
    const all = [...(op.set ?? []), ...op.connect, ...op.disconnect];
    const ids = await this.targets(a, all, locale);
    const target = this.ctx.schema.contentTypes.get(a.target)!;
    if (a.owner && !a.toMany) {
      let next: string | null | undefined;
      if (op.set) next = op.set.length ? op.set[op.set.length - 1].documentId : null;
      if (op.connect.length) next = op.connect[op.connect.length - 1].documentId;
      if (next === undefined && op.disconnect.length) {
        const cur = (await this.run<{ v: string | null }>(`select ${q(a.column)} as v from ${q(this.ct.table)} where id = $1`, [rowId]))[0]?.v;
        if (cur && op.disconnect.some((d) => d.documentId === cur)) next = null;
      }
      if (next !== undefined) await this.run(`update ${q(this.ct.table)} set ${q(a.column)} = $2 where id = $1`, [rowId, next]);
      // One-to-one: the target leaves its previous owner.
      if (next && (a.relation === 'oneToOne')) {
        await this.run(`update ${q(this.ct.table)} set ${q(a.column)} = null where ${q(a.column)} = $1 and document_id <> $2`, [next, documentId]);
      }
      return;
    }
    if (a.owner) {
      const current = (await this.run<{ target_doc: string }>(`select target_doc from ${q(a.linkTable)} where source_id = $1 order by position`, [rowId])).map((r) => r.target_doc);
      const list = reorder(op.set ? [] : current, op, ids);
      if (op.set) {
        const seen = new Set<string>();
        for (const r of op.set) if (!seen.has(r.documentId)) { seen.add(r.documentId); list.push(r.documentId); }
      }
      await this.run(`delete from ${q(a.linkTable)} where source_id = $1`, [rowId]);
      if (list.length) await this.run(`insert into ${q(a.linkTable)} (source_id, target_doc, position) select $1, d, p from unnest($2::text[]) with ordinality u(d, p)`, [rowId, list]);
      // One-to-many: a target belongs to one owner document, so other documents lose it.
      if (list.length && a.relation === 'oneToMany') {
        await this.run(`delete from ${q(a.linkTable)} l using ${q(this.ct.table)} t where l.source_id = t.id and t.document_id <> $1 and l.target_doc = any($2::text[])`, [documentId, list]);
      }
      return;
    }
    // Inverse side: the links live on the owner's rows (every version of each target document).
    const owner = target.byName.get(a.mappedBy!);
    if (!owner || owner.kind !== 'relation') return;
    const connectDocs = [...(op.set ?? []), ...op.connect].map((r) => r.documentId);
    const disconnectDocs = op.disconnect.map((r) => r.documentId);
    if (!owner.toMany) {
      if (op.set) await this.run(`update ${q(target.table)} set ${q(owner.column)} = null where ${q(owner.column)} = $1`, [documentId]);
      if (disconnectDocs.length) await this.run(`update ${q(target.table)} set ${q(owner.column)} = null where ${q(owner.column)} = $1 and document_id = any($2::text[])`, [documentId, disconnectDocs]);
      if (connectDocs.length && a.relation === 'oneToOne') {
        await this.run(`update ${q(target.table)} set ${q(owner.column)} = null where ${q(owner.column)} = $1 and document_id <> all($2::text[])`, [documentId, connectDocs]);
      }
      if (connectDocs.length) await this.run(`update ${q(target.table)} set ${q(owner.column)} = $1 where document_id = any($2::text[])`, [documentId, connectDocs]);
    } else {
      if (op.set) await this.run(`delete from ${q(owner.linkTable)} where target_doc = $1`, [documentId]);
      if (disconnectDocs.length) await this.run(`delete from ${q(owner.linkTable)} l using ${q(target.table)} t where l.source_id = t.id and l.target_doc = $1 and t.document_id = any($2::text[])`, [documentId, disconnectDocs]);
      if (connectDocs.length) {
        await this.run(`insert into ${q(owner.linkTable)} (source_id, target_doc, position)
          select t.id, $1, coalesce((select max(position) from ${q(owner.linkTable)} x where x.source_id = t.id), 0) + 1
          from ${q(target.table)} t where t.document_id = any($2::text[]) on conflict do nothing`, [documentId, connectDocs]);
      }
    }
  }

  /** Copies the draft row (scalars, components, links) onto a fresh published row. */
  async publish(draftId: number, documentId: string, locale: string | null): Promise<number> {
    const cols = dataColumns(this.ctx.schema, this.ct).map(q).join(', ');
    await this.run(`delete from ${q(this.ct.table)} where document_id = $1 and locale is not distinct from $2::text and published_at is not null`, [documentId, locale]);
    const rows = await this.run<{ id: string }>(
      `insert into ${q(this.ct.table)} (document_id, locale, published_at, created_at, updated_at${cols ? ', ' + cols : ''})
       select document_id, locale, now(), created_at, now()${cols ? ', ' + cols : ''} from ${q(this.ct.table)} where id = $1 returning id::text`, [draftId]);
    const pubId = Number(rows[0].id);
    await this.reIdComponents(draftId, pubId);
    for (const a of this.ct.attributes) {
      const table = a.kind === 'relation' && a.owner && a.toMany ? a.linkTable : a.kind === 'media' && a.multiple ? a.linkTable : null;
      if (!table) continue;
      const col = a.kind === 'media' ? 'file_id' : 'target_doc';
      await this.run(`insert into ${q(table)} (source_id, ${col}, position) select $2, ${col}, position from ${q(table)} where source_id = $1`, [draftId, pubId]);
    }
    return pubId;
  }

  /** The published copy gets its own component instances (new ids), as Strapi clones them on publish. */
  private async reIdComponents(fromId: number, toId: number): Promise<void> {
    const attrs = this.ct.attributes.filter((a) => a.kind === 'component' || a.kind === 'dynamiczone');
    if (!attrs.length) return;
    const row = (await this.run(`select ${attrs.map((a) => q(a.column)).join(', ')} from ${q(this.ct.table)} where id = $1`, [fromId]))[0];
    const found: Array<{ c: Row; uid: string }> = [];
    const visit = (uid: string, v: unknown) => {
      if (!v || typeof v !== 'object' || Array.isArray(v)) return;
      const comp = this.ctx.schema.components.get(uid);
      if (!comp) return;
      for (const a of comp.attributes) {
        if (a.kind !== 'component') continue;
        const inner = (v as Row)[a.name];
        for (const x of Array.isArray(inner) ? inner : [inner]) visit(a.component, x);
      }
      found.push({ c: v as Row, uid });
    };
    for (const a of attrs) {
      const v = row[a.column];
      if (a.kind === 'component') for (const x of Array.isArray(v) ? v : [v]) visit(a.component, x);
      else if (Array.isArray(v)) for (const x of v) visit(String((x as Row)?.__component), x);
    }
    if (!found.length) return;
    const ids = await this.nextIds(found.map((f) => f.uid));
    found.forEach((f, i) => { f.c.id = ids[i]; });
    const params: unknown[] = [toId];
    const sets = attrs.map((a) => { params.push(toJsonText(row[a.column])); return `${q(a.column)} = $${params.length}::text::jsonb`; });
    await this.run(`update ${q(this.ct.table)} set ${sets.join(', ')} where id = $1`, params);
  }

  /** Non-localized attributes are shared by every locale of a document. */
  async syncShared(documentId: string, locale: string | null, n: Normalized): Promise<void> {
    if (!this.ct.localized) return;
    const shared = this.ct.attributes.filter((a) => !a.localized && 'column' in a && n.columns.has(a.column));
    if (!shared.length) return;
    const jsonb = jsonbColumns(this.ct);
    const params: unknown[] = [documentId, locale];
    const sets = shared.map((a) => { params.push(jsonb.has(a.column) ? toJsonText(n.columns.get(a.column)) : n.columns.get(a.column)); return `${q(a.column)} = $${params.length}${jsonb.has(a.column) ? '::text::jsonb' : ''}`; });
    await this.run(`update ${q(this.ct.table)} set ${sets.join(', ')} where document_id = $1 and locale is distinct from $2::text`, params);
  }
}

/** Strapi's media categories: images, videos, audios by MIME family; files is everything else. */
function allowedType(allowed: string[], mime: string): boolean {
  const family = mime.startsWith('image/') ? 'images' : mime.startsWith('video/') ? 'videos' : mime.startsWith('audio/') ? 'audios' : 'files';
  return allowed.includes(family);
}

/** Applies disconnect, then each connect in order (with its position) to an ordered list of documentIds. */
function reorder(current: string[], op: RelationOp, ids: Map<string, number>): string[] {
  const drop = new Set(op.disconnect.map((r) => r.documentId));
  const list = current.filter((d) => !drop.has(d));
  const positioned = new Set<string>();
  for (const r of op.connect) {
    if (r.position) {
      if (positioned.has(r.documentId)) {
        throw validation(`The relation with id ${ids.get(r.documentId)} is already connected. You cannot connect the same relation twice.`);
      }
      positioned.add(r.documentId);
    }
    const at = list.indexOf(r.documentId);
    if (at >= 0) {
      if (!r.position) continue;
      list.splice(at, 1);
    }
    const p = r.position;
    let idx = list.length;
    if (p?.start) idx = 0;
    else if (p?.before !== undefined) { const i = list.indexOf(p.before); idx = i >= 0 ? i : list.length; }
    else if (p?.after !== undefined) { const i = list.indexOf(p.after); idx = i >= 0 ? i + 1 : list.length; }
    list.splice(idx, 0, r.documentId);
  }
  return list;
}

async function existingRows(ctx: WriteContext, tx: Tx | Db, ct: ContentType, documentId: string): Promise<Row[]> {
  const rows = await tx.unsafe(`select * from ${q(ct.table)} where document_id = $1 order by (published_at is null) desc, id for update`, [documentId]);
  ctx.count(1);
  return rows as unknown as Row[];
}

function componentState(ct: ContentType, row: Row | undefined): Map<string, unknown> {
  const m = new Map<string, unknown>();
  if (!row) return m;
  for (const a of ct.attributes) if (a.kind === 'component' || a.kind === 'dynamiczone') m.set(a.name, row[a.column]);
  return m;
}

async function transaction(ctx: WriteContext, ct: ContentType, fn: (w: Writer, tx: Tx) => Promise<void>): Promise<void> {
  let n = 0;
  await ctx.db.begin(async (tx) => {
    const w = new Writer(ctx, tx, ct);
    try { await fn(w, tx); } finally { n = w.statements; }
  });
  ctx.count(n);
}

/** Reads back the written version with the request's own fields/populate/status/locale. */
function respond(ctx: WriteContext, ct: ContentType, task: Task, documentId: string, status: number): Promise<Reply> {
  return findOne(ctx, ct, task.query, documentId, status);
}

export async function createDocument(ctx: WriteContext, ct: ContentType, task: Task): Promise<Reply> {
  const data = parseBody(task);
  const { publish, locale } = writeParams(ctx, ct, task);
  const v = new BodyValidator(ctx.schema, ct, true, locale);
  const n = v.run(data, new Map());
  throwIfErrors(v.errors);
  const documentId = newDocumentId();
  await transaction(ctx, ct, async (w) => {
    await w.prepare(n, documentId, locale);
    if (!ct.draftAndPublish) {
      const id = await w.insertRow(n, documentId, locale, 'now');
      await w.applyLinks(id, n, documentId, locale);
      return;
    }
    const draft = await w.insertRow(n, documentId, locale, null);
    await w.applyLinks(draft, n, documentId, locale);
    if (publish) await w.publish(draft, documentId, locale);
  });
  return respond(ctx, ct, task, documentId, 201);
}

export async function updateDocument(ctx: WriteContext, ct: ContentType, task: Task, documentId: string): Promise<Reply> {
  const data = parseBody(task);
  const { publish, locale } = writeParams(ctx, ct, task);
  let notFoundDoc = false;
  await transaction(ctx, ct, async (w, tx) => {
    const rows = await existingRows(ctx, tx, ct, documentId);
    if (!rows.length) { notFoundDoc = true; return; }
    const mine = rows.filter((r) => (r.locale ?? null) === locale);
    const draftRow = ct.draftAndPublish ? mine.find((r) => r.published_at === null) ?? null : mine[0] ?? null;
    if (!draftRow) {
      // A new localization of an existing document (or a draft for a published-only legacy row).
      const v = new BodyValidator(ctx.schema, ct, true, locale);
      const n = v.run(data, new Map());
      throwIfErrors(v.errors);
      const donor = rows[0];
      const shared = new Map<string, unknown>();
      for (const a of ct.attributes) if (!a.localized && 'column' in a && a.kind !== 'relation') shared.set(a.column, donor[a.column]);
      const jsonb = jsonbColumns(ct);
      for (const [c, val] of shared) if (!n.columns.has(c)) n.columns.set(c, jsonb.has(c) && val !== null ? JSON.stringify(val) : val);
      await w.prepare(n, documentId, locale);
      const id = await w.insertRow(n, documentId, locale, ct.draftAndPublish ? null : 'now');
      await w.applyLinks(id, n, documentId, locale);
      if (ct.draftAndPublish && publish) await w.publish(id, documentId, locale);
      return;
    }
    const v = new BodyValidator(ctx.schema, ct, false, locale);
    const n = v.run(data, componentState(ct, draftRow));
    throwIfErrors(v.errors);
    await w.prepare(n, documentId, locale);
    const id = Number(draftRow.id);
    await w.updateRow(id, n);
    await w.applyLinks(id, n, documentId, locale);
    await w.syncShared(documentId, locale, n);
    if (ct.draftAndPublish && publish) await w.publish(id, documentId, locale);
  });
  if (notFoundDoc) throw notFound();
  return respond(ctx, ct, task, documentId, 200);
}

export async function putSingle(ctx: WriteContext, ct: ContentType, task: Task): Promise<Reply> {
  const existing = (await ctx.db.unsafe(`select document_id from ${q(ct.table)} limit 1`)) as unknown as Row[];
  ctx.count(1);
  if (existing.length) return updateDocument(ctx, ct, task, String(existing[0].document_id));
  const reply = await createDocument(ctx, ct, task);
  return { ...reply, status: 200 };
}

export async function deleteDocument(ctx: WriteContext, ct: ContentType, task: Task, documentId: string | undefined): Promise<Reply> {
  const params = ctx.compiler.parse(task.query);
  const locale = ct.localized && typeof params.locale === 'string' && params.locale !== '*' && params.locale !== '' ? params.locale : null;
  await transaction(ctx, ct, async (w) => {
    let doc = documentId;
    if (doc === undefined) {
      const r = await w.run<{ document_id: string }>(`select document_id from ${q(ct.table)} limit 1`);
      if (!r.length) return;
      doc = r[0].document_id;
    }
    if (locale) await w.run(`delete from ${q(ct.table)} where document_id = $1 and locale = $2`, [doc, locale]);
    else await w.run(`delete from ${q(ct.table)} where document_id = $1`, [doc]);
    const left = await w.run(`select 1 from ${q(ct.table)} where document_id = $1 limit 1`, [doc]);
    if (left.length) return;
    // The document is gone: drop links that point at it from other types.
    for (const other of ctx.schema.contentTypes.values()) {
      for (const a of other.attributes) {
        if (a.kind !== 'relation' || !a.owner || a.target !== ct.uid) continue;
        if (a.toMany) await w.run(`delete from ${q(a.linkTable)} where target_doc = $1`, [doc]);
        else await w.run(`update ${q(other.table)} set ${q(a.column)} = null where ${q(a.column)} = $1`, [doc]);
      }
    }
  });
  // Strapi answers 204 whether or not there was anything to delete (single types included).
  return noContent();
}
