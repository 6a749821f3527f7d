// Issue 8: the GraphQL extension service (shadowCRUD switches, use() with typeDefs/types/resolvers/
// plugins, resolversConfig auth/policies/middlewares), loaded from the module GRAPHQL_EXTENSIONS names.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { buildClientSchema, getIntrospectionQuery, isInputObjectType, isObjectType, isUnionType, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import { loadConfig, ConfigError } from '../config.ts';
import { loadModels } from '../src/models.ts';
import { usersPlugin } from '../src/users/plugin.ts';
import { graphqlPlugin } from '../src/graphql/plugin.ts';
import { ExtensionService } from '../src/graphql/extension.ts';
import { setLogLevel } from '../src/log.ts';
import type { RestContext } from '../src/rest/router.ts';
import { startTestServer, DEMO_MODELS, TOKEN, type TestServer, type JsonResponse } from './helpers.ts';

const EXTENSIONS = fileURLToPath(new URL('./fixtures/graphql-extensions.ts', import.meta.url));
const BROKEN = fileURLToPath(new URL('./fixtures/graphql-extensions-broken.ts', import.meta.url));
const READ_ONLY = 'R';

type Vars = Record<string, unknown>;

const env = (shape: 'v4' | 'v5') => ({
  GRAPHQL_SHAPE: shape,
  GRAPHQL_EXTENSIONS: EXTENSIONS,
  // authors and about are private: only the resolversConfig opens (some of) them.
  PUBLIC_PERMISSIONS: 'article:find,findOne;tag:find,findOne,create',
  API_TOKENS: `test:full-access:${TOKEN},ro:read-only:${READ_ONLY}`,
});

async function introspect(s: TestServer): Promise<GraphQLSchema> {
  const r = await s.fetchJson('POST', '/graphql', { query: getIntrospectionQuery() });
  assert.equal(r.status, 200, r.text);
  return buildClientSchema(r.body.data as IntrospectionQuery);
}

const fieldsOf = (sch: GraphQLSchema, name: string): string[] => {
  const t = sch.getType(name);
  assert.ok(t && (isObjectType(t) || isInputObjectType(t)), `${name} exists`);
  return Object.keys(t.getFields());
};

