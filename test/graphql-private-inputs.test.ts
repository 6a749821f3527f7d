// Private attributes in GraphQL: Strapi 5.54 leaves them out of output types and filters but keeps them in
// input types (its input builder takes every writable attribute). Recorded live on Strapi's own GraphQL
// test models (tests/api/plugins/graphql/relations: person.privateName, person.privateCars): a mutation
// given `privateCars: []` answers 200 and unlinks the car.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';

const MODELS = fileURLToPath(new URL('./fixtures/models-private', import.meta.url));

let s: TestServer;
const gql = async (query: string, variables?: Record<string, unknown>) => {
  const r = await s.fetchJson('POST', '/graphql', { query, variables }, TOKEN);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.errors, undefined, r.text);
  return r.body.data;
};
before(async () => { s = await startTestServer({ modelsDir: MODELS, env: { GRAPHQL_SHAPE: 'v5' } }); });
after(async () => { await s?.stop(); });

test('a private attribute is in the input type only', async () => {
  const input = await gql('{ __type(name: "PersonInput") { inputFields { name } } }');
  assert.deepEqual(input.__type.inputFields.map((f: { name: string }) => f.name), ['name', 'privateName', 'privateCars', 'publishedAt', 'locale']);
  const type = await gql('{ __type(name: "Person") { fields { name } } }');
  assert.deepEqual(type.__type.fields.map((f: { name: string }) => f.name).filter((n: string) => n.startsWith('private')), []);
  const filters = await gql('{ __type(name: "PersonFiltersInput") { inputFields { name } } }');
  assert.deepEqual(filters.__type.inputFields.map((f: { name: string }) => f.name).filter((n: string) => n.startsWith('private')), []);
  const refused = await s.fetchJson('POST', '/graphql', { query: '{ people_connection { nodes { name privateCars } } }' }, TOKEN);
  assert.equal(refused.status, 400);
  assert.equal(refused.body.errors[0].message, 'Cannot query field "privateCars" on type "Person".');
});

test('mutations write private attributes: a private relation is linked and unlinked', async () => {
  const car = (await gql('mutation { createCar(data: { name: "Peugeot 508" }) { documentId } }')).createCar.documentId;
  const person = (await gql('mutation($data: PersonInput!) { createPerson(data: $data) { documentId name } }',
    { data: { name: 'Chuck Norris', privateName: 'Carlos', privateCars: [car] } })).createPerson;
  assert.equal(person.name, 'Chuck Norris');
  const [row] = await s.sql().unsafe('select private_name from people where document_id = $1', [person.documentId]);
  assert.equal(row.private_name, 'Carlos');
  const byOwner = '{ cars(filters: { person: { name: { eq: "Chuck Norris" } } }) { name person { name } } }';
  assert.deepEqual((await gql(byOwner)).cars, [{ name: 'Peugeot 508', person: { name: 'Chuck Norris' } }]);

  const updated = await gql('mutation($documentId: ID!, $data: PersonInput!) { updatePerson(documentId: $documentId, data: $data) { documentId } }',
    { documentId: person.documentId, data: { name: 'Check Norris Junior', privateCars: [] } });
  assert.deepEqual(updated.updatePerson, { documentId: person.documentId });
  assert.deepEqual((await gql('query($id: ID!) { car(documentId: $id) { person { documentId } } }', { id: car })).car, { person: null });
  assert.deepEqual((await gql(byOwner)).cars, []);
});
