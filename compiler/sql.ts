// ReadQuery AST → one SQL statement over Strapi 5's layout. Every populate is a LEFT JOIN LATERAL that
// builds its JSON inside PostgreSQL (relations through their `_lnk` table, components through the
// owner's `_cmps`, media through `files_related_mph`), so the statement returns the response's `data`
// as text, ready to send. Identifiers come only from the models and compiler/layout.ts; every user
// value is a `$n` parameter with an explicit cast, except the page's LIMIT and OFFSET: integers
// computed from validated pagination (pageBounds()), written into the text so the planner sees them.
import type { Component, ContentType, Schema, ScalarAttr, ScalarType, RelationAttr, ComponentAttr, DynamicZoneAttr, MediaAttr, MorphAttr } from './schema.ts';
import { CMPS, FILES, RENDER, ROW_COLUMNS, quoted as q } from './layout.ts';
import { visibleScalars } from './schema.ts';
import { readTables } from './tables.ts';
import { searchDocument } from './search.ts';
import type { ComponentSelection, FieldRef, Filter, Populate, PublicationMode, ReadQuery, Selection, SortTerm, SystemKey } from './ast.ts';
import { pageBounds } from './ast.ts';
import { countedLinkTotal, countedRelation, countedTotal } from './counts.ts';
import { keyedColumn } from './foreign-keys.ts';

export interface SqlOptions {
  maxRelationRows: number;
  /** Lists return their rows joined by commas without the surrounding brackets (the caller adds them). */
  bareList?: boolean;
  /**
   * Copy default renders from this server's render cache (compiler/render-cache.ts) where they are
   * current (same `updated_at`), rendering live otherwise.
   */
  renderCache?: boolean;
  /** Tables the render cache has no entries for (types a schema gained after the cache was laid out). */
  uncached?: ReadonlySet<string>;
  /** Largest `data` text a read may return (bytes; the config's http.maxResponseSize); unset = no check. */
  maxBytes?: number;
  /**
   * Answer populated attributes in the order Strapi 5.54 ends up with (REST; see `rounds`): it depends
   * on what the populates find, so the statement computes it. Unset: the populate's own order.
   */
  keyOrder?: boolean;
  /** Unfiltered list totals come from the table's row counters where it has them (compiler/counts.ts). */
  rowCounters?: boolean;
  /** JSON members written after each root row's own (`,"isUrlSigned":false`: upload's file reads, src/upload/files-query.ts). */
  rowTail?: string;
  /** Link columns a foreign key keeps pointing at an existing target row (compiler/foreign-keys.ts `keyedColumn`). */
  keyedColumns?: ReadonlySet<string>;
  /**
   * Tables known to be small (src/db/table-sizes.ts): a filter through a relation to one reads the
   * matching target ids first (`relationFilter`).
   */
  smallTable?: (table: string) => boolean;
  /**
   * Lists with costly populates (`populate=*` of a type with many relations, `populate[author][populate][articles]`
   * beside others) come with part of them as a statement of their own (CompiledRead.split), which a node
   * with no other read running sends beside the rest on a second connection.
   */
  splitReads?: boolean;
  /**
   * An unsorted list answers its rows in the table's own order (a sequential scan's, as a query with no
   * ORDER BY reads them) instead of by id: the media library's list without sort, start or limit
   * (src/upload/files-query.ts).
   */
  physicalOrder?: boolean;
}

/**
 * The two halves of a split list read (see SqlOptions.splitReads and src/rest/split-read.ts): `main` is the
 * whole read but for `parts` root populates, whose values each row holds as markers (byte 1, the row's id,
 * `:`, the populate's place among them, byte 2); `side` reads the same page's values of those populates,
 * per row its id, byte 1, then the values joined by byte 3, rows joined by byte 2. JSON text never holds a
 * raw control byte, so the markers cannot be mistaken for content.
 */
export interface SplitRead { main: CompiledRead; side: CompiledRead; parts: number; /** The side is priced at least the main: sent first. */ sideFirst: boolean }

/**
 * A populate's subquery `read` written but never run (`where false`), answering `empty`: PostgreSQL still
 * types the parameters its filters name, which a prepared statement needs of every parameter it has.
 */
const neverRun = (read: string, empty: string) => `select coalesce((select x.v from (${read}) x where false), ${empty}) as v`;

/** Where split-off populate `k` of row `alias` goes in SplitRead's `main`. */
const splitMarker = (alias: string, k: number) => `concat(chr(1), ${alias}.id, ':${k}', chr(2))`;

/**
 * How many database round trips Strapi takes to populate an attribute (@strapi/database
 * query/helpers/populate/apply.js): every populated attribute of a level is fetched concurrently
 * (Promise.all) and set on the rows when its last query returns, so the response lists them in the order
 * they finish — the fewest round trips first, the populate's own order among equals. One query per
 * relation, component or media; a nested populate adds its own deepest chain when the query found rows;
 * a dynamic zone (or morphToMany) queries its links, then each component type present; a morphToOne
 * reads each type present in turn, none without links. The rows are those of the whole level (every row
 * of the page), so the order is the same for each row. `sql` computes it; `min`/`max` bound it.
 */
interface Rounds { sql: string; min: number; max: number }
const rounds = (n: number): Rounds => ({ sql: String(n), min: n, max: n });
const ONE = rounds(1);

/** The rows a populate reaches from a row of the level above (alias `src`): `from … where …`, and their alias. */
type Step = (src: string) => { sql: string; alias: string };
/** A type (or component) among a populate's per-type rounds: its links, its rows, what it populates under it. */
type PerType = [uid: string, links: () => Step, rows: () => Step, children: Populate[], ct: ContentType | null];

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** Bytes (four pages, ≈ 700 links) up to which a to-one's link table is searched for a row with two links as a whole (`joinedPopulate`). */
const SMALL_LINK_TABLE = 32_768;

/** Orders of a row's populated keys written out as a `case` (`compose`); more are sorted per row. */
const COMBOS = 64;

// Strapi stores UTC wall-clock time in `timestamp without time zone`: parameters are cast to the same
// type (an ISO string's `Z` is ignored by that cast, which is what UTC wall-clock time needs).
const CAST: Record<ScalarType | FieldRef['type'], string> = {
  string: 'text', text: 'text', richtext: 'text', email: 'text', password: 'text', uid: 'text', enumeration: 'text',
  blocks: 'jsonb', json: 'jsonb', boolean: 'boolean', integer: 'integer', biginteger: 'bigint', float: 'float8',
  decimal: 'numeric', date: 'date', time: 'time', datetime: 'timestamp', timestamp: 'timestamp',
  id: 'bigint', documentId: 'text', systemDate: 'timestamp', locale: 'text',
};
const TEXTUAL = new Set(['string', 'text', 'richtext', 'email', 'password', 'uid', 'enumeration', 'documentId', 'locale']);

/** A stored UTC wall-clock timestamp as Strapi answers it: ISO 8601 with milliseconds and `Z`. */
export const isoTs = (expr: string) => `to_char(${expr}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** How a scalar column is rendered in a response (Strapi's formats). */
export function scalarOut(a: ScalarAttr, alias: string): string {
  const col = `${alias}.${q(a.column)}`;
  switch (a.type) {
    case 'datetime': return isoTs(col);
    // As Strapi 5.54 answers (checked live): a `timestamp` attribute is its epoch milliseconds as a
    // string, a `time` is PostgreSQL's own text (`13:45:10`, `13:45:10.5`), bigints are strings and
    // decimals numbers (numeric(10,2) would keep trailing zeros).
    case 'timestamp': return `floor(extract(epoch from ${col}) * 1000)::bigint::text`;
    case 'biginteger': return `${col}::text`;
    case 'decimal': return `${col}::float8`;
    case 'json': case 'blocks': return compactJson(col);
    default: return col;
  }
}

/**
 * A jsonb column as JSON.stringify writes its value (`{"a":1,"b":[null,2]}`), typed json so row_to_json
 * embeds it as it is. jsonb's own text has a space after every `:` and `,` (the blog's `populate=*`:
 * 90,574 bytes where Strapi sends 87,837), and PostgreSQL has no compact jsonb output; json_strip_nulls
 * re-emits json without whitespace, keys in the given order and numbers as written, but drops object
 * members whose value is null. So: a value without `: null` anywhere has none to drop. Otherwise, as a
 * `"` inside a string is always written `\"`, each `": null` not preceded by a backslash is a member's
 * null: when none is preceded by one (no string holds `": null` after a quote, no key ends in a
 * backslash) and the value holds no text `\u0001` (that escape or literally), each is kept through the
 * strip as the string "\u0001" and put back after it. The values left (rare) go through a regexp that
 * drops the spaces outside strings, ≈ 85 µs each, too slow for every value. Measured on the blog's
 * rows: ≈ 6 µs more per article `content`, ≈ 23 µs per file `formats` (which has `"path": null`), paid
 * only where a row is rendered live or into the render cache.
 */
export function compactJson(col: string): string {
  const t = `${col}::text`;
  return `case when strpos(${t}, ': null') = 0 then json_strip_nulls(${col}::json) ` +
    `when strpos(${t}, E'\\\\": null') = 0 and strpos(${t}, E'\\\\u0001') = 0 ` +
    `then replace(json_strip_nulls(replace(${t}, '": null', E'":"\\\\u0001"')::json)::text, E'":"\\\\u0001"', '":null')::json ` +
    `else regexp_replace(${t}, E'("(?:[^"\\\\\\\\]|\\\\\\\\.)*")| ', E'\\\\1', 'g')::json end`;
}

const R = ROW_COLUMNS;

/**
 * Strapi 5.54's `status` sort rank of a row (@strapi/database order-by helper): 0 when its document has
 * no published row in its locale, 1 when the row is newer than the latest published one, else 2. The
 * locale condition is Strapi's on every type (i18n gives each a `locale`): a non-localized type's rows,
 * whose locale is null, all rank 0 there.
 */
function statusRank(table: string, alias: string): string {
  const same = `sub.${R.documentId} = ${alias}.${R.documentId} and sub.${R.publishedAt} is not null and sub.${R.locale} = ${alias}.${R.locale}`;
  return `case when not exists (select 1 from ${q(table)} sub where ${same}) then 0 ` +
    `when ${alias}.${R.updatedAt} > (select max(sub.${R.updatedAt}) from ${q(table)} sub where ${same}) then 1 else 2 end`;
}

/**
 * Strapi 5.54's `publicationFilter` cohorts of a draft & publish row `a` (@strapi/utils
 * buildPublicationFilterWhere, there an `id IN (…)` over the same table): by the document's other version
 * in the same locale, or in any locale for the `-document` modes; a cohort the status excludes is none.
 */
