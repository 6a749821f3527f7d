// The GraphQL plugin: claims the endpoint, builds the Shadow CRUD schema from the models once per
// worker (with what the extensions module registered), and answers POST (JSON body) and GET (query
// string, behind Apollo's CSRF preflight rule); browsers get GraphiQL and its assets.
import { makeExecutableSchema } from '@graphql-tools/schema';
import { GraphQLScalarType, Kind, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { Config } from '../../config.ts';
import type { Component, ContentType, Schema } from '../../compiler/schema.ts';
import { ApiError, unauthorized } from '../../compiler/errors.ts';
import type { Caller } from '../auth/permissions.ts';
import type { Plugin } from '../plugins/types.ts';
import type { Reply } from '../rest/reply.ts';
import type { RestContext } from '../rest/router.ts';
import { isUsersPlugin } from '../users/plugin.ts';
import { checkJsonDepth, type Task } from '../task.ts';
import { log } from '../log.ts';
import { buildSdlV5 } from './sdl.ts';
import { buildSdlV4 } from './sdl4.ts';
import { buildResolvers, type GqlContext } from './resolvers.ts';
import { GraphqlEngine, requestError, type GqlResponse } from './engine.ts';
import { assetName, assetReply, playgroundCsp, playgroundPage } from './playground.ts';
import { ExtensionService, checkResolvers, loadExtensions, strapiLike, wrapResolvers, type PolicyResolver, type ProjectExtensions } from './extension.ts';
import { applyShadowCrud } from './shadow.ts';
import { FILE_UID, LOCALE_UID, usersPermissionsTypes, USERS_UID, type PluginTypes } from '../plugin-types.ts';
import { graphqlLimits } from './context.ts';


const CSRF_MESSAGE = "This operation has been blocked as a potential Cross-Site Request Forgery (CSRF). Please either specify a 'content-type' header (with a type that is not one of application/x-www-form-urlencoded, multipart/form-data, text/plain) or provide a non-empty value for one of the following headers: x-apollo-operation-name, apollo-require-preflight\n";
const SIMPLE_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);

/** Estimated bytes each worker's prepared GraphQL operations may keep (src/graphql/weighted-lru.ts). */
const GRAPHQL_CACHE_BYTES = 128 * 1024 * 1024;

const bad = (message: string, code = 'BAD_REQUEST', status = 400): GqlResponse => ({ status, body: JSON.stringify({ errors: [requestError(message, code)] }) });

interface Request { query: unknown; variables: unknown; operationName: unknown }

type ExecutableResolvers = NonNullable<Parameters<typeof makeExecutableSchema>[0]['resolvers']>;

/** The executable schema: Shadow CRUD (pruned by shadowCRUD switches) + the extensions' types and resolvers. */
export function buildGraphqlSchema(config: Config, schema: Schema, users: Plugin, ext: ExtensionService | null, upload?: Plugin, policy?: PolicyResolver, plugin: PluginTypes = usersPermissionsTypes()): GraphQLSchema {
  const gc = config.graphql;
  const sdl = gc.shape === 'v5' ? buildSdlV5(schema, { ...gc, plugin }) : buildSdlV4(schema, { ...gc, plugin });
  const built = buildResolvers({ schema, config, users, upload, sdl, plugin });
  const service = ext ?? new ExtensionService();
  const strapi = strapiLike(config, schema, service);
  // Root queries whose answer is what Shadow CRUD reads through the compiler: the response cache may keep them.
  const shadowQueries = new Set([...built.auth.keys()].filter((k) => k.startsWith('Query.')).map((k) => k.slice('Query.'.length)));
  if (!ext || ext.isEmpty()) {
    const gql = makeExecutableSchema({ typeDefs: sdl.typeDefs, resolvers: built.map as ExecutableResolvers });
    wrapResolvers(gql, built.auth, {}, strapi);
    CACHEABLE_QUERIES.set(gql, shadowQueries);
    return gql;
  }
  const gen = ext.generate(strapi);
  const resolvers: Record<string, unknown> = { ...built.map };
  for (const [type, r] of Object.entries(gen.resolvers)) {
    const prev = resolvers[type];
    resolvers[type] = r instanceof GraphQLScalarType || prev instanceof GraphQLScalarType || !prev ? r : { ...(prev as object), ...r };
  }
  let gql = makeExecutableSchema({
    typeDefs: [applyShadowCrud(schema, sdl.typeDefs, ext.shadowConfig()), ...gen.typeDefs],
    resolvers: resolvers as ExecutableResolvers,
    // Shadow CRUD resolvers of pruned fields are left out; the extensions' own are checked below.
    resolverValidationOptions: { requireResolversToMatchSchema: 'ignore' },
  });
  checkResolvers(gql, gen.resolvers);
  for (const p of gen.plugins) gql = p(gql) ?? gql;
  wrapResolvers(gql, built.auth, gen.resolversConfig, strapi, policy);
  // A query an extension replaced, or gave middlewares or policies (which may look at the user), is not kept.
  for (const n of Object.keys((gen.resolvers as Record<string, Record<string, unknown>>).Query ?? {})) shadowQueries.delete(n);
  for (const k of Object.keys(gen.resolversConfig)) if (k.startsWith('Query.')) shadowQueries.delete(k.slice('Query.'.length));
  CACHEABLE_QUERIES.set(gql, shadowQueries);
  return gql;
}

