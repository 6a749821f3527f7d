// What a database holds of the demo models' content, written so that two databases compare whatever ids
// and documentIds they gave: each version row named by its document (the smallest title or name among
// its rows), locale and status; links between those names; component instances by owner, field and
// content; and REST answers without ids and timestamps. The data migration tests compare this server's
// database after a draft & publish or i18n switch with what a live Strapi 5.54 made of the same content
// (test/fixtures/data-migrations/, recorded by make.sh there).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sql } from 'postgres';
import type { Poster } from './schema-edits.ts';
import { DEMO_MODELS } from './helpers.ts';

export const CONTENT_TABLES = ['articles', 'authors', 'tags', 'categories', 'globals', 'abouts'] as const;

/** Columns that differ between two databases holding the same content. */
const VOLATILE = new Set(['id', 'document_id', 'created_at', 'updated_at', 'published_at', 'created_by_id', 'updated_by_id', 'locale']);

export interface ContentSnapshot {
  /** Per content-type table: `<document> @<locale> <published|draft> {values}`, sorted. */
  rows: Record<string, string[]>;
  /** Per link table: `<row> -> <row>`, sorted. */
  links: Record<string, string[]>;
  /** Per `_cmps` table: `<row>.<field>[<order>] <component> {values}`, sorted. */
  components: Record<string, string[]>;
  /** Rows per component table (more than `_cmps` lists: instances no row holds any more). */
  componentRows: Record<string, number>;
}

async function tablesLike(sql: Sql, pattern: string): Promise<string[]> {
  const rows = await sql<Array<{ t: string }>>`select tablename as t from pg_tables where schemaname = current_schema() and tablename like ${pattern} order by 1`;
  return rows.map((r) => r.t);
}

async function columnsOf(sql: Sql, table: string): Promise<string[]> {
  const rows = await sql<Array<{ c: string }>>`select column_name as c from information_schema.columns where table_schema = current_schema() and table_name = ${table} order by ordinal_position`;
  return rows.map((r) => r.c);
}

/** The demo components' tables by uid (`shared.seo` → its collectionName). */
const COMPONENT_TABLES = new Map(readdirSync(join(DEMO_MODELS, 'components')).flatMap((cat) =>
  readdirSync(join(DEMO_MODELS, 'components', cat)).map((f): [string, string] =>
    [`${cat}.${f.replace(/\.json$/, '')}`, (JSON.parse(readFileSync(join(DEMO_MODELS, 'components', cat, f), 'utf8')) as { collectionName: string }).collectionName])));

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;

/** Row id → name, for every row of a content-type table. */
async function rowNames(sql: Sql, table: string): Promise<Map<number, string>> {
  const cols = await columnsOf(sql, table);
  const name = ['title', 'name', 'site_name'].find((c) => cols.includes(c));
  const label = name ? q(name) : "''";
  const rows = await sql.unsafe<Array<{ id: number; doc: string | null; locale: string | null; published: boolean }>>(
    `select id, min(${label} collate "C") over (partition by document_id) as doc, locale, published_at is not null as published from ${q(table)}`);
  return new Map(rows.map((r) => [Number(r.id), `${table}:${r.doc} @${r.locale ?? '-'} ${r.published ? 'published' : 'draft'}`]));
}

function values(row: Record<string, unknown>): string {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) if (!VOLATILE.has(k)) out[k] = v instanceof Date ? v.toISOString() : v;
  return JSON.stringify(out);
}

