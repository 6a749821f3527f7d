// The normalized model registry every other module reads: content-types, components and how each
// attribute is stored. Built once at start by src/models.ts from Strapi schema.json files.

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
}

export interface MediaAttr extends AttrBase {
  kind: 'media';
  multiple: boolean;
  allowedTypes: string[] | null;
  /** single: bigint column holding the file id; multiple: link table (source_id, file_id, position). */
  column: string;
  linkTable: string;
}

export type RelationKind = 'oneToOne' | 'oneToMany' | 'manyToOne' | 'manyToMany' | 'oneWay' | 'manyWay';

export interface RelationAttr extends AttrBase {
  kind: 'relation';
  relation: RelationKind;
  target: string;
  toMany: boolean;
  /** Owning side stores the link: a text column of target document ids (to-one) or a link table (to-many). */
  owner: boolean;
  mappedBy?: string;
  inversedBy?: string;
  column: string;
  linkTable: string;
}

export interface ComponentAttr extends AttrBase {
  kind: 'component';
  component: string;
  repeatable: boolean;
  column: string;
  min?: number;
  max?: number;
}

export interface DynamicZoneAttr extends AttrBase {
  kind: 'dynamiczone';
  components: string[];
  column: string;
  min?: number;
  max?: number;
}

export type Attribute = ScalarAttr | MediaAttr | RelationAttr | ComponentAttr | DynamicZoneAttr;

export interface ContentType {
  uid: string;
  kind: 'collectionType' | 'singleType';
  singularName: string;
  pluralName: string;
  /** Short name used in permission strings and filters of env config: `article`. */
  apiName: string;
  table: string;
  draftAndPublish: boolean;
  localized: boolean;
  attributes: Attribute[];
  byName: Map<string, Attribute>;
}

export interface Component {
  uid: string;
  category: string;
  attributes: Attribute[];
  byName: Map<string, Attribute>;
}

export interface Schema {
  contentTypes: Map<string, ContentType>;
  components: Map<string, Component>;
  /** Route segment (plural for collections, singular for single types) → content-type. */
  routes: Map<string, ContentType>;
  /** The media library's file table. */
  filesTable: string;
  defaultLocale: string;
  locales: string[];
}

export function isToMany(a: Attribute): boolean {
  return (a.kind === 'relation' && a.toMany) || (a.kind === 'media' && a.multiple) ||
    (a.kind === 'component' && a.repeatable) || a.kind === 'dynamiczone';
}

/** Strapi's default column naming: camelCase attribute → snake_case column. */
export function snake(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[^A-Za-z0-9_]/g, '_').toLowerCase();
}

/** Attributes that appear in a response without populate (scalars; never private ones). */
export function visibleScalars(attrs: Attribute[]): ScalarAttr[] {
  return attrs.filter((a): a is ScalarAttr => a.kind === 'scalar' && !a.private && a.type !== 'password');
}
