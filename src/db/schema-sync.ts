// Creates and updates the PostgreSQL schema from the models at start, in one transaction, under an
// advisory lock so several nodes can start at once. Additive changes are applied; anything that would
// lose data (a dropped attribute or content-type, a changed column type) is refused unless the
// operator passes ALLOW_DESTRUCTIVE_SCHEMA=true.
import type { Sql, TransactionSql } from 'postgres';
import { docOpenSql, fileJsonSql, ownedJsonColumn, ownedJsonSql } from '../../compiler/sql.ts';
import type { Schema, ScalarType, ContentType } from '../../compiler/schema.ts';
import { log } from '../log.ts';

export class SchemaSyncError extends Error {}

export const componentSequence = (uid: string) => `fastrapi_cmp_${uid.replace(/[^A-Za-z0-9]/g, '_')}_seq`;

const SQL_TYPE: Record<ScalarType, string> = {
  string: 'text', text: 'text', richtext: 'text', email: 'text', password: 'text', uid: 'text', enumeration: 'text',
  blocks: 'jsonb', json: 'jsonb', boolean: 'boolean', integer: 'integer', biginteger: 'bigint',
  float: 'double precision', decimal: 'numeric', date: 'date', time: 'time without time zone',
  datetime: 'timestamp with time zone', timestamp: 'timestamp with time zone',
};

interface TableSpec {
  name: string;
  columns: Array<[string, string]>;
  /** Extra clauses of CREATE TABLE (constraints) and statements run after it (indexes). */
  constraints: string[];
  indexes: string[];
  /** Link tables: (source, target, position) columns are all required. */
  link?: boolean;
}

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;

function versionTable(ct: ContentType, schema: Schema): TableSpec[] {
  const t = ct.table;
  const columns: Array<[string, string]> = [
    ['id', 'bigint'], ['document_id', 'text'], ['locale', 'text'], ['published_at', 'timestamp with time zone'],
    ['created_at', 'timestamp with time zone'], ['updated_at', 'timestamp with time zone'],
    // The row's default response as JSON text without its closing brace, kept by a trigger (see derivedJson).
    ['doc_open', 'text'],
  ];
  const links: TableSpec[] = [];
  const indexes = [
    `create unique index if not exists ${q(t + '_version_uq')} on ${q(t)} (document_id, coalesce(locale, ''), (published_at is null))`,
    `create index if not exists ${q(t + '_locale_pub_idx')} on ${q(t)} (locale, published_at)`,
  ];
  for (const a of ct.attributes) {
    if (a.kind === 'scalar') columns.push([a.column, SQL_TYPE[a.type]]);
    else if (a.kind === 'component' || a.kind === 'dynamiczone') columns.push([a.column, 'jsonb'], [ownedJsonColumn(a), 'text']);
    else if (a.kind === 'media') {
      if (!a.multiple) columns.push([a.column, 'bigint']);
      else links.push({
        name: a.linkTable,
        columns: [['source_id', 'bigint'], ['file_id', 'bigint'], ['position', 'double precision']], link: true,
        constraints: [
          `foreign key (source_id) references ${q(t)}(id) on delete cascade`,
          `foreign key (file_id) references ${q(schema.filesTable)}(id) on delete cascade`,
        ],
        indexes: [`create index if not exists ${q(a.linkTable + '_src_idx')} on ${q(a.linkTable)} (source_id, position)`],
      });
    } else if (a.kind === 'relation' && a.owner) {
      if (!a.toMany) {
        columns.push([a.column, 'text']);
        indexes.push(`create index if not exists ${q(`${t}_${a.column}_idx`)} on ${q(t)} (${q(a.column)})`);
      } else links.push({
        name: a.linkTable,
        columns: [['source_id', 'bigint'], ['target_doc', 'text'], ['position', 'double precision']], link: true,
        constraints: [`foreign key (source_id) references ${q(t)}(id) on delete cascade`, 'unique (source_id, target_doc)'],
        indexes: [
          `create index if not exists ${q(a.linkTable + '_src_idx')} on ${q(a.linkTable)} (source_id, position)`,
          `create index if not exists ${q(a.linkTable + '_tgt_idx')} on ${q(a.linkTable)} (target_doc)`,
        ],
      });
    }
  }
  return [{ name: t, columns, constraints: ['primary key (id)'], indexes }, ...links];
}

