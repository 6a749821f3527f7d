// The normalized model registry every other module reads: content-types, components and how each
// attribute is stored in Strapi 5's layout (names from compiler/layout.ts). Built once at start by
// src/models.ts from Strapi schema.json files.
import type { JoinTable } from './layout.ts';

export type ScalarType =
  | 'string' | 'text' | 'richtext' | 'blocks' | 'email' | 'password' | 'uid' | 'enumeration'
  | 'boolean' | 'integer' | 'biginteger' | 'float' | 'decimal'
  | 'date' | 'time' | 'datetime' | 'timestamp' | 'json';

export const SCALAR_TYPES: ReadonlySet<string> = new Set<ScalarType>([
  'string', 'text', 'richtext', 'blocks', 'email', 'password', 'uid', 'enumeration', 'boolean', 'integer',
  'biginteger', 'float', 'decimal', 'date', 'time', 'datetime', 'timestamp', 'json',
]);

interface AttrBase {
  name: string;
  required: boolean;
  private: boolean;
  /** Localized attributes differ per locale; the others are copied to every locale of a document. */
  localized: boolean;
  /** `writable: false` in schema.json: set by the server only; a body naming it is an invalid key. */
  readOnly?: boolean;
}

export interface ScalarAttr extends AttrBase {
  kind: 'scalar';
  type: ScalarType;
  column: string;
  unique: boolean;
  default?: unknown;
  min?: number;
  max?: number;
  minLength?: number;
  maxLength?: number;
  regex?: string;
  enum?: string[];
  targetField?: string;
  /** `searchable: false` in schema.json: `_q` never searches it. */
  searchable?: false;
  /** The custom field (`plugin::<plugin>.<name>`, `global::<name>`) whose registered type `type` is. */
  customField?: string;
}

export interface MediaAttr extends AttrBase {
  kind: 'media';
  multiple: boolean;
  allowedTypes: string[] | null;
  /** Rows of `files_related_mph` with this `related_type` (the owner's uid) and `field` (the name). */
  relatedType: string;
}

/** As written in schema.json; `oneWay`/`manyWay` are Strapi 3 spellings of one-way oneToOne/oneToMany. */
export type RelationKind = 'oneToOne' | 'oneToMany' | 'manyToOne' | 'manyToMany' | 'oneWay' | 'manyWay';

export interface RelationAttr extends AttrBase {
  kind: 'relation';
  relation: RelationKind;
  target: string;
  toMany: boolean;
  /** The owning side (inversedBy, or one-way) created the join table; mappedBy sides read it reversed. */
  owner: boolean;
  mappedBy?: string;
  inversedBy?: string;
  /** The `_lnk` table as seen from this attribute's side. */
  join: JoinTable;
  /**
   * Accepted in populate (and validated) but never answered: users-permissions' content-API output
   * sanitizer removes a role's `users` wherever a role is shown.
   */
  neverAnswered?: boolean;
  /**
   * createdBy/updatedBy of a type with `options.populateCreatorFields`: its admin user, kept in the row's
   * own column (`join` is the type's table read as its own link table). Read-only, readable by every caller.
   */
  creator?: boolean;
}

/** Strapi's polymorphic relations: the owning sides point at rows of any content-type. */
export type MorphRelation = 'morphToOne' | 'morphToMany' | 'morphOne' | 'morphMany';

/** morphToOne: two columns of the owner's own row name the related row (Strapi: `target_id`, `target_type`). */
export interface MorphColumns { id: string; type: string }

/** morphToMany: `<table>_<attribute>_mph` rows (`<owner>_id`, `<attribute>_id`, `<attribute>_type`, `field`, `order`). */
export interface MorphJoin { table: string; owner: string; id: string; type: string; field: string; order: string }

export interface MorphAttr extends AttrBase {
  kind: 'morph';
  relation: MorphRelation;
  toMany: boolean;
  /** morphToOne: where the owner row keeps its link. */
  columns?: MorphColumns;
  /** morphToMany: the owner's morph table. */
  join?: MorphJoin;
  /**
   * morphOne/morphMany: the content-type whose morphTo attribute (`morphBy`) points back here; resolved
   * once every model is known. Rows of `target` whose link names this row (and, through a morph table,
   * this attribute in `field`) are this side's values.
   */
  target?: string;
  morphBy?: string;
}

export interface ComponentAttr extends AttrBase {
  kind: 'component';
  component: string;
  repeatable: boolean;
  /** The owner's `<table>_cmps` join table (rows with `field` = the attribute name). */
  cmpsTable: string;
  min?: number;
  max?: number;
}

export interface DynamicZoneAttr extends AttrBase {
  kind: 'dynamiczone';
  components: string[];
  /** The owner's `<table>_cmps` join table (rows with `field` = the attribute name). */
  cmpsTable: string;
  min?: number;
  max?: number;
}