function publicationCondition(ct: ContentType, mode: PublicationMode, status: 'published' | 'draft', a: string): string {
  const t = q(ct.table);
  const pub = R.publishedAt;
  const other = (o: string, wholeDocument: boolean) => `${o}.${R.documentId} = ${a}.${R.documentId}${wholeDocument || !ct.localized ? '' : ` and ${o}.${R.locale} is not distinct from ${a}.${R.locale}`}`;
  const exists = (published: boolean, wholeDocument: boolean, extra = '') =>
    `exists (select 1 from ${t} o where ${other('o', wholeDocument)} and o.${pub} is ${published ? 'not null' : 'null'}${extra})`;
  const draft = `${a}.${pub} is null`;
  const live = `${a}.${pub} is not null`;
  switch (mode) {
    case 'never-published': return status === 'published' ? 'false' : `(${draft} and not ${exists(true, false)})`;
    case 'never-published-document': return status === 'published' ? 'false' : `(${draft} and not ${exists(true, true)})`;
    case 'has-published-version': return status === 'draft' ? `(${draft} and ${exists(true, false)})` : `(${live} and ${exists(false, false)})`;
    case 'has-published-version-document': return status === 'draft' ? `(${draft} and ${exists(true, true)})` : `(${live} and ${exists(false, true)})`;
    case 'modified': return status === 'draft'
      ? `(${draft} and ${exists(true, false, ` and ${a}.${R.updatedAt} > o.${R.updatedAt}`)})`
      : `(${live} and ${exists(false, false, ` and o.${R.updatedAt} > ${a}.${R.updatedAt}`)})`;
    case 'unmodified': return status === 'draft'
      ? `(${draft} and ${exists(true, false, ` and ${a}.${R.updatedAt} <= o.${R.updatedAt}`)})`
      : `(${live} and ${exists(false, false, ` and o.${R.updatedAt} <= ${a}.${R.updatedAt}`)})`;
    case 'published-without-draft': return status === 'draft' ? 'false' : `(${live} and not ${exists(false, false)})`;
    case 'published-with-draft': return status === 'draft' ? 'false' : `(${live} and ${exists(false, false)})`;
  }
}

/** What a populate without `fields` reads of a content-type: what the render cache keeps. */
function isDefaultSelection(ct: ContentType, sel: Selection): boolean {
  const all = visibleScalars(ct.attributes);
  return !sel.named && !sel.leading?.length && !sel.stableId && !sel.inlineCreators?.length && sel.withLocale === ct.localized &&
    sel.withTimestamps.createdAt && sel.withTimestamps.updatedAt && sel.withTimestamps.publishedAt &&
    sel.fields.length === all.length && sel.fields.every((f, i) => f === all[i]);
}

const isDefaultComponent = (sel: ComponentSelection) => {
  const all = visibleScalars(sel.component.attributes);
  return sel.populate.length === 0 && !sel.where && !sel.sort?.length && sel.fields.length === all.length && sel.fields.every((f, i) => f === all[i]);
};

/** A populate's `count` (a relation's or a component's): `{"count": n}` of the rows `fromWhere` reaches. */
const countValue = (fromWhere: string): string => `select '{"count":' || count(*) || '}' as v ${fromWhere}`;

/** The attribute, when the render cache keeps this populate: the model's own component or zone, one level, every field. */
function cachedComponent(ct: ContentType, p: Populate): ComponentAttr | DynamicZoneAttr | null {
  if (p.kind === 'component') return ct.byName.get(p.attr.name) === p.attr && !p.key && !p.count && isDefaultComponent(p.select) ? p.attr : null;
  if (p.kind === 'dynamiczone') {
    return ct.byName.get(p.attr.name) === p.attr && p.on.size === p.attr.components.length && [...p.on.values()].every(isDefaultComponent) ? p.attr : null;
  }
  return null;
}

/** The populate of a component or dynamic-zone attribute that the render cache keeps. */
export function defaultComponentPopulate(schema: Schema, a: ComponentAttr | DynamicZoneAttr): Populate {
  const sel = (c: Component): ComponentSelection => ({ component: c, fields: visibleScalars(c.attributes), populate: [] });
  if (a.kind === 'component') return { kind: 'component', attr: a, select: sel(schema.components.get(a.component)!) };
  return { kind: 'dynamiczone', attr: a, on: new Map(a.components.map((uid) => [uid, sel(schema.components.get(uid)!)])) };
}

/** A content-type's default selection (all visible scalars, timestamps, locale), without populate. */
export function defaultSelection(ct: ContentType): Selection {
  return { fields: visibleScalars(ct.attributes), withLocale: ct.localized, withTimestamps: { createdAt: true, updatedAt: true, publishedAt: true }, populate: [] };
}

/** A response key and the SQL expression of its value. */
export type Col = [key: string, expr: string];

/** Output columns of a content-type row, in Strapi's key order. */
function scalarCols(sel: Selection, alias: string, ct?: ContentType): Col[] {
  const id = sel.stableId && ct?.draftAndPublish
    ? `coalesce((select d.id from ${q(ct.table)} d where d.${R.documentId} = ${alias}.${R.documentId} and d.${R.locale} is not distinct from ${alias}.${R.locale} and d.${R.publishedAt} is null order by d.id limit 1), ${alias}.${R.id})`
    : `${alias}.${R.id}`;
  const systemCol = (k: SystemKey): Col => {
    switch (k) {
      case 'id': return ['id', id];
      case 'documentId': return ['documentId', `${alias}.${R.documentId}`];
      case 'locale': return ['locale', `${alias}.${R.locale}`];
      default: return [k, isoTs(`${alias}.${R[k]}`)];
    }
  };
  // A leading key is answered there only (Strapi's select lists each column once).
  const cols: Col[] = (sel.leading ?? []).map((l) => (typeof l === 'string' ? systemCol(l) : [l.name, scalarOut(l, alias)]));
  const led = new Set(cols.map(([k]) => k));
  const add = (c: Col | null) => { if (c && !led.has(c[0])) cols.push(c); };
  add(systemCol('id'));
  add(systemCol('documentId'));
  const system: Record<string, Col | null> = {
    createdAt: sel.withTimestamps.createdAt ? systemCol('createdAt') : null,
    updatedAt: sel.withTimestamps.updatedAt ? systemCol('updatedAt') : null,
    publishedAt: sel.withTimestamps.publishedAt ? systemCol('publishedAt') : null,
    locale: sel.withLocale ? systemCol('locale') : null,
  };
  if (sel.named) {
    for (const n of sel.named) {
      const f = sel.fields.find((x) => x.name === n);
      add(f ? [f.name, scalarOut(f, alias)] : system[n] ?? null);
    }
    return cols;
  }
  for (const f of sel.fields) add([f.name, scalarOut(f, alias)]);
  for (const c of Object.values(system)) add(c);
  return cols;
}

/**
 * JSON object text of key/value columns, keys in order, as JSON.stringify writes it (`{"id":1,"title":"x"}`;
 * json_build_object writes `{"id" : 1, "title" : "x"}`, 7–9% more bytes on a populate=* page). Never null,
 * always ending in `}` (callers cut it to append keys).
 *
 * The columns become a `cross join lateral (select … as "key", …) o` pushed onto `joins`, and the value is
 * `row_to_json(o)`: PostgreSQL pulls such a subquery up, so row_to_json reads a ROW(…) carrying the keys as
 * its column names, evaluated only where the value is (inside a coalesce with a cache entry, only on a
 * miss). Measured against json_build_object (issue 31, prepared statements, 1k articles): a page's live
 * render 5–10% faster (populate=*, deep populate, GraphQL), the render cache's refill of every row a
 * third faster, planning 20–50% longer (each pulled-up subquery is one more pass over its query level).
 * concat() of coalesce(to_json(value)::text, 'null') per key, the other compact form, executed slower
 * than json_build_object and planned about as long; a scalar `(select row_to_json(x) from (…) x)` per
 * object planned faster but executed slower.
 *
 * Values keep to_json's text, as json_build_object's did (floats' NaN and Infinity as strings); jsonb
 * values (a `json` or `blocks` attribute, a file's `formats`) come compacted (compactJson), their keys in
 * jsonb's order, which is also the order Strapi reads back and sends.
 *
 * A column name is cut to 63 bytes (NAMEDATALEN): a longer key is written by concat(), slower but exact.
 */
function jsonText(cols: Col[], joins: string[], o: string): string {
  if (cols.every(([k]) => Buffer.byteLength(k) <= 63)) {
    joins.push(`cross join lateral (select ${cols.map(([k, e]) => `${e} as ${q(k)}`).join(', ')}) ${o}`);
    return `row_to_json(${o})::text`;
  }
  const args = cols.flatMap(([k, e], i) => [lit(`${i ? ',' : '{'}${JSON.stringify(k)}:`), `coalesce(to_json(${e})::text, 'null')`]);
  return concatAll([...args, `'}'`]);
}

/** concat() of any number of arguments (a function takes at most 100). */
function concatAll(args: string[]): string {
  if (args.length <= 100) return `concat(${args.join(', ')})`;
  const chunks: string[] = [];
  for (let i = 0; i < args.length; i += 100) chunks.push(concatAll(args.slice(i, i + 100)));
  return concatAll(chunks);
}

/**
 * The media library's file record, in Strapi's key order: its public scalars in attribute order between
 * documentId and the timestamps (a project's extension adds some, schema.pluginRecords; without one the
 * plugin's fixed list, the same SQL as ever).
 */
export function fileRecordColumns(schema: Schema, f: string): Col[] {
  const fixed = pluginFileColumns(f);
  const ext = schema.pluginRecords?.file;
  if (!ext) return fixed;
  const own = new Map(fixed);
  return [...fixed.slice(0, 2), ...visibleScalars(ext.ct.attributes).map((a): Col => [a.name, own.get(a.name) ?? scalarOut(a, f)]), ...fixed.slice(-3)];
}

/** The upload plugin's own file record, compacted as every answer is (also the upload routes' record). */
export function pluginFileColumns(f: string): Col[] {
  return [
    ['id', `${f}.id`], ['documentId', `${f}.document_id`], ['name', `${f}.name`], ['alternativeText', `${f}.alternative_text`],
    ['caption', `${f}.caption`], ['focalPoint', compactJson(`${f}.focal_point`)], ['width', `${f}.width`], ['height', `${f}.height`],
    ['formats', compactJson(`${f}.formats`)], ['hash', `${f}.hash`], ['ext', `${f}.ext`], ['mime', `${f}.mime`], ['size', `${f}.size::float8`],
    ['url', `${f}.url`], ['previewUrl', `${f}.preview_url`], ['provider', `${f}.provider`], ['provider_metadata', compactJson(`${f}.provider_metadata`)],
    ['createdAt', isoTs(`${f}.created_at`)], ['updatedAt', isoTs(`${f}.updated_at`)], ['publishedAt', isoTs(`${f}.published_at`)],
  ];
}

