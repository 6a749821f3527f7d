// Automatic persisted queries, as Apollo Server 4 (Strapi 5.54's, where they are on by default) answers
// them: a hash alone is PersistedQueryNotFound until the query was sent with it; a query whose hash does
// not match, or another protocol version, is refused; GET works the same way (CDN-cacheable reads).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer({ env: { GRAPHQL_SHAPE: 'v5' } });
  assert.equal((await s.fetchJson('POST', '/api/tags', { data: { name: 'persisted' } }, TOKEN)).status, 201);
});
after(async () => { await s?.stop(); });

const QUERY = 'query Tags($n: String) { tags(filters: { name: { eq: $n } }) { name } }';
const HASH = createHash('sha256').update(QUERY).digest('hex');
const post = (body: unknown) => s.fetchJson('POST', '/graphql', body, TOKEN);
const apq = (sha256Hash: string, version = 1) => ({ persistedQuery: { version, sha256Hash } });

test('a hash alone is unknown until the query is sent with it; then the hash alone runs it', async () => {
  const miss = await post({ extensions: apq(HASH), variables: { n: 'persisted' } });
  assert.equal(miss.status, 200);
  assert.equal(miss.text, '{"errors":[{"message":"PersistedQueryNotFound","extensions":{"code":"PERSISTED_QUERY_NOT_FOUND"}}]}\n');
  assert.equal(miss.headers['cache-control'], 'private, no-cache, must-revalidate');
  const register = await post({ query: QUERY, extensions: apq(HASH), variables: { n: 'persisted' } });
  assert.deepEqual(register.body, { data: { tags: [{ name: 'persisted' }] } });
  const hit = await post({ extensions: apq(HASH), variables: { n: 'persisted' } });
  assert.deepEqual(hit.body, { data: { tags: [{ name: 'persisted' }] } });
  const viaGet = await s.fetchJson('GET', `/graphql?extensions=${encodeURIComponent(JSON.stringify(apq(HASH)))}&variables=${encodeURIComponent('{"n":"persisted"}')}`,
    undefined, TOKEN, { 'apollo-require-preflight': 'true' });
  assert.deepEqual(viaGet.body, { data: { tags: [{ name: 'persisted' }] } });
});

test('a wrong hash, another version, an invalid query: refused, and nothing kept', async () => {
  const wrong = await post({ query: QUERY, extensions: apq('0'.repeat(64)) });
  assert.equal(wrong.status, 400);
  assert.equal(wrong.body.errors[0].message, 'provided sha does not match query');
  const v2 = await post({ query: QUERY, extensions: apq(HASH, 2) });
  assert.equal(v2.status, 400);
  assert.equal(v2.body.errors[0].message, 'Unsupported persisted query version');
  const bad = '{ nope }';
  const badHash = createHash('sha256').update(bad).digest('hex');
  assert.equal((await post({ query: bad, extensions: apq(badHash) })).status, 400);
  assert.equal((await post({ extensions: apq(badHash) })).body.errors[0].message, 'PersistedQueryNotFound');
  const asString = await post({ query: QUERY, extensions: JSON.stringify(apq(HASH)) });
  assert.equal(asString.body.errors[0].message, '`extensions` in a POST body should be provided as an object, not a recursively JSON-encoded string.');
});