export type Attribute = ScalarAttr | MediaAttr | RelationAttr | MorphAttr | ComponentAttr | DynamicZoneAttr;

export interface ContentType {
  uid: string;
  kind: 'collectionType' | 'singleType';
  singularName: string;
  pluralName: string;
  /** Short name used in permission strings and filters of env config: `article`. */
  apiName: string;
  /** The content-type's table (`collectionName`): one row per version (draft/published × locale). */
  table: string;
  draftAndPublish: boolean;
  localized: boolean;
  attributes: Attribute[];
  byName: Map<string, Attribute>;
  /**
   * A plugin's own type that models may relate to (users-permissions users): read and linked like a
   * content-type, but with no route, no Shadow CRUD of its own and a table Strapi creates.
   */
  builtin?: { graphqlName: string };
  /** `options.populateCreatorFields`: createdBy and updatedBy (in `byName`, not in `attributes`: no write, table or GraphQL field has them). */
  creators?: RelationAttr[];
  /** Private relations of a plugin's type this server does not model (an admin user's `roles`): refused by their whole path. */
  privateRelations?: ReadonlySet<string>;
}

export interface Component {
  uid: string;
  category: string;
  /** `components_<category>_<plural>` (the component's `collectionName`): one row per instance. */
  table: string;
  /** The name Strapi derives join-column names from (the component file's name). */
  singularName: string;
  attributes: Attribute[];
  byName: Map<string, Attribute>;
}

export interface Schema {
  contentTypes: Map<string, ContentType>;
  components: Map<string, Component>;
  /** Route segment (plural for collections, singular for single types) → content-type. */
  routes: Map<string, ContentType>;
  defaultLocale: string;
  locales: string[];
  /**
   * Upload's file and i18n's locale as a project's `src/extensions/<plugin>/content-types/<name>/schema.json`
   * merges them; absent when not extended, so their fixed records render (the same SQL as without one).
   */
  pluginRecords?: { file?: ExtendedRecord; locale?: ExtendedRecord; folder?: ExtendedRecord };
  /**
   * The media library's file as content-API reads see it (src/plugin-types.ts fileReadType: its record's attributes,
   * `related`, the private `folder`, a project's added relations, media and components): what a populated media's
   * nested `populate` and a media filter's nested keys go through. Set by src/models.ts.
   */
  files?: ContentType;
}

/** A plugin type this server renders from a fixed list (file, locale), as a project's extension changed it. */
export interface ExtendedRecord {
  /** Its table, and its scalars (the plugin's own and the added ones) in the merged attribute order. */
  ct: ContentType;
  /** Every attribute name in the merged order, relations too (GraphQL places its fields by them). */
  order: string[];
  /** The scalars the project added. */
  added: ScalarAttr[];
  /** The other attributes the project added (one-way relations, media, components, dynamic zones), in the merged order. */
  others: Attribute[];
}

/**
 * Whether rows of `ct` may be among a polymorphic relation's links (a file's `related`): any content-type, and a
 * plugin type (a user, a role, a file, a locale) once a project's extension gave it media, whose links are there.
 */
export function morphLinkable(ct: ContentType): boolean {
  return !ct.builtin || ct.attributes.some((a) => a.kind === 'media');
}

export function isToMany(a: Attribute): boolean {
  return ((a.kind === 'relation' || a.kind === 'morph') && a.toMany) || (a.kind === 'media' && a.multiple) ||
    (a.kind === 'component' && a.repeatable) || a.kind === 'dynamiczone';
}

/**
 * The components in Strapi's registry order (`Object.keys(strapi.components)`): its loader globs the
 * components folder, which yields the files last name first. Its validator lists them in this order, and
 * GraphQL's GenericMorph union names them so.
 */
export function registryOrder(schema: Schema): string[] {
  return [...schema.components.keys()].sort().reverse();
}

const zoneReads = new WeakMap<DynamicZoneAttr, string[]>();

/**
 * The components a zone read without fragments (`populate=*`, `true`) answers: its own list, then every
 * other component of the app. Strapi 5.54 lets a draft hold any component (its validator checks the app's
 * list, not the zone's) and loads a zone's rows whatever their component, so a component taken out of a
 * zone's list stays readable where it was stored.
 */
export function zoneComponents(schema: Schema, a: DynamicZoneAttr): string[] {
  let out = zoneReads.get(a);
  if (!out) {
    out = [...a.components, ...[...schema.components.keys()].filter((uid) => !a.components.includes(uid))];
    zoneReads.set(a, out);
  }
  return out;
}

/** Strapi's default column naming: camelCase attribute → snake_case column. */
export function snake(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[^A-Za-z0-9_]/g, '_').toLowerCase();
}

/** Attributes that appear in a response without populate (scalars; never private ones). */
export function visibleScalars(attrs: Attribute[]): ScalarAttr[] {
  return attrs.filter((a): a is ScalarAttr => a.kind === 'scalar' && !a.private && a.type !== 'password');
}
