// The GraphQL plugin: claims the endpoint, builds the Shadow CRUD schema from the models once per
// worker, and answers POST (JSON body) and GET (query string, behind Apollo's CSRF preflight rule).
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { Config } from '../../config.ts';
import type { Schema } from '../../compiler/schema.ts';
import { ApiError } from '../../compiler/errors.ts';
import type { Plugin } from '../plugins/types.ts';
import type { Reply } from '../rest/reply.ts';
import type { Task } from '../task.ts';
import { buildSdlV5 } from './sdl.ts';
import { buildSdlV4 } from './sdl4.ts';
import { buildResolvers } from './resolvers.ts';
import { GraphqlEngine, requestError, type GqlResponse } from './engine.ts';
import { playgroundPage } from './playground.ts';

const unauthorized = () => new ApiError(401, 'UnauthorizedError', 'Missing or invalid credentials', {});

const CSRF_MESSAGE = "This operation has been blocked as a potential Cross-Site Request Forgery (CSRF). Please either specify a 'content-type' header (with a type that is not one of application/x-www-form-urlencoded, multipart/form-data, text/plain) or provide a non-empty value for one of the following headers: x-apollo-operation-name, apollo-require-preflight\n";
const SIMPLE_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);

const bad = (message: string, code = 'BAD_REQUEST', status = 400): GqlResponse => ({ status, body: JSON.stringify({ errors: [requestError(message, code)] }) });

interface Request { query: unknown; variables: unknown; operationName: unknown }

export function graphqlPlugin(config: Config, schema: Schema, users: Plugin): Plugin {
  const gc = config.graphql;
  const sdl = gc.shape === 'v5' ? buildSdlV5(schema, gc) : buildSdlV4(schema, gc);
  const resolvers = buildResolvers({ schema, config, users, sdl });
  const gql = makeExecutableSchema({ typeDefs: sdl.typeDefs, resolvers: resolvers as Parameters<typeof makeExecutableSchema>[0]['resolvers'] });
  const engine = new GraphqlEngine(gql, {
    depthLimit: gc.depthLimit,
    introspection: gc.introspection ?? config.env !== 'production',
    cacheSize: Math.max(100, Math.min(config.api.rest.planCacheSize, 5000)),
  });
  const playground = config.env !== 'production' || gc.playgroundAlways;

  const toReply = (r: GqlResponse): Reply => ({ status: r.status, body: r.body });

  function readRequest(task: Task): Request | GqlResponse {
    if (task.method === 'GET') {
      const qs = new URLSearchParams(task.query);
      let variables: unknown;
      const v = qs.get('variables');
      if (v) {
        try { variables = JSON.parse(v); } catch { return bad('`variables` is not valid JSON.'); }
      }
      return { query: qs.get('query') ?? undefined, variables, operationName: qs.get('operationName') ?? undefined };
    }
    const text = task.body ? Buffer.from(task.body).toString('utf8') : '';
    let body: unknown;
    try { body = text ? JSON.parse(text) : undefined; } catch { return bad('POST body sent invalid JSON.'); }
    if (!body || typeof body !== 'object' || Array.isArray(body)) return bad('POST body missing, invalid Content-Type, or JSON object has no keys.');
    const b = body as Record<string, unknown>;
    return { query: b.query, variables: b.variables, operationName: b.operationName };
  }

  return {
    name: 'graphql',
    claims: (path) => path === gc.endpoint || path === `${gc.endpoint}/`,
    async handle(ctx, task, caller) {
      if (!caller) throw unauthorized();
      if (task.method !== 'GET' && task.method !== 'POST') return { status: 405, body: 'Method Not Allowed', contentType: 'text/plain; charset=utf-8' };
      const accept = task.headers?.accept ?? '';
      if (task.method === 'GET' && playground && accept.includes('text/html') && !new URLSearchParams(task.query).has('query')) {
        return { status: 200, body: playgroundPage(gc.endpoint), contentType: 'text/html; charset=utf-8' };
      }
      const contentType = (task.contentType ?? '').split(';')[0].trim().toLowerCase();
      const preflight = !!(task.headers?.['apollo-require-preflight'] || task.headers?.['x-apollo-operation-name']);
      if ((contentType === '' || SIMPLE_TYPES.has(contentType)) && !preflight) return toReply(bad(CSRF_MESSAGE));
      const req = readRequest(task);
      if ('status' in req) return toReply(req);
      if (typeof req.query !== 'string' || req.query === '') {
        return toReply(bad('GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.'));
      }
      if (req.variables !== undefined && req.variables !== null && (typeof req.variables !== 'object' || Array.isArray(req.variables))) {
        return toReply(bad('`variables` in a POST body should be an object.'));
      }
      const operationName = typeof req.operationName === 'string' && req.operationName ? req.operationName : undefined;
      const prepared = engine.prepare(req.query, operationName);
      if (!GraphqlEngine.isPrepared(prepared)) return toReply(prepared);
      if (task.method === 'GET' && prepared.operation.operation !== 'query') {
        return toReply(bad(`Can only perform a ${prepared.operation.operation} operation from a POST request.`, 'BAD_REQUEST', 405));
      }
      ctx.access = ctx.auth.access(caller);
      const variables = (req.variables ?? undefined) as Record<string, unknown> | undefined;
      return toReply(await engine.execute(prepared, { rest: ctx, caller, task }, variables));
    },
  };
}
