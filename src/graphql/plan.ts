// A root field's whole selection set → the compiler's ReadQuery AST, so one root field runs one SQL
// statement: nested relations (with their own filters and sort), components, dynamic-zone fragments,
// media and localizations become populates. Arguments are converted to the nested-object form REST
// uses and validated by the same FilterParser/parseSort/parsePagination.
import {
  GraphQLIncludeDirective, GraphQLSkipDirective, Kind, getArgumentValues, getDirectiveValues, isAbstractType, isObjectType,
  type FieldNode, type FragmentDefinitionNode, type GraphQLObjectType, type GraphQLSchema, type SelectionNode,
} from 'graphql';
import type { Attribute, Component, ComponentAttr, ContentType, DynamicZoneAttr, MorphAttr, RelationAttr, Schema, ScalarAttr } from '../../compiler/schema.ts';
import type { ComponentSelection, Filter, Pagination, Populate, PublicationMode, ReadQuery, Selection, SortTerm } from '../../compiler/ast.ts';
import type { QueryValue } from '../../compiler/querystring.ts';
import { FilterParser, ParamBuilder, componentScope, matchesNullRow, parseComponentSort, parsePagination, parseSort, typeScope, withPublication, type ReadLimits } from '../../compiler/params.ts';
import { componentTypeName } from './names.ts';

/** A relation field's selections, gathered by relation and arguments. */
interface RelationGroup { attr: RelationAttr; args: Args; sets: Array<readonly SelectionNode[]> }
interface ComponentGroup { attr: ComponentAttr; args: Args; sets: Array<readonly SelectionNode[]> }

export type Args = Record<string, unknown>;
type Obj = { [key: string]: QueryValue };

export interface PlanEnv {
  gql: GraphQLSchema;
  fragments: Record<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
}

/** What a plan reads of a resolver's info: the schema, the operation's fragments and variables. */
export const planEnv = (info: { schema: GraphQLSchema; fragments: Record<string, FragmentDefinitionNode>; variableValues: Record<string, unknown> }): PlanEnv =>
  ({ gql: info.schema, fragments: info.fragments, variables: info.variableValues });

export interface PlanModels {
  schema: Schema;
  /** v5: flat types (`attributes`/`data` are the object itself, `*_connection`); v4: Entity wrappers. */
  shape: 'v4' | 'v5';
  /** GraphQL object type name of a content-type (or of a synthetic type: files, users). */
  nameOf(ct: ContentType): string;
  /** The file as GraphQL reads it: a populated media's own fields beyond its record go through it (null: none). */
  files: ContentType | null;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// ------------------------------------------------------------------ argument conversion

function leaf(v: unknown): QueryValue {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v instanceof Date) return v.toISOString();
  return JSON.stringify(v);
}

/** What a filter key applies to: `datetime` is a scalar whose GraphQL input is DateTime (see restFilters). */
type FilterTarget = { ct: ContentType } | { comp: Component } | 'scalar' | 'datetime' | 'opaque';
const TIMESTAMPS = new Set(['createdAt', 'updatedAt', 'publishedAt']);
const LIST_OPS = new Set(['in', 'notIn', 'between']);

/** GraphQL filters (`{title: {eq: "x"}, or: [...]}`) → REST filters (`{title: {$eq: "x"}, $or: [...]}`). */
const NULL_MATCHES_NONE = new Set(['eqi', 'contains', 'containsi', 'startsWith', 'startsWithi', 'endsWith', 'endsWithi', 'in', 'notIn', 'lt', 'lte', 'gt', 'gte']);

