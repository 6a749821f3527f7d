// The shape of a route a project's router declares, checked with typebox at start as Strapi checks it with
// yup (services/server/routing.js routeSchema): method, path, handler, and config's auth, policies and
// middlewares. A route of another shape stops the start naming its file.
import Type from 'typebox';
import { Compile } from 'typebox/compile';

const NamedOrInline = Type.Union([Type.String(), Type.Function([], Type.Unknown()), Type.Object({}, { additionalProperties: true })]);

export const RouteSchema = Type.Object({
  method: Type.Union(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'ALL'].map((m) => Type.Literal(m))),
  path: Type.String({ minLength: 1 }),
  handler: Type.Union([Type.String({ minLength: 1 }), Type.Function([], Type.Unknown()), Type.Array(Type.Function([], Type.Unknown()))]),
  config: Type.Optional(Type.Object({
    auth: Type.Optional(Type.Union([Type.Literal(false), Type.Object({ scope: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])) }, { additionalProperties: true })])),
    policies: Type.Optional(Type.Array(NamedOrInline)),
    middlewares: Type.Optional(Type.Array(NamedOrInline)),
  }, { additionalProperties: true })),
}, { additionalProperties: true });

const check = Compile(RouteSchema);

/** Strapi's words for a route of the wrong shape, naming the first wrong part; null when it fits. */
export function routeShapeError(route: unknown): string | null {
  if (check.Check(route)) return null;
  const first = [...check.Errors(route)][0];
  return `Invalid route config ${first?.instancePath || '/'}: ${first?.message ?? 'unexpected form'}`;
}