function filesTable(schema: Schema): TableSpec {
  return {
    name: schema.filesTable,
    columns: [
      ['id', 'bigint'], ['document_id', 'text'], ['name', 'text'], ['alternative_text', 'text'], ['caption', 'text'],
      ['focal_point', 'jsonb'], ['width', 'integer'], ['height', 'integer'], ['formats', 'jsonb'], ['hash', 'text'],
      ['ext', 'text'], ['mime', 'text'], ['size', 'numeric'], ['url', 'text'], ['preview_url', 'text'],
      ['provider', 'text'], ['provider_metadata', 'jsonb'], ['folder_path', 'text'],
      ['created_at', 'timestamp with time zone'], ['updated_at', 'timestamp with time zone'], ['published_at', 'timestamp with time zone'],
      ['record_json', 'text'],
    ],
    constraints: ['primary key (id)'],
    indexes: [],
  };
}

/**
 * Rows carry their default response as JSON text (`doc_open`, `record_json` for files), computed by a
 * BEFORE INSERT/UPDATE trigger generated from the models. Reads then copy text instead of formatting
 * every timestamp and column on every request: populate=* became several times cheaper (README).
 */
function derivedJson(schema: Schema): Array<{ table: string; fn: string; assign: Array<[string, string]> }> {
  const out = [{ table: schema.filesTable, fn: `fastrapi_json_${schema.filesTable}`, assign: [['record_json', fileJsonSql('new')]] as Array<[string, string]> }];
  for (const ct of schema.contentTypes.values()) {
    // The default populate of components and zones too: `populate=*` copies them as well.
    out.push({ table: ct.table, fn: `fastrapi_json_${ct.table}`, assign: [['doc_open', docOpenSql(ct, 'new')], ...ownedJsonSql(schema, ct, 'new')] });
  }
  return out;
}

async function syncTriggers(tx: TransactionSql, schema: Schema): Promise<void> {
  for (const d of derivedJson(schema)) {
    const body = `begin ${d.assign.map(([c, e]) => `new.${q(c)} := ${e};`).join(' ')} return new; end`;
    const cur = await tx<{ src: string }[]>`select prosrc as src from pg_proc where proname = ${d.fn}`;
    if (cur[0]?.src === body) continue;
    await tx.unsafe(`create or replace function ${q(d.fn)}() returns trigger language plpgsql as $fn$${body}$fn$`);
    await tx.unsafe(`create or replace trigger ${q(d.fn)} before insert or update on ${q(d.table)} for each row execute function ${q(d.fn)}()`);
    // Uncompressed: reads copy this text on every request, and decompressing it cost more than the I/O.
    for (const [c] of d.assign) await tx.unsafe(`alter table ${q(d.table)} alter column ${q(c)} set storage external`);
    // Rows up to a page stay whole: a document's JSON is then read with its row, not fetched from TOAST.
    await tx.unsafe(`alter table ${q(d.table)} set (toast_tuple_target = 8160)`);
    // The model changed (or the trigger is new): recompute the stored JSON of existing rows.
    await tx.unsafe(`update ${q(d.table)} set id = id`);
  }
}

/** The users-permissions plugin's users. */
function usersTable(): TableSpec {
  return {
    name: 'up_users',
    columns: [
      ['id', 'bigint'], ['document_id', 'text'], ['username', 'text'], ['email', 'text'], ['provider', 'text'],
      ['password', 'text'], ['confirmed', 'boolean'], ['blocked', 'boolean'], ['role', 'text'],
      ['created_at', 'timestamp with time zone'], ['updated_at', 'timestamp with time zone'], ['published_at', 'timestamp with time zone'],
    ],
    constraints: ['primary key (id)'],
    indexes: [
      `create unique index if not exists up_users_email_uq on up_users (lower(email))`,
      `create unique index if not exists up_users_username_uq on up_users (username)`,
    ],
  };
}

/** API tokens made with `npm run token`: only the HMAC of the access key is stored. */
function tokensTable(): TableSpec {
  return {
    name: 'api_tokens',
    columns: [
      ['id', 'bigint'], ['document_id', 'text'], ['name', 'text'], ['type', 'text'], ['permissions', 'ARRAY'],
      ['access_key', 'text'], ['expires_at', 'timestamp with time zone'], ['last_used_at', 'timestamp with time zone'],
      ['created_at', 'timestamp with time zone'], ['updated_at', 'timestamp with time zone'],
    ],
    constraints: ['primary key (id)'],
    indexes: ['create unique index if not exists api_tokens_name_uq on api_tokens (name)', 'create unique index if not exists api_tokens_key_uq on api_tokens (access_key)'],
  };
}

