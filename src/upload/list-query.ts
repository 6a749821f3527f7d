// `GET /api/upload/files` query parameters → SQL clauses over the files table: `filters` (parsed by
// the compiler's FilterParser over the file fields), `sort` and `pagination`. Like Strapi's upload
// service findMany, no pagination parameter means every file, oldest first.
import type { QueryValue } from '../../compiler/querystring.ts';
import { FilterParser, ParamBuilder, fileFields, fileScope, parsePagination, pushPage, type ReadLimits } from '../../compiler/params.ts';
import type { Schema } from '../../compiler/schema.ts';
import { invalidKey, validation } from '../../compiler/errors.ts';
import { filterSql } from '../../compiler/sql.ts';

export interface ListSql { where: string; orderBy: string; limit: string; params: unknown[] }

const DIRS = new Set(['asc', 'desc']);

function sortOf(schema: Schema, value: QueryValue | undefined, a: string): string[] {
  const out: string[] = [];
  const fields = fileFields(schema);
  const term = (name: string, dir: string) => {
    const f = Object.hasOwn(fields, name) ? fields[name] : undefined;
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
  const filter = q.filters === undefined ? null : new FilterParser(schema, params).parse(q.filters, fileScope(schema, null));
  const order = [...sortOf(schema, q.sort, alias), `${alias}.id asc`];
  let limit = '';
  if (q.pagination !== undefined) {
    const [lp, op] = pushPage(params, parsePagination(q.pagination, limits));
    limit = ` limit $${lp}::bigint offset $${op}::bigint`;
  }
  return { where: filter ? `where ${filterSql(schema, filter, alias)}` : '', orderBy: `order by ${order.join(', ')}`, limit, params: params.values };
}
