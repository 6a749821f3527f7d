// The normalized read query: what compiler/params.ts produces from query parameters and
// compiler/sql.ts turns into one SQL statement. Values live in a parameter vector; the AST only
// holds their positions, so two queries of the same shape produce the same SQL text.
import type { DeferredError } from './deferred.ts';
import type { ContentType, ScalarAttr, RelationAttr, MediaAttr, MorphAttr, ComponentAttr, DynamicZoneAttr, Component } from './schema.ts';

export type Operator =
  | '$eq' | '$eqi' | '$ne' | '$nei' | '$lt' | '$lte' | '$gt' | '$gte' | '$in' | '$notIn'
  | '$contains' | '$notContains' | '$containsi' | '$notContainsi' | '$null' | '$notNull' | '$between'
  | '$startsWith' | '$startsWithi' | '$endsWith' | '$endsWithi';

/** A column a filter or sort reads: a system column or a scalar attribute (of a row or a component row). */
export interface FieldRef {
  /** SQL column of the row's table. */
  column: string;
  /** Type used for casts and value coercion. */
  type: ScalarAttr['type'] | 'id' | 'documentId' | 'systemDate' | 'locale';
  /**
   * Sort only: Strapi 5.54's virtual `status` of a draft & publish row (0 draft never published, 1
   * modified since published, 2 published), computed over the rows of `table`.
   */
  status?: { table: string };
  /** Filter only: `_q`'s search document of this type's row (compiler/search.ts) instead of a column. */
  searchOf?: ContentType;
}

export type Filter =
  | { t: 'and' | 'or'; items: Filter[] }
  | { t: 'not'; item: Filter }
  | { t: 'cmp'; field: FieldRef; op: Operator; param: number }
  | { t: 'relation'; attr: RelationAttr; target: ContentType; sub: Filter; nullRowMatches: boolean }
  | { t: 'media'; attr: MediaAttr; sub: Filter; nullRowMatches: boolean }
  /** Through a morphOne/morphMany: the rows of `target` whose `by` link names this row. */
  | { t: 'morph'; attr: MorphAttr; target: ContentType; by: MorphAttr; sub: Filter; nullRowMatches: boolean }
  | { t: 'component'; attr: ComponentAttr; component: Component; sub: Filter; nullRowMatches: boolean }
  /** A localized type's `localizations`: the rows of the row's document, itself and its other status included (never none). */
  | { t: 'localizations'; ct: ContentType; sub: Filter; nullRowMatches: false }
  | { t: 'const'; value: boolean }
  /** `publicationFilter` (Strapi 5.54's cohorts of a draft & publish row: by its other version, same locale or any). */
  | { t: 'publication'; mode: PublicationMode; status: 'published' | 'draft'; ct: ContentType };

/** Strapi 5.54's `publicationFilter` values (`hasPublishedVersion` maps to the two `-document` ones). */
export const PUBLICATION_MODES = ['never-published', 'has-published-version', 'modified', 'unmodified', 'never-published-document',
  'has-published-version-document', 'published-without-draft', 'published-with-draft'] as const;
export type PublicationMode = typeof PUBLICATION_MODES[number];

/** The conjuncts of a filter's top-level AND (an OR or NOT is one opaque conjunct; no filter: none). */
export function conjuncts(f: Filter | null): Filter[] {
  if (!f) return [];
  return f.t === 'and' ? f.items.flatMap(conjuncts) : [f];
}

export interface SortTerm { path: Array<RelationAttr | ComponentAttr | MediaAttr>; field: FieldRef; desc: boolean }

/** A system key a sort may lead a row's keys with (Selection.leading). */
export type SystemKey = 'id' | 'documentId' | 'locale' | 'createdAt' | 'updatedAt' | 'publishedAt';
export type LeadKey = ScalarAttr | SystemKey;

export interface Selection {
  /** Scalar attributes to return, in model order (or the order `fields` named them); `locale` is its own flag. */
  fields: ScalarAttr[];
  withLocale: boolean;
  /**
   * With `fields`, the order Strapi answers in: the names as the query gave them, system fields
   * (`createdAt`, `locale`, …) among the attributes. Without, attributes then the system fields.
   */
  named?: string[];
  /**
   * What Strapi selects ahead of id/documentId, in this order: a DISTINCT query's sort columns (a populated
   * relation's, or a list filtered through a join), selected or not, the system ones too.
   */
  leading?: LeadKey[];
  withTimestamps: { createdAt: boolean; updatedAt: boolean; publishedAt: boolean };
  populate: Populate[];
  /**
   * GraphQL's v4 shape: `id` is the id of the document's draft row (kept across edits and publishes,
   * where the published row is made anew each time), so a client cache keeps one entry per document.
   */
  stableId?: boolean;
  /**
   * Populated creator fields (createdBy/updatedBy) of a selection without `fields`: Strapi reads their
   * columns with the row's, so their keys follow `publishedAt` (before `locale`); with `fields` they are
   * ordinary populates, after the others.
   */
  inlineCreators?: Populate[];
}

