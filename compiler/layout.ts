// Strapi 5's storage layout: the one module that knows how Strapi names tables, columns, link tables,
// component join tables and morph tables. The model loader attaches these names to the registry
// (compiler/schema.ts); the compiler, the writers and the schema creator read them from there.
// Rules from Strapi's database package (metadata/relations.ts, utils/identifiers): a name that Strapi
// would spell differently makes Strapi drop and recreate the table, so every rule here is exact.
import { createHash } from 'node:crypto';

/** Identifiers longer than this are shortened with a hash, as Strapi 5 does (its `maxLength`). */
export const MAX_IDENTIFIER_LENGTH = 55;
const HASH_LENGTH = 5;
const MIN_TOKEN_LENGTH = 3;

/** Columns every content-type row has besides its attributes, in Strapi's column order. */
export const ROW_COLUMNS = {
  id: 'id', documentId: 'document_id', createdAt: 'created_at', updatedAt: 'updated_at', publishedAt: 'published_at',
  createdBy: 'created_by_id', updatedBy: 'updated_by_id', locale: 'locale',
} as const;

/** `<table>_cmps`: which component rows (and dynamic-zone entries) belong to which owner row. */
export const CMPS = { entity: 'entity_id', cmp: 'cmp_id', type: 'component_type', field: 'field', order: 'order' } as const;

/** The media library: `files`, and `files_related_mph` linking files to any row (content or component). */
export const FILES = {
  table: 'files', related: 'files_related_mph',
  file: 'file_id', relatedId: 'related_id', relatedType: 'related_type', field: 'field', order: 'order',
} as const;

/** A relation's join table as seen from one side: this side's row id column and the target's. */
export interface JoinTable {
  table: string;
  /** Column holding the id of the row that has the attribute. */
  source: string;
  /** Column holding the id of the related row. */
  target: string;
  /** Position of the target in this row's list (to-many sides), ascending. */
  order: string | null;
  /** Position of this row in the target's list (kept up to date by writes on this side too). */
  inverseOrder: string | null;
}

/** The model facts naming depends on. */
export interface NamedModel { table: string; singularName: string }

export type StrapiRelation = 'oneToOne' | 'oneToMany' | 'manyToOne' | 'manyToMany';

// ------------------------------------------------------------------ names

/** lodash's `snakeCase`, which Strapi applies to every name: words split at case changes and digits. */
export function snakeCase(s: string): string {
  const words = s.match(/[A-Z]{2,}(?=[A-Z][a-z]+[0-9]*|\b)|[A-Z]?[a-z]+[0-9]*|[A-Z]|[0-9]+/g);
  if (!words) return '';
  return splitDigits(s, words).map((w) => w.toLowerCase()).join('_');
}

/**
 * lodash splits letters from digits only where a digit run follows a lower-case word that is not a
 * "word with trailing digits" (`address1` → `address_1`): reproduce its unicode-word rules for ASCII.
 */
function splitDigits(_s: string, words: string[]): string[] {
  const out: string[] = [];
  for (const w of words) {
    const m = /^([A-Za-z]+)([0-9]+)$/.exec(w);
    if (m) out.push(m[1], m[2]); else out.push(w);
  }
  return out;
}

function hash(data: string, len: number): string {
  return createHash('shake256', { outputLength: Math.ceil(len / 2) }).update(data).digest('hex').substring(0, len);
}

function tokenWithHash(name: string, len: number): string {
  if (name.length <= len) return name;
  return `${name.substring(0, len - HASH_LENGTH)}${hash(name, HASH_LENGTH)}`;
}

interface Token { name: string; compressible: boolean; allocated?: number }