describe('graphql extension service: the getters', () => {
  test('content-type and field switches read back as Strapi names them', () => {
    const ext = new ExtensionService();
    const a = ext.shadowCRUD('api::article.article');
    assert.equal(a.isEnabled(), true);
    assert.equal(a.areQueriesEnabled(), true);
    assert.equal(a.isActionEnabled('find'), true);
    assert.equal(a.isActionEnabled('publish'), false, 'not an action');
    a.disableQueries().disableAction('create').disableActions(['update', 'delete']);
    const again = ext.shadowCRUD('api::article.article');
    assert.equal(again.areQueriesEnabled(), false);
    assert.equal(again.isQueriesEnabled(), false);
    assert.equal(again.areQueriesDisabled(), true);
    assert.equal(again.areMutationsEnabled(), true);
    assert.equal(again.isMutationsEnabled(), true);
    assert.equal(again.isActionDisabled('create'), true);
    assert.equal(again.isActionEnabled('update'), false);
    assert.equal(again.isActionEnabled('findOne'), true, 'disableQueries does not list actions');
    again.disableMutations();
    assert.equal(again.areMutationsDisabled(), true);
    assert.equal(again.isEnabled(), true);
    assert.equal(again.disable().isDisabled(), true);

    const f = ext.shadowCRUD('api::tag.tag').field('name');
    assert.deepEqual([f.isEnabled(), f.hasInputEnabled(), f.hasOutputEnabled(), f.hasFiltersEnabled()], [true, true, true, true]);
    f.disableOutput().disableFilters();
    const g = ext.shadowCRUD('api::tag.tag').field('name');
    assert.deepEqual([g.isEnabled(), g.hasInputEnabled(), g.hasOutputEnabled(), g.hasFiltersEnabled(), g.hasFiltersEnabeld()], [true, true, false, false, false]);
    g.disableInput();
    assert.equal(g.hasInputEnabled(), false);
    assert.equal(g.disable().isDisabled(), true);
    assert.equal(ext.shadowCRUD('api::tag.tag').isEnabled(), true, 'a field switch leaves its type alone');
  });

  test('use() takes objects and functions, later registrations win', () => {
    const ext = new ExtensionService();
    const chained = ext.use({ typeDefs: 'type A { a: Int }', resolversConfig: { 'Query.a': { auth: false } } })
      .use(({ nexus }) => ({ typeDefs: ['type B { b: Int }'], resolversConfig: { 'Query.a': { auth: { scope: ['x.find'] } } }, resolvers: { A: { a: () => (nexus === undefined ? 1 : 0) } } }));
    assert.equal(chained, ext);
    const strapi = { config: { get: () => undefined }, contentTypes: {}, components: {}, log: console as never, plugin: () => ({ service: () => undefined }) };
    const gen = ext.generate(strapi);
    assert.deepEqual(gen.typeDefs, ['type A { a: Int }', 'type B { b: Int }']);
    assert.deepEqual(gen.resolversConfig, { 'Query.a': { auth: { scope: ['x.find'] } } });
    assert.equal(typeof (gen.resolvers.A as Record<string, unknown>).a, 'function');
    assert.throws(() => new ExtensionService().use({ plugins: [{ name: 'nexus-plugin' } as never] }).generate(strapi), /nexus plugins are not supported/);
    assert.throws(() => new ExtensionService().use({ types: [{ name: 'NexusType', config: {} } as never] }).generate(strapi), /nexus types are not supported/);
  });

  test('GRAPHQL_EXTENSIONS must name a file', () => {
    assert.throws(() => loadConfig({ GRAPHQL_EXTENSIONS: '/nonexistent/extensions.ts' }, []), (e: unknown) => e instanceof ConfigError && /GRAPHQL_EXTENSIONS names no file/.test(e.message));
    assert.equal(loadConfig({ GRAPHQL_EXTENSIONS: EXTENSIONS }, []).graphql.extensions, EXTENSIONS);
    assert.equal(loadConfig({}, []).graphql.extensions, '');
  });

  test('a module whose registrations do not fit the schema: GraphQL answers 500 naming the mistake', async (t) => {
    setLogLevel('silent');
    t.after(() => setLogLevel('warn'));
    const config = loadConfig({ GRAPHQL_EXTENSIONS: BROKEN, MODELS_DIR: DEMO_MODELS, LOG_LEVEL: 'silent' }, []);
    const schema = loadModels(config.modelsDir, config.i18n);
    const plugin = graphqlPlugin(config, schema, usersPlugin(config, schema));
    const reply = await plugin.handle({} as RestContext, {
      method: 'POST', path: '/graphql', query: '', contentType: 'application/json', body: new TextEncoder().encode('{"query":"{ __typename }"}'),
    }, { kind: 'public', grant: { all: false, perms: new Set() } });
    assert.equal(reply.status, 500);
    const body = JSON.parse(String(reply.body)) as { errors: Array<{ message: string; extensions: { code: string } }> };
    assert.match(body.errors[0].message, /Query\.nope is not in the schema/);
    assert.equal(body.errors[0].extensions.code, 'INTERNAL_SERVER_ERROR');
  });
});

