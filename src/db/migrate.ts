// What Strapi 5.54's schema sync (database/schema: diff.ts, builder.ts) does to a database when the
// models changed, planned here as SQL for a database this server owns: new tables whole (their foreign
// keys once every new table exists); on existing tables, new columns appended (Strapi adds, it never
// rebuilds a table, so column order is the order of the edits), changed column types cast in place,
// missing indexes, unique constraints and foreign keys created and changed ones recreated. What the
// models no longer have is removed only when this server put it there (the `tracked` tables, as Strapi
// removes only what its previous record of the schema lists), and, where it holds data (tables,
// columns, a type that does not hold every value), only when destructive changes are allowed;
// otherwise it is kept and reported. Pure: the caller runs the statements in one transaction.
import type { ColumnDef, ForeignKeyDef, IndexDef, TableDef } from './strapi-ddl.ts';
import { createStatements } from './strapi-ddl.ts';
import type { ActualTable } from './verify.ts';

/** What this server made of a table and still answers for (kept items included). */
export interface TrackedTable { name: string; columns: string[]; indexes: string[]; uniques: string[]; foreignKeys: string[] }

export interface MigrationPlan {
  statements: string[];
  /** What the statements do, one line each. */
  changes: string[];
  /** What would lose data and was left as it is, one line each. */
  kept: string[];
  /** The record to keep for the next start: the models' tables, plus what was kept. */
  tracked: TrackedTable[];
  /** Tables whose columns changed (added, dropped, retyped) or that were created or dropped. */
  tablesChanged: string[];
}

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;
const list = (ids: string[]) => ids.map(q).join(', ');

/** Strapi's view of a catalog type (its schema inspector's toStrapiType): modifiers do not count. */
export function typeClass(catalogType: string): string {
  const root = /^[a-z]+/.exec(catalogType.toLowerCase())?.[0] ?? catalogType;
  switch (root) {
    case 'character': return 'string';
    case 'timestamp': return 'datetime';
    case 'numeric': return 'decimal';
    case 'real': case 'double': return 'double';
    case 'integer': case 'bigint': case 'text': case 'boolean': case 'date': case 'time': case 'jsonb': return root;
    default: return catalogType;
  }
}

/** Conversions that keep every value as it was (PostgreSQL's cast, as Strapi runs it): allowed without ALLOW_DESTRUCTIVE_SCHEMA. */
const LOSSLESS: Record<string, readonly string[]> = {
  text: ['string', 'integer', 'bigint', 'boolean', 'date', 'time', 'datetime', 'decimal', 'double', 'jsonb'],
  // A varchar(255) holds the text of any number, boolean, date or time.
  string: ['integer', 'bigint', 'boolean', 'date', 'time', 'datetime', 'decimal', 'double'],
  bigint: ['integer'],
  double: ['integer'],
  datetime: ['date', 'time'],
};
export const isLossless = (from: string, to: string) => LOSSLESS[to]?.includes(from) ?? false;

