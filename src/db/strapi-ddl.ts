// The model-dependent part of Strapi 5's schema, as Strapi 5.54 creates it (core's
// transform-content-types-to-models, database's metadata/relations and schema/schema, knex's
// PostgreSQL column compiler): one table per content-type and component, `<collection>_cmps` for
// components and dynamic zones, `<table>_<attr>_lnk` per owning relation, with Strapi's index,
// unique-constraint and foreign-key names. Column order is Strapi's: it is visible in the catalog.
import type { Attribute, Component, ContentType, MorphJoin, Schema, ScalarType } from '../../compiler/schema.ts';
import { ADMIN_USERS, CMPS, INDEX, ROW_COLUMNS, tableName, type JoinTable } from '../../compiler/layout.ts';
import { collectionNameOf, isExtended } from '../models.ts';

/** A column: the type as created (knex's spelling) and as PostgreSQL's format_type() shows it back. */
export interface ColumnDef { name: string; sqlType: string; catalogType: string }
export interface IndexDef { name: string; columns: string[] }
export interface ForeignKeyDef { name: string; columns: string[]; table: string; onDelete: 'CASCADE' | 'SET NULL' }
export interface TableDef {
  name: string;
  /** The first column is always `id serial primary key` (sequence `<table>_id_seq`, constraint `<table>_pkey`). */
  columns: ColumnDef[];
  indexes: IndexDef[];
  uniques: IndexDef[];
  foreignKeys: ForeignKeyDef[];
  /**
   * One of Strapi's own tables (strapi-internal.sql) as a project's extension of its plugin type makes it
   * (`up_users` with the user's added columns): created by that file's CREATE TABLE, rewritten with these
   * columns by withExtendedTables, never by createStatements.
   */
  internal?: true;
}

const col = (name: string, sqlType: string, catalogType = sqlType): ColumnDef => ({ name, sqlType, catalogType });
const ID = col(ROW_COLUMNS.id, 'serial', 'integer');
const VARCHAR = ['varchar(255)', 'character varying(255)'] as const;
const TIMESTAMP = ['timestamp(6)', 'timestamp(6) without time zone'] as const;

/** Strapi's getColumnType followed by knex's PostgreSQL types. */
const SCALAR_SQL: Record<ScalarType, readonly [string, string]> = {
  string: VARCHAR, email: VARCHAR, password: VARCHAR, uid: VARCHAR, enumeration: VARCHAR,
  text: ['text', 'text'], richtext: ['text', 'text'],
  blocks: ['jsonb', 'jsonb'], json: ['jsonb', 'jsonb'],
  integer: ['integer', 'integer'], biginteger: ['bigint', 'bigint'],
  float: ['double precision', 'double precision'], decimal: ['numeric(10,2)', 'numeric(10,2)'],
  date: ['date', 'date'],
  // knex's PostgreSQL compiler ignores the precision Strapi passes for time.
  time: ['time', 'time without time zone'],
  datetime: TIMESTAMP, timestamp: TIMESTAMP,
  boolean: ['boolean', 'boolean'],
};

/** Attribute columns in attribute order: scalars, and a morphToOne's id and type columns where it stands. */
function scalarColumns(attributes: Attribute[]): ColumnDef[] {
  const out: ColumnDef[] = [];
  for (const a of attributes) {
    if (a.kind === 'scalar') out.push(col(a.column, ...SCALAR_SQL[a.type]));
    else if (a.kind === 'morph' && a.columns) out.push(col(a.columns.id, 'integer'), col(a.columns.type, ...VARCHAR));
  }
  return out;
}

