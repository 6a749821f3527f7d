// GraphQL's Shadow CRUD with document service middlewares: the operations both servers get (Strapi 5's
// flat shape with v4CompatibilityMode's aliases: this server's GRAPHQL_SHAPE=v5), run against the project of
// ./doc-middlewares-ops.ts (its middleware logs every api:: context, adds a filter to the tags' findMany,
// sets an article's description on create, changes an article's findOne result, refuses a tag named
// "forbidden"). Recorded from a live Strapi 5.54 by test/fixtures/doc-middlewares/record.ts.
import type { Call } from './webhooks-ops.ts';
import type { MwOp } from './doc-middlewares-ops.ts';

const gql = (call: Call, query: string, variables: Record<string, unknown> = {}) => call('POST', '/graphql', { query, variables });
const keep = (key: string, field: string, r: { status: number; body: any }, s: Record<string, any>) => { s[key] = r.body?.data?.[field]?.documentId; return r; };

export const GQL_OPS: MwOp[] = [
  { name: 'gql: create a tag', async run(call, s) { return keep('gAlpha', 'createTag', await gql(call, 'mutation { createTag(data: { name: "G Alpha" }) { documentId name } }'), s); } },
  { name: 'gql: create a hidden tag', async run(call, s) { return keep('gHidden', 'createTag', await gql(call, 'mutation { createTag(data: { name: "g hidden" }) { documentId name articles { title } } }'), s); } },
  { name: 'gql: list tags (the middleware adds a filter)', run: (call) => gql(call, '{ tags(sort: "name:asc") { documentId name } }') },
  { name: 'gql: tags_connection with filters, a page and pageInfo', run: (call) => gql(call, '{ tags_connection(filters: { name: { startsWith: "G" } }, pagination: { page: 1, pageSize: 5 }, sort: ["name:desc"]) { nodes { name } pageInfo { total page pageSize pageCount } } }') },
  { name: 'gql: tags_connection v4 aliases (data, meta)', run: (call) => gql(call, '{ tags_connection(pagination: { start: 0, limit: 1 }) { data { attributes { name } } meta { pagination { total pageSize } } } }') },
  { name: 'gql: tags_connection without pageInfo (no count)', run: (call) => gql(call, '{ tags_connection(sort: "name:asc") { nodes { name } } }') },
  { name: 'gql: one tag', run: (call, s) => gql(call, 'query($id: ID!) { tag(documentId: $id) { name } }', { id: s.gAlpha }) },
  { name: 'gql: one hidden tag', run: (call, s) => gql(call, 'query($id: ID!) { tag(documentId: $id) { name } }', { id: s.gHidden }) },
  { name: 'gql: a missing tag', run: (call) => gql(call, '{ tag(documentId: "nosuchdocumentid00000000") { name } }') },
  { name: 'gql: update a tag', run: (call, s) => gql(call, 'mutation($id: ID!) { updateTag(documentId: $id, data: { name: "G Alpha 2" }) { name } }', { id: s.gAlpha }) },
  { name: 'gql: an update the middleware refuses', run: (call, s) => gql(call, 'mutation($id: ID!) { updateTag(documentId: $id, data: { name: "forbidden" }) { name } }', { id: s.gAlpha }) },
  { name: 'gql: create an article with both tags (the middleware sets a field)', async run(call, s) {
    return keep('gA', 'createArticle', await gql(call, 'mutation($tags: [ID]) { createArticle(data: { title: "G mw", slug: "g-mw", views: 2, tags: $tags }) { documentId title description views tags(sort: "name:asc") { name } } }', { tags: [s.gAlpha, s.gHidden] }), s);
  } },
  { name: 'gql: create a draft article', async run(call, s) {
    return keep('gD', 'createArticle', await gql(call, 'mutation { createArticle(status: DRAFT, data: { title: "G draft", slug: "g-draft" }) { documentId title publishedAt } }'), s);
  } },
  { name: 'gql: one article (the middleware changes the result), nested tags from the database', run: (call, s) => gql(call, 'query($id: ID!) { article(documentId: $id) { title description tags(sort: "name:asc") { name } tags_connection { nodes { name } } } }', { id: s.gA }) },
  { name: 'gql: list articles with nested tags', run: (call) => gql(call, '{ articles(filters: { slug: { startsWith: "g-" } }, sort: "title:asc") { title tags(sort: "name:asc") { name } } }') },
  { name: 'gql: list drafts in a locale', run: (call) => gql(call, '{ articles(status: DRAFT, locale: "en", filters: { slug: { startsWith: "g-" } }, sort: "title:asc") { title publishedAt } }') },
  { name: 'gql: update an article', run: (call, s) => gql(call, 'mutation($id: ID!) { updateArticle(documentId: $id, data: { title: "G mw changed" }) { title description } }', { id: s.gA }) },
  { name: 'gql: delete an article', run: (call, s) => gql(call, 'mutation($id: ID!) { deleteArticle(documentId: $id) { documentId } }', { id: s.gD }) },
  { name: 'gql: delete the hidden tag', run: (call, s) => gql(call, 'mutation($id: ID!) { deleteTag(documentId: $id) { documentId } }', { id: s.gHidden }) },
  { name: 'gql: the single type, set', run: (call) => gql(call, 'mutation { updateAbout(data: { title: "G about" }) { title } }') },
  { name: 'gql: the single type, set again (found by the database, then updated)', run: (call) => gql(call, 'mutation { updateAbout(status: DRAFT, data: { title: "G about 2" }) { title publishedAt } }') },
  { name: 'gql: the single type, read', run: (call) => gql(call, '{ about { title } }') },
  { name: 'gql: the single type, deleted', run: (call) => gql(call, 'mutation { deleteAbout { documentId } }') },
];