describe('graphql extension service (v5 shape)', () => {
  let s: TestServer;
  const gql = (query: string, variables?: Vars, token: string | null = null): Promise<JsonResponse> => s.fetchJson('POST', '/graphql', { query, variables }, token);
  let sch: GraphQLSchema;

  before(async () => {
    s = await startTestServer({ env: env('v5') });
    const post = async (path: string, data: Vars) => {
      const r = await s.fetchJson('POST', `/api/${path}`, { data }, TOKEN);
      assert.equal(r.status, 201, r.text);
      return r.body.data.documentId as string;
    };
    const ada = await post('authors', { name: 'Ada' });
    const sql = await post('tags', { name: 'SQL' });
    await post('articles', { title: 'Indexes', slug: 'indexes', views: 10, kind: 'tutorial', description: 'd', author: ada, tags: [sql] });
    await post('articles', { title: 'Streams', slug: 'streams', views: 20, author: ada });
    await s.fetchJson('PUT', '/api/about', { data: { title: 'About us' } }, TOKEN);
    sch = await introspect(s);
  });
  after(() => s.stop());

  test('shadowCRUD switches prune the schema: types, actions, fields (output, input, filters) and what names them', () => {
    const query = fieldsOf(sch, 'Query');
    const mutation = fieldsOf(sch, 'Mutation');
    // disable(): no Category types, queries, mutations, relation fields, filters, inputs or union member.
    assert.equal(sch.getType('Category'), undefined);
    assert.equal(sch.getType('CategoryFiltersInput'), undefined);
    for (const f of ['category', 'categories', 'categories_connection']) assert.ok(!query.includes(f), `Query.${f}`);
    for (const f of ['createCategory', 'updateCategory', 'deleteCategory']) assert.ok(!mutation.includes(f), `Mutation.${f}`);
    assert.ok(!fieldsOf(sch, 'Article').includes('category'));
    assert.ok(!fieldsOf(sch, 'ArticleFiltersInput').includes('category'));
    assert.ok(!fieldsOf(sch, 'ArticleInput').includes('category'));
    const morph = sch.getType('GenericMorph');
    assert.ok(isUnionType(morph) && !morph.getTypes().some((t) => t.name === 'Category') && morph.getTypes().some((t) => t.name === 'Article'));
    // disableQueries / disableMutations / disableAction(s)
    assert.ok(!query.includes('global') && mutation.includes('updateGlobal') && mutation.includes('deleteGlobal'));
    assert.ok(query.includes('about') && !mutation.includes('updateAbout') && !mutation.includes('deleteAbout'));
    assert.ok(query.includes('tags') && query.includes('tag') && mutation.includes('createTag') && !mutation.includes('updateTag') && !mutation.includes('deleteTag'));
    assert.ok(query.includes('authors') && query.includes('authors_connection') && !query.includes('author'));
    // per field
    const article = fieldsOf(sch, 'Article');
    assert.ok(!article.includes('views') && !article.includes('description') && article.includes('slug') && article.includes('kind') && article.includes('titleLength'));
    const input = fieldsOf(sch, 'ArticleInput');
    assert.ok(input.includes('views') && !input.includes('slug') && !input.includes('description') && input.includes('kind'));
    const filters = fieldsOf(sch, 'ArticleFiltersInput');
    assert.ok(filters.includes('views') && filters.includes('slug') && !filters.includes('kind') && !filters.includes('description'));
    assert.ok(!fieldsOf(sch, 'ComponentSharedSeo').includes('keywords') && !fieldsOf(sch, 'ComponentSharedSeoInput').includes('keywords'));
    assert.ok(fieldsOf(sch, 'ComponentSharedSeo').includes('metaTitle'));
    // the schema plugin ran
    assert.equal(sch.getQueryType()!.getFields().hello.description, 'Says hello (set by a schema plugin)');
  });

  test('pruned fields are refused; what is left still reads in one statement', async () => {
    const r = await gql('{ articles(filters: { views: { gt: 15 } }, sort: "title:asc") { title slug titleLength author { name } } }');
    assert.equal(r.status, 200, r.text);
    // authors are private: left out of what the public reads (Query.authors' auth: false opens only that field).
    assert.deepEqual(r.body, { data: { articles: [{ title: 'Streams', slug: 'streams', titleLength: 7, author: null }] } });
    assert.equal(r.headers['x-sql-statements'], '1');
    const withToken = await gql('{ articles(filters: { views: { gt: 15 } }) { author { name } } }', undefined, TOKEN);
    assert.deepEqual(withToken.body, { data: { articles: [{ author: { name: 'ADA' } }] } });
    for (const q of ['{ articles { views } }', '{ articles { category { name } } }', '{ articles(filters: { kind: { eq: "news" } }) { title } }', '{ categories { name } }']) {
      const bad = await gql(q);
      assert.equal(bad.status, 400, q);
      assert.equal(bad.body.errors[0].extensions.code, 'GRAPHQL_VALIDATION_FAILED', q);
    }
    const noSlug = await gql('mutation { createArticle(data: { title: "x", slug: "x" }) { title } }', undefined, TOKEN);
    assert.equal(noSlug.status, 400);
    const created = await gql('mutation { createArticle(data: { title: "Written", views: 3 }) { title titleLength } }', undefined, TOKEN);
    assert.deepEqual(created.body, { data: { createArticle: { title: 'Written', titleLength: 7 } } });
  });

  test('resolversConfig auth: false opens a private type; scope requires the permission; custom root fields are private by default', async () => {
    const hello = await gql('{ hello(name: "you") }');
    assert.deepEqual(hello.body, { data: { hello: 'Hello you' } });
    // authors are private (PUBLIC_PERMISSIONS), Query.authors has auth: false, authors_connection keeps its permission.
    const authors = await gql('{ authors { name } }');
    assert.deepEqual(authors.body, { data: { authors: [{ name: 'ADA' }] } }, 'Author.name middleware upper-cases');
    const connection = await gql('{ authors_connection { nodes { name } } }');
    assert.equal(connection.body.errors[0].extensions.code, 'FORBIDDEN');
    // a custom root field without configuration: logged-in users and full-access tokens only.
    const secret = await gql('{ secret }');
    assert.equal(secret.body.errors[0].extensions.code, 'FORBIDDEN');
    assert.deepEqual((await gql('{ secret }', undefined, TOKEN)).body, { data: { secret: 'classified' } });
    assert.equal((await gql('{ secret }', undefined, READ_ONLY)).body.errors[0].extensions.code, 'FORBIDDEN');
    // auth.scope: the caller needs api::author.author.create.
    assert.equal((await gql('{ scoped }')).body.errors[0].extensions.code, 'FORBIDDEN');
    assert.equal((await gql('{ scoped }', undefined, READ_ONLY)).body.errors[0].extensions.code, 'FORBIDDEN');
    assert.deepEqual((await gql('{ scoped }', undefined, TOKEN)).body, { data: { scoped: 'in scope' } });
    // A resolver replacing a Shadow CRUD one keeps the type's permission (about is private).
    const about = await gql('{ about { title } }');
    assert.deepEqual(about.body.errors[0].extensions, { code: 'FORBIDDEN', error: { name: 'ForbiddenError', message: 'Forbidden access', details: {} } });
    assert.deepEqual((await gql('{ about { title } }', undefined, TOKEN)).body, { data: { about: { title: 'overridden' } } });
  });

  test('policies: false refuses with a PolicyError (FORBIDDEN), async policies and thrown errors too', async () => {
    assert.deepEqual((await gql('{ guarded(pass: true) }')).body, { data: { guarded: 'passed' } });
    const refused = await gql('{ guarded(pass: false) }');
    assert.equal(refused.status, 200);
    assert.deepEqual(refused.body, {
      errors: [{ message: 'Policy Failed', path: ['guarded'], extensions: { code: 'FORBIDDEN', error: { name: 'PolicyError', message: 'Policy Failed', details: {} } } }],
      data: null,
    });
    assert.deepEqual((await gql('mutation { createTag(data: { name: "fine" }) { name } }')).body, { data: { createTag: { name: 'fine' } } });
    const denied = await gql('mutation { createTag(data: { name: "forbidden" }) { name } }');
    assert.deepEqual(denied.body.data, { createTag: null });
    assert.equal(denied.body.errors[0].extensions.error.name, 'PolicyError');
    const thrown = await gql('mutation { createTag(data: { name: "thrown" }) { name } }');
    assert.deepEqual(thrown.body.errors[0].extensions, { code: 'FORBIDDEN', error: { name: 'PolicyError', message: 'Tag names may not be "thrown"', details: { field: 'name' } } });
    const tags = await gql('{ tags(sort: "name:asc") { name } }');
    assert.deepEqual(tags.body.data.tags.map((t: { name: string }) => t.name).sort(), ['SQL', 'fine'], 'refused mutations wrote nothing');
  });

  test('middlewares run in order, then the policies, then the resolver', async () => {
    await gql('{ extensionLog }');
    const r = await gql('{ tags(sort: "name:asc") { name } }');
    assert.equal(r.status, 200, r.text);
    const log = await gql('{ extensionLog }');
    assert.deepEqual(log.body.data.extensionLog, ['first middleware', 'second middleware', 'policy (graphql)']);
  });

  test('graphql-js types, the function form of use() and strapi/nexus', async () => {
    const r = await gql('{ mood(m: HAPPY) ping { pong } modelCount nexusMissing }');
    assert.deepEqual(r.body, { data: { mood: 'happy', ping: { pong: 'pong' }, modelCount: 6, nexusMissing: true } });
  });
});

