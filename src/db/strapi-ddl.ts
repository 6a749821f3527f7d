// The model-dependent part of Strapi 5's schema, as Strapi 5.54 creates it (core's
// transform-content-types-to-models, database's metadata/relations and schema/schema, knex's
// PostgreSQL column compiler): one table per content-type and component, `<collection>_cmps` for
// components and dynamic zones, `<table>_<attr>_lnk` per owning relation, with Strapi's index,
// unique-constraint and foreign-key names. Column order is Strapi's: it is visible in the catalog.
import type { Attribute, Component, ContentType, MorphJoin, Schema, ScalarType } from '../../compiler/schema.ts';
import { ADMIN_USERS, CMPS, INDEX, ROW_COLUMNS, tableName, type JoinTable } from '../../compiler/layout.ts';
import { collectionNameOf, isExtended } from '../models.ts';

/**
 * A column: the type as created (knex's spelling), as PostgreSQL's format_type() shows it back, and as
 * Strapi's schema describes it in its own record of the schema (strapi_database_schema).
 */
export interface ColumnDef { name: string; sqlType: string; catalogType: string; strapi: StrapiColumnType }
/** A column in Strapi's schema terms (its metadataToSchema): the knex builder method and its arguments. */
export interface StrapiColumnType { type: string; args: unknown[]; unsigned: boolean }
export interface IndexDef { name: string; columns: string[] }
export interface ForeignKeyDef {
  name: string; columns: string[]; table: string; onDelete: 'CASCADE' | 'SET NULL';
  /** Strapi made it from a join column (created_by_id/updated_by_id), not from a join table: its record lists the keys in another order. */
  joinColumn?: true;
}
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
  /** Where Strapi lists the unique constraints among the indexes in its record (after this many indexes). */
  uniquesAfter?: number;
}

/** Strapi's column types (getColumnType) with knex's PostgreSQL type and its catalog spelling. */
const TYPES = {
  increments: { sql: 'serial', catalog: 'integer', args: [{ primary: true, primaryKey: true }] },
  string: { sql: 'varchar(255)', catalog: 'character varying(255)', args: [] },
  text: { sql: 'text', catalog: 'text', args: ['longtext'] },
  jsonb: { sql: 'jsonb', catalog: 'jsonb', args: [] },
  integer: { sql: 'integer', catalog: 'integer', args: [] },
  bigInteger: { sql: 'bigint', catalog: 'bigint', args: [] },
  double: { sql: 'double precision', catalog: 'double precision', args: [] },
  decimal: { sql: 'numeric(10,2)', catalog: 'numeric(10,2)', args: [10, 2] },
  date: { sql: 'date', catalog: 'date', args: [] },
  // knex's PostgreSQL compiler ignores the precision Strapi passes for time.
  time: { sql: 'time', catalog: 'time without time zone', args: [{ precision: 3 }] },
  datetime: { sql: 'timestamp(6)', catalog: 'timestamp(6) without time zone', args: [{ useTz: false, precision: 6 }] },
  timestamp: { sql: 'timestamp(6)', catalog: 'timestamp(6) without time zone', args: [{ useTz: false, precision: 6 }] },
  boolean: { sql: 'boolean', catalog: 'boolean', args: [] },
} as const satisfies Record<string, { sql: string; catalog: string; args: unknown[] }>;
type StrapiType = keyof typeof TYPES;

const col = (name: string, type: StrapiType, unsigned = false): ColumnDef =>
  ({ name, sqlType: TYPES[type].sql, catalogType: TYPES[type].catalog, strapi: { type, args: [...TYPES[type].args], unsigned } });
/** Ids of other rows, and positions: Strapi declares them unsigned (PostgreSQL has no such thing). */
const ref = (name: string) => col(name, 'integer', true);
const ord = (name: string) => col(name, 'double', true);
const ID = col(ROW_COLUMNS.id, 'increments');

/** Strapi's getColumnType of each attribute type. */
const SCALAR_TYPE: Record<ScalarType, StrapiType> = {
  string: 'string', email: 'string', password: 'string', uid: 'string', enumeration: 'string',
  text: 'text', richtext: 'text', blocks: 'jsonb', json: 'jsonb',
  integer: 'integer', biginteger: 'bigInteger', float: 'double', decimal: 'decimal',
  date: 'date', time: 'time', datetime: 'datetime', timestamp: 'timestamp', boolean: 'boolean',
};