/** Lateral joins after a table, with their separating space. */
const sp = (joins: string[]) => joins.map((j) => ` ${j}`).join('');

/** `[a,b,…]` from JSON text fragments, in the order of the subquery they come from. */
const textArray = (col: string) => `'[' || coalesce(string_agg(${col}, ','), '') || ']'`;

/** Rows reached from an owner row: `from …` (tables, where lateral joins may follow) and `where …`. */
interface Source { from: string; where: string; order: string }

/**
 * What needs no query context: filter expressions (also used alone, by plugins filtering their own
 * tables) and the ways from a row to its related rows, components and files.
 */
class FilterGen {
  private n = 0;
  /** Tables known to be small (SqlOptions.smallTable): relation filters through them read the target ids first. */
  constructor(protected schema: Schema, private smallTable?: (table: string) => boolean) {}
  alias(p = 't'): string { return `${p}${++this.n}`; }

  // ------------------------------------------------------------ sources

  /** Target rows of a relation of row `src` (alias `a`): through the link table, as seen from this side. */
  relationSource(attr: RelationAttr, target: ContentType, src: string, a: string): Source {
    const j = attr.join;
    const l = `l${a}`;
    return {
      from: `from ${q(j.table)} ${l} join ${q(target.table)} ${a} on ${a}.id = ${l}.${q(j.target)}`,
      where: `where ${l}.${q(j.source)} = ${src}.id`,
      order: j.order ? `${l}.${q(j.order)}, ${l}.id` : `${l}.id`,
    };
  }

  /** Component rows of attribute `attr` of row `src` (alias `a`), through the owner's `_cmps`. */
  componentSource(attr: ComponentAttr, comp: Component, src: string, a: string): Source {
    const c = `c${a}`;
    return {
      from: `from ${q(attr.cmpsTable)} ${c} join ${q(comp.table)} ${a} on ${a}.id = ${c}.${q(CMPS.cmp)}`,
      where: `where ${c}.${q(CMPS.entity)} = ${src}.id and ${c}.${q(CMPS.field)} = ${lit(attr.name)} and ${c}.${q(CMPS.type)} = ${lit(comp.uid)}`,
      order: `${c}.${q(CMPS.order)}, ${c}.id`,
    };
  }

  /** Files of a media attribute of row `src` (alias `f`), through `files_related_mph`. */
  mediaSource(attr: MediaAttr, src: string, f: string): Source {
    const m = `m${f}`;
    return {
      from: `from ${q(FILES.related)} ${m} join ${q(FILES.table)} ${f} on ${f}.id = ${m}.${q(FILES.file)}`,
      where: `where ${m}.${q(FILES.relatedId)} = ${src}.id and ${m}.${q(FILES.relatedType)} = ${lit(attr.relatedType)} and ${m}.${q(FILES.field)} = ${lit(attr.name)}`,
      order: `${m}.${q(FILES.order)}, ${m}.id`,
    };
  }

  /**
   * Rows of `target` linked back to row `src` (of type `ownerUid`) by its morphTo attribute `by`: through
   * its own `target_id`/`target_type` columns, or through its morph table with `field` = this attribute.
   */
  morphSource(attr: MorphAttr, by: MorphAttr, target: ContentType, ownerUid: string, src: string, a: string): Source {
    if (by.columns) {
      return {
        from: `from ${q(target.table)} ${a}`,
        where: `where ${a}.${q(by.columns.id)} = ${src}.id and ${a}.${q(by.columns.type)} = ${lit(ownerUid)}`,
        order: `${a}.id`,
      };
    }
    const j = by.join!;
    const m = `m${a}`;
    return {
      from: `from ${q(j.table)} ${m} join ${q(target.table)} ${a} on ${a}.id = ${m}.${q(j.owner)}`,
      where: `where ${m}.${q(j.id)} = ${src}.id and ${m}.${q(j.type)} = ${lit(ownerUid)} and ${m}.${q(j.field)} = ${lit(attr.name)}`,
      order: `${m}.${q(j.order)}, ${m}.id`,
    };
  }

  // ------------------------------------------------------------ filters

  /** The owner type of filter scopes over content rows (morph links name it). */
  protected scopeUid: string | null = null;

  /** Compiling the rows' own filter (read once over the table), not a populate's (read again per row above). */
  private rootLevel = false;

  /** `filter` for the rows a statement reads at its top level (see `relationFilter`). */
  rootFilter(f: Filter, alias: string, ownerUid: string | null = this.scopeUid): string {
    this.rootLevel = true;
    try { return this.filter(f, alias, ownerUid); } finally { this.rootLevel = false; }
  }

  filter(f: Filter, alias: string, ownerUid: string | null = this.scopeUid): string {
    switch (f.t) {
      case 'const': return f.value ? 'true' : 'false';
      case 'publication': return publicationCondition(f.ct, f.mode, f.status, alias);
      case 'and': case 'or': return `(${f.items.map((i) => this.filter(i, alias, ownerUid)).join(f.t === 'and' ? ' and ' : ' or ')})`;
      // Plain SQL NOT, as Strapi's knex query: a null compared value matches neither side.
      case 'not': return `not (${this.filter(f.item, alias, ownerUid)})`;
      case 'cmp': return this.cmp(f, alias);
      case 'relation': return this.relationFilter(f, alias);
      case 'media': { const a = this.alias('f'); return this.exists(this.mediaSource(f.attr, alias, a), this.filter(f.sub, a, null), f.nullRowMatches); }
      case 'component': { const a = this.alias('k'); return this.exists(this.componentSource(f.attr, f.component, alias, a), this.filter(f.sub, a, null), f.nullRowMatches); }
      case 'morph': {
        if (!ownerUid) throw new Error('a morph filter needs the owner type');
        const a = this.alias();
        return this.exists(this.morphSource(f.attr, f.by, f.target, ownerUid, alias, a), this.filter(f.sub, a, f.target.uid), f.nullRowMatches);
      }
      case 'localizations': {
        const a = this.alias();
        return this.exists({ from: `from ${q(f.ct.table)} ${a}`, where: `where ${a}.${R.documentId} = ${alias}.${R.documentId}`, order: `${a}.id` }, this.filter(f.sub, a, f.ct.uid), false);
      }
    }
  }

  /**
   * Rows with a linked row passing `f.sub` (or, `nullRowMatches`, with no linked row at all). Through a
   * small target table, the ids of the targets that pass are read first, once, and the links searched by
   * them: PostgreSQL can then scan the links in parallel and hash them once (at 1M articles, 11 categories'
   * 440,000 links: 275 -> 203 ms for the broad filter with its count; one category with a relation sort
   * 10.9 -> 8.6 ms), and a condition of the target that is itself costly runs once per target row, not
   * once per link (a null test two relations deep over 100k articles: past the 30 s statement timeout, per
   * link). Through a large one, the target rows that pass could be most of it: the links are joined to
   * them row by row, as ever.
   */
  private relationFilter(f: Extract<Filter, { t: 'relation' }>, alias: string): string {
    const a = this.alias();
    const cond = this.filter(f.sub, a, f.target.uid);
    const small = this.smallTable?.(f.target.table) ?? false;
    // In a populate (a lateral read again for each row above it) a plain condition is checked link by
    // link, as a subquery the planner keeps (`offset 0`): flattened into a semi-join, PostgreSQL's generic
    // plan hashed every link of every passing target again for each row above (a category's articles
    // filtered by their category's name, 25 categories at 100k articles: 4.4 s, now 0.3 s). A condition
    // that reads relations itself still runs once per target row (a null test two relations deep).
    const perLink = !this.rootLevel && !(small && reachesRelations(f.sub));
    if (perLink || !small) return this.exists(this.relationSource(f.attr, f.target, alias, a), cond, f.nullRowMatches, perLink);
    const j = f.attr.join;
    const l = `l${a}`;
    const hit = `${alias}.id in (select ${l}.${q(j.source)} from ${q(j.table)} ${l} where ${l}.${q(j.target)} = any(array(select ${a}.id from ${q(f.target.table)} ${a} where ${cond})))`;
    if (!f.nullRowMatches) return hit;
    const none = this.relationSource(f.attr, f.target, alias, this.alias());
    return `(${hit} or not exists (select 1 ${none.from} ${none.where}))`;
  }

  /**
   * Some related row matches; with `nullRowMatches` (Strapi's LEFT JOIN), having none matches too. `kept`:
   * as subqueries the planner runs per row (`offset 0`), never flattened into a join.
   */
  private exists(s: Source, cond: string, nullRowMatches: boolean, kept = false): string {
    const end = kept ? ' offset 0' : '';
    const hit = `exists (select 1 ${s.from} ${s.where} and ${cond}${end})`;
    return nullRowMatches ? `(${hit} or not exists (select 1 ${s.from} ${s.where}${end}))` : hit;
  }

  private cmp(f: Extract<Filter, { t: 'cmp' }>, alias: string): string {
    const e = f.field.searchOf ? searchDocument(f.field.searchOf, alias) : `${alias}.${q(f.field.column)}`;
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
}

/** Rows, components and media as JSON text: what needs no request (also the render cache's renders). */
class RowGen extends FilterGen {
  constructor(schema: Schema, protected opts: SqlOptions) { super(schema, opts.smallTable); }

  // ------------------------------------------------------------ sort (a media populate's too)