/** `<collection>_cmps`: an owner's component and dynamic-zone entries. */
function componentsJoinTable(owner: ContentType | Component, table: string): TableDef {
  const collection = collectionNameOf(owner);
  const fk = INDEX.componentsEntityFk(collection);
  return {
    name: table,
    columns: [ID, col(CMPS.entity, 'integer'), col(CMPS.cmp, 'integer'), col(CMPS.type, ...VARCHAR), col(CMPS.field, ...VARCHAR), col(CMPS.order, 'double precision')],
    indexes: [
      { name: INDEX.index([collection, CMPS.field]), columns: [CMPS.field] },
      { name: INDEX.index([collection, CMPS.type]), columns: [CMPS.type] },
      { name: fk, columns: [CMPS.entity] },
    ],
    uniques: [{ name: INDEX.unique([collection]), columns: [CMPS.entity, CMPS.cmp, CMPS.field, CMPS.type] }],
    foreignKeys: [{ name: fk, columns: [CMPS.entity], table: tableName(collection), onDelete: 'CASCADE' }],
  };
}

function ownsComponents(attributes: Attribute[]): string | null {
  for (const a of attributes) if (a.kind === 'component' || a.kind === 'dynamiczone') return a.cmpsTable;
  return null;
}

function contentTypeTable(ct: ContentType): TableDef {
  const t = ct.table;
  const creator = (c: string): ForeignKeyDef => ({ name: INDEX.fk([t, c]), columns: [c], table: ADMIN_USERS, onDelete: 'SET NULL' });
  const fks = [creator(ROW_COLUMNS.createdBy), creator(ROW_COLUMNS.updatedBy)];
  return {
    name: t,
    columns: [
      ID, col(ROW_COLUMNS.documentId, ...VARCHAR),
      ...scalarColumns(ct.attributes),
      col(ROW_COLUMNS.createdAt, ...TIMESTAMP), col(ROW_COLUMNS.updatedAt, ...TIMESTAMP), col(ROW_COLUMNS.publishedAt, ...TIMESTAMP),
      col(ROW_COLUMNS.createdBy, 'integer'), col(ROW_COLUMNS.updatedBy, 'integer'),
      col(ROW_COLUMNS.locale, ...VARCHAR),
    ],
    indexes: [
      { name: INDEX.index([collectionNameOf(ct), 'documents']), columns: [ROW_COLUMNS.documentId, ROW_COLUMNS.locale, ROW_COLUMNS.publishedAt] },
      ...fks.map((f) => ({ name: f.name, columns: f.columns })),
    ],
    uniques: [],
    foreignKeys: fks,
  };
}

function linkTable(owner: ContentType | Component, target: ContentType, j: JoinTable): TableDef {
  const columns = [ID, col(j.source, 'integer'), col(j.target, 'integer')];
  const indexes: IndexDef[] = [{ name: INDEX.fk(j.table), columns: [j.source] }, { name: INDEX.inverseFk(j.table), columns: [j.target] }];
  if (j.order) { columns.push(col(j.order, 'double precision')); indexes.push({ name: INDEX.orderFk(j.table), columns: [j.order] }); }
  if (j.inverseOrder) { columns.push(col(j.inverseOrder, 'double precision')); indexes.push({ name: INDEX.orderInverseFk(j.table), columns: [j.inverseOrder] }); }
  return {
    name: j.table, columns, indexes,
    uniques: [{ name: INDEX.unique(j.table), columns: [j.source, j.target] }],
    foreignKeys: [
      { name: INDEX.fk(j.table), columns: [j.source], table: owner.table, onDelete: 'CASCADE' },
      { name: INDEX.inverseFk(j.table), columns: [j.target], table: target.table, onDelete: 'CASCADE' },
    ],
  };
}

/** `<table>_<attr>_mph` of a morphToMany: no foreign key toward the related rows (they are of any type). */
function morphTable(owner: ContentType, j: MorphJoin): TableDef {
  const fk = INDEX.fk(j.table);
  return {
    name: j.table,
    columns: [ID, col(j.owner, 'integer'), col(j.id, 'integer'), col(j.type, ...VARCHAR), col(j.field, ...VARCHAR), col(j.order, 'double precision')],
    indexes: [{ name: fk, columns: [j.owner] }, { name: INDEX.order(j.table), columns: [j.order] }, { name: INDEX.idColumn(j.table), columns: [j.id] }],
    uniques: [],
    foreignKeys: [{ name: fk, columns: [j.owner], table: owner.table, onDelete: 'CASCADE' }],
  };
}