const CACHEABLE_QUERIES = new WeakMap<GraphQLSchema, Set<string>>();

/** A query whose every root field is a cacheable Shadow CRUD read (see buildGraphqlSchema). */
function cacheableOperation(gql: GraphQLSchema, op: OperationDefinitionNode): boolean {
  const names = CACHEABLE_QUERIES.get(gql);
  if (!names || op.operation !== 'query') return false;
  return op.selectionSet.selections.every((s) => s.kind === Kind.FIELD && (s.name.value === '__typename' || names.has(s.name.value)));
}

function contextOf(rest: GqlContext['rest'], caller: Caller, task: Task): GqlContext {
  return {
    rest, caller, task,
    state: {
      user: caller.kind === 'user' && caller.userId ? { id: caller.userId } : null,
      auth: { strategy: { name: caller.kind === 'token' ? 'api-token' : 'users-permissions' }, credentials: caller },
    },
  };
}

/**
 * The models as GraphQL sees them: plugin types that models relate to keep their own plugin queries, so they
 * are left out of Shadow CRUD; relations to them too, but for users (UsersPermissionsUser, as Strapi's GraphQL),
 * files and locales (`records`: Strapi 5's shape, whose UploadFile and I18NLocale they name; v4's Entity shape,
 * which no Strapi 5 serves, leaves them out).
 */
function withoutBuiltins(schema: Schema, records: boolean): Schema {
  const dropped = (uid: string) => !!schema.contentTypes.get(uid)?.builtin && uid !== USERS_UID && !(records && (uid === FILE_UID || uid === LOCALE_UID));
  const keep = <M extends ContentType | Component>(m: M): M => {
    const attributes = m.attributes.filter((a) => !(a.kind === 'relation' && dropped(a.target)));
    return attributes.length === m.attributes.length ? m : { ...m, attributes, byName: new Map(attributes.map((a) => [a.name, a])) };
  };
  if (![...schema.contentTypes.values()].some((ct) => ct.builtin)) return schema;
  const contentTypes = new Map([...schema.contentTypes].filter(([, ct]) => !ct.builtin).map(([uid, ct]) => [uid, keep(ct)]));
  const components = new Map([...schema.components].map(([uid, c]) => [uid, keep(c)]));
  const routes = new Map([...schema.routes].map(([r, ct]) => [r, contentTypes.get(ct.uid)!]));
  return { ...schema, contentTypes, components, routes };
}

/**
 * `project`: what a Strapi project's src/index registered with the extension service (register() runs as
 * the project loads, in each worker): the schema is built once it is known, with GRAPHQL_EXTENSIONS' module
 * registering after it into the same service.
 */