export async function contentSnapshot(sql: Sql): Promise<ContentSnapshot> {
  const names = new Map<string, Map<number, string>>();
  const snap: ContentSnapshot = { rows: {}, links: {}, components: {}, componentRows: {} };
  for (const t of CONTENT_TABLES) {
    if (!(await tablesLike(sql, t)).length) continue;
    const n = await rowNames(sql, t);
    names.set(t, n);
    const rows = await sql.unsafe<Array<Record<string, unknown>>>(`select * from ${q(t)}`);
    snap.rows[t] = rows.map((r) => `${n.get(Number(r.id))} ${values(r)}`).sort();
  }
  const componentTables = (await tablesLike(sql, 'components\\_%')).filter((t) => !/_(cmps|lnk|mph)$/.test(t));
  const cmpName = new Map<string, Map<number, string>>();
  for (const t of componentTables) {
    const rows = await sql.unsafe<Array<Record<string, unknown>>>(`select * from ${q(t)}`);
    cmpName.set(t, new Map(rows.map((r) => [Number(r.id), `${t}${values(r)}`])));
    snap.componentRows[t] = rows.length;
  }
  const nameOf = (table: string, id: number) => names.get(table)?.get(id) ?? cmpName.get(table)?.get(id) ?? `${table}#?`;
  for (const t of CONTENT_TABLES) {
    for (const cmps of await tablesLike(sql, `${t}\\_cmps`)) {
      const rows = await sql.unsafe<Array<{ entity_id: number; cmp_id: number; component_type: string; field: string; order: number | null }>>(`select entity_id, cmp_id, component_type, field, "order" from ${q(cmps)}`);
      snap.components[cmps] = rows.map((r) => `${nameOf(t, Number(r.entity_id))}.${r.field}[${r.order ?? '-'}] ${r.component_type} ${nameOf(COMPONENT_TABLES.get(r.component_type) ?? '', Number(r.cmp_id))}`).sort();
    }
  }
  for (const lnk of await tablesLike(sql, '%\\_lnk')) {
    const fks = await sql<Array<{ col: string; ref: string }>>`
      select a.attname as col, c.confrelid::regclass::text as ref
        from pg_constraint c join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
       where c.contype = 'f' and c.conrelid = ${lnk}::regclass order by c.conkey[1]`;
    if (fks.length !== 2 || !fks.every((f) => names.has(f.ref) || cmpName.has(f.ref))) continue;
    const rows = await sql.unsafe<Array<Record<string, number>>>(`select ${q(fks[0].col)} as a, ${q(fks[1].col)} as b from ${q(lnk)}`);
    snap.links[lnk] = rows.map((r) => `${nameOf(fks[0].ref, Number(r.a))} -> ${nameOf(fks[1].ref, Number(r.b))}`).sort();
  }
  return snap;
}

/** The REST reads recorded after each switch (both statuses; both locales of the localized types). */
export const REST_READS = [
  '/api/articles?populate=*', '/api/articles?populate=*&status=draft',
  '/api/articles?populate=*&locale=fr', '/api/articles?populate=*&locale=fr&status=draft',
  '/api/authors?populate=*', '/api/authors?populate=*&status=draft',
  '/api/tags?populate=*', '/api/tags?populate=*&status=draft',
  '/api/categories?populate=*', '/api/categories?populate=*&status=draft',
  '/api/about?populate=*', '/api/about?populate=*&status=draft',
  '/api/global?populate=*', '/api/global?populate=*&status=draft',
] as const;

const TIMESTAMPS = new Set(['createdAt', 'updatedAt', 'publishedAt']);

/** An answer without ids, documentIds and timestamps (a timestamp becomes whether it is set), lists sorted. */
export function normalizeAnswer(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalizeAnswer).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === 'id' || k === 'documentId') continue;
      out[k] = TIMESTAMPS.has(k) ? (x === null ? null : 'set') : normalizeAnswer(x);
    }
    return out;
  }
  return v;
}

export async function restAnswers(s: Poster, token: string): Promise<Record<string, { status: number; body: unknown }>> {
  const out: Record<string, { status: number; body: unknown }> = {};
  for (const path of REST_READS) {
    const r = await s.fetchJson('GET', path, undefined, token);
    out[path] = { status: r.status, body: normalizeAnswer(r.body) };
  }
  return out;
}