/** Every table the models need, in the order Strapi creates them. */
export function modelTables(schema: Schema): TableDef[] {
  const out: TableDef[] = [];
  // A plugin type's table (users) is Strapi's own: only the link tables toward it are the models'.
  // An extended one (the user with a project's attributes) gets the tables of what the project added.
  const models: Array<ContentType | Component> = [...[...schema.contentTypes.values()].filter((c) => !c.builtin || isExtended(c)), ...schema.components.values()];
  for (const m of models) {
    const cmps = ownsComponents(m.attributes);
    if (cmps) out.push(componentsJoinTable(m, cmps));
    if ('kind' in m) out.push(m.builtin ? { ...contentTypeTable(m), internal: true } : contentTypeTable(m));
    else out.push({ name: m.table, columns: [ID, ...scalarColumns(m.attributes)], indexes: [], uniques: [], foreignKeys: [] });
  }
  for (const m of models) {
    for (const a of m.attributes) {
      // A plugin type's relation to another (a user's role) is the plugin's own link table.
      const pluginLink = 'kind' in m && m.builtin && schema.contentTypes.get(a.kind === 'relation' ? a.target : '')?.builtin;
      if (a.kind === 'relation' && a.owner && !pluginLink) out.push(linkTable(m, schema.contentTypes.get(a.target)!, a.join));
      if (a.kind === 'morph' && a.join && 'kind' in m) out.push(morphTable(m, a.join));
    }
  }
  const seen = new Set<string>();
  for (const t of out) {
    // Strapi's metadata.validate() refuses the same table twice.
    if (seen.has(t.name)) throw new Error(`DB table "${t.name}" already exists. Change the collectionName of the related content type.`);
    seen.add(t.name);
  }
  return out;
}

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;
const list = (ids: string[]) => ids.map(q).join(', ');

/** The statements creating these tables: tables with their indexes and unique constraints, then foreign keys. */
export function createStatements(tables: TableDef[]): string[] {
  const out: string[] = [];
  tables = tables.filter((t) => !t.internal);
  for (const t of tables) {
    const cols = t.columns.map((c, i) => `${q(c.name)} ${c.sqlType}${i === 0 ? ' primary key' : ''}`);
    out.push(`create table ${q(t.name)} (${cols.join(', ')})`);
    for (const ix of t.indexes) out.push(`create index ${q(ix.name)} on ${q(t.name)} (${list(ix.columns)})`);
    for (const u of t.uniques) out.push(`alter table ${q(t.name)} add constraint ${q(u.name)} unique (${list(u.columns)})`);
  }
  for (const t of tables) {
    for (const f of t.foreignKeys) {
      out.push(`alter table ${q(t.name)} add constraint ${q(f.name)} foreign key (${list(f.columns)}) references ${q(f.table)} (${q(ROW_COLUMNS.id)}) on delete ${f.onDelete}`);
    }
  }
  return out;
}

/**
 * strapi-internal.sql with the CREATE TABLE of each `internal` table rewritten to its columns, in Strapi's order
 * (the attributes' columns before the timestamps, as Strapi creates an extended `up_users`: the order shows in
 * the catalog, so adding them afterwards would not do).
 */
export function withExtendedTables(internalSql: string, tables: TableDef[]): string {
  let out = internalSql;
  for (const t of tables.filter((x) => x.internal)) {
    const head = `CREATE TABLE ${t.name} (\n`;
    const at = out.indexOf(head);
    const end = out.indexOf('\n);', at);
    if (at < 0 || end < 0) throw new Error(`strapi-internal.sql has no table ${t.name}`);
    const cols = t.columns.map((c, i) => `    ${/^[a-z_][a-z0-9_]*$/.test(c.name) ? c.name : q(c.name)} ${i === 0 ? 'integer NOT NULL' : c.catalogType}`);
    out = out.slice(0, at + head.length) + cols.join(',\n') + out.slice(end);
  }
  return out;
}