export function graphqlPlugin(config: Config, fullSchema: Schema, users: Plugin, upload?: Plugin, project?: Promise<ProjectExtensions | null>): Plugin {
  const schema = withoutBuiltins(fullSchema, config.graphql.shape !== 'v4');
  // The plugin's types as the models made them (a project may extend the user: src/extensions).
  const plugin = usersPermissionsTypes(fullSchema);
  const gc = config.graphql;
  const engineOf = (gql: GraphQLSchema) => new GraphqlEngine(gql, {
    depthLimit: gc.depthLimit,
    maxCost: gc.maxCost,
    maxTokens: gc.maxTokens,
    maxSelections: gc.maxSelections,
    maxResponseSize: config.http.maxResponseSize,
    cost: graphqlLimits(config),
    introspection: gc.introspection ?? config.env !== 'production',
    cacheSize: Math.max(100, Math.min(config.api.rest.planCacheSize, 5000)),
    cacheBytes: GRAPHQL_CACHE_BYTES,
  });
  let engine: GraphqlEngine | null = null;
  let failure: string | null = null;
  let ready: Promise<void> = Promise.resolve();
  if (!gc.extensions && !project) engine = engineOf(buildGraphqlSchema(config, schema, users, null, upload, undefined, plugin));
  else {
    // The project's register() and the module are awaited: requests wait for them (a failure is logged at once).
    ready = (async () => {
      const fromProject = project ? await project : null;
      const service = fromProject?.service ?? new ExtensionService();
      if (gc.extensions) await loadExtensions(gc.extensions, (s) => strapiLike(config, schema, s), service);
      const guard = fromProject?.usersGuard;
      engine = engineOf(buildGraphqlSchema(config, schema, guard ? guardedUsers(users, guard) : users, service, upload, fromProject?.policy, plugin));
    })().catch((e: unknown) => {
      failure = e instanceof Error ? e.message : String(e);
      log.error('graphql: the extensions failed; GraphQL requests will answer 500', { module: gc.extensions || undefined, error: String((e as Error)?.stack ?? e) });
    });
  }
  const playground = config.env !== 'production' || gc.playgroundAlways;

  // Apollo Server (Strapi's) ends every answer it writes with a newline (its prettyJSONStringify).
  const toReply = (r: GqlResponse): Reply => ({ status: r.status, body: `${r.body}\n` });

  function readRequest(task: Task): Request | GqlResponse {
    if (task.method === 'GET') {
      const qs = new URLSearchParams(task.query);
      let variables: unknown;
      const v = qs.get('variables');
      if (v) {
        checkJsonDepth(v);
        try { variables = JSON.parse(v); } catch { return bad('`variables` is not valid JSON.'); }
      }
      return { query: qs.get('query') ?? undefined, variables, operationName: qs.get('operationName') ?? undefined };
    }
    const text = task.body ? Buffer.from(task.body).toString('utf8') : '';
    let body: unknown;
    checkJsonDepth(text);
    try { body = text ? JSON.parse(text) : undefined; } catch { return bad('POST body sent invalid JSON.'); }
    if (!body || typeof body !== 'object' || Array.isArray(body)) return bad('POST body missing, invalid Content-Type, or JSON object has no keys.');
    const b = body as Record<string, unknown>;
    return { query: b.query, variables: b.variables, operationName: b.operationName };
  }

  const endpoint = gc.endpoint.replace(/\/$/, '');
  return {
    name: 'graphql',
    claims: (path) => path === gc.endpoint || path === `${endpoint}/` || (playground && path.startsWith(`${endpoint}/assets/`)),
    async handle(ctx, task, caller) {
      const asset = assetName(gc.endpoint, task.path);
      if (asset !== null) {
        if (task.method !== 'GET' && task.method !== 'HEAD') return { status: 405, body: 'Method Not Allowed', contentType: 'text/plain; charset=utf-8' };
        return assetReply(asset) ?? { status: 404, body: 'Not Found', contentType: 'text/plain; charset=utf-8' };
      }
      if (!caller) throw unauthorized();
      if (task.method !== 'GET' && task.method !== 'POST') return { status: 405, body: 'Method Not Allowed', contentType: 'text/plain; charset=utf-8' };
      const accept = task.headers?.accept ?? '';
      if (task.method === 'GET' && playground && accept.includes('text/html') && !new URLSearchParams(task.query).has('query')) {
        return { status: 200, body: playgroundPage(gc.endpoint), contentType: 'text/html; charset=utf-8', headers: [['Content-Security-Policy', playgroundCsp(gc.endpoint)]] };
      }
      if (!engine) {
        await ready;
        if (!engine) {
          const message = config.env === 'production' ? 'Internal Server Error' : `The GraphQL schema could not be built: ${failure}`;
          return toReply(bad(message, 'INTERNAL_SERVER_ERROR', 500));
        }
      }
      const eng: GraphqlEngine = engine;
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
      const variables = (req.variables ?? undefined) as Record<string, unknown> | undefined;
      // The variables go in too: a document's cost (pages asked through them) is refused before validation.
      const prepared = eng.prepare(req.query, operationName, variables);
      if (!GraphqlEngine.isPrepared(prepared)) return toReply(prepared);
      if (task.method === 'GET' && prepared.operation.operation !== 'query') {
        return toReply(bad(`Can only perform a ${prepared.operation.operation} operation from a POST request.`, 'BAD_REQUEST', 405));
      }
      ctx.access = ctx.auth.access(caller);
      const reply = toReply(await eng.execute(prepared, contextOf(ctx, caller, task), variables));
      // Answers with errors are never kept: they may be passing (a database outage).
      if (reply.status === 200 && typeof reply.body === 'string' && reply.body.startsWith('{"data":') && cacheableOperation(eng.schema, prepared.operation)) reply.cacheable = true;
      return reply;
    },
  };
}

/**
 * The users-permissions plugin as GraphQL's account mutations reach it, when a project's strapi-server replaced
 * some of its actions: those answer 501 naming the file (Strapi's mutations would run the replacement), never
 * natively without it.
 */
function guardedUsers(users: Plugin, guard: (method: string, path: string) => string | null): Plugin {
  const check = (method: string, path: string) => {
    const why = guard(method, path);
    if (why) throw new ApiError(501, 'NotImplementedError', `This mutation's project code cannot run on this server (${why})`, {});
  };
  const out: Plugin & { emailConfirmation?: unknown } = { ...users, handle: (ctx, task, caller) => { check(task.method, task.path); return users.handle(ctx, task, caller); } };
  if (isUsersPlugin(users)) out.emailConfirmation = (ctx: RestContext, caller: Caller, confirmation: unknown) => { check('GET', '/api/auth/email-confirmation'); return users.emailConfirmation(ctx, caller, confirmation); };
  return out;
}