/** Attribute columns in attribute order: scalars, and a morphToOne's id and type columns where it stands. */
function scalarColumns(attributes: Attribute[]): ColumnDef[] {
  const out: ColumnDef[] = [];
  for (const a of attributes) {
    if (a.kind === 'scalar') out.push(col(a.column, SCALAR_TYPE[a.type]));
    else if (a.kind === 'morph' && a.columns) out.push(ref(a.columns.id), col(a.columns.type, 'string'));
  }
  return out;
}

/** `<collection>_cmps`: an owner's component and dynamic-zone entries. */
function componentsJoinTable(owner: ContentType | Component, table: string): TableDef {
  const collection = collectionNameOf(owner);
  const fk = INDEX.componentsEntityFk(collection);
  return {
    name: table,
    columns: [ID, ref(CMPS.entity), ref(CMPS.cmp), col(CMPS.type, 'string'), col(CMPS.field, 'string'), ord(CMPS.order)],
    indexes: [
      { name: INDEX.index([collection, CMPS.field]), columns: [CMPS.field] },
      { name: INDEX.index([collection, CMPS.type]), columns: [CMPS.type] },
      { name: fk, columns: [CMPS.entity] },
    ],
    uniques: [{ name: INDEX.unique([collection]), columns: [CMPS.entity, CMPS.cmp, CMPS.field, CMPS.type] }],
    foreignKeys: [{ name: fk, columns: [CMPS.entity], table: tableName(collection), onDelete: 'CASCADE' }],
    uniquesAfter: 3,
  };
}

function ownsComponents(attributes: Attribute[]): string | null {
  for (const a of attributes) if (a.kind === 'component' || a.kind === 'dynamiczone') return a.cmpsTable;
  return null;
}

function contentTypeTable(ct: ContentType): TableDef {
  const t = ct.table;
  const creator = (c: string): ForeignKeyDef => ({ name: INDEX.fk([t, c]), columns: [c], table: ADMIN_USERS, onDelete: 'SET NULL', joinColumn: true });
  const fks = [creator(ROW_COLUMNS.createdBy), creator(ROW_COLUMNS.updatedBy)];
  return {
    name: t,
    columns: [
      ID, col(ROW_COLUMNS.documentId, 'string'),
      ...scalarColumns(ct.attributes),
      col(ROW_COLUMNS.createdAt, 'datetime'), col(ROW_COLUMNS.updatedAt, 'datetime'), col(ROW_COLUMNS.publishedAt, 'datetime'),
      ref(ROW_COLUMNS.createdBy), ref(ROW_COLUMNS.updatedBy),
      col(ROW_COLUMNS.locale, 'string'),
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
  const columns = [ID, ref(j.source), ref(j.target)];
  const indexes: IndexDef[] = [{ name: INDEX.fk(j.table), columns: [j.source] }, { name: INDEX.inverseFk(j.table), columns: [j.target] }];
  if (j.order) { columns.push(ord(j.order)); indexes.push({ name: INDEX.orderFk(j.table), columns: [j.order] }); }
  if (j.inverseOrder) { columns.push(ord(j.inverseOrder)); indexes.push({ name: INDEX.orderInverseFk(j.table), columns: [j.inverseOrder] }); }
  return {
    name: j.table, columns, indexes,
    uniques: [{ name: INDEX.unique(j.table), columns: [j.source, j.target] }], uniquesAfter: 2,
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
    columns: [ID, ref(j.owner), ref(j.id), col(j.type, 'string'), col(j.field, 'string'), ord(j.order)],
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
  // Upload's file and i18n's locale extended by the project: Strapi's own tables with the added columns.
  // What else the extension added is stored as on any model: its `_cmps` and link tables are the models' own.
  for (const ext of [schema.pluginRecords?.file, schema.pluginRecords?.locale, schema.pluginRecords?.folder]) {
    if (!ext) continue;
    const cmps = ownsComponents(ext.others);
    if (cmps) out.push(componentsJoinTable(ext.ct, cmps));
    out.push({ ...contentTypeTable(ext.ct), internal: true });
    // A mappedBy side's link table is its owner's (a content-type's relation to the file or locale).
    for (const a of ext.others) if (a.kind === 'relation' && a.owner) out.push(linkTable(ext.ct, schema.contentTypes.get(a.target)!, a.join));
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