  /**
   * A sort value, through relations and single components: the first related row's value, or through
   * a to-many relation the least (ascending) or greatest (descending) of its values.
   */
  sortExpr(s: SortTerm, alias: string): string {
    if (s.field.status) return statusRank(s.field.status.table, alias);
    let cur = alias;
    const wraps: string[] = [];
    for (const step of s.path) {
      if (step.kind === 'relation') {
        const a = this.alias();
        const src = this.relationSource(step, this.schema.contentTypes.get(step.target)!, cur, a);
        // A to-one relation has one link: its value is the link's, and an aggregate needs no order of
        // the links (an index-only scan of the link table; `order by … limit 1` read each link row).
        wraps.push(`(select ${s.desc ? 'max' : 'min'}(%s) ${src.from} ${src.where})`);
        cur = a;
      } else if (step.kind === 'media') {
        // A file's value as a to-one relation's; through several files, the least (or greatest) of theirs.
        const a = this.alias('f');
        const src = this.mediaSource(step, cur, a);
        wraps.push(`(select ${s.desc ? 'max' : 'min'}(%s) ${src.from} ${src.where})`);
        cur = a;
      } else {
        const a = this.alias('k');
        const src = this.componentSource(step, this.schema.components.get(step.component)!, cur, a);
        wraps.push(`(select %s ${src.from} ${src.where} order by ${src.order} limit 1)`);
        cur = a;
      }
    }
    let expr = `${cur}.${q(s.field.column)}`;
    for (let i = wraps.length - 1; i >= 0; i--) expr = wraps[i].replace('%s', expr);
    return expr;
  }

  orderBy(sort: SortTerm[], alias: string): string[] {
    return sort.map((s) => `${this.sortExpr(s, alias)} ${s.desc ? 'desc' : 'asc'}`);
  }

  // ------------------------------------------------------------ rows

  /**
   * JSON text of one row, never null: its columns as a JSON object, then each populated value
   * (a lateral join pushed onto `joins`) appended with one concat() — a chain of || copies the row each time.
   */
  protected compose(cols: Col[], populate: Populate[], ct: ContentType | null, alias: string, joins: string[], tail = '', cache: string | null = null): string {
    const built = jsonText(cols, joins, this.alias('o'));
    // With a current cache row its text is copied; the live render is only evaluated on a miss.
    const open = cache ? `coalesce(${cache}.${RENDER.doc}, left(${built}, -1))` : `left(${built}, -1)`;
    if (!populate.length && !tail) return cache ? `(${open} || '}')` : built;
    const ranks = populate.map((p) => this.rounds(p, ct));
    const fixed = ranks.every((r, i) => ranks.every((o, k) => k <= i || r.max <= o.min || r.min > o.max));
    const parts = populate.map((p) => {
      // JSON.stringify: GraphQL names populated variants with keys that need escaping.
      const name = JSON.stringify(p.kind === 'localizations' ? p.key ?? 'localizations' : p.kind === 'component' && p.key ? p.key : p.attr.name);
      const key = lit(`,${name}:`);
      const off = populate === this.splitAt ? this.splitOff.indexOf(p) : -1;
      if (off >= 0) return [key, splitMarker(alias, off)];
      const kept = cache && ct ? cachedComponent(ct, p) : null;
      if (kept) return [key, `coalesce(${cache}.${q(RENDER.component(kept.name))}, (${this.populate(p, ct, alias)}))`];
      return [key, this.populatedValue(p, ct, alias, joins)];
    });
    /** The parts' indexes in the order their ranks take (the populate's own order among equals). */
    const orderOf = (value: (i: number) => number) => parts.map((_, i) => i).sort((x, y) => value(x) - value(y) || x - y);
    const inOrder = (value: (i: number) => number) => concatAll([open, ...orderOf(value).flatMap((i) => parts[i]), lit(`${tail}}`)]);
    if (fixed) return inOrder((i) => ranks[i].min);
    // The order depends on what the populates find (the same for every row: the ranks read the whole
    // page). Two possible orders are written out as they are. Up to COMBOS, one per combination of the
    // varying ranks, are chosen by one number computed once per statement, over the row's parts computed
    // once in a lateral subquery the planner keeps (`offset 0`): a `when` per rank and combination ran each
    // rank's subqueries once per occurrence, and parts written out in every `when` were set up at each
    // execution (at 100k articles the deep populate's 18 orders cost 1.5 ms so). More are sorted in the
    // statement, which copies every part once more for each row (10% of that statement).
    const varying = ranks.map((r, i) => i).filter((i) => ranks[i].min !== ranks[i].max);
    const spans = varying.map((i) => ranks[i].max - ranks[i].min + 1);
    const combos = spans.reduce((n, s) => n * s, 1);
    if (combos === 2) {
      // One rank, two values (a zone holding components or not: populate=*): one `when`, its parts twice.
      const [i] = varying;
      return `case when ${ranks[i].sql} = ${ranks[i].min} then ${inOrder((k) => ranks[k].min)} else ${inOrder((k) => ranks[k].max)} end`;
    }
    if (combos <= COMBOS) {
      let stride = 1;
      const terms = varying.map((i, n) => {
        const term = `((${ranks[i].sql}) - ${ranks[i].min}) * ${stride}`;
        stride *= spans[n];
        return term;
      });
      const c = this.alias('c');
      joins.push(`cross join lateral (select ${open} as o, ${parts.map((part, i) => `concat(${part.join(', ')}) as p${i}`).join(', ')} offset 0) ${c}`);
      const cases: string[] = [];
      for (let k = 0; k < combos; k++) {
        const value = new Map<number, number>();
        let rest = k;
        varying.forEach((i, n) => { value.set(i, ranks[i].min + (rest % spans[n])); rest = Math.floor(rest / spans[n]); });
        const order = orderOf((i) => value.get(i) ?? ranks[i].min);
        const text = concatAll([`${c}.o`, ...order.map((i) => `${c}.p${i}`), lit(`${tail}}`)]);
        cases.push(k === combos - 1 ? `else ${text}` : `when ${k} then ${text}`);
      }
      return `case (select ${terms.join(' + ')}) ${cases.join(' ')} end`;
    }
    const rows = parts.map((part, i) => `(${ranks[i].sql}, ${i}, concat(${part.join(', ')}))`).join(', ');
    return `concat(${open}, (select string_agg(o.t, '' order by o.r, o.p) from (values ${rows}) o(r, p, t)), ${lit(`${tail}}`)})`;
  }

  /** Root populates the statement leaves to another (SplitRead's `main`): each row holds markers instead. */
  splitOff: Populate[] = [];
  /** The root row's populate list, the one level `splitOff` applies to. */
  splitAt: Populate[] | null = null;

  /** The value of populated `p` of row `alias` as JSON text, read by what it pushes onto `joins`. */
  populatedValue(p: Populate, ct: ContentType | null, alias: string, joins: string[]): string {
    const joined = this.joinedPopulate(p, ct, alias, joins);
    if (joined !== null) return joined;
    const j = this.alias('p');
    joins.push(`left join lateral (${this.populate(p, ct, alias)}) ${j} on true`);
    return `${j}.v`;
  }

  /** The value of `p` read by joins pushed onto `joins` (see Gen), or null: a lateral subquery reads it. */
  protected joinedPopulate(_p: Populate, _ct: ContentType | null, _src: string, _joins: string[]): string | null { return null; }

  /** Round trips of Strapi's populate of `p` (see `Rounds`); without `keyOrder`, all alike. */
  protected rounds(_p: Populate, _ct: ContentType | null): Rounds { return ONE; }

  /** Renders the rows `step` reaches (with `keyOrder`, the level their own populates are ordered at). */
  protected descend<T>(_step: () => Step, f: () => T): T { return f(); }

  rowText(ct: ContentType, sel: Selection, alias: string, joins: string[], tail = ''): string {
    let cache: string | null = null;
    // The files' cache keeps whole media records (media() copies them as they are), not a row's open text.
    if (this.opts.renderCache && isDefaultSelection(ct, sel) && ct.table !== FILES.table && !this.opts.uncached?.has(ct.table)) {
      cache = `${alias}r`;
      joins.push(`left join ${RENDER.table(ct.table)} ${cache} on ${cache}.id = ${alias}.id and ${cache}.${RENDER.stamp} = ${alias}.${R.updatedAt}`);
    }
    const cols = scalarCols(sel, alias, ct);
    if (sel.inlineCreators?.length) {
      // Their admin users joined ahead of the row's own columns (which name them), as JSON among them.
      const at = cols.findIndex(([k]) => k === 'locale');
      const creators = sel.inlineCreators.map((p): Col => [p.kind === 'relation' ? p.attr.name : '', `(${this.joinedPopulate(p, ct, alias, joins) ?? `(${this.populate(p, ct, alias)})`})::json`]);
      cols.splice(at < 0 ? cols.length : at, 0, ...creators);
    }
    return this.compose(cols, sel.populate, ct, alias, joins, tail, cache);
  }

  /** A component row: `id`, its fields, its populated media and components (and `__component` in a zone, or `tail`). */
  componentText(sel: ComponentSelection, alias: string, joins: string[], uid?: string, tail?: string): string {
    let cols: Col[] = [['id', `${alias}.id`], ...sel.fields.map((f): Col => [f.name, scalarOut(f, alias)])];
    if (sel.leadSort && sel.sort?.length) {
      const lead = new Set(sel.sort.map((t) => sel.fields.find((f) => f.column === t.field.column)?.name).filter((n): n is string => n !== undefined));
      cols = [...[...lead].map((n) => cols.find(([k]) => k === n)!), ...cols.filter(([k]) => !lead.has(k))];
    }
    return this.compose(cols, sel.populate, null, alias, joins, tail ?? (uid === undefined ? '' : `,"__component":${JSON.stringify(uid)}`));
  }

  /** A subquery yielding one row with column `v`: the populated value as JSON text (never null). */
  populate(p: Populate, ct: ContentType | null, src: string): string {
    switch (p.kind) {
      case 'relation': case 'localizations': case 'morphTo': case 'morphBy': throw new Error(`${p.kind} populate needs a request`);
      case 'media': return this.media(p.attr, p.fields, src, p.populate ?? [], p.where ?? null, p.sort ?? [], p.leading ?? []);
      case 'component': {
        const comp = p.select.component;
        const a = this.alias('k');
        const s = this.componentSource(p.attr, comp, src, a);
        if (p.count) return countValue(`${s.from} ${s.where}`);
        const joins: string[] = [];
        const row = this.descend(() => this.componentStep(p.attr, p.select), () => this.componentText(p.select, a, joins));
        const where = p.select.where ? `${s.where} and ${this.filter(p.select.where, a, null)}` : s.where;
        if (!p.attr.repeatable) return `select coalesce((select ${row} ${s.from}${sp(joins)} ${where} order by ${s.order} limit 1), 'null') as v`;
        const order = [...(p.select.sort ?? []).filter((t) => !t.path.length).map((t) => `${a}.${q(t.field.column)} ${t.desc ? 'desc' : 'asc'}`), s.order].join(', ');
        return `select ${textArray('x.j')} as v from (select ${row} as j ${s.from}${sp(joins)} ${where} order by ${order}) x`;
      }
      case 'dynamiczone': {
        const c = this.alias('c');
        const cases = [...p.on].map(([uid, sel]) => {
          const comp = this.schema.components.get(uid)!;
          const a = this.alias('k');
          const joins: string[] = [];
          const row = this.descend(() => this.zoneStep(p.attr, [uid], sel), () => this.componentText(sel, a, joins, uid));
          // A fragment's filters leave the instances that fail them out (null, which string_agg skips).
          const cond = sel.where ? ` and ${this.filter(sel.where, a, null)}` : '';
          return `when ${lit(uid)} then (select ${row} from ${q(comp.table)} ${a}${sp(joins)} where ${a}.id = ${c}.${q(CMPS.cmp)}${cond})`;
        });
        const uids = [...p.on.keys()].map(lit).join(', ');
        if (!uids) return `select '[]'::text as v`;
        return `select ${textArray('x.j')} as v from (select case ${c}.${q(CMPS.type)} ${cases.join(' ')} end as j from ${q(p.attr.cmpsTable)} ${c} where ${c}.${q(CMPS.entity)} = ${src}.id and ${c}.${q(CMPS.field)} = ${lit(p.attr.name)} and ${c}.${q(CMPS.type)} in (${uids}) order by ${c}.${q(CMPS.order)}, ${c}.id) x`;
      }
    }
  }

