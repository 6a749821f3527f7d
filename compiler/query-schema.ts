// The shape of REST query parameters, checked with typebox before the AST is built: each known
// parameter must have a form Strapi accepts. Values inside (operators, attribute names, numbers) are
// checked by compiler/params.ts, which knows the models and Strapi's messages.
import Type from 'typebox';
import { Compile } from 'typebox/compile';
import { validation } from './errors.ts';
import type { QueryValue } from './querystring.ts';

const Str = Type.String();
const Obj = Type.Object({}, { additionalProperties: true });
const StrList = Type.Array(Str);

export const QueryParamsSchema = Type.Object({
  filters: Type.Optional(Obj),
  sort: Type.Optional(Type.Union([Str, Type.Array(Type.Union([Str, Obj])), Obj])),
  // A pagination that is no object is passed over (Strapi 5.54, checked live: `pagination=abc` reads the first page).
  pagination: Type.Optional(Type.Union([Type.Object({
    page: Type.Optional(Str), pageSize: Type.Optional(Str), start: Type.Optional(Str), limit: Type.Optional(Str),
    withCount: Type.Optional(Str),
  }, { additionalProperties: true }), Str, Type.Array(Type.Unknown())])),
  fields: Type.Optional(Type.Union([Str, StrList])),
  populate: Type.Optional(Type.Union([Str, StrList, Obj])),
  _q: Type.Optional(Str),
}, { additionalProperties: true });

const check = Compile(QueryParamsSchema);

const EXPECTED: Record<string, string> = {
  filters: 'expected an object', sort: 'expected a string, a list or an object', pagination: 'expected an object of strings',
  _q: 'expected a string',
};

/** Throws Strapi's 400 ValidationError naming the first parameter whose form is wrong. */
export function checkQueryParams(q: { [key: string]: QueryValue }): void {
  if (check.Check(q)) return;
  const first = [...check.Errors(q)][0];
  const param = (first?.instancePath ?? '').split('/').filter(Boolean)[0] ?? 'query';
  // Strapi 5.54's own words for a populate of no known form (checked live).
  if (param === 'populate') throw validation('Invalid populate parameter. Expected a string, an array of strings, a populate object', {});
  if (param === 'fields') throw validation('Invalid fields parameter. Expected a string or an array of strings', {});
  if (param === 'filters' && typeof (q as { filters?: unknown }).filters === 'string') throw validation('The filters parameter must be an object or an array', {});
  throw validation(`Invalid ${param} parameter: ${EXPECTED[param] ?? 'unexpected form'}`, { source: 'query', param });
}