export function restFilters(schema: Schema, v: unknown, target: FilterTarget): QueryValue {
  if (!isObj(v)) return leaf(v);
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined) continue;
    if (target === 'scalar' || target === 'datetime' || target === 'opaque') {
      if (k === 'not') { if (x !== null) out.$not = restFilters(schema, x, target); continue; }
      if (x === null) {
        // `eq: null` reads as "is null", as Strapi's query engine does; `null`/`notNull` take null as false.
        if (k === 'eq' || k === 'notNull') out.$null = 'true';
        else if (k === 'ne' || k === 'null') out.$notNull = 'true';
        // A comparison with NULL is unknown in SQL: it matches no row (Strapi 5.54 answers [] to
        // `eqi: null`, `lt: null`, `in: null`…; recorded side by side). An empty `$in` matches none here.
        else if (NULL_MATCHES_NONE.has(k)) out.$in = [];
        continue;
      }
      if (LIST_OPS.has(k) && Array.isArray(x)) {
        // Strapi's DateTime input is a JS Date (graphql-scalars) and its query sanitizer drops a list's
        // object elements: of a DateTime list only the nulls are left (checked live on 5.54:
        // `createdAt: { in: ["2030-…"] }` and `between` answer every row, `in: ["2030-…", null]` none).
        const items = target === 'datetime' ? x.filter((i) => i === null) : x;
        // An empty list is no condition to Strapi's query engine (`in: []`, `between: []`: every row).
        if (items.length === 0) continue;
        // A NULL in SQL's `in (…)` is never equal: `in` is its other values; `not in` and `between` with a
        // NULL are never true (checked live: `views: { notIn: [null] } }` answers none, `in: ["REST", null]` REST).
        const values = items.filter((i) => i !== null);
        if (values.length < items.length && (k !== 'in' || values.length === 0)) { out.$in = []; continue; }
        if (k === 'in' && Array.isArray(out.$in) && out.$in.length === 0) continue; // already matches none
        out[`$${k}`] = values.map(leaf);
        continue;
      }
      out[`$${k}`] = Array.isArray(x) ? x.map(leaf) : k === 'and' || k === 'or' || k === 'in' || k === 'notIn' ? [leaf(x)] : leaf(x);
      continue;
    }
    if (x === null) continue;
    if (k === 'and' || k === 'or') { out[`$${k}`] = (Array.isArray(x) ? x : [x]).filter((i) => i !== null).map((i) => restFilters(schema, i, target)); continue; }
    if (k === 'not') { out.$not = restFilters(schema, x, target); continue; }
    const attrs = 'ct' in target ? target.ct.byName : target.comp.byName;
    const a = attrs.get(k);
    let sub: FilterTarget = 'scalar';
    if (a?.kind === 'relation') sub = { ct: schema.contentTypes.get(a.target)! };
    else if (a?.kind === 'component') sub = { comp: schema.components.get(a.component)! };
    else if (a?.kind === 'media') sub = 'opaque';
    else if (a ? a.kind === 'scalar' && (a.type === 'datetime' || a.type === 'timestamp') : 'ct' in target && TIMESTAMPS.has(k)) sub = 'datetime';
    else if (!a && k === 'localizations' && 'ct' in target) sub = target;
    out[k] = restFilters(schema, x, sub);
  }
  return out;
}

/**
 * `not` with SQL's three-valued logic, as Strapi's `whereNot`: a comparison on a NULL value is unknown,
 * so its negation does not match either (the compiler's `not` treats unknown as false, then negates).
 * Negations are pushed down to the comparisons (De Morgan), where "and the field is not null" is added,
 * through relations, media and components too: `whereNot` applies to the rows their LEFT JOINs produce, so
 * a negated relation condition holds when some related row fails it (checked live on 5.54: `not: { articles:
 * { featured: { eq: false } } }` is the tags with a featured article), as REST's joinedNot.
 */
export function strictNot(f: Filter | null): Filter | null {
  if (!f) return f;
  const walk = (x: Filter): Filter => {
    switch (x.t) {
      case 'and': case 'or': return { t: x.t, items: x.items.map(walk) };
      case 'not': return negate(x.item);
      case 'relation': case 'media': case 'component': case 'morph': case 'localizations': return { ...x, sub: walk(x.sub) };
      default: return x;
    }
  };
  const negate = (x: Filter): Filter => {
    switch (x.t) {
      case 'and': return { t: 'or', items: x.items.map(negate) };
      case 'or': return { t: 'and', items: x.items.map(negate) };
      case 'not': return walk(x.item);
      case 'const': return { t: 'const', value: !x.value };
      case 'cmp':
        if (x.op === '$null' || x.op === '$notNull') return { t: 'not', item: x };
        return { t: 'and', items: [{ t: 'not', item: x }, { t: 'cmp', field: x.field, op: '$notNull', param: 0 }] };
      case 'relation': case 'media': case 'component': case 'morph': {
        const sub = negate(x.sub);
        return { ...x, sub, nullRowMatches: matchesNullRow(sub) };
      }
      case 'localizations': return { ...x, sub: negate(x.sub) };
      default: return { t: 'not', item: walk(x) };
    }
  };
  return walk(f);
}

