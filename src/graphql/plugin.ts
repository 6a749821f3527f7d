// The GraphQL plugin: claims the endpoint, builds the Shadow CRUD schema from the models once per
// worker (with what the extensions module registered), and answers POST (JSON body) and GET (query
// string, behind Apollo's CSRF preflight rule); browsers get GraphiQL and its assets.
import { createHash } from 'node:crypto';
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
import { WeightedLru } from './weighted-lru.ts';
import { assetName, assetReply, playgroundCsp, playgroundPage } from './playground.ts';
import { ExtensionService, checkResolvers, loadExtensions, strapiLike, wrapResolvers, type PolicyResolver, type ProjectExtensions } from './extension.ts';
import { applyShadowCrud } from './shadow.ts';
import { listSizes, type MostOf } from './fan-outs.ts';
import { FILE_UID, LOCALE_UID, usersPermissionsTypes, USERS_UID, type PluginTypes } from '../plugin-types.ts';
import { graphqlLimits } from './context.ts';


const CSRF_MESSAGE = "This operation has been blocked as a potential Cross-Site Request Forgery (CSRF). Please either specify a 'content-type' header (with a type that is not one of application/x-www-form-urlencoded, multipart/form-data, text/plain) or provide a non-empty value for one of the following headers: x-apollo-operation-name, apollo-require-preflight\n";
const SIMPLE_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);

/** Estimated bytes each worker's prepared GraphQL operations may keep (src/graphql/weighted-lru.ts). */
const GRAPHQL_CACHE_BYTES = 128 * 1024 * 1024;

const bad = (message: string, code = 'BAD_REQUEST', status = 400): GqlResponse => ({ status, body: JSON.stringify({ errors: [requestError(message, code)] }) });

interface Request { query: unknown; variables: unknown; operationName: unknown; extensions: unknown }

/** Automatic persisted queries each worker keeps (Apollo Server's `cache: 'bounded'` holds them in memory too). */
const APQ_BYTES = 16 * 1024 * 1024;
const isRecord = (o: unknown): o is Record<string, unknown> => !!o && typeof o === 'object' && !Array.isArray(o);

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
export function graphqlPlugin(config: Config, fullSchema: Schema, users: Plugin, upload?: Plugin, project?: Promise<ProjectExtensions | null>, mostOf?: MostOf): Plugin {
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
    cost: { ...graphqlLimits(config), most: mostOf && listSizes(fullSchema, mostOf) },
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

  // Apollo Server 4's reading of a request (its runHttpQuery), its messages included.
  function readRequest(task: Task): Request | GqlResponse {
    if (task.method === 'GET') {
      const qs = new URLSearchParams(task.query);
      let refused: GqlResponse | null = null;
      const once = (name: string): string | undefined => {
        const values = qs.getAll(name);
        if (values.length > 1) refused ??= bad(`The '${name}' search parameter may only be specified once.`);
        return values[0];
      };
      const json = (name: string): Record<string, unknown> | undefined => {
        const v = once(name);
        if (v === undefined) return undefined;
        checkJsonDepth(v);
        let parsed: unknown;
        try { parsed = JSON.parse(v); } catch { refused ??= bad(`The ${name} search parameter contains invalid JSON.`); return undefined; }
        if (isRecord(parsed)) return parsed;
        refused ??= bad(`The ${name} search parameter should contain a JSON-encoded object.`);
        return undefined;
      };
      const fields = { query: once('query'), operationName: once('operationName'), variables: json('variables'), extensions: json('extensions') };
      return refused ?? fields;
    }
    const text = task.body ? Buffer.from(task.body).toString('utf8') : '';
    let body: unknown;
    checkJsonDepth(text);
    try { body = text ? JSON.parse(text) : undefined; } catch { return bad('POST body sent invalid JSON.'); }
    if (!isRecord(body) || Object.keys(body).length === 0) return bad('POST body missing, invalid Content-Type, or JSON object has no keys.');
    const b = body;
    if (b.query && typeof b.query !== 'string') return bad('GraphQL queries must be strings.');
    for (const k of ['variables', 'extensions'] as const) {
      if (typeof b[k] === 'string') return bad(`\`${k}\` in a POST body should be provided as an object, not a recursively JSON-encoded string.`);
      if (k in b && b[k] !== null && !isRecord(b[k])) return bad(`\`${k}\` in a POST body must be an object if provided.`);
    }
    if ('operationName' in b && b.operationName !== null && typeof b.operationName !== 'string') return bad('`operationName` in a POST body must be a string if provided.');
    return { query: typeof b.query === 'string' ? b.query : undefined, variables: isRecord(b.variables) ? b.variables : undefined, operationName: b.operationName, extensions: isRecord(b.extensions) ? b.extensions : undefined };
  }

  // Automatic persisted queries (Apollo Server's, on by default in Strapi's): a client sends a query's
  // sha256 alone and, told PersistedQueryNotFound, the query with it, which is then kept under the hash.
  const persisted = new WeightedLru<string>(100_000, APQ_BYTES);
  const persistedNotFound = (): Reply => ({
    status: 200, body: `${JSON.stringify({ errors: [requestError('PersistedQueryNotFound', 'PERSISTED_QUERY_NOT_FOUND')] })}\n`,
    headers: [['Cache-Control', 'private, no-cache, must-revalidate']],
  });

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
      let query = typeof req.query === 'string' && req.query !== '' ? req.query : undefined;
      const apq = isRecord(req.extensions) && req.extensions.persistedQuery ? req.extensions.persistedQuery as Record<string, unknown> : null;
      let register: string | null = null;
      if (apq) {
        if (apq.version !== 1) return toReply(bad('Unsupported persisted query version', 'INTERNAL_SERVER_ERROR'));
        const hash = String(apq.sha256Hash);
        if (query === undefined) {
          query = persisted.get(hash);
          if (query === undefined) return persistedNotFound();
        } else if (createHash('sha256').update(query).digest('hex') !== hash) {
          return toReply(bad('provided sha does not match query', 'INTERNAL_SERVER_ERROR'));
        } else register = hash;
      }
      if (query === undefined) return toReply(bad('GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.'));
      const operationName = typeof req.operationName === 'string' && req.operationName ? req.operationName : undefined;
      const variables = (req.variables ?? undefined) as Record<string, unknown> | undefined;
      // The variables go in too: a document's cost (pages asked through them) is refused before validation.
      const prepared = eng.prepare(query, operationName, variables);
      if (!GraphqlEngine.isPrepared(prepared)) return toReply(prepared);
      // Kept once it parsed and validated, as Apollo Server keeps it (after resolving the operation).
      if (register) persisted.set(register, query, query.length * 2 + 100);
      if (task.method === 'GET' && prepared.operation.operation !== 'query') {
        return toReply(bad(`Can only perform a ${prepared.operation.operation} operation from a POST request.`, 'BAD_REQUEST', 405));
      }
      ctx.access = ctx.auth.access(caller);
      const gctx = contextOf(ctx, caller, task);
      const reply = toReply(await eng.execute(prepared, gctx, variables));
      if (gctx.httpStatus && reply.status === 200) reply.status = gctx.httpStatus;
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