/** Strapi's column alteration: knex's `type … using (c::type)`, or its dialect's special time ↔ datetime conversions. */
function alterType(table: string, c: ColumnDef, from: string): string {
  const t = q(table), n = q(c.name);
  const to = typeClass(c.catalogType);
  if (from === 'time' && to === 'datetime') return `alter table ${t} alter column ${n} type timestamp(6) using ('1970-01-01 ' || ${n}::text)::timestamp`;
  if (from === 'datetime' && to === 'time') return `alter table ${t} alter column ${n} type time(3) using ${n}::time`;
  return `alter table ${t} alter column ${n} type ${c.sqlType} using (${n}::${c.sqlType})`;
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const fkStatement = (table: string, f: ForeignKeyDef) =>
  `alter table ${q(table)} add constraint ${q(f.name)} foreign key (${list(f.columns)}) references ${q(f.table)} ("id") on delete ${f.onDelete}`;
const indexStatement = (table: string, ix: IndexDef) => `create index ${q(ix.name)} on ${q(table)} (${list(ix.columns)})`;
const uniqueStatement = (table: string, u: IndexDef) => `alter table ${q(table)} add constraint ${q(u.name)} unique (${list(u.columns)})`;

export function trackedOf(t: TableDef): TrackedTable {
  return { name: t.name, columns: t.columns.map((c) => c.name), indexes: t.indexes.map((i) => i.name), uniques: t.uniques.map((u) => u.name), foreignKeys: t.foreignKeys.map((f) => f.name) };
}

export function planMigration(expected: TableDef[], actual: Map<string, ActualTable>, tracked: TrackedTable[], allowDestructive: boolean): MigrationPlan {
  const statements: string[] = [], changes: string[] = [], kept: string[] = [], tablesChanged: string[] = [];
  const wanted = new Map(expected.map((t) => [t.name, t]));
  const before = new Map(tracked.map((t) => [t.name, t]));
  const record = new Map(expected.map((t) => [t.name, trackedOf(t)]));
  const keep = (what: string, why: string, instead = 'drops it') => kept.push(`${what} (${why}): kept with its data; ALLOW_DESTRUCTIVE_SCHEMA=true ${instead} as Strapi would`);

  // New tables, their foreign keys once all of them exist (Strapi's createTables).
  const added = expected.filter((t) => !actual.has(t.name));
  statements.push(...createStatements(added));
  for (const t of added) { changes.push(`created table ${t.name}`); tablesChanged.push(t.name); }

  // Tables this server made that the models no longer have: their foreign keys first, then the tables.
  const removed = tracked.filter((t) => !wanted.has(t.name) && actual.has(t.name));
  for (const t of removed) {
    if (!allowDestructive) { keep(`table ${t.name}`, 'no model has it any more'); record.set(t.name, t); continue; }
    for (const fk of actual.get(t.name)!.foreignKeys.keys()) statements.push(`alter table ${q(t.name)} drop constraint ${q(fk)}`);
  }

  for (const want of expected) {
    const have = actual.get(want.name);
    if (!have) continue;
    const prev = before.get(want.name);
    const t = q(want.name);
    const rec = record.get(want.name)!;
    let retabled = false;
    const post: string[] = [];
    // Foreign keys, indexes and unique constraints: removed (when this server made them) or changed ones dropped first.
    for (const [name, fk] of have.foreignKeys) {
      const w = want.foreignKeys.find((f) => f.name === name);
      if (w) {
        if (sameList(fk.columns, w.columns) && fk.table === w.table && fk.onDelete === w.onDelete) continue;
        statements.push(`alter table ${t} drop constraint ${q(name)}`);
        post.push(fkStatement(want.name, w));
        changes.push(`recreated foreign key ${name}`);
      } else if (prev?.foreignKeys.includes(name)) {
        statements.push(`alter table ${t} drop constraint ${q(name)}`);
        changes.push(`dropped foreign key ${name}`);
      }
    }
    for (const [name, cols] of have.uniques) {
      const w = want.uniques.find((u) => u.name === name);
      if (w) {
        if (sameList(cols, w.columns)) continue;
        statements.push(`alter table ${t} drop constraint ${q(name)}`);
        post.push(uniqueStatement(want.name, w));
        changes.push(`recreated unique constraint ${name}`);
      } else if (prev?.uniques.includes(name)) {
        statements.push(`alter table ${t} drop constraint ${q(name)}`);
        changes.push(`dropped unique constraint ${name}`);
      }
    }
    for (const [name, cols] of have.indexes) {
      const w = want.indexes.find((i) => i.name === name);
      if (w) {
        if (sameList(cols, w.columns)) continue;
        statements.push(`drop index ${q(name)}`);
        post.push(indexStatement(want.name, w));
        changes.push(`recreated index ${name}`);
      } else if (prev?.indexes.includes(name)) {
        statements.push(`drop index ${q(name)}`);
        changes.push(`dropped index ${name}`);
      }
    }
    // Columns the models no longer have.
    for (const name of have.columns.keys()) {
      if (want.columns.some((c) => c.name === name) || !prev?.columns.includes(name)) continue;
      if (!allowDestructive) { keep(`column ${want.name}.${name}`, 'removed from the models'); rec.columns.push(name); continue; }
      statements.push(`alter table ${t} drop column ${q(name)}`);
      changes.push(`dropped column ${want.name}.${name}`);
      retabled = true;
    }
    // Changed types, then new columns (appended, as Strapi adds them).
    for (const c of want.columns.slice(1)) {
      const type = have.columns.get(c.name);
      if (type === undefined) continue;
      const from = typeClass(type), to = typeClass(c.catalogType);
      if (from === to) continue;
      if (!allowDestructive && !isLossless(from, to)) { keep(`column ${want.name}.${c.name} as ${type}`, `the models make it ${c.catalogType}, which may not hold every value`, 'converts it'); continue; }
      statements.push(alterType(want.name, c, from));
      changes.push(`changed column ${want.name}.${c.name} from ${type} to ${c.catalogType}`);
      retabled = true;
    }
    for (const c of want.columns) {
      if (have.columns.has(c.name)) continue;
      statements.push(`alter table ${t} add column ${q(c.name)} ${c.sqlType}`);
      changes.push(`added column ${want.name}.${c.name}`);
      retabled = true;
    }
    // Recreated and new foreign keys, indexes and unique constraints, once the columns are there.
    statements.push(...post);
    for (const f of want.foreignKeys) if (!have.foreignKeys.has(f.name)) { statements.push(fkStatement(want.name, f)); changes.push(`created foreign key ${f.name}`); }
    for (const ix of want.indexes) if (!have.indexes.has(ix.name)) { statements.push(indexStatement(want.name, ix)); changes.push(`created index ${ix.name}`); }
    for (const u of want.uniques) if (!have.uniques.has(u.name)) { statements.push(uniqueStatement(want.name, u)); changes.push(`created unique constraint ${u.name}`); }
    if (retabled) tablesChanged.push(want.name);
  }
  // Last, so that no remaining foreign key of an updated table still points at them.
  if (allowDestructive) {
    for (const t of removed) { statements.push(`drop table ${q(t.name)}`); changes.push(`dropped table ${t.name}`); tablesChanged.push(t.name); }
  }
  return { statements, changes, kept, tracked: [...record.values()], tablesChanged };
}