/** Strapi's `getNameFromTokens`: join with `_`; past the maximum, shorten the compressible parts with a hash. */
function nameFromTokens(tokens: Token[], maxLength = MAX_IDENTIFIER_LENGTH): string {
  const full = tokens.map((t) => t.name).join('_');
  if (full.length <= maxLength || maxLength === 0) return full;
  const compressible = tokens.filter((t) => t.compressible);
  const incompressibleLength = tokens.filter((t) => !t.compressible).reduce((n, t) => n + t.name.length, 0);
  const separators = tokens.length - 1;
  const available = maxLength - incompressibleLength - separators;
  const perToken = Math.floor(available / compressible.length);
  let surplus = available % compressible.length;
  let deficits: Token[] = [];
  for (const t of compressible) {
    if (t.name.length < perToken) { surplus += perToken - t.name.length; t.allocated = t.name.length; }
    else { t.allocated = perToken; deficits.push(t); }
  }
  let previous = surplus + 1;
  while (surplus > 0 && deficits.length > 0) {
    deficits = deficits.filter((t) => {
      if (t.allocated! < t.name.length && surplus > 0) { t.allocated!++; surplus--; return true; }
      return false;
    });
    if (surplus === previous) break;
    previous = surplus;
  }
  if (perToken < MIN_TOKEN_LENGTH + HASH_LENGTH) throw new Error(`identifier ${full} cannot be shortened to ${maxLength} characters`);
  return tokens.map((t) => (t.compressible && t.allocated !== undefined ? tokenWithHash(t.name, t.allocated) : t.name)).join('_');
}

/** Strapi's `getName`: names (snake-cased) plus an optional fixed prefix and suffix. */
export function identifier(names: string | string[], opts: { prefix?: string; suffix?: string } = {}): string {
  const tokens: Token[] = (Array.isArray(names) ? names : [names]).map((n) => ({ name: snakeCase(n), compressible: true }));
  if (opts.suffix) tokens.push({ name: opts.suffix, compressible: false });
  if (opts.prefix) tokens.unshift({ name: opts.prefix, compressible: false });
  return nameFromTokens(tokens);
}

/** Column of a scalar attribute. */
export const columnName = (attribute: string) => identifier(attribute);
/** Table of a content-type or component (its `collectionName`). */
export const tableName = (collectionName: string) => identifier(collectionName);
/** Join table linking an owner row to its components and dynamic-zone entries. */
export const componentsTable = (ownerTable: string) => identifier(ownerTable, { suffix: 'cmps' });

// ------------------------------------------------------------------ relations

const isAnyToMany = (r: StrapiRelation) => r === 'oneToMany' || r === 'manyToMany';
const isManyToAny = (r: StrapiRelation) => r === 'manyToOne' || r === 'manyToMany';

/**
 * The join table of a relation, seen from its owning side (the side with `inversedBy`, or the only
 * side of a one-way relation). Strapi 5 stores every non-morph relation in such a table.
 */
export function ownerJoinTable(owner: NamedModel, attribute: string, target: NamedModel, relation: StrapiRelation, bidirectional: boolean): JoinTable {
  const table = identifier([owner.table, attribute], { suffix: 'lnk' });
  const source = identifier(owner.singularName, { suffix: 'id' });
  let targetCol = identifier(target.singularName, { suffix: 'id' });
  if (source === targetCol) targetCol = identifier(target.singularName, { suffix: 'id', prefix: 'inv' });
  const order = identifier(target.singularName, { suffix: 'ord' });
  let inverseOrder = identifier(owner.singularName, { suffix: 'ord' });
  if (relation === 'manyToMany' && order === inverseOrder) inverseOrder = identifier(owner.singularName, { suffix: 'ord', prefix: 'inv' });
  return {
    table, source, target: targetCol,
    order: isAnyToMany(relation) ? order : null,
    inverseOrder: bidirectional && isManyToAny(relation) ? inverseOrder : null,
  };
}

/** The same join table seen from the inverse (`mappedBy`) side. */
export function inverseJoinTable(j: JoinTable): JoinTable {
  return { table: j.table, source: j.target, target: j.source, order: j.inverseOrder, inverseOrder: j.order };
}
