// Strapi 5's storage layout: the one module that knows how Strapi names tables, columns, link tables,
// component join tables and morph tables. The model loader attaches these names to the registry
// (compiler/schema.ts); the compiler, the writers and the schema creator read them from there.
// Rules from Strapi's database package (metadata/relations.ts, utils/identifiers): a name that Strapi
// would spell differently makes Strapi drop and recreate the table, so every rule here is exact.
import { createHash } from 'node:crypto';

/** A name as a quoted SQL identifier (Strapi's names may hold any character, a `"` doubled). */
export const quoted = (id: string): string => `"${id.replace(/"/g, '""')}"`;

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

// lodash's word splitting (what `_.snakeCase` uses), restricted to ASCII: model names are ASCII
// (src/models.ts refuses others). Strings with a case change, a letter/digit boundary or punctuation
// take the "unicode words" path; the others split on non-alphanumerics only.
const HAS_UNICODE_WORD = /[a-z][A-Z]|[A-Z]{2}[a-z]|[0-9][a-zA-Z]|[a-zA-Z][0-9]|[^a-zA-Z0-9 ]/;
const ASCII_WORD = /[^\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+/g;
const BREAK = '[\\x00-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]';
const UNICODE_WORD = new RegExp([
  `[A-Z]?[a-z]+(?=${BREAK}|[A-Z]|$)`,
  `[A-Z]+(?=${BREAK}|[A-Z][a-z]|$)`,
  '[A-Z]?[a-z]+',
  '[A-Z]+',
  '\\d*(?:1ST|2ND|3RD|(?![123])\\dTH)(?=\\b|[a-z_])',
  '\\d*(?:1st|2nd|3rd|(?![123])\\dth)(?=\\b|[A-Z_])',
  '\\d+',
].join('|'), 'g');

/** lodash's `snakeCase`, which Strapi applies to attribute and model names: `address1` → `address_1`. */
export function snakeCase(s: string): string {
  const text = s.replace(/['\u2019]/g, '');
  const words = HAS_UNICODE_WORD.test(text) ? text.match(UNICODE_WORD) : text.match(ASCII_WORD);
  return (words ?? []).map((w) => w.toLowerCase()).join('_');
}

function hash(data: string, len: number): string {
  return createHash('shake256', { outputLength: Math.ceil(len / 2) }).update(data).digest('hex').substring(0, len);
}

/** A name part; fixed parts (suffixes, prefixes) are never shortened. */
export interface NameToken { name: string; compressible: boolean }
type Allocated = NameToken & { allocated?: number };

function shortened(name: string, len: number): string {
  if (name.length <= len) return name;
  if (len < MIN_TOKEN_LENGTH + HASH_LENGTH) throw new Error(`identifier part ${name} cannot be shortened to ${len} characters`);
  return `${name.substring(0, len - HASH_LENGTH)}${hash(name, HASH_LENGTH)}`;
}

/**
 * Strapi's `getNameFromTokens`: parts joined with `_`; past the maximum length the compressible
 * parts share the room left by the fixed ones and the longest get a hash suffix.
 */
export function nameFromTokens(tokens: NameToken[], maxLength = MAX_IDENTIFIER_LENGTH): string {
  const full = tokens.map((t) => t.name).join('_');
  if (maxLength === 0 || full.length <= maxLength) return full;
  const parts: Allocated[] = tokens.map((t) => ({ ...t }));
  const compressible = parts.filter((t) => t.compressible);
  const fixedLength = parts.filter((t) => !t.compressible).reduce((n, t) => n + t.name.length, 0);
  const separators = parts.length - 1;
  const available = maxLength - fixedLength - separators;
  const perToken = Math.floor(available / compressible.length);
  const tooSmall = () => new Error(`identifier ${full} cannot be shortened to ${maxLength} characters`);
  if (fixedLength + separators > maxLength || perToken < MIN_TOKEN_LENGTH) throw tooSmall();
  const minHashed = HASH_LENGTH + MIN_TOKEN_LENGTH;
  const shortest = parts.reduce((n, t) => n + (!t.compressible ? t.name.length : t.name.length < perToken ? t.name.length : minHashed), separators);
  if (maxLength < shortest) throw tooSmall();
  let surplus = available % compressible.length;
  let deficits: Allocated[] = [];
  for (const t of compressible) {
    if (t.name.length < perToken) { surplus += perToken - t.name.length; t.allocated = t.name.length; }
    else { t.allocated = perToken; deficits.push(t); }
  }
  let previous = surplus + 1;
  while (surplus > 0 && deficits.length > 0) {
    deficits = deficits.filter((t) => {
      if (t.allocated! < t.name.length && surplus > 0) { t.allocated!++; surplus--; return t.allocated! < t.name.length; }
      return false;
    });
    if (surplus === previous) break;
    previous = surplus;
  }
  return parts.map((t) => (t.compressible && t.allocated !== undefined ? shortened(t.name, t.allocated) : t.name)).join('_');
}

/**
 * Strapi's `identifiers.getName`: names plus an optional fixed prefix and suffix (given here in their
 * short form: `lnk`, `ord`, `idx`, `uq`…, which Strapi uses whenever `maxLength` is set). Names are
 * taken as they are: Strapi snake-cases some of them before (see the helpers below), not all.
 */
export function name(names: string | string[], opts: { prefix?: string; suffix?: string } = {}): string {
  const tokens: NameToken[] = (Array.isArray(names) ? names : [names]).map((n) => ({ name: n, compressible: true }));
  if (opts.suffix) tokens.push({ name: opts.suffix, compressible: false });
  if (opts.prefix) tokens.unshift({ name: opts.prefix, compressible: false });
  return nameFromTokens(tokens);
}

/** `name` over snake-cased names: how Strapi names join tables and join columns. */
export function identifier(names: string | string[], opts: { prefix?: string; suffix?: string } = {}): string {
  return name((Array.isArray(names) ? names : [names]).map(snakeCase), opts);
}

/** Column of a scalar attribute: `getColumnName(snakeCase(attribute))`. */
export const columnName = (attribute: string) => identifier(attribute);
/** Table of a content-type or component: its `collectionName` as written (only shortened, never snake-cased). */
export const tableName = (collectionName: string) => name(collectionName);
/**
 * Join table linking an owner row to its components and dynamic-zone entries, named from the owner's
 * `collectionName` as written (Strapi's getComponentJoinTableName).
 */
export const componentsTable = (collectionName: string) => name(collectionName, { suffix: 'cmps' });

/** Index, unique-constraint and foreign-key names Strapi gives (identifiers.get*IndexName, short suffixes). */
export const INDEX = {
  index: (names: string | string[]) => name(names, { suffix: 'idx' }),
  fk: (names: string | string[]) => name(names, { suffix: 'fk' }),
  inverseFk: (names: string | string[]) => name(names, { suffix: 'ifk' }),
  orderFk: (names: string | string[]) => name(names, { suffix: 'ofk' }),
  orderInverseFk: (names: string | string[]) => name(names, { suffix: 'oifk' }),
  unique: (names: string | string[]) => name(names, { suffix: 'uq' }),
  /** A morph table's indexes on its related-row id and its order (getIdColumnIndexName, getOrderIndexName). */
  idColumn: (names: string | string[]) => name(names, { suffix: 'idix' }),
  order: (names: string | string[]) => name(names, { suffix: 'oidx' }),
  /** `<collectionName>_entity_fk`: a `_cmps` table's owner foreign key and its index. */
  componentsEntityFk: (collectionName: string) => nameFromTokens([
    { name: collectionName, compressible: true }, { name: 'entity', compressible: false }, { name: 'fk', compressible: false },
  ]),
} as const;

/** The admin user table `created_by_id` / `updated_by_id` refer to. */
export const ADMIN_USERS = 'admin_users';

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

/**
 * morphToOne: Strapi keeps the link in two columns of the owner's row, named `target_id`/`target_type`
 * whatever the attribute is called (its createMorphToOne), unless the schema gives `morphColumn`.
 */
export function morphColumns(given?: { id?: string; type?: string }): { id: string; type: string } {
  return { id: given?.id ?? identifier('target', { suffix: 'id' }), type: given?.type ?? identifier('target', { suffix: 'type' }) };
}

/** morphToMany: `<table>_<attribute>_mph`, as Strapi's createMorphToMany names it and its columns. */
export function morphJoinTable(owner: NamedModel, attribute: string): { table: string; owner: string; id: string; type: string; field: string; order: string } {
  return {
    table: name([snakeCase(owner.table), snakeCase(attribute)], { suffix: 'mph' }),
    owner: identifier(owner.singularName, { suffix: 'id' }),
    id: identifier(attribute, { suffix: 'id' }),
    type: identifier(attribute, { suffix: 'type' }),
    field: 'field', order: 'order',
  };
}

/** The same join table seen from the inverse (`mappedBy`) side. */
export function inverseJoinTable(j: JoinTable): JoinTable {
  return { table: j.table, source: j.target, target: j.source, order: j.inverseOrder, inverseOrder: j.order };
}

// ------------------------------------------------------------------ this server's own schema

/** Everything this server keeps of its own lives here, never in Strapi's tables. */
export const OWN_SCHEMA = 'fastrapi';

/**
 * The render cache (compiler/render-cache.ts): per table, each row's default response text, valid while
 * the row's `updated_at` is the one it was rendered from. `doc` is a content row's JSON without its
 * closing brace (a file record's whole JSON); `p_<attribute>` a component or dynamic-zone attribute's
 * default populate.
 */
export const RENDER = {
  table: (table: string) => `${OWN_SCHEMA}."${table}"`,
  stamp: 'updated_at', doc: 'doc',
  component: (attribute: string) => `p_${attribute}`,
} as const;