export interface ComponentSelection {
  component: Component;
  fields: ScalarAttr[];
  populate: Populate[];
  /**
   * `filters` of the component's populate (or of a dynamic zone's fragment): instances that fail them
   * are left out — a single component reads null, a list or zone keeps the others (Strapi populates
   * components as relations to their rows).
   */
  where?: Filter | null;
  /** GraphQL's `sort` of a repeatable component's instances (its own fields), before their order; REST's populate `sort` too. */
  sort?: SortTerm[];
  /** REST: the sorted columns lead the instance's keys, then `id` (Strapi 5.54 selects them first; checked live). */
  leadSort?: boolean;
}

export type Populate =
  | { kind: 'relation'; attr: RelationAttr; target: ContentType; select: Selection; where: Filter | null; sort: SortTerm[]; count: boolean; status: 'published' | 'draft' | null }
  /** `populate`: the file's own populated attributes (its `related`, what a project's extension added: Schema.files). */
  | { kind: 'media'; attr: MediaAttr; fields: string[] | null; populate?: Populate[]; /** REST populate `filters`: files that fail them are left out. */ where?: Filter | null;
    /** REST populate `sort` of the files, and the record keys it leads with (Selection.leading). */ sort?: SortTerm[]; leading?: string[] }
  /** morphToOne/morphToMany: each linked row as its own type's selection (types not listed are left out). */
  /** `components`: component rows among the links, asked for by `on[<component uid>]` only (Strapi 5.54 lists them then). */
  /** `unmatched`: kept in the row's own columns, which `fields` leaves out of Strapi's select: always null (nothing read). */
  | { kind: 'morphTo'; attr: MorphAttr; types: MorphTarget[]; components?: Map<string, ComponentSelection>; unmatched?: boolean }
  /** morphOne/morphMany: rows of `target` linked back through its morphTo attribute `by`. */
  /**
   * `unmatched`: the target keeps the link in its own columns and `fields` leaves them out of Strapi's select,
   * so the rows it reads are matched to no owner: none answered (the populate still reads them: key order).
   */
  | { kind: 'morphBy'; attr: MorphAttr; target: ContentType; by: MorphAttr; select: Selection; where: Filter | null; sort: SortTerm[]; status: 'published' | 'draft' | null; unmatched?: boolean }
  /** `key`: the answer's key when not the attribute's name (GraphQL: one per distinct filters and sort). */
  | { kind: 'component'; attr: ComponentAttr; select: ComponentSelection; key?: string; count?: boolean }
  | { kind: 'dynamiczone'; attr: DynamicZoneAttr; on: Map<string, ComponentSelection> }
  /**
   * `key`: the answer's key when not `localizations` (GraphQL: one per distinct filters and sort); `every`:
   * every other row of the row's document, any locale or status (a GraphQL mutation's answer); `byId`: in the
   * rows' order, not their locales' (GraphQL's).
   */
  | { kind: 'localizations'; select: Selection; where?: Filter | null; sort?: SortTerm[]; key?: string; every?: boolean; byId?: boolean };

export interface MorphTarget { ct: ContentType; select: Selection }

export type Pagination =
  | { mode: 'page'; page: number; pageSize: number; withCount: boolean }
  | { mode: 'offset'; start: number; limit: number; withCount: boolean };

/** The rows a page reads: written into the statement's text as LIMIT and OFFSET (compiler/sql.ts). */
export interface PageBounds { limit: number; offset: number }

/**
 * A validated pagination's LIMIT and OFFSET: integers written into the statement's text. parsePagination()
 * refuses offsets past Number.MAX_SAFE_INTEGER; anything else here is a bug, never SQL.
 */
export function pageBounds(p: Pagination): PageBounds {
  const [limit, offset] = p.mode === 'page' ? [p.pageSize, (p.page - 1) * p.pageSize] : [p.limit, p.start];
  if (!Number.isSafeInteger(limit) || limit < 1 || !Number.isSafeInteger(offset) || offset < 0) throw new Error(`invalid page bounds ${limit}/${offset}`);
  return { limit, offset };
}

export interface ReadQuery {
  ct: ContentType;
  /** 'list' returns {data: [...], meta: {pagination}}; 'one' returns {data: {...} | null, meta: {}}. */
  shape: 'list' | 'one';
  select: Selection;
  where: Filter | null;
  sort: SortTerm[];
  pagination: Pagination;
  /** Param index holding the locale to read, or null when all locales (`*`) or not localized. */
  localeParam: number | null;
  /** Param index holding the documentId for 'one' queries by id. */
  documentParam: number | null;
  /** The rows' status; null: every row (ReadLimits.rows). */
  status: 'published' | 'draft' | null;
  /** The Query Engine's rows (ReadLimits.rows): its localizations are the document's other rows, any locale or status. */
  rows?: boolean;
  /** Populate filter values refused once their level has rows (compiler/deferred.ts); the statement reads them as null. */
  deferred?: DeferredError[];
}