  /**
   * A populated media attribute: the file record (its picked fields), or the list of them; `populate`, the file's
   * own populated attributes (Schema.files), after its record's keys.
   */
  protected media(attr: MediaAttr, fields: string[] | null, src: string, populate: Populate[], filter: Filter | null = null, sort: SortTerm[] = [], leading: string[] = []): string {
    const f = this.alias('f');
    const source = this.mediaSource(attr, src, f);
    const s = filter ? { ...source, where: `${source.where} and ${this.filter(filter, f, null)}` } : source;
    const all = fileRecordColumns(this.schema, f);
    // Picked fields answer in the order named, after id and documentId (Strapi's select, then its row's keys);
    // a sort's keys lead them all.
    const picked = fields ? all.filter(([k]) => k === 'id' || k === 'documentId').concat([...new Set(fields)].flatMap((n) => all.filter(([k]) => k === n && k !== 'id' && k !== 'documentId'))) : all;
    const keep = leading.length ? [...leading.flatMap((n) => all.filter(([k]) => k === n)), ...picked.filter(([k]) => !leading.includes(k))] : picked;
    const joins: string[] = [];
    let row = populate.length
      ? this.descend(() => this.mediaStep(attr), () => this.compose(keep, populate, this.schema.files!, f, joins))
      : jsonText(keep, joins, this.alias('o'));
    let from = `${s.from}${sp(joins)}`;
    if (this.opts.renderCache && !fields && !populate.length && !leading.length) {
      const c = `${f}r`;
      from += ` left join ${RENDER.table(FILES.table)} ${c} on ${c}.id = ${f}.id and ${c}.${RENDER.stamp} = ${f}.updated_at`;
      row = `coalesce(${c}.${RENDER.doc}, ${row})`;
    }
    const order = [...this.orderBy(sort, f), s.order].join(', ');
    if (!attr.multiple) return `select coalesce((select ${row} ${from} ${s.where} order by ${order} limit 1), 'null') as v`;
    return `select ${textArray('x.j')} as v from (select ${row} as j ${from} ${s.where} order by ${order}) x`;
  }

  // ------------------------------------------------------------ the rows a populate reaches (key order)

  /** The files of a media attribute. */
  protected mediaStep(attr: MediaAttr): Step {
    return (src) => {
      const f = this.alias('f');
      const s = this.mediaSource(attr, src, f);
      return { sql: `${s.from} ${s.where}`, alias: f };
    };
  }

  protected componentStep(attr: ComponentAttr, sel: ComponentSelection): Step {
    return (src) => {
      const a = this.alias('k');
      const s = this.componentSource(attr, sel.component, src, a);
      return { sql: `${s.from} ${s.where}${sel.where ? ` and ${this.filter(sel.where, a, null)}` : ''}`, alias: a };
    };
  }

  /**
   * A zone's instances of the components `uids` (without `sel`, its links to them; with, the rows of the
   * one component that its fragment's filters keep).
   */
  protected zoneStep(attr: DynamicZoneAttr, uids: string[], sel: ComponentSelection | null): Step {
    return (src) => {
      const c = this.alias('c');
      const types = uids.length === 1 ? `= ${lit(uids[0])}` : `in (${uids.map(lit).join(', ')})`;
      const where = `where ${c}.${q(CMPS.entity)} = ${src}.id and ${c}.${q(CMPS.field)} = ${lit(attr.name)} and ${c}.${q(CMPS.type)} ${types}`;
      if (!sel) return { sql: `from ${q(attr.cmpsTable)} ${c} ${where}`, alias: c };
      const a = this.alias('k');
      const comp = this.schema.components.get(uids[0])!;
      const cond = sel.where ? ` and ${this.filter(sel.where, a, null)}` : '';
      return { sql: `from ${q(attr.cmpsTable)} ${c} join ${q(comp.table)} ${a} on ${a}.id = ${c}.${q(CMPS.cmp)} ${where}${cond}`, alias: a };
    };
  }
}

class Gen extends RowGen {
  constructor(schema: Schema, opts: SqlOptions, private query: ReadQuery) { super(schema, opts); this.scopeUid = query.ct.uid; }

  override populate(p: Populate, ct: ContentType | null, src: string): string {
    switch (p.kind) {
      case 'relation': return this.relation(p, ct, src);
      case 'morphTo': return this.morphTo(p, src);
      case 'morphBy': return this.morphBy(p, ct!, src);
      case 'localizations': {
        const own = ct!;
        const a = this.alias();
        const joins: string[] = [];
        const row = this.descend(() => this.localizationsStep(own, p.where ?? null), () => this.rowText(own, p.select, a, joins));
        // Strapi's come unordered, in its statement's plan's order (GraphQL's by row). The Query Engine's, as its
        // documents index (document_id, locale, published_at) gives them. REST reads one statement per level:
        // for one document PostgreSQL walks that index (by locale: a fr entry's are de, then en, whatever their
        // ids), for several it reads the table's pages, in the rows' physical order (ctid: both checked live).
        const natural = p.sort?.length || p.every || p.byId ? []
          : this.rows ? [`${a}.${R.locale}`, `${a}.${R.publishedAt}`]
            : [...(this.opts.keyOrder && this.steps.length === 0 ? [`case when ${this.pageCount()} = 1 then ${a}.${R.locale} end`] : []), `${a}.ctid`];
        const order = [...this.orderBy(p.sort ?? [], a), ...natural, `${a}.id`].join(', ');
        const where = p.every
          ? `where ${a}.${R.documentId} = ${src}.${R.documentId} and ${a}.id <> ${src}.id${p.where ? ` and ${this.filter(p.where, a, own.uid)}` : ''}`
          : this.localizationsWhere(own, src, a, p.where ?? null);
        return `select ${textArray('x.j')} as v from (select ${row} as j from ${q(own.table)} ${a}${sp(joins)} ${where} order by ${order}) x`;
      }
      default: return super.populate(p, ct, src);
    }
  }

  /**
   * Links connect specific rows (a draft to drafts, a published row to published ones); the status
   * condition still applies, as Strapi's populate filters the targets by it (see relationConds).
   */
  private relation(p: Extract<Populate, { kind: 'relation' }>, ct: ContentType | null, src: string): string {
    const a = this.alias();
    const s = this.relationSource(p.attr, p.target, src, a);
    const where = `${s.where}${this.relationConds(p, ct, src, a).map((c) => ` and ${c}`).join('')}`;
    if (p.count) return countValue(`${s.from} ${where}`);
    const joins: string[] = [];
    const row = this.descend(() => this.relationStep(p, ct), () => this.rowText(p.target, p.select, a, joins));
    const from = `${s.from}${sp(joins)} ${where}`;
    if (!p.attr.toMany) return `select coalesce((select ${row} ${from} order by ${s.order} limit 1), 'null') as v`;
    // A sorted list is sorted by its target's values only (Strapi 5.54 drops the link order then): ties come
    // as its statement reads them, here by the target's id (checked live on nulls sorted together).
    const order = p.sort.length ? [...this.orderBy(p.sort, a), `${a}.id`].join(', ') : s.order;
    return `select ${textArray('x.j')} as v from (select ${row} as j ${from} order by ${order} limit ${this.opts.maxRelationRows}) x`;
  }

  /**
   * A to-one relation through a link table without an order column, read by joins of the row's own
   * query: its first link (by id) whose target passes the conditions, and that target. As a subquery
   * per row (`relation`), PostgreSQL hashed the whole target table again for each row when it was
   * small (a 50-row categories table, 250 times in the deep populate at 100k) and sorted each row's
   * one link; joined, every step is an index probe. At most one link passes `not exists`, so the
   * row is never repeated.
   */
  protected override joinedPopulate(p: Populate, ct: ContentType | null, src: string, joins: string[]): string | null {
    if (p.kind !== 'relation' || p.attr.toMany || p.count || p.attr.join.order) return null;
    const j = p.attr.join;
    const a = this.alias();
    const l = `l${a}`;
    const b = this.alias();
    const lb = `l${b}`;
    const on = (alias: string) => this.relationConds(p, ct, src, alias).map((c) => ` and ${c}`).join('');
    // An earlier link counts when its target passes; with no condition on the target and a foreign key
    // keeping every link's target in place, every earlier link does, and its target is not read (at 100k
    // articles: 4% of the deep populate, 3–5% of populate=*).
    const conds = on(b);
    const keyed = !conds && !!this.opts.keyedColumns?.has(keyedColumn(j.table, j.target, p.target.table));
    if (keyed && this.opts.smallTable && !this.opts.smallTable(j.table)) {
      // A link table not known to be small, no condition on the target and a foreign key keeping it in
      // place: the row's first link is read alone (one index probe and a one-row sort), then its target by
      // id. The not-exists check below costs a second probe per row (at 100k articles: 10% of the deep
      // populate's statement).
      const k = this.alias('k');
      const own: string[] = [];
      const row = this.descend(() => this.relationStep(p, ct), () => this.rowText(p.target, p.select, a, own));
      joins.push(`left join lateral (select ${l}.${q(j.target)} as id from ${q(j.table)} ${l} where ${l}.${q(j.source)} = ${src}.id order by ${l}.id limit 1) ${k} on true`,
        `left join lateral (select ${row} as v from ${q(p.target.table)} ${a}${sp(own)} where ${a}.id = ${k}.id) ${k}v on true`);
      return `coalesce(${k}v.v, 'null')`;
    }
    const target = keyed ? '' : ` join ${q(p.target.table)} ${b} on ${b}.id = ${lb}.${q(j.target)}${conds}`;
    const earlier = `not exists (select 1 from ${q(j.table)} ${lb}${target} where ${lb}.${q(j.source)} = ${src}.id and ${lb}.id < ${l}.id)`;
    // A small link table is first asked, once per statement, whether any row holds two links at all
    // (Strapi writes one; migrated data may hold more): when none does, no row has an earlier link to look
    // for. PostgreSQL's plan for a table of a page or two reads it whole for every row's check instead (on
    // the blog, 12% of `populate=*`'s statement and 17% of the deep populate's). Its size is read as the
    // statement runs, so a table that grew past it is checked row by row again.
    const once = `select 1 from ${q(j.table)} ${lb}d group by ${lb}d.${q(j.source)} having count(*) > 1`;
    const first = `((select case when pg_catalog.pg_relation_size(${lit(q(j.table))}::regclass) <= ${SMALL_LINK_TABLE} then not exists (${once}) else false end) or ${earlier})`;
    const own: string[] = [];
    const row = this.descend(() => this.relationStep(p, ct), () => this.rowText(p.target, p.select, a, own));
    joins.push(`left join (${q(j.table)} ${l} join ${q(p.target.table)} ${a} on ${a}.id = ${l}.${q(j.target)}${on(a)}) on ${l}.${q(j.source)} = ${src}.id and ${first}`, ...own);
    return `case when ${a}.id is null then 'null' else ${row} end`;
  }

