// ReadQuery AST → one SQL statement. Every populate is a LEFT JOIN LATERAL that builds its JSON inside
// PostgreSQL, so the statement returns the response's `data` as text, ready to send. Identifiers come
// only from the models; every user value is a `$n` parameter with an explicit cast.
import type { ContentType, Schema, ScalarAttr, ScalarType, ComponentAttr, DynamicZoneAttr } from './schema.ts';
import { visibleScalars } from './schema.ts';
import type { ComponentSelection, FieldRef, Filter, Populate, ReadQuery, Selection, SortTerm } from './ast.ts';

export interface SqlOptions {
  maxRelationRows: number;
  /** Lists return their rows joined by commas without the surrounding brackets (the caller adds them). */
  bareList?: boolean;
}

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

const CAST: Record<ScalarType | FieldRef['type'], string> = {
  string: 'text', text: 'text', richtext: 'text', email: 'text', password: 'text', uid: 'text', enumeration: 'text',
  blocks: 'jsonb', json: 'jsonb', boolean: 'boolean', integer: 'integer', biginteger: 'bigint', float: 'float8',
  decimal: 'numeric', date: 'date', time: 'time', datetime: 'timestamptz', timestamp: 'timestamptz',
  id: 'bigint', documentId: 'text', systemDate: 'timestamptz', locale: 'text',
};
const TEXTUAL = new Set(['string', 'text', 'richtext', 'email', 'password', 'uid', 'enumeration', 'documentId', 'locale']);