export function sortValue(v: unknown): QueryValue | undefined {
  if (v === undefined || v === null) return undefined;
  const list = (Array.isArray(v) ? v : [v]).filter((s): s is string => typeof s === 'string' && s !== '');
  return list.length ? list : undefined;
}

export function restPagination(v: unknown, withCount: boolean): Obj {
  const out: Obj = { withCount: withCount ? 'true' : 'false' };
  if (isObj(v)) for (const k of ['page', 'pageSize', 'start', 'limit']) if (v[k] !== undefined && v[k] !== null) out[k] = leaf(v[k]);
  // GraphQL's `limit: -1` is "no limit", capped at the maximum (Strapi 5.54's withDefaultPagination; REST reads it as 1).
  if (isObj(v) && Number(v.limit) === -1) out.limit = String(Number.MAX_SAFE_INTEGER);
  return out;
}

/** Where a to-many relation's rows live in its parent's JSON: one key per distinct filters/sort. */
export function relKey(name: string, args: Args): string {
  const f = args.filters;
  const s = sortValue(args.sort);
  const preview = args.publicationState === 'PREVIEW';
  if ((f === undefined || f === null || (isObj(f) && Object.keys(f).length === 0)) && s === undefined && !preview) return name;
  return `${name}|${stable([f ?? null, s ?? null, preview])}`;
}