  /** What a populated relation's rows must be besides linked: their status, locale and filters. */
  private relationConds(p: Extract<Populate, { kind: 'relation' }>, ct: ContentType | null, src: string, a: string): string[] {
    const conds: string[] = [];
    if (p.status) conds.push(`${a}.${R.publishedAt} is ${p.status === 'published' ? 'not null' : 'null'}`);
    // A row's links are answered whatever the linked row's locale, as Strapi's populate (it filters by
    // status only): links Strapi writes join rows of one locale, but data a v4 migration or an i18n
    // switch left joins other locales too, and Strapi shows them (checked live after localizing a type).
    // GraphQL's association resolver too: a category's articles are those of every locale, whatever the
    // root's `locale` argument (checked live on Strapi 5.54).
    if (p.where) conds.push(this.filter(p.where, a, p.target.uid));
    return conds;
  }

  /** The Query Engine's reads (ReadLimits.rows). */
  private get rows(): boolean { return !!this.query.rows; }

  /** A content API read of every locale at once (`locale=*`): its localizations are empty. */
  private get everyLocale(): boolean { return this.query.ct.localized && !this.query.localeParam && !this.rows; }

  private localizationsWhere(own: ContentType, src: string, a: string, where: Filter | null, level: Step[] = this.steps): string {
    // Strapi's database layer: every other row of the document (any locale, any status) but the level's own
    // rows (`found` reads the page's rows, `pg`, at every level: the root's too, unlike notInLevel's).
    if (this.rows) return `where ${a}.${R.documentId} = ${src}.${R.documentId}${where ? ` and ${this.filter(where, a, own.uid)}` : ''} and not ${this.found((row) => `${row}.id = ${a}.id`, level)}`;
    const status = own.draftAndPublish && this.query.status ? ` and ${a}.${R.publishedAt} is ${this.query.status === 'published' ? 'not null' : 'null'}` : '';
    const filter = where ? ` and ${this.filter(where, a, own.uid)}` : '';
    return `where ${a}.${R.documentId} = ${src}.${R.documentId} and ${a}.${R.locale} is distinct from ${src}.${R.locale}${status}${filter}${this.notInLevel(a, level)}`;
  }

  private morphByConds(p: Extract<Populate, { kind: 'morphBy' }>, a: string): string[] {
    const conds: string[] = [];
    if (p.status) conds.push(`${a}.${R.publishedAt} is ${p.status === 'published' ? 'not null' : 'null'}`);
    if (p.where) conds.push(this.filter(p.where, a, p.target.uid));
    return conds;
  }

  /**
   * A morphTo side: each link's row rendered as its own type (plus `__type`), in link order. Links are to
   * rows, as Strapi's; a link to a type left out (or to a row gone since) renders nothing.
   */
  private morphTo(p: Extract<Populate, { kind: 'morphTo' }>, src: string): string {
    const empty = p.attr.toMany ? `'[]'` : `'null'`;
    const comps = [...p.components ?? []];
    if (!p.types.length && !comps.length) return `select ${empty}::text as v`;
    const one = (idExpr: string) => [...p.types.map(({ ct, select }) => {
      const a = this.alias();
      const joins: string[] = [];
      const row = this.descend(() => this.morphToStep(p, ct, true), () => this.rowText(ct, select, a, joins, `,"__type":${JSON.stringify(ct.uid)}`));
      return `when ${lit(ct.uid)} then (select ${row} from ${q(ct.table)} ${a}${sp(joins)} where ${a}.id = ${idExpr})`;
    }), ...comps.map(([uid, sel]) => {
      // A component row: `id`, its fields, then `__type` (as Strapi 5.54 answers it).
      const a = this.alias();
      const joins: string[] = [];
      const row = this.descend(() => this.morphToStep(p, sel.component, true), () => this.componentText(sel, a, joins, undefined, `,"__type":${JSON.stringify(uid)}`));
      return `when ${lit(uid)} then (select ${row} from ${q(sel.component.table)} ${a}${sp(joins)} where ${a}.id = ${idExpr})`;
    })].join(' ');
    if (p.attr.columns) {
      const c = p.attr.columns;
      const read = `select coalesce(case ${src}.${q(c.type)} ${one(`${src}.${q(c.id)}`)} end, 'null') as v`;
      return p.unmatched ? neverRun(read, `'null'`) : read;
    }
    const j = p.attr.join!;
    const m = this.alias('m');
    return `select ${textArray('x.j')} as v from (select case ${m}.${q(j.type)} ${one(`${m}.${q(j.id)}`)} end as j from ${q(j.table)} ${m} where ${m}.${q(j.owner)} = ${src}.id order by ${m}.${q(j.order)}, ${m}.id limit ${this.opts.maxRelationRows}) x`;
  }

  /** morphOne/morphMany: the target's rows linked back to this one, filtered and sorted as a relation. */
  private morphBy(p: Extract<Populate, { kind: 'morphBy' }>, ct: ContentType, src: string): string {
    const a = this.alias();
    const s = this.morphSource(p.attr, p.by, p.target, ct.uid, src, a);
    const joins: string[] = [];
    const row = this.descend(() => this.morphByStep(p, ct), () => this.rowText(p.target, p.select, a, joins));
    const from = `${s.from}${sp(joins)} ${s.where}${this.morphByConds(p, a).map((c) => ` and ${c}`).join('')}`;
    const order = [...this.orderBy(p.sort, a), s.order].join(', ');
    const read = !p.attr.toMany ? `select coalesce((select ${row} ${from} order by ${order} limit 1), 'null') as v`
      : `select ${textArray('x.j')} as v from (select ${row} as j ${from} order by ${order} limit ${this.opts.maxRelationRows}) x`;
    return p.unmatched ? neverRun(read, p.attr.toMany ? `'[]'` : `'null'`) : read;
  }

  // ------------------------------------------------------------ key order (Strapi's populate round trips)

  /** The populate levels above the rows being rendered, from the page's rows down. */
  private steps: Step[] = [];
  /** Whether the statement reads the page's rows again (`pg`): to order keys, or to count them. */
  usesPage = false;

  /** How many rows the page holds (read again from `pg`). */
  private pageCount(): string {
    this.usesPage = true;
    return '(select count(*) from pg)';
  }

  protected override descend<T>(step: () => Step, f: () => T): T {
    if (!this.opts.keyOrder) return f();
    this.steps.push(step());
    try { return f(); } finally { this.steps.pop(); }
  }

  /**
   * Whether the level being rendered has any row (over the whole page: Strapi populates a level at once),
   * or any for which `cond` (given the row's alias) holds.
   */
  private found(cond?: (row: string) => string, steps: Step[] = this.steps): string {
    this.usesPage = true;
    const root = this.alias('g');
    let src = root;
    let chain = '';
    for (const step of steps) {
      const s = step(src);
      chain += ` and exists (select 1 ${s.sql}`;
      src = s.alias;
    }
    return `exists (select 1 from pg ${root} where true${chain}${cond ? ` and ${cond(src)}` : ''}${')'.repeat(steps.length)})`;
  }

  /**
   * Strapi reads localizations without the rows of the level itself (`id $notIn` the results): under a
   * relation from a non-localized type, an entry's other locales may be among them, and are left out.
   * The page's own rows are of one locale, unless every locale is read at once (`locale=*`, a list).
   */
  private notInLevel(a: string, level: Step[]): string {
    return this.opts.keyOrder && (level.length || this.everyLocale) ? ` and not ${this.found((row) => `${row}.id = ${a}.id`, level)}` : '';
  }

  /** One query for `step`'s rows, then (when it found some) the longest chain of the populates under them. */
  private chain(step: () => Step, children: Populate[], ct: ContentType | null): Rounds {
    if (!children.length) return ONE;
    return this.descend(step, () => {
      const deepest = this.deepest(children.map((c) => this.rounds(c, ct)));
      return { sql: `(1 + case when ${this.found()} then ${deepest.sql} else 0 end)`, min: 1, max: 1 + deepest.max };
    });
  }

  private deepest(list: Rounds[]): Rounds {
    if (list.every((r) => r.min === r.max) && list.length) return rounds(Math.max(...list.map((r) => r.max)));
    return { sql: `greatest(${list.map((r) => r.sql).join(', ')})`, min: Math.max(0, ...list.map((r) => r.min)), max: Math.max(0, ...list.map((r) => r.max)) };
  }

  /** Each type present among the links (`links(type)`) is one more query, with its rows' own chain. */
  private perType(types: PerType[]): Rounds[] {
    return types.map(([, links, rows, children, ct]) => {
      const present = this.descend(links, () => this.found());
      const after = this.chain(rows, children, ct);
      return { sql: `(case when ${present} then ${after.sql} else 0 end)`, min: 0, max: after.max };
    });
  }