/** Tables in dependency order (files first: media link tables reference it). */
export function desiredTables(schema: Schema): TableSpec[] {
  const out = [filesTable(schema), usersTable(), tokensTable()];
  const versions = [...schema.contentTypes.values()].map((ct) => versionTable(ct, schema));
  for (const v of versions) out.push(v[0]);
  for (const v of versions) out.push(...v.slice(1));
  return out;
}

/** Column DDL: system columns of version tables and link-table columns get their constraints. */
function columnDdl(t: TableSpec, col: string, type: string): string {
  if (t.link) return `${q(col)} ${type} not null`;
  if (col === 'id') return `${q(col)} bigint generated by default as identity`;
  if (col === 'document_id') return `${q(col)} text not null`;
  if (col === 'created_at' || col === 'updated_at') return `${q(col)} ${type} not null default now()`;
  if (type === 'ARRAY') return `${q(col)} text[]`;
  return `${q(col)} ${type}`;
}

export interface SyncReport { created: string[]; added: string[]; dropped: string[] }

export async function syncSchema(sql: Sql, schema: Schema, allowDestructive: boolean): Promise<SyncReport> {
  const report: SyncReport = { created: [], added: [], dropped: [] };
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(727274)`;
    await tx`create table if not exists fastrapi_tables (name text primary key)`;
    await tx`create sequence if not exists fastrapi_component_id_seq`;
    // One id sequence per component type, as Strapi numbers each component table on its own.
    for (const uid of schema.components.keys()) await tx.unsafe(`create sequence if not exists ${q(componentSequence(uid))}`);
    const managed = new Set((await tx<{ name: string }[]>`select name from fastrapi_tables`).map((r) => r.name));
    const existing = new Map<string, Map<string, string>>();
    for (const r of await tx<{ table_name: string; column_name: string; data_type: string }[]>`
      select table_name, column_name, data_type from information_schema.columns where table_schema = current_schema()`) {
      if (!existing.has(r.table_name)) existing.set(r.table_name, new Map());
      existing.get(r.table_name)!.set(r.column_name, r.data_type);
    }
    const desired = desiredTables(schema);
    const desiredNames = new Set(desired.map((t) => t.name));
    const destructive: string[] = [];
    for (const name of managed) if (!desiredNames.has(name) && existing.has(name)) destructive.push(`drop table ${q(name)}`);
    const statements: string[] = [];
    for (const t of desired) {
      const have = existing.get(t.name);
      if (!have) {
        statements.push(`create table ${q(t.name)} (${[...t.columns.map(([c, ty]) => columnDdl(t, c, ty)), ...t.constraints].join(', ')})`);
        report.created.push(t.name);
      } else {
        for (const [c, ty] of t.columns) {
          const cur = have.get(c);
          if (!cur) { statements.push(`alter table ${q(t.name)} add column ${columnDdl(t, c, ty)}`); report.added.push(`${t.name}.${c}`); }
          else if (cur !== ty) destructive.push(`alter table ${q(t.name)} drop column ${q(c)}, add column ${columnDdl(t, c, ty)} /* ${cur} -> ${ty} */`);
        }
        const want = new Set(t.columns.map(([c]) => c));
        for (const c of have.keys()) if (!want.has(c)) destructive.push(`alter table ${q(t.name)} drop column ${q(c)}`);
      }
      statements.push(...t.indexes);
    }
    if (destructive.length && !allowDestructive) {
      throw new SchemaSyncError(
        `the models no longer match the database and syncing would lose data:\n  ${destructive.join('\n  ')}\n` +
        'Restore the models, or start once with ALLOW_DESTRUCTIVE_SCHEMA=true to apply these changes.');
    }
    // Destructive drops run first so a re-typed column can be re-added.
    for (const s of [...destructive, ...statements]) await tx.unsafe(s);
    report.dropped.push(...destructive);
    await syncTriggers(tx, schema);
    await tx`delete from fastrapi_tables`;
    for (const t of desired) await tx`insert into fastrapi_tables (name) values (${t.name})`;
  });
  if (report.created.length || report.added.length || report.dropped.length) log.info('schema synced', { ...report });
  return report;
}
