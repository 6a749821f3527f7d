// users-permissions' user routes read as Strapi's database query does: a user's populated links to a
// draft & publish type answer every linked row, drafts included (Strapi 5.54, checked live: a user
// connected to a document with a published row and a newer draft shows both).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';

const MODELS = fileURLToPath(new URL('./fixtures/models-user-links', import.meta.url));
let s: TestServer;
before(async () => { s = await startTestServer({ modelsDir: MODELS }); });
after(() => s.stop());

test("a user's links to both versions of a document are both answered", async () => {
  const optIn = await s.fetchJson('POST', '/api/opt-ins', { data: { caption: 'Drafted Opt-In' } }, TOKEN);
  assert.equal(optIn.status, 201, optIn.text);
  const doc = optIn.body.data.documentId;
  const draft = await s.fetchJson('PUT', `/api/opt-ins/${doc}?status=draft`, { data: { caption: 'Drafted Opt-In Modified' } }, TOKEN);
  assert.equal(draft.status, 200, draft.text);
  const roles = await s.fetchJson('GET', '/api/users-permissions/roles', undefined, TOKEN);
  const authenticated = roles.body.roles.find((r: { type: string }) => r.type === 'authenticated');
  const user = await s.fetchJson('POST', '/api/users', { username: 'opter', email: 'opter@example.test', password: 'secret-1', role: authenticated.id }, TOKEN);
  assert.equal(user.status, 201, user.text);
  const put = await s.fetchJson('PUT', `/api/users/${user.body.id}`, { optIns: { connect: [doc] } }, TOKEN);
  assert.equal(put.status, 200, put.text);
  const back = await s.fetchJson('GET', `/api/users/${user.body.id}?populate=optIns`, undefined, TOKEN);
  assert.deepEqual(back.body.optIns.map((o: { caption: string; publishedAt: string | null }) => [o.caption, o.publishedAt === null]), [
    ['Drafted Opt-In Modified', true], ['Drafted Opt-In', false],
  ]);
  // The content API's own read of the opt-in still shows its published version only.
  const pub = await s.fetchJson('GET', `/api/opt-ins/${doc}?populate=user`, undefined, TOKEN);
  assert.equal(pub.body.data.caption, 'Drafted Opt-In');
});