  protected override rounds(p: Populate, ct: ContentType | null): Rounds {
    if (!this.opts.keyOrder) return ONE;
    switch (p.kind) {
      case 'media': return p.populate ? this.chain(() => this.mediaStep(p.attr), p.populate, this.schema.files ?? null) : ONE;
      case 'relation': return p.count ? ONE : this.chain(() => this.relationStep(p, ct), p.select.populate, p.target);
      case 'morphBy': return this.chain(() => this.morphByStep(p, ct!), p.select.populate, p.target);
      case 'localizations': return this.chain(() => this.localizationsStep(ct!, p.where ?? null), p.select.populate, ct);
      case 'component': return p.count ? ONE : this.chain(() => this.componentStep(p.attr, p.select), p.select.populate, null);
      case 'dynamiczone': {
        // Its links in one query, then each component type present in one query each (concurrently).
        if ([...p.on.values()].every((sel) => !sel.populate.length)) {
          const uids = [...p.on.keys()];
          if (!uids.length) return ONE;
          const any = this.descend(() => this.zoneStep(p.attr, uids, null), () => this.found());
          return { sql: `(case when ${any} then 2 else 1 end)`, min: 1, max: 2 };
        }
        const types = this.perType([...p.on].map(([uid, sel]) => [uid, () => this.zoneStep(p.attr, [uid], null), () => this.zoneStep(p.attr, [uid], sel), sel.populate, null]));
        const d = this.deepest([rounds(0), ...types]);
        return { sql: `(1 + ${d.sql})`, min: 1, max: 1 + d.max };
      }
      case 'morphTo': {
        // Strapi finds no type to read (`morphTo` above writes it never to run): no query.
        if (p.unmatched) return rounds(0);
        const types = this.perType([...p.types.map(({ ct: t, select }) => [t.uid, () => this.morphToStep(p, t, false), () => this.morphToStep(p, t, true), select.populate, t] as PerType),
          ...[...p.components ?? []].map(([uid, sel]) => [uid, () => this.morphToStep(p, sel.component, false), () => this.morphToStep(p, sel.component, true), sel.populate, null] as PerType)]);
        if (p.attr.toMany) {
          const d = this.deepest([rounds(0), ...types]);
          return { sql: `(1 + ${d.sql})`, min: 1, max: 1 + d.max };
        }
        // morphToOne: no query without links; each type present queried in turn.
        if (!types.length) return rounds(0);
        return { sql: `(${types.map((t) => t.sql).join(' + ')})`, min: 0, max: types.reduce((n, t) => n + t.max, 0) };
      }
    }
  }

  private relationStep(p: Extract<Populate, { kind: 'relation' }>, ct: ContentType | null): Step {
    return (src) => {
      const a = this.alias();
      const s = this.relationSource(p.attr, p.target, src, a);
      return { sql: `${s.from} ${s.where}${this.relationConds(p, ct, src, a).map((c) => ` and ${c}`).join('')}`, alias: a };
    };
  }

  private morphByStep(p: Extract<Populate, { kind: 'morphBy' }>, ct: ContentType): Step {
    return (src) => {
      const a = this.alias();
      const s = this.morphSource(p.attr, p.by, p.target, ct.uid, src, a);
      return { sql: `${s.from} ${s.where}${this.morphByConds(p, a).map((c) => ` and ${c}`).join('')}`, alias: a };
    };
  }

  private localizationsStep(own: ContentType, where: Filter | null): Step {
    // The level the localizations are read from: the populate levels above it at this point.
    const level = [...this.steps];
    return (src) => {
      const a = this.alias();
      return { sql: `from ${q(own.table)} ${a} ${this.localizationsWhere(own, src, a, where, level)}`, alias: a };
    };
  }

  /** A morphTo side's links to rows of `t` (`rows`: joined to those rows). */
  private morphToStep(p: Extract<Populate, { kind: 'morphTo' }>, t: { uid: string; table: string }, rows: boolean): Step {
    return (src) => {
      const a = this.alias();
      if (p.attr.columns) {
        const c = p.attr.columns;
        return { sql: `from ${q(t.table)} ${a} where ${a}.id = ${src}.${q(c.id)} and ${src}.${q(c.type)} = ${lit(t.uid)}`, alias: a };
      }
      const j = p.attr.join!;
      const m = this.alias('m');
      const links = `where ${m}.${q(j.owner)} = ${src}.id and ${m}.${q(j.type)} = ${lit(t.uid)}`;
      if (!rows) return { sql: `from ${q(j.table)} ${m} ${links}`, alias: m };
      return { sql: `from ${q(j.table)} ${m} join ${q(t.table)} ${a} on ${a}.id = ${m}.${q(j.id)} ${links}`, alias: a };
    };
  }

  // ------------------------------------------------------------ root

  rootWhere(alias: string): string {
    const { ct, status, localeParam, documentParam, where } = this.query;
    const conds: string[] = [];
    if (ct.draftAndPublish && status) conds.push(`${alias}.${R.publishedAt} is ${status === 'published' ? 'not null' : 'null'}`);
    if (localeParam) conds.push(`${alias}.${R.locale} = $${localeParam}::text`);
    if (documentParam) conds.push(`${alias}.${R.documentId} = $${documentParam}::text`);
    if (where) conds.push(this.rootFilter(where, alias));
    return conds.length ? `where ${conds.join(' and ')}` : '';
  }
}

/** Whether a filter reads a relation (or a morph link) anywhere under it. */
function reachesRelations(f: Filter): boolean {
  switch (f.t) {
    case 'relation': case 'morph': return true;
    case 'and': case 'or': return f.items.some(reachesRelations);
    case 'not': return reachesRelations(f.item);
    case 'media': case 'component': case 'localizations': return reachesRelations(f.sub);
    default: return false;
  }
}

/** A WHERE condition for `filter` over the row alias `alias` (a table with the filter scope's columns). */
export function filterSql(schema: Schema, filter: Filter, alias: string): string {
  return new FilterGen(schema).rootFilter(filter, alias);
}

export interface CompiledRead {
  text: string;
  /** The statement's second column is the total row count (lists with withCount). */
  withTotal: boolean;
  /**
   * The statement's last column says the data was larger than `maxBytes` (the data column is then null):
   * an oversized answer never leaves PostgreSQL.
   */
  sizeChecked?: boolean;
  maxBytes?: number;
  /** Every table the statement reads (compiler/tables.ts): what the response cache invalidates it by. */
  tables: string[];
  /**
   * Run as a prepared statement (planned once per connection); false for a page sent unprepared, planned
   * at each execution (StatementCache of compiler/cache.ts decides; compileRead() says true).
   */
  prepare: boolean;
  /** Planned at each execution with its parameters' values (compiler/index.ts `planFor`). */
  customPlan?: boolean;
  /** The same read in two statements that may run at once (SqlOptions.splitReads). */
  split?: SplitRead;
}

/** Wraps a read's select: data larger than `max` bytes comes back as null with `oversize` true. */
function sizeChecked(select: CompiledRead, max: number | undefined): CompiledRead {
  if (!max) return select;
  const tables = select.tables;
  const total = select.withTotal ? ', d.total' : '';
  return {
    // `offset 0` keeps PostgreSQL from pulling the subquery up: each of the three references to d.data
    // would otherwise evaluate the whole populate again (populate=* ran at a third of its speed).
    text: `select case when octet_length(d.data) > ${max} then null else d.data end as data${total}, coalesce(octet_length(d.data) > ${max}, false) as oversize from (${select.text} offset 0) d`,
    withTotal: select.withTotal, sizeChecked: true, maxBytes: max, tables, prepare: select.prepare,
  };
}

/**
 * A page sorted first by a to-one relation's field, ascending (a category's articles by author name):
 * the first `n` matches whose related row has a value, read by walking the related rows in the field's
 * order through their links, with the rest of the sort after it. Without it every match's related value
 * was looked up and all of them sorted (20,000 author lookups at 1M articles for a page of 25); with it
 * PostgreSQL may start from the related rows and stop at the page. Rows without a related value (no link,
 * or a null field) sort last, after every walked row (ascending puts nulls last), so the walk's first `n`
 * rows are the sort's first `n` whenever it finds `n`. `order` is the page's ORDER BY over `root`, `rest` the
 * columns of its keys after the first. Null when the sort is of another kind.
 */
function relationWalk(schema: Schema, g: Gen, query: ReadQuery, root: string, where: string, order: string[], rest: string, n: number): string | null {
  const first = query.sort[0];
  const step = first && first.path.length === 1 ? first.path[0] : null;
  if (!step || step.kind !== 'relation' || step.toMany || first.desc || first.field.status) return null;
  const target = schema.contentTypes.get(step.target);
  if (!target) return null;
  const a = g.alias();
  const src = g.relationSource(step, target, root, a);
  const key = `${a}.${q(first.field.column)}`;
  const conds = [src.where.replace(/^where /, ''), `${key} is not null`, ...(where ? [where.replace(/^where /, '')] : [])];
  return `select ${root}.id, ${key} as _s0${rest} ${src.from} join ${q(query.ct.table)} ${root} on true where ${conds.join(' and ')} order by ${[`${key} asc`, ...order.slice(1)].join(', ')} limit ${n}`;
}

/** From this offset on, a page reads ids first and then its rows, as a sorted one does (compileRead). */
const LATE_OFFSET = 100;

export function compileRead(schema: Schema, query: ReadQuery, opts: SqlOptions): CompiledRead {
  const whole = compileStatement(schema, query, opts, null);
  const off = opts.splitReads ? splitOff(query, opts) : null;
  if (!off) return whole;
  const main = compileStatement(schema, query, opts, { populates: off.populates, role: 'main' });
  const side = compileStatement(schema, query, opts, { populates: off.populates, role: 'side' });
  // PostgreSQL types every parameter of a prepared statement from its use: each half must use them all
  // (a populate's filter names a parameter only the half holding that populate uses: that read is not split).
  const used = (text: string) => [...new Set(text.match(/\$\d+\b/g) ?? [])].sort().join();
  if (used(main.text) !== used(whole.text) || used(side.text) !== used(whole.text)) return whole;
  // Every populate split off has its marker in the main (else the splice would find fewer and run it again whole).
  if (off.populates.some((_, k) => !main.text.includes(splitMarker('t0', k)))) return whole;
  return { ...whole, split: { main, side, parts: off.populates.length, sideFirst: off.sideFirst } };
}

/**
 * A rough price of populating `p` for one row, in index probes of PostgreSQL: a to-one relation reads a
 * link, a row and its cached render; a to-many list several, and what it populates again for each of
 * its rows (five assumed). Only used to share a read between two statements (splitOff).
 */