function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  if (isObj(v)) return `{${Object.keys(v).filter((k) => v[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${stable(v[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** Start and limit of a nested list's page (sliced from the rows the statement returned). */
export function pageWindow(v: unknown, limits: ReadLimits): { start: number; limit: number } {
  // Most nested lists name no page: read once per field of each parent row (25 × each list of a page).
  if (v === undefined || v === null) return { start: 0, limit: limits.defaultLimit < limits.maxLimit ? limits.defaultLimit : limits.maxLimit };
  const p = parsePagination(restPagination(v, false), limits);
  return p.mode === 'page' ? { start: (p.page - 1) * p.pageSize, limit: p.pageSize } : { start: p.start, limit: p.limit };
}

// ------------------------------------------------------------------ selection walking

/** Fields of a document type that are not attributes but always there. */
const SYSTEM_FIELDS = new Set(['id', 'documentId', '__typename', 'attributes', 'data']);

export class Planner {
  constructor(
    private models: PlanModels,
    private env: PlanEnv,
    private params: ParamBuilder,
    private status: 'published' | 'draft',
    private canRead: (uid: string) => boolean,
  ) {}

  /** The root query's publicationFilter: Strapi's association resolver applies it to draft & publish targets too. */
  publication: PublicationMode | null = null;
  /**
   * A mutation's answer: the relations of an entry without draft & publish are read in every status (Strapi's
   * association resolver has no status there to take; checked live: a tag created with an article answers its
   * draft and its published row, and so does an article's tag's articles; a shop's products stay published).
   */
  anyStatus = false;

  private skipped(node: SelectionNode): boolean {
    if (!node.directives?.length) return false;
    const skip = getDirectiveValues(GraphQLSkipDirective, node, this.env.variables);
    if (skip?.if === true) return true;
    const include = getDirectiveValues(GraphQLIncludeDirective, node, this.env.variables);
    return include?.if === false;
  }

  private applies(cond: string | undefined, typeName: string): boolean {
    if (!cond || cond === typeName) return true;
    const t = this.env.gql.getType(cond);
    const obj = this.env.gql.getType(typeName);
    return !!t && isAbstractType(t) && isObjectType(obj) && this.env.gql.isSubType(t, obj);
  }

  /**
   * Field nodes selected on an object of `typeName`, fragments flattened; the deprecated `attributes`
   * and `data` fields of v5 types (the object itself) are flattened too when `selfFields` says so.
   */
  gather(typeName: string, sets: ReadonlyArray<readonly SelectionNode[]>, selfFields: boolean, out: FieldNode[] = []): FieldNode[] {
    const visit = (selections: readonly SelectionNode[]) => {
      for (const s of selections) {
        if (this.skipped(s)) continue;
        if (s.kind === Kind.FIELD) {
          if (selfFields && (s.name.value === 'attributes' || s.name.value === 'data') && s.selectionSet) visit(s.selectionSet.selections);
          else out.push(s);
        } else if (s.kind === Kind.INLINE_FRAGMENT) {
          if (this.applies(s.typeCondition?.name.value, typeName)) visit(s.selectionSet.selections);
        } else {
          const f = this.env.fragments[s.name.value];
          if (f && this.applies(f.typeCondition.name.value, typeName)) visit(f.selectionSet.selections);
        }
      }
    };
    for (const set of sets) visit(set);
    return out;
  }

  argsOf(typeName: string, node: FieldNode): Args {
    const t = this.env.gql.getType(typeName) as GraphQLObjectType;
    const def = t.getFields()[node.name.value];
    return def ? getArgumentValues(def, node, this.env.variables) : {};
  }

  /** v4: the `attributes` selections of the entities under a response wrapper's `data`. */
  entities(wrapperType: string, entityType: string, nodes: readonly FieldNode[]): Array<readonly SelectionNode[]> {
    const data = nodes.flatMap((n) => this.unwrap(wrapperType, n, ['data']));
    return this.gather(entityType, data, false).filter((f) => f.name.value === 'attributes' && f.selectionSet).map((f) => f.selectionSet!.selections);
  }

  /** What a root field selects on its documents, and whether it asks for the total. */
  rootSets(ct: ContentType, nodes: readonly FieldNode[], shape: 'list' | 'one', wrapped: boolean): { sets: Array<readonly SelectionNode[]>; withCount: boolean } {
    const tn = this.models.nameOf(ct);
    const direct = nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet.selections] : []));
    if (this.models.shape === 'v4') {
      const wrapper = shape === 'list' ? `${tn}EntityResponseCollection` : `${tn}EntityResponse`;
      const withCount = shape === 'list' && this.gather(wrapper, direct, false).some((f) => f.name.value === 'meta');
      return { sets: this.entities(wrapper, `${tn}Entity`, nodes), withCount };
    }
    if (!wrapped) return { sets: direct, withCount: false };
    const sets: Array<readonly SelectionNode[]> = [];
    let withCount = false;
    for (const f of this.gather(`${tn}EntityResponseCollection`, direct, false)) {
      if ((f.name.value === 'nodes' || f.name.value === 'data') && f.selectionSet) sets.push(f.selectionSet.selections);
      if (f.name.value === 'pageInfo' || f.name.value === 'meta') withCount = true;
    }
    return { sets, withCount };
  }

  /** Selections under a `*_connection` / response wrapper's `nodes` and `data` fields. */
  unwrap(wrapperType: string, node: FieldNode, inner = ['nodes', 'data']): Array<readonly SelectionNode[]> {
    if (!node.selectionSet) return [];
    return this.gather(wrapperType, [node.selectionSet.selections], false)
      .filter((f) => inner.includes(f.name.value) && f.selectionSet).map((f) => f.selectionSet!.selections);
  }

  typeSelection(ct: ContentType, sets: ReadonlyArray<readonly SelectionNode[]>): Selection {
    const tn = this.models.nameOf(ct);
    const v4 = this.models.shape === 'v4';
    const fields = this.gather(tn, sets, !v4);
    const scalars = new Set<string>();
    const ts = { createdAt: false, updatedAt: false, publishedAt: false };
    let withLocale = false;
    const rels = new Map<string, RelationGroup>();
    const comps = new Map<string, ComponentGroup>();
    const others = new Map<Attribute, Array<readonly SelectionNode[]>>();
    const morphs = new Map<MorphAttr, Array<readonly SelectionNode[]>>();
    // `localizations` fields by their filters and sort (as relations: aliases with other arguments read their own).
    const locs = new Map<string, { args: Args; sets: Array<readonly SelectionNode[]> }>();
    let custom = false;
    for (const f of fields) {
      const name = f.name.value;
      if (name === 'createdAt' || name === 'updatedAt' || name === 'publishedAt') { ts[name] = true; continue; }
      if (name === 'locale') { withLocale = ct.localized; continue; }
      const conn = name.endsWith('_connection');
      const base = conn ? name.slice(0, -'_connection'.length) : name;
      const sub = (wrapper: string) => (conn ? this.unwrap(wrapper, f) : f.selectionSet ? [f.selectionSet.selections] : []);
      if (base === 'localizations' && ct.localized) {
        const args = this.argsOf(tn, f);
        const key = relKey('localizations', args);
        const g = locs.get(key) ?? { args, sets: [] };
        g.sets.push(...(v4 ? this.entities(`${tn}RelationResponseCollection`, `${tn}Entity`, [f]) : sub(`${tn}RelationResponseCollection`)));
        locs.set(key, g);
        continue;
      }
      const a = ct.byName.get(base);
      // A field the models do not have (added by the extensions, with its own resolver): its resolver
      // gets the document with every scalar attribute.
      if (!a && !SYSTEM_FIELDS.has(name)) custom = true;
      if (!a || a.private) continue;
      if (a.kind === 'scalar') { scalars.add(a.name); continue; }
      if (a.kind === 'relation') { this.groupRelation(rels, tn, a, f, conn); continue; }
      if (a.kind === 'component' && a.repeatable) { this.groupComponent(comps, tn, a, f); continue; }
      if (a.kind === 'morph') {
        if (!a.target && f.selectionSet) morphs.set(a, [...(morphs.get(a) ?? []), f.selectionSet.selections]);
        continue;
      }
      const list = others.get(a) ?? [];
      list.push(...sub('UploadFileRelationResponseCollection'));
      others.set(a, list);
    }
    if (custom) {
      for (const a of ct.attributes) if (a.kind === 'scalar' && !a.private && a.type !== 'password') scalars.add(a.name);
      ts.createdAt = ts.updatedAt = ts.publishedAt = true;
      withLocale = ct.localized;
    }
    const sel: Selection = {
      fields: ct.attributes.filter((a): a is ScalarAttr => a.kind === 'scalar' && scalars.has(a.name)),
      withLocale, withTimestamps: ts, populate: [],
      ...(v4 && ct.draftAndPublish ? { stableId: true } : {}),
    };
    for (const [key, g] of rels) sel.populate.push(this.relation(key, g.attr, g.args, g.sets, ct.draftAndPublish));
    for (const a of ct.attributes) {
      const sets = others.get(a);
      if (sets) sel.populate.push(this.attribute(a, sets));
    }
    for (const [key, g] of comps) sel.populate.push(this.repeatable(key, g));
    for (const [a, sets] of morphs) sel.populate.push(this.morph(a, sets));
    for (const [key, g] of locs) {
      sel.populate.push({ kind: 'localizations', select: this.typeSelection(ct, g.sets), ...this.filtersAndSort(ct, g.args), ...(key === 'localizations' ? {} : { key }), byId: true, ...(this.anyStatus && this.models.shape !== 'v4' ? { every: true } : {}) });
    }
    return sel;
  }

  /** A GenericMorph field: every readable content-type with what its fragments select (`__type` names it). */
  private morph(a: MorphAttr, sets: Array<readonly SelectionNode[]>): Populate {
    const types = [...this.models.schema.contentTypes.values()]
      .filter((ct) => !ct.builtin && this.canRead(ct.uid))
      .map((ct) => ({ ct, select: this.typeSelection(ct, sets) }));
    return { kind: 'morphTo', attr: a, types };
  }

  /** A list field's `filters` and `sort` on `ct`'s rows (a relation's, a `localizations` field's: checked live). */
  private filtersAndSort(ct: ContentType, args: Args): { where: Filter | null; sort: SortTerm[] } {
    const schema = this.models.schema;
    const where = args.filters !== undefined && args.filters !== null
      ? strictNot(new FilterParser(schema, this.params).parse(restFilters(schema, args.filters, { ct }), typeScope(ct, null)))
      : null;
    return { where, sort: parseSort(schema, ct, sortValue(args.sort)) };
  }

  /**
   * Gathers a relation field's selections by relation and arguments: `tags` and `tags_connection` with
   * the same arguments read one populate; different arguments are different populates.
   */
  private groupRelation(rels: Map<string, RelationGroup>, tn: string, a: RelationAttr, f: FieldNode, conn: boolean): void {
    const target = this.models.schema.contentTypes.get(a.target)!;
    if (!this.canRead(target.uid)) return;
    const args = a.toMany ? this.argsOf(tn, f) : {};
    const key = a.toMany ? relKey(a.name, args) : a.name;
    const g = rels.get(key) ?? { attr: a, args, sets: [] };
    const tt = this.models.nameOf(target);
    g.sets.push(...(this.models.shape === 'v4' ? this.entities(a.toMany ? `${tt}RelationResponseCollection` : `${tt}EntityResponse`, `${tt}Entity`, [f])
      : conn ? this.unwrap(`${tt}RelationResponseCollection`, f) : f.selectionSet ? [f.selectionSet.selections] : []));
    rels.set(key, g);
  }

  private relation(key: string, attr: RelationAttr, args: Args, sets: Array<readonly SelectionNode[]>, ownerHasStatus = true): Populate {
    const schema = this.models.schema;
    const target = schema.contentTypes.get(attr.target)!;
    const select = this.typeSelection(target, sets);
    const { where, sort } = this.filtersAndSort(target, args);
    return {
      kind: 'relation', attr: key === attr.name ? attr : { ...attr, name: key }, target, select, sort, count: false,
      where: this.models.shape === 'v4' ? where : withPublication(where, this.publication, this.status, target),
      // v5 reads relations in the root's status; v4 has each relation's own publicationState (LIVE by default).
      status: !target.draftAndPublish ? null : this.models.shape === 'v4' ? (args.publicationState === 'PREVIEW' ? 'draft' : 'published') : this.anyStatus && !ownerHasStatus ? null : this.status,
    };
  }

  private attribute(a: Attribute, sets: Array<readonly SelectionNode[]>): Populate {
    const schema = this.models.schema;
    switch (a.kind) {
      case 'media': {
        // The file's own fields beyond its record (a project's added relations, media, components).
        const files = this.models.files;
        const populate = files && this.models.shape === 'v5' ? this.typeSelection(files, sets).populate : [];
        return { kind: 'media', attr: a, fields: null, ...(populate.length ? { populate } : {}) };
      }
      case 'component': return { kind: 'component', attr: a, select: this.componentSelection(schema.components.get(a.component)!, sets) };
      case 'dynamiczone': return this.dynamicZone(a, sets);
      default: throw new Error(`cannot populate ${a.kind}`);
    }
  }

  private dynamicZone(a: DynamicZoneAttr, sets: Array<readonly SelectionNode[]>): Populate {
    const on = new Map<string, ComponentSelection>();
    for (const uid of a.components) on.set(uid, this.componentSelection(this.models.schema.components.get(uid)!, sets));
    return { kind: 'dynamiczone', attr: a, on };
  }

  componentSelection(comp: Component, sets: ReadonlyArray<readonly SelectionNode[]>): ComponentSelection {
    const tn = componentTypeName(comp);
    const fields = this.gather(tn, sets, this.models.shape === 'v5');
    const scalars = new Set<string>();
    const nested = new Map<Attribute, Array<readonly SelectionNode[]>>();
    const rels = new Map<string, RelationGroup>();
    const comps = new Map<string, ComponentGroup>();
    for (const f of fields) {
      const name = f.name.value;
      const conn = name.endsWith('_connection');
      const a = comp.byName.get(conn ? name.slice(0, -'_connection'.length) : name);
      if (!a || a.private) continue;
      if (a.kind === 'scalar') { scalars.add(a.name); continue; }
      // A component's relations read as a content-type's do (components have no locale of their own).
      if (a.kind === 'relation') { this.groupRelation(rels, tn, a, f, conn); continue; }
      if (a.kind === 'component' && a.repeatable) { this.groupComponent(comps, tn, a, f); continue; }
      const list = nested.get(a) ?? [];
      if (conn) list.push(...this.unwrap('UploadFileRelationResponseCollection', f));
      else if (f.selectionSet) list.push(f.selectionSet.selections);
      nested.set(a, list);
    }
    const sel: ComponentSelection = {
      component: comp,
      fields: comp.attributes.filter((a): a is ScalarAttr => a.kind === 'scalar' && scalars.has(a.name)),
      populate: [],
    };
    for (const [key, g] of rels) sel.populate.push(this.relation(key, g.attr, g.args, g.sets));
    for (const a of comp.attributes) {
      const sets2 = nested.get(a);
      if (!sets2) continue;
      if (a.kind === 'media') sel.populate.push({ kind: 'media', attr: a, fields: null });
      else if (a.kind === 'component') {
        sel.populate.push({ kind: 'component', attr: a as ComponentAttr, select: this.componentSelection(this.models.schema.components.get(a.component)!, sets2) });
      }
    }
    for (const [key, g] of comps) sel.populate.push(this.repeatable(key, g));
    return sel;
  }

  /** A repeatable component field's selections, by arguments (`filters`, `sort`): each its own populate, as a relation's. */
  private groupComponent(comps: Map<string, ComponentGroup>, tn: string, a: ComponentAttr, f: FieldNode): void {
    const args = this.argsOf(tn, f);
    const key = relKey(a.name, args);
    const g = comps.get(key) ?? { attr: a, args, sets: [] };
    if (f.selectionSet) g.sets.push(f.selectionSet.selections);
    comps.set(key, g);
  }

  /**
   * A repeatable component read as Strapi's GraphQL loads it (a relation to its rows): the instances its
   * `filters` keep, in its `sort` then their order (`pagination` is the resolver's).
   */
  private repeatable(key: string, g: ComponentGroup): Populate {
    const schema = this.models.schema;
    const comp = schema.components.get(g.attr.component)!;
    const select = this.componentSelection(comp, g.sets);
    if (g.args.filters !== undefined && g.args.filters !== null) {
      select.where = strictNot(new FilterParser(schema, this.params).parse(restFilters(schema, g.args.filters, { comp }), componentScope(comp, null)));
    }
    const sort = parseComponentSort(comp, sortValue(g.args.sort));
    if (sort.length) select.sort = sort;
    return { kind: 'component', attr: g.attr, select, ...(key === g.attr.name ? {} : { key }) };
  }
}

// ------------------------------------------------------------------ the whole read

export interface RootRead {
  ct: ContentType;
  shape: 'list' | 'one';
  args: Args;
  sets: ReadonlyArray<readonly SelectionNode[]>;
  documentId?: string;
  withCount?: boolean;
  /** Relations in every status (Planner.anyStatus). */
  anyStatus?: boolean;
}

export function buildRootRead(models: PlanModels, env: PlanEnv, r: RootRead, limits: ReadLimits, canRead: (uid: string) => boolean): { query: ReadQuery; params: unknown[] } {
  const schema = models.schema;
  const { ct, args } = r;
  const loc = typeof args.locale === 'string' && args.locale !== '' ? args.locale : undefined;
  const params = new ParamBuilder();
  const status: 'published' | 'draft' = args.status === 'DRAFT' || args.publicationState === 'PREVIEW' ? 'draft' : 'published';
  let localeParam: number | null = null;
  // As REST's: `*` is every locale for a list, a locale no row has for one document by documentId (a null).
  if (ct.localized && (loc !== '*' || r.documentId !== undefined)) localeParam = params.push(loc ?? schema.defaultLocale);
  const documentParam = r.documentId !== undefined ? params.push(r.documentId) : null;
  const filtered = args.filters !== undefined && args.filters !== null
    ? strictNot(new FilterParser(schema, params).parse(restFilters(schema, args.filters, { ct }), typeScope(ct, null)))
    : null;
  // `publicationFilter` (enum NEVER_PUBLISHED → never-published) or the deprecated `hasPublishedVersion`: Strapi's cohorts.
  const mode: PublicationMode | null = typeof args.publicationFilter === 'string' ? args.publicationFilter.toLowerCase().replace(/_/g, '-') as PublicationMode
    : typeof args.hasPublishedVersion === 'boolean' ? (args.hasPublishedVersion ? 'has-published-version-document' : 'never-published-document') : null;
  const where = withPublication(filtered, mode, status, ct);
  const sort = parseSort(schema, ct, sortValue(args.sort));
  const planner = new Planner(models, env, params, status, canRead);
  planner.publication = mode;
  planner.anyStatus = r.anyStatus ?? false;
  const select = planner.typeSelection(ct, r.sets);
  const pagination: Pagination = r.shape === 'list'
    ? parsePagination(restPagination(args.pagination, r.withCount ?? false), limits)
    : { mode: 'page', page: 1, pageSize: 1, withCount: false };
  return {
    query: {
      ct, shape: r.shape, select, where, sort, pagination, localeParam, documentParam, status,
    },
    params: params.values,
  };
}

/**
 * The SQL shape of a query: the AST with models named (param positions included, values excluded). The
 * page's numbers are not in it: each page of a shape is a variant of its statement (StatementCache).
 */
export function astKey(q: ReadQuery): string {
  return JSON.stringify({ ...q, pagination: { withCount: q.pagination.withCount } }, (_k, v: unknown) => {
    if (v instanceof Map) return [...v.entries()];
    if (isObj(v)) {
      if (v.byName instanceof Map) return `${'pluralName' in v ? 'ct' : 'comp'}:${String(v.uid)}`;
      if (typeof v.required === 'boolean' && typeof v.name === 'string' && 'localized' in v) return `@${String(v.kind)}:${v.name}`;
    }
    return v;
  });
}