describe('graphql extension service (v4 shape)', () => {
  let s: TestServer;
  before(async () => {
    // Worker threads this time: they load the (TypeScript) module through tsx's require hook.
    s = await startTestServer({ env: { ...env('v4'), WORKERS: '2' } });
    const r = await s.fetchJson('POST', '/api/articles', { data: { title: 'Indexes', slug: 'indexes', views: 10 } }, TOKEN);
    assert.equal(r.status, 201, r.text);
  });
  after(() => s.stop());

  test('the same switches in v4 names; custom fields under attributes', async () => {
    const sch = await introspect(s);
    const query = fieldsOf(sch, 'Query');
    const mutation = fieldsOf(sch, 'Mutation');
    for (const t of ['Category', 'CategoryEntity', 'CategoryEntityResponse', 'CategoryEntityResponseCollection', 'CategoryInput']) assert.equal(sch.getType(t), undefined, t);
    assert.ok(!query.includes('categories') && !query.includes('category') && !query.includes('global') && !query.includes('author'));
    assert.ok(query.includes('authors') && query.includes('about') && query.includes('hello'));
    assert.ok(mutation.includes('createTag') && !mutation.includes('updateTag') && !mutation.includes('updateAbout') && mutation.includes('createArticleLocalization'));
    assert.ok(!fieldsOf(sch, 'Article').includes('views') && !fieldsOf(sch, 'Article').includes('category'));
    const r = await s.fetchJson('POST', '/graphql', { query: '{ articles(filters: { views: { eq: 10 } }) { data { attributes { title titleLength } } } hello }' });
    assert.deepEqual(r.body, { data: { articles: { data: [{ attributes: { title: 'Indexes', titleLength: 7 } }] }, hello: 'Hello world' } });
    const about = await s.fetchJson('POST', '/graphql', { query: '{ about { data { attributes { title } } } }' }, TOKEN);
    assert.deepEqual(about.body, { data: { about: { data: { attributes: { title: 'overridden' } } } } });
  });
});