function populateCost(p: Populate): number {
  const under = (list: Populate[] | undefined, rows: number) => rows * (list ?? []).reduce((n, c) => n + populateCost(c), 0);
  switch (p.kind) {
    case 'relation': return p.count ? 1 : p.attr.toMany ? 6 + under(p.select.populate, 5) : 3 + under(p.select.populate, 1);
    // Unmatched: written, never run.
    case 'morphBy': return p.unmatched ? 0 : p.attr.toMany ? 6 + under(p.select.populate, 5) : 3 + under(p.select.populate, 1);
    case 'localizations': return 4 + under(p.select.populate, 2);
    case 'morphTo': return p.unmatched ? 0 : 4 + p.types.reduce((n, t) => n + under(t.select.populate, 1), 0);
    case 'media': return (p.attr.multiple ? 4 : 2) + under(p.populate, 1);
    case 'component': return p.count ? 1 : 2 + under(p.select.populate, p.attr.repeatable ? 3 : 1);
    case 'dynamiczone': return 4 + [...p.on.values()].reduce((n, sel) => n + under(sel.populate, 1), 0);
  }
}

/** The page itself, each row's own columns and the list's count, in populateCost's units. */
const ROW_COST = 4;
/** Reads priced under this stay one statement: two cost more than they save when the work is small. */
const SPLIT_MIN_COST = 24;

/**
 * The root populates of a list to read in a statement of their own, beside the rest (SplitRead): from the
 * costliest down, each that brings the two halves closer to equal. None when the read is cheap, or when
 * one half would still hold three quarters of it (one populate reading most of the rows: running the rest
 * beside it saves little). A component the render cache keeps stays with the row (copied with it there).
 */
function splitOff(query: ReadQuery, opts: SqlOptions): { populates: Populate[]; sideFirst: boolean } | null {
  if (query.shape !== 'list' || query.select.populate.length < 2) return null;
  const priced = query.select.populate
    .map((p) => ({ p, cost: populateCost(p), movable: !(opts.renderCache && cachedComponent(query.ct, p)) }))
    .sort((a, b) => b.cost - a.cost);
  const total = priced.reduce((n, x) => n + x.cost, ROW_COST);
  if (total < SPLIT_MIN_COST) return null;
  const side: Populate[] = [];
  let cost = 0;
  for (const x of priced) {
    if (!x.movable || Math.abs(total - 2 * (cost + x.cost)) >= Math.abs(total - 2 * cost)) continue;
    side.push(x.p);
    cost += x.cost;
  }
  if (!side.length || side.length === priced.length || cost > 0.75 * total || cost < 0.25 * total) return null;
  // In the order the row lists them (the side's values come in it).
  return { populates: query.select.populate.filter((p) => side.includes(p)), sideFirst: 2 * cost >= total };
}

function compileStatement(schema: Schema, query: ReadQuery, opts: SqlOptions, split: { populates: Populate[]; role: 'main' | 'side' } | null): CompiledRead {
  const g = new Gen(schema, opts, query);
  if (split?.role === 'main') { g.splitOff = split.populates; g.splitAt = query.select.populate; }
  const { ct } = query;
  const tables = readTables(schema, query);
  const inner = 'r0';
  const t = 't0';
  const where = g.rootWhere(inner);
  // As a query that orders by its sort alone (none: the table's own order): no id after the sort, so ties
  // keep the order the scan and PostgreSQL's sort give them; the page's rows numbered as they come.
  const physical = !!opts.physicalOrder && query.shape === 'list';
  const order = [...g.orderBy(query.sort, inner), ...(physical ? [] : [`${inner}.id asc`])];
  // Paginate the bare rows first, then populate only the rows of the page. LIMIT and OFFSET are literals:
  // with parameters there, a generic plan assumes a tenth of the table is read and scans and sorts all of
  // it (and populates by hash joins over whole tables) instead of walking an index for a page of rows.
  const sortColList = query.sort.map((_, i) => `, ${order[i].replace(/ (asc|desc)$/, '')} as _s${i}`);
  const sortCols = sortColList.join('');
  const { limit, offset } = pageBounds(query.pagination);
  const bounds = `${order.length ? `order by ${order.join(', ')} ` : ''}limit ${limit}${offset ? ` offset ${offset}` : ''}`;
  // A sorted or late page orders and skips ids (and sort keys) only, read by an index-only scan where an
  // index covers the filter (compiler/indexes.ts), then reads the page's own rows: ordering whole rows
  // read every matching row from the table (a page of 25 after 100,000 rows scanned the table; a sort
  // over 20,000 matching rows fetched each).
  const byIds = !physical && query.shape === 'list' && (offset >= LATE_OFFSET || query.sort.length > 0);
  // A filtered list whose page needs every match anyway (sorted, or late) finds the matches once for
  // the page and the count: the filter (a category's 44,000 links at 100k articles) was evaluated twice.
  const walk = byIds ? relationWalk(schema, g, query, inner, where, order, sortColList.slice(1).join(''), limit + offset) : null;
  const shared = byIds && query.pagination.withCount && !!query.where && !walk;
  const ids = (k: string) => `select rp.*${query.sort.map((_, i) => `, k._s${i}`).join('')} from (${k}) k join ${q(ct.table)} rp on rp.id = k.id`;
  const matches = `select ${inner}.id${sortCols} from ${q(ct.table)} ${inner} ${where}`;
  const ordered = (m: string, cond = '') => `select ${m}.* from ${m}${cond} order by ${[...query.sort.map((s, i) => `${m}._s${i} ${s.desc ? 'desc' : 'asc'}`), `${m}.id asc`].join(', ')} limit ${limit}${offset ? ` offset ${offset}` : ''}`;
  // The walk's rows are the page when they reach it; else (the page reaches rows without a related value)
  // the page is the matches' as without the walk: one of the two one-time filters holds, the other
  // branch is never read.
  const reached = `(select count(*) from w) >= ${limit + offset}`;
  const page = physical ? `select x.*, row_number() over () as _n from (select ${inner}.* from ${q(ct.table)} ${inner} ${where} ${bounds}) x`
    : !byIds ? `select ${inner}.*${sortCols} from ${q(ct.table)} ${inner} ${where} ${bounds}`
    : walk ? ids(`(${ordered('w', ` where ${reached}`)}) union all (select f.* from (${matches} ${bounds}) f where not ${reached})`)
      : shared ? ids(ordered('m'))
        : ids(`${matches} ${bounds}`);
  const joins: string[] = [];
  const row = split?.role === 'side'
    ? concatAll([`${t}.id`, 'chr(1)', ...split.populates.flatMap((p, k) => [...(k ? ['chr(3)'] : []), g.populatedValue(p, ct, t, joins)])])
    : g.rowText(ct, query.select, t, joins, opts.rowTail);
  const outerOrder = physical ? `${t}._n` : [...query.sort.map((s, i) => `${t}._s${i} ${s.desc ? 'desc' : 'asc'}`), `${t}.id asc`].join(', ');
  // With `keyOrder` the populates may look at the page's rows as a whole (to order keys): what of them
  // they read (the rows' own links), once, beside the page read as before.
  const own = ct.attributes.flatMap((a) => (a.kind === 'morph' && a.columns ? [a.columns.id, a.columns.type] : []));
  const ctes = [
    ...(walk ? [`w as materialized (${walk})`] : []),
    ...(shared ? [`m as materialized (${matches})`] : []),
    ...(g.usesPage ? [`pg as materialized (select ${['id', R.documentId, R.locale, ...own.map(q)].map((c) => `z.${c}`).join(', ')} from (${page}) z)`] : []),
  ];
  const pg = ctes.length ? `with ${ctes.join(', ')} ` : '';
  const body = `select ${row} as j from (${page}) ${t}${sp(joins)} order by ${outerOrder}`;
  if (query.shape === 'one') return sizeChecked({ text: `${pg}select (select x.j from (${body}) x) as data`, withTotal: false, tables, prepare: true }, opts.maxBytes);
  if (split?.role === 'side') return sizeChecked({ text: `${pg}select (select string_agg(x.j, chr(2)) from (${body}) x) as data`, withTotal: false, tables, prepare: true }, opts.maxBytes);
  // Rows are concatenated as text: nothing is parsed or re-serialized after the row fragments exist.
  // Bare: the caller writes the brackets around PostgreSQL's bytes, saving two copies of the whole text.
  const data = opts.bareList ? `(select string_agg(x.j, ',') from (${body}) x) as data` : `(select ${textArray('x.j')} from (${body}) x) as data`;
  if (!query.pagination.withCount) return sizeChecked({ text: `${pg}select ${data}`, withTotal: false, tables, prepare: true }, opts.maxBytes);
  // The count needs its own aliases: the filter subqueries of `where` name them. Unfiltered, the table's
  // row counters answer where it has them (compiler/counts.ts).
  const cg = new Gen(schema, opts, query);
  const rows = `select count(*) from ${q(ct.table)} c0 ${cg.rootWhere('c0')}`;
  const published = ct.draftAndPublish && query.status ? query.status === 'published' : null;
  const linked = opts.rowCounters && !shared ? countedRelation(query) : null;
  const count = shared ? 'select count(*) from m'
    : opts.rowCounters && !query.where ? countedTotal(ct.table, published, query.localeParam, rows)
      : linked ? countedLinkTotal(ct, linked.attr, `select ct0.id from ${q(linked.target.table)} ct0 where ${cg.rootFilter(linked.sub, 'ct0', linked.target.uid)}`, published, query.localeParam, rows)
        : rows;
  return sizeChecked({ text: `${pg}select ${data}, (${count}) as total`, withTotal: true, tables, prepare: true }, opts.maxBytes);
}

/**
 * What the render cache keeps for rows of `model` (alias `alias`; null: the media library's files): each
 * cache column with the SQL expression rendering it — the same text a read renders live — and the lateral
 * joins those expressions read (see jsonText), to follow the row's table.
 */
export function cacheRenders(schema: Schema, model: ContentType | null, alias: string): { renders: Array<[column: string, expr: string]>; joins: string[] } {
  const g = new RowGen(schema, { maxRelationRows: 0 });
  const joins: string[] = [];
  if (!model) return { renders: [[RENDER.doc, jsonText(fileRecordColumns(schema, alias), joins, g.alias('o'))]], joins };
  const renders: Array<[string, string]> = [[RENDER.doc, `left(${jsonText(scalarCols(defaultSelection(model), alias), joins, g.alias('o'))}, -1)`]];
  for (const a of model.attributes) {
    if (a.kind === 'component' || a.kind === 'dynamiczone') renders.push([RENDER.component(a.name), `(${g.populate(defaultComponentPopulate(schema, a), model, alias)})`]);
  }
  return { renders, joins };
}
