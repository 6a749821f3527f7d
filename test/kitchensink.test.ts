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
