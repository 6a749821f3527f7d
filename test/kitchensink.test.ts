// The kitchensink model set (test/fixtures/models-kitchensink: every attribute type, every relation
// kind both ways, morph relations, relations to admin users, components three levels deep with
// relations, a localized single type) against what a live Strapi 5.54 answered to the same requests
// (test/fixtures/kitchensink: steps.ts, recorded by record.ts into cases.jsonl), and the schema this
// server creates for it against the one Strapi made.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { TOKEN } from './helpers.ts';
import { recordedSuite } from './recorded.ts';
import { STEPS } from './fixtures/kitchensink/steps.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const server = recordedSuite('kitchensink', here('./fixtures/models-kitchensink'), here('./fixtures/kitchensink'), STEPS);

// Strapi 5.54's GraphQL fails on every morph field ("Missing schema in validateQuery", checked live):
// here they answer as a client of a GenericMorph union expects, each item resolving to its own type.
test('GraphQL: morph relations are GenericMorph unions resolved by their type', async () => {
  const s = server();
  const r = await s.fetchJson('POST', '/graphql', {
    query: `{
      boards(sort: "name") { name items { __typename ... on Tag { name } ... on Article { title locale } } }
      comments(sort: "body") { body subject { __typename ... on Tag { name } ...art } }
    }
    fragment art on Article { title }`,
  }, TOKEN);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body, {
    data: {
      boards: [
        { name: 'b1', items: [{ __typename: 'Article', title: 'a1', locale: 'en' }, { __typename: 'Tag', name: 't3' }, { __typename: 'Tag', name: 't2' }] },
        { name: 'b2', items: [{ __typename: 'Article', title: 'a2', locale: 'en' }, { __typename: 'Tag', name: 't3' }] },
      ],
      comments: [
        { body: 'c1', subject: { __typename: 'Tag', name: 't1' } },
        { body: 'c2', subject: { __typename: 'Article', title: 'a1' } },
        { body: 'c3', subject: { __typename: 'Tag', name: 't1' } },
        { body: 'c4', subject: null },
      ],
    },
  });
  const schema = await s.fetchJson('POST', '/graphql', { query: '{ t: __type(name: "Tag") { fields { name } } b: __type(name: "BoardInput") { inputFields { name } } }' }, TOKEN);
  const names = (x: { name: string }[]) => x.map((f) => f.name);
  assert.ok(!names(schema.body.data.t.fields).includes('comments'), 'morphMany is not a GraphQL field, as Strapi');
  assert.ok(!names(schema.body.data.b.inputFields).includes('items') && !names(schema.body.data.b.inputFields).includes('owner'), 'no morph or admin relation in inputs');
});

// Strapi 5.54's populate validator (@strapi/utils validate/validators.js, validateMorphLikeNestedPopulate):
// a morphTo side's nested populate may only be `*`; the `on` fragments shape it.
test('a morphTo side refuses a nested populate other than *', async () => {
  const s = server();
  const r = await s.fetchJson('GET', '/api/boards?populate[items][populate][comment]=true', undefined, TOKEN);
  assert.equal(r.status, 400, r.text);
  assert.deepEqual(r.body.error, { status: 400, name: 'ValidationError', message: 'Invalid key populate at items', details: { key: 'populate', path: 'items', source: 'query', param: 'populate' } });
  assert.equal((await s.fetchJson('GET', '/api/boards?populate[items][populate]=*', undefined, TOKEN)).status, 200);
  // Fields inside a morph populate are validated as a query of their own, reported under `populate`.
  for (const q of ['/api/tags?populate[comments][fields][0]=nope', '/api/boards?populate[items][on][api::tag.tag][fields][0]=nope']) {
    const e = await s.fetchJson('GET', q, undefined, TOKEN);
    assert.equal(e.status, 400, q);
    assert.deepEqual(e.body.error.details, { key: 'nope', path: null, source: 'query', param: 'populate' }, q);
  }
});

// Checked live on Strapi 5.54 (bench/schema-fuzz.ts on these models): a morph side kept in the comment's own
// columns (target_id, target_type) is matched through them, which Strapi's select leaves out when `fields`
// names what a level answers; and its output sanitizer does not go into a morphOne/morphMany value.
test('REST: a morph kept in columns answers nothing where `fields` leaves the columns out; rows under a morphMany keep their locale', async () => {
  const s = server();
  const get = async (path: string) => {
    const r = await s.fetchJson('GET', path, undefined, TOKEN);
    assert.equal(r.status, 200, `${path}: ${r.text.slice(0, 300)}`);
    return r.body.data as Array<Record<string, any>>;
  };
  // The morphTo side: read whole, then with `fields` (its type rows' own filters still parsed, never run).
  assert.deepEqual((await get('/api/comments?sort=body&populate[subject]=true')).map((c) => c.subject?.__type ?? null),
    ['api::tag.tag', 'api::article.article', 'api::tag.tag', null]);
  for (const q of ['fields[0]=body&populate[subject]=true', 'fields[0]=body&populate[subject][on][api::tag.tag][populate][comments][filters][body][$eq]=c1']) {
    assert.deepEqual((await get(`/api/comments?sort=body&${q}`)).map((c) => c.subject), [null, null, null, null], q);
  }
  // The morphMany side: its rows, with `locale` though the comment type has none; `fields` there: none.
  const t1 = (await get('/api/tags?filters[name]=t1&populate[comments][sort]=body')).at(0)!;
  assert.deepEqual(t1.comments.map((c: Record<string, unknown>) => [c.body, c.locale]), [['c1', null], ['c3', null]]);
  for (const q of ['populate[comments][fields][0]=body', 'populate[comments][fields][0]=body&populate[comments][filters][body][$ne]=x']) {
    assert.deepEqual((await get(`/api/tags?filters[name]=t1&${q}`)).at(0)!.comments, [], q);
  }
  assert.deepEqual(Object.keys((await get('/api/tags?filters[name]=t1&populate[comments][fields]=*')).at(0)!.comments[0]).at(-1), 'locale');
  // A comment's subject rendered under the tag's comments keeps the tag's locale column too.
  const nested = (await get('/api/tags?filters[name]=t1&populate[comments][sort]=body&populate[comments][populate][subject]=true')).at(0)!;
  assert.deepEqual(Object.keys(nested.comments[0].subject), ['id', 'documentId', 'name', 'createdAt', 'updatedAt', 'publishedAt', 'locale', '__type']);
  assert.equal(nested.comments[0].subject.locale, null);
});