export const isoTs = (expr: string) => `to_char(${expr} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** How a scalar column is rendered in a response (Strapi's formats). */
function scalarOut(a: ScalarAttr, alias: string): string {
  const col = `${alias}.${q(a.column)}`;
  switch (a.type) {
    case 'datetime': case 'timestamp': return isoTs(col);
    case 'time': return `to_char(${col}, 'HH24:MI:SS.MS')`;
    case 'biginteger': return `${col}::text`;
    default: return col;
  }
}

/** Scalar output columns of a content-type row (for row_to_json), in Strapi's key order. */
function scalarCols(sel: Selection, alias: string): string[] {
  const lead = sel.leading ?? [];
  const cols = [...lead.map((f) => `${scalarOut(f, alias)} as ${q(f.name)}`), `${alias}.id as "id"`, `${alias}.document_id as "documentId"`];
  for (const f of sel.fields) if (!lead.includes(f)) cols.push(`${scalarOut(f, alias)} as ${q(f.name)}`);
  if (sel.withTimestamps.createdAt) cols.push(`${isoTs(`${alias}.created_at`)} as "createdAt"`);
  if (sel.withTimestamps.updatedAt) cols.push(`${isoTs(`${alias}.updated_at`)} as "updatedAt"`);
  if (sel.withTimestamps.publishedAt) cols.push(`${isoTs(`${alias}.published_at`)} as "publishedAt"`);
  if (sel.withLocale) cols.push(`${alias}.locale as "locale"`);
  return cols;
}

/**
 * What needs no query context: filter expressions (also used alone, by plugins filtering their own
 * tables) and the JSON of data a row owns (media, components, dynamic zones; also used by triggers).
 */
class FilterGen {
  private n = 0;
  constructor(protected schema: Schema) {}
  alias(p = 't'): string { return `${p}${++this.n}`; }

  // ------------------------------------------------------------ filters
  fieldExpr(f: FieldRef, alias: string, json: boolean): string {
    if (!json) return `${alias}.${q(f.column)}`;
    const t = CAST[f.type];
    if (f.type === 'blocks' || f.type === 'json') return `(${alias}->${lit(f.column)})`;
    return t === 'text' ? `(${alias}->>${lit(f.column)})` : `(${alias}->>${lit(f.column)})::${t}`;
  }

  filter(f: Filter, alias: string, ct: ContentType | null, json = false): string {
    switch (f.t) {
      case 'const': return f.value ? 'true' : 'false';
      case 'and': case 'or': return `(${f.items.map((i) => this.filter(i, alias, ct, json)).join(f.t === 'and' ? ' and ' : ' or ')})`;
      // Plain SQL NOT, as Strapi's knex query: a null compared value matches neither side.
      case 'not': return `not (${this.filter(f.item, alias, ct, json)})`;
      case 'cmp': return this.cmp(f, alias, json);
      case 'relation': {
        const a = this.alias();
        const src = this.relationSource(f.attr, f.target, alias, a);
        const cond = this.filter(f.sub, a, f.target);
        const hit = `exists (select 1 ${src} and ${cond})`;
        return f.nullRowMatches ? `(${hit} or not exists (select 1 ${src}))` : hit;
      }
      case 'media': {
        const a = this.alias('f');
        const src = f.attr.multiple
          ? `from ${q(f.attr.linkTable)} l${a} join ${q(this.schema.filesTable)} ${a} on ${a}.id = l${a}.file_id where l${a}.source_id = ${alias}.id`
          : `from ${q(this.schema.filesTable)} ${a} where ${a}.id = ${json ? `(${alias}->>${lit(f.attr.name)})::bigint` : `${alias}.${q(f.attr.column)}`}`;
        const hit = `exists (select 1 ${src} and ${this.filter(f.sub, a, null)})`;
        return f.nullRowMatches ? `(${hit} or not exists (select 1 ${src}))` : hit;
      }
      case 'component': {
        const col = json ? `(${alias}->${lit(f.attr.name)})` : `${alias}.${q(f.attr.column)}`;
        if (!f.attr.repeatable) {
          const cond = this.filter(f.sub, col, null, true);
          return f.nullRowMatches ? `(${col} is null or ${cond})` : `(${col} is not null and ${cond})`;
        }
        const e = this.alias('e');
        const hit = `exists (select 1 from jsonb_array_elements(coalesce(${col}, '[]'::jsonb)) ${e}(c) where ${this.filter(f.sub, `${e}.c`, null, true)})`;
        return f.nullRowMatches ? `(${hit} or jsonb_array_length(coalesce(${col}, '[]'::jsonb)) = 0)` : hit;
      }
    }
  }

  private cmp(f: Extract<Filter, { t: 'cmp' }>, alias: string, json: boolean): string {
    const e = this.fieldExpr(f.field, alias, json);
    const cast = CAST[f.field.type];
    const p = `$${f.param}::${cast}`;
    const text = TEXTUAL.has(f.field.type) ? e : `${e}::text`;
    switch (f.op) {
      case '$eq': return `${e} = ${p}`;
      case '$ne': return `${e} <> ${p}`;
      case '$lt': return `${e} < ${p}`;
      case '$lte': return `${e} <= ${p}`;
      case '$gt': return `${e} > ${p}`;
      case '$gte': return `${e} >= ${p}`;
      case '$eqi': return `lower(${text}) = lower($${f.param}::text)`;
      case '$nei': return `lower(${text}) <> lower($${f.param}::text)`;
      case '$in': return `${e} = any($${f.param}::text::${cast}[])`;
      case '$notIn': return `not (${e} = any($${f.param}::text::${cast}[]))`;
      case '$null': return `${e} is null`;
      case '$notNull': return `${e} is not null`;
      case '$between': return `${e} between ${p} and $${f.param + 1}::${cast}`;
      case '$contains': case '$startsWith': case '$endsWith': return `${text} like $${f.param}::text`;
      case '$containsi': case '$startsWithi': case '$endsWithi': return `${text} ilike $${f.param}::text`;
      case '$notContains': return `not (${text} like $${f.param}::text)`;
      case '$notContainsi': return `not (${text} ilike $${f.param}::text)`;
    }
  }

  /** `from … where …` that reaches the related rows of `src` (alias) in `target` (alias a). */
  relationSource(attr: Extract<Filter, { t: 'relation' }>['attr'], target: ContentType, src: string, a: string): string {
    if (attr.owner) {
      if (!attr.toMany) return `from ${q(target.table)} ${a} where ${a}.document_id = ${src}.${q(attr.column)}`;
      return `from ${q(attr.linkTable)} l${a} join ${q(target.table)} ${a} on ${a}.document_id = l${a}.target_doc where l${a}.source_id = ${src}.id`;
    }
    const owner = target.byName.get(attr.mappedBy!)!;
    if (owner.kind !== 'relation') throw new Error(`mappedBy ${attr.mappedBy} is not a relation`);
    if (!owner.toMany) return `from ${q(target.table)} ${a} where ${a}.${q(owner.column)} = ${src}.document_id`;
    return `from ${q(owner.linkTable)} l${a} join ${q(target.table)} ${a} on ${a}.id = l${a}.source_id where l${a}.target_doc = ${src}.document_id`;
  }


  // ------------------------------------------------------------ owned data (media, components, zones)

  media(multiple: boolean, fields: string[] | null, ref: string, linkTable: string): string {
    const f = this.alias('f');
    const all = fileRecordColumns(f);
    const keep = fields ? all.filter(([k]) => k === 'id' || k === 'documentId' || fields.includes(k)) : all;
    const cols = keep.map(([k, e]) => `${e} as ${q(k)}`).join(', ');
    const files = q(this.schema.filesTable);
    if (!multiple) return `(select row_to_json(x) from (select ${cols} from ${files} ${f} where ${f}.id = ${ref}) x)`;
    return `(select coalesce(json_agg(x), '[]') from (select ${cols} from ${q(linkTable)} l${f} join ${files} ${f} on ${f}.id = l${f}.file_id where l${f}.source_id = ${ref} order by l${f}.position) x)`;
  }

  /** Columns of one component instance held in jsonb `c`. */
  componentCols(sel: ComponentSelection, c: string): string[] {
    const cols = [`(${c}->>'id')::bigint as "id"`];
    for (const f of sel.fields) cols.push(`${c}->${lit(f.name)} as ${q(f.name)}`);
    for (const p of sel.populate) {
      const key = p.kind === 'localizations' ? 'localizations' : p.attr.name;
      let expr: string;
      if (p.kind === 'media') {
        expr = p.attr.multiple
          ? this.mediaList(p.fields, `${c}->${lit(p.attr.name)}`)
          : this.media(false, p.fields, `(${c}->>${lit(p.attr.name)})::bigint`, '');
      } else if (p.kind === 'component') expr = this.component(p.select, `${c}->${lit(p.attr.name)}`, p.attr.repeatable);
      else continue;
      cols.push(`${expr} as ${q(key)}`);
    }
    return cols;
  }

  /** Files of a multiple media attribute inside a component: a jsonb array of file ids. */
  private mediaList(fields: string[] | null, arr: string): string {
    const e = this.alias('e');
    const one = this.media(false, fields, `${e}.id::bigint`, '');
    return `(select coalesce(json_agg(${one} order by ${e}.n), '[]') from jsonb_array_elements_text(case when jsonb_typeof(${arr}) = 'array' then ${arr} else '[]'::jsonb end) with ordinality ${e}(id, n) where exists (select 1 from ${q(this.schema.filesTable)} where id = ${e}.id::bigint))`;
  }

  component(sel: ComponentSelection, value: string, repeatable: boolean): string {
    if (!repeatable) {
      const s = this.alias('s');
      return `(select row_to_json(x) from (select ${this.componentCols(sel, `${s}.c`)} from (select ${value} as c) ${s} where jsonb_typeof(${s}.c) = 'object') x)`;
    }
    const e = this.alias('e');
    return `(select coalesce(json_agg(x), '[]') from (select ${this.componentCols(sel, `${e}.c`)} from jsonb_array_elements(case when jsonb_typeof(${value}) = 'array' then ${value} else '[]'::jsonb end) with ordinality ${e}(c, n) order by ${e}.n) x)`;
  }

  dynamicZone(on: Map<string, ComponentSelection>, value: string): string {
    const e = this.alias('e');
    const cases = [...on].map(([uid, sel]) => {
      const cols = [...this.componentCols(sel, `${e}.c`), `${lit(uid)}::text as "__component"`];
      return `when ${lit(uid)} then (select row_to_json(x) from (select ${cols.join(', ')}) x)`;
    });
    const uids = [...on.keys()].map(lit).join(', ');
    return `(select coalesce(json_agg(case ${e}.c->>'__component' ${cases.join(' ')} end order by ${e}.n), '[]') from jsonb_array_elements(case when jsonb_typeof(${value}) = 'array' then ${value} else '[]'::jsonb end) with ordinality ${e}(c, n) where ${e}.c->>'__component' in (${uids}))`;
  }

}

class Gen extends FilterGen {
  constructor(schema: Schema, private opts: SqlOptions, private query: ReadQuery) { super(schema); }

  // ------------------------------------------------------------ selections

  /**
   * JSON text of one row, never null. A default selection reuses the row's stored `doc_open` (its
   * default response without the closing brace, kept by a trigger), so PostgreSQL formats nothing per
   * request; populated values are appended with one concat() (a chain of || copies the row each time).
   */
  rowText(ct: ContentType, sel: Selection, alias: string, joins: string[]): string {
    const stored = sel.isDefault && !sel.leading?.length;
    const built = () => `(select row_to_json(x)::text from (select ${scalarCols(sel, alias).join(', ')}) x)`;
    if (!sel.populate.length) return stored ? `${alias}.doc_open || '}'` : built();
    const parts = sel.populate.map((p) => {
      // JSON.stringify: GraphQL names populated variants with keys that need escaping.
      const key = lit(`,${JSON.stringify(p.kind === 'localizations' ? 'localizations' : p.attr.name)}:`);
      const stored = storedOwnedJson(p);
      if (stored) return `${key}, ${alias}.${q(stored)}`;
      const j = this.alias('p');
      joins.push(`left join lateral (${this.populate(p, ct, alias)}) ${j} on true`);
      return `${key}, ${j}.v`;
    });
    return `concat(${stored ? `${alias}.doc_open` : `left(${built()}, -1)`}, ${parts.join(', ')}, '}')`;
  }

  /** A subquery yielding one row with column `v`: the populated value as JSON text (never null). */
  populate(p: Populate, ct: ContentType, src: string): string {
    switch (p.kind) {
      case 'relation': return this.relation(p, ct, src);
      case 'media': return this.mediaText(p.attr.multiple, p.fields, p.attr.multiple ? `${src}.id` : `${src}.${q(p.attr.column)}`, p.attr.linkTable);
      case 'component': return `select coalesce(${this.component(p.select, `${src}.${q(p.attr.column)}`, p.attr.repeatable)}::text, 'null') as v`;
      case 'dynamiczone': return `select ${this.dynamicZone(p.on, `${src}.${q(p.attr.column)}`)}::text as v`;
      case 'localizations': {
        const a = this.alias();
        const joins: string[] = [];
        const row = this.rowText(ct, p.select, a, joins);
        const status = ct.draftAndPublish ? ` and ${a}.published_at is ${this.query.status === 'published' ? 'not null' : 'null'}` : '';
        return `select ${textArray('x.j')} as v from (select ${row} as j from ${q(ct.table)} ${a} ${joins.join(' ')} where ${a}.document_id = ${src}.document_id and ${a}.locale is distinct from ${src}.locale${status} order by ${a}.id) x`;
      }
    }
  }

  private relation(p: Extract<Populate, { kind: 'relation' }>, ct: ContentType, src: string): string {
    const a = this.alias();
    const from = this.relationSource(p.attr, p.target, src, a);
    const conds: string[] = [];
    if (p.status) conds.push(`${a}.published_at is ${p.status === 'published' ? 'not null' : 'null'}`);
    if (p.target.localized) conds.push(ct.localized ? `${a}.locale = ${src}.locale` : `${a}.locale = $${this.query.relLocaleParam}::text`);
    if (p.where) conds.push(this.filter(p.where, a, p.target));
    const where = conds.length ? ` and ${conds.join(' and ')}` : '';
    if (p.count) return `select json_build_object('count', count(*))::text as v ${from}${where}`;
    const joins: string[] = [];
    const row = this.rowText(p.target, p.select, a, joins);
    // Joins of nested populates go after the `from` list of the relation's own tables.
    const fromWithJoins = injectJoins(from, joins);
    if (!p.attr.toMany) return `select coalesce((select ${row} ${fromWithJoins}${where} limit 1), 'null') as v`;
    const order = p.sort.length ? this.orderBy(p.sort, a).join(', ')
      : p.attr.owner ? `l${a}.position, ${a}.id` : `${a}.id`;
    return `select ${textArray('x.j')} as v from (select ${row} as j ${fromWithJoins}${where} order by ${order} limit ${this.opts.maxRelationRows}) x`;
  }

  /** A populated media attribute of a row, as JSON text: the stored `record_json` unless fields are picked. */
  private mediaText(multiple: boolean, fields: string[] | null, ref: string, linkTable: string): string {
    if (fields) return `select coalesce(${this.media(multiple, fields, ref, linkTable)}::text, 'null') as v`;
    const f = this.alias('f');
    const files = q(this.schema.filesTable);
    if (!multiple) return `select coalesce((select ${f}.record_json from ${files} ${f} where ${f}.id = ${ref}), 'null') as v`;
    return `select ${textArray('x.j')} as v from (select ${f}.record_json as j from ${q(linkTable)} l${f} join ${files} ${f} on ${f}.id = l${f}.file_id where l${f}.source_id = ${ref} order by l${f}.position) x`;
  }

  // ------------------------------------------------------------ sort

  sortExpr(s: SortTerm, alias: string): string {
    let cur = alias;
    let json: string | null = null;
    const wraps: string[] = [];
    for (const step of s.path) {
      if (step.kind === 'relation') {
        const target = this.schema.contentTypes.get(step.target)!;
        const a = this.alias();
        wraps.push(`(select %s ${this.relationSource(step, target, cur, a)} limit 1)`);
        cur = a;
      } else {
        json = json ? `${json}->${lit(step.name)}` : `${cur}.${q(step.column)}`;
      }
    }
    let expr = json ? this.fieldExpr(s.field, `(${json})`, true) : this.fieldExpr(s.field, cur, false);
    for (let i = wraps.length - 1; i >= 0; i--) expr = wraps[i].replace('%s', expr);
    return expr;
  }

  orderBy(sort: SortTerm[], alias: string): string[] {
    return sort.map((s) => `${this.sortExpr(s, alias)} ${s.desc ? 'desc' : 'asc'}`);
  }

  // ------------------------------------------------------------ root

  rootWhere(alias: string): string {
    const { ct, status, localeParam, documentParam, where } = this.query;
    const conds: string[] = [];
    if (ct.draftAndPublish) conds.push(`${alias}.published_at is ${status === 'published' ? 'not null' : 'null'}`);
    if (localeParam) conds.push(`${alias}.locale = $${localeParam}::text`);
    if (documentParam) conds.push(`${alias}.document_id = $${documentParam}::text`);
    if (where) conds.push(this.filter(where, alias, ct));
    return conds.length ? `where ${conds.join(' and ')}` : '';
  }
}

/** A WHERE condition for `filter` over the row alias `alias` (a table with the filter scope's columns). */
export function filterSql(schema: Schema, filter: Filter, alias: string): string {
  return new FilterGen(schema).filter(filter, alias, null);
}

/** `[a,b,…]` from JSON text fragments, in the order of the subquery they come from. */
const textArray = (col: string) => `'[' || coalesce(string_agg(${col}, ','), '') || ']'`;

/** The media library's file record, in Strapi's key order. */
function fileRecordColumns(f: string): Array<[string, string]> {
  return [
    ['id', `${f}.id`], ['documentId', `${f}.document_id`], ['name', `${f}.name`], ['alternativeText', `${f}.alternative_text`],
    ['caption', `${f}.caption`], ['focalPoint', `${f}.focal_point`], ['width', `${f}.width`], ['height', `${f}.height`],
    ['formats', `${f}.formats`], ['hash', `${f}.hash`], ['ext', `${f}.ext`], ['mime', `${f}.mime`], ['size', `${f}.size::float8`],
    ['url', `${f}.url`], ['previewUrl', `${f}.preview_url`], ['provider', `${f}.provider`], ['provider_metadata', `${f}.provider_metadata`],
    ['createdAt', isoTs(`${f}.created_at`)], ['updatedAt', isoTs(`${f}.updated_at`)], ['publishedAt', isoTs(`${f}.published_at`)],
  ];
}

/**
 * The JSON text of a row's default response (every visible scalar, timestamps, locale) without its
 * closing brace, computed from the row `r` (`new` in the trigger). Stored in `doc_open`: reads copy it.
 */
export function docOpenSql(ct: ContentType, r: string): string {
  const sel: Selection = {
    fields: visibleScalars(ct.attributes), withLocale: ct.localized, populate: [], isDefault: true,
    withTimestamps: { createdAt: true, updatedAt: true, publishedAt: true },
  };
  return `(select left(row_to_json(x)::text, -1) from (select ${scalarCols(sel, r).join(', ')}) x)`;
}

/** The column holding a component's or dynamic zone's default populate as JSON text. */
export const ownedJsonColumn = (a: ComponentAttr | DynamicZoneAttr) => `${a.column}__json`;

/** The stored JSON column that can answer this populate, when it asks for the defaults. */
function storedOwnedJson(p: Populate): string | null {
  if (p.kind === 'component' && p.select.isDefault) return ownedJsonColumn(p.attr);
  if (p.kind === 'dynamiczone' && p.on.size === p.attr.components.length && [...p.on.values()].every((c) => c.isDefault)) return ownedJsonColumn(p.attr);
  return null;
}

/**
 * The default populate of each component and dynamic zone of a row `r` (every visible field, nothing
 * nested) as JSON text, for the trigger to store next to `doc_open`: `populate=*` then copies it.
 */
export function ownedJsonSql(schema: Schema, ct: ContentType, r: string): Array<[string, string]> {
  const g = new FilterGen(schema);
  const sel = (uid: string): ComponentSelection => {
    const comp = schema.components.get(uid)!;
    return { component: comp, fields: visibleScalars(comp.attributes), populate: [], isDefault: true };
  };
  const out: Array<[string, string]> = [];
  for (const a of ct.attributes) {
    if (a.kind === 'component') {
      out.push([ownedJsonColumn(a), `coalesce(${g.component(sel(a.component), `${r}.${q(a.column)}`, a.repeatable)}::text, 'null')`]);
    } else if (a.kind === 'dynamiczone') {
      out.push([ownedJsonColumn(a), `${g.dynamicZone(new Map(a.components.map((uid) => [uid, sel(uid)])), `${r}.${q(a.column)}`)}::text`]);
    }
  }
  return out;
}

/** The JSON text of a file record, stored in `record_json`. */
export function fileJsonSql(r: string): string {
  return `(select row_to_json(x)::text from (select ${fileRecordColumns(r).map(([k, e]) => `${e} as ${q(k)}`).join(', ')}) x)`;
}

/** Puts lateral joins right after the first table of a `from … where …` fragment. */
function injectJoins(from: string, joins: string[]): string {
  if (!joins.length) return from;
  const i = from.indexOf(' where ');
  return `${from.slice(0, i)} ${joins.join(' ')}${from.slice(i)}`;
}

export interface CompiledRead {
  text: string;
  /** The statement's second column is the total row count (lists with withCount). */
  withTotal: boolean;
}

export function compileRead(schema: Schema, query: ReadQuery, opts: SqlOptions): CompiledRead {
  const g = new Gen(schema, opts, query);
  const { ct } = query;
  const inner = 'r0';
  const t = 't0';
  const where = g.rootWhere(inner);
  const order = [...g.orderBy(query.sort, inner), `${inner}.id asc`];
  // Paginate the bare rows first, then populate only the rows of the page.
  const sortCols = query.sort.map((_, i) => `, ${order[i].replace(/ (asc|desc)$/, '')} as _s${i}`).join('');
  const page = `select ${inner}.*${sortCols} from ${q(ct.table)} ${inner} ${where} order by ${order.join(', ')} limit $${query.limitParam}::bigint offset $${query.offsetParam}::bigint`;
  const joins: string[] = [];
  const row = g.rowText(ct, query.select, t, joins);
  const outerOrder = [...query.sort.map((s, i) => `${t}._s${i} ${s.desc ? 'desc' : 'asc'}`), `${t}.id asc`].join(', ');
  const body = `select ${row} as j from (${page}) ${t} ${joins.join(' ')} order by ${outerOrder}`;
  if (query.shape === 'one') return { text: `select (select x.j from (${body}) x) as data`, withTotal: false };
  // Rows are concatenated as text: nothing is parsed or re-serialized after the row fragments exist.
  // Bare: the caller writes the brackets around PostgreSQL's bytes, saving two copies of the whole text.
  const data = opts.bareList ? `(select string_agg(x.j, ',') from (${body}) x) as data` : `(select ${textArray('x.j')} from (${body}) x) as data`;
  if (!query.pagination.withCount) return { text: `select ${data}`, withTotal: false };
  // The count needs its own aliases: the filter subqueries of `where` name them.
  const g2 = new Gen(schema, opts, query);
  const countWhere = g2.rootWhere('c0');
  return { text: `select ${data}, (select count(*) from ${q(ct.table)} c0 ${countWhere}) as total`, withTotal: true };
}
