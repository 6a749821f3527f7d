// `GET /api/upload/files` query parameters → SQL clauses over the files table: `filters` (parsed by
// the compiler's FilterParser over the file fields), `sort` and `pagination`. Like Strapi's upload
// service findMany, no pagination parameter means every file, oldest first.
import type { QueryValue } from '../../compiler/querystring.ts';
import type { Filter, FieldRef } from '../../compiler/ast.ts';
import { FILE_FIELDS, FilterParser, ParamBuilder, parsePagination, type ReadLimits } from '../../compiler/params.ts';
import type { Schema } from '../../compiler/schema.ts';
import { invalidKey, validation } from '../../compiler/errors.ts';

export interface ListSql { where: string; orderBy: string; limit: string; params: unknown[] }

const CAST: Record<string, string> = { id: 'bigint', integer: 'integer', decimal: 'numeric', systemDate: 'timestamptz' };
const castOf = (f: FieldRef) => CAST[f.type] ?? 'text';

function cmp(f: Extract<Filter, { t: 'cmp' }>, a: string): string {
  const e = `${a}.${f.field.column}`;
  const c = castOf(f.field);
  const p = `$${f.param}::${c}`;
  const text = c === 'text' ? e : `${e}::text`;
  switch (f.op) {
    case '$eq': return `${e} = ${p}`;
    case '$ne': return `${e} <> ${p}`;
    case '$lt': return `${e} < ${p}`;
    case '$lte': return `${e} <= ${p}`;
    case '$gt': return `${e} > ${p}`;
    case '$gte': return `${e} >= ${p}`;
    case '$eqi': return `lower(${text}) = lower($${f.param}::text)`;
    case '$nei': return `lower(${text}) <> lower($${f.param}::text)`;
    case '$in': return `${e} = any($${f.param}::${c}[])`;
    case '$notIn': return `not (${e} = any($${f.param}::${c}[]))`;
    case '$null': return `${e} is null`;
    case '$notNull': return `${e} is not null`;
    case '$between': return `${e} between ${p} and $${f.param + 1}::${c}`;
    case '$contains': case '$startsWith': case '$endsWith': return `${text} like $${f.param}::text`;
    case '$containsi': case '$startsWithi': case '$endsWithi': return `${text} ilike $${f.param}::text`;
    case '$notContains': return `not (${text} like $${f.param}::text)`;
    case '$notContainsi': return `not (${text} ilike $${f.param}::text)`;
  }
}

function render(f: Filter, a: string): string {
  switch (f.t) {
    case 'const': return f.value ? 'true' : 'false';
    case 'and': case 'or': return `(${f.items.map((i) => render(i, a)).join(f.t === 'and' ? ' and ' : ' or ')})`;
    case 'not': return `not coalesce(${render(f.item, a)}, false)`;
    case 'cmp': return cmp(f, a);
    // The file scope has no relations, media or components: the parser never yields these.
    default: throw validation('Invalid filters parameter', { source: 'query', param: 'filters' });
  }
}

const DIRS = new Set(['asc', 'desc']);

function sortOf(value: QueryValue | undefined, a: string): string[] {
  const out: string[] = [];
  const term = (name: string, dir: string) => {
    const f = FILE_FIELDS[name];
    if (!f) throw invalidKey('sort', name, null);
    if (!DIRS.has(dir.toLowerCase())) throw validation('Invalid order. order can only be one of asc|desc|ASC|DESC');
    out.push(`${a}.${f.column} ${dir.toLowerCase()}`);
  };
  const visit = (v: QueryValue) => {
    if (typeof v === 'string') {
      for (const s of v.split(',').map((x) => x.trim()).filter(Boolean)) { const [n, d = 'asc'] = s.split(':'); term(n, d); }
    } else if (Array.isArray(v)) v.forEach(visit);
    else for (const [k, d] of Object.entries(v)) { if (/^\d+$/.test(k)) visit(d); else if (typeof d === 'string') term(k, d); else throw validation('Invalid sort parameter'); }
  };
  if (value !== undefined && value !== '') visit(value);
  return out;
}

export function listSql(schema: Schema, q: { [k: string]: QueryValue }, limits: ReadLimits, alias = 'f'): ListSql {
  const params = new ParamBuilder(schema.defaultLocale);
  const scope = { path: null, field: (n: string) => FILE_FIELDS[n] ?? null, attr: () => null };
  const filter = q.filters === undefined ? null : new FilterParser(schema, params).parse(q.filters, scope);
  const order = [...sortOf(q.sort, alias), `${alias}.id asc`];
  let limit = '';
  if (q.pagination !== undefined) {
    const p = parsePagination(q.pagination, limits);
    const [l, o] = p.mode === 'page' ? [p.pageSize, (p.page - 1) * p.pageSize] : [p.limit, p.start];
    const lp = params.push(l);
    const op = params.push(o);
    limit = ` limit $${lp}::bigint offset $${op}::bigint`;
  }
  return { where: filter ? `where ${render(filter, alias)}` : '', orderBy: `order by ${order.join(', ')}`, limit, params: params.values };
}
