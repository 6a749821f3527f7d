// `options.populateCreatorFields`: createdBy/updatedBy answer as relations to admin users, for every
// caller, in populate, filters and sort; an admin user shows its public fields only (Strapi 5.54's
// answers to its own sort/validate tests' scenarios, recorded by a differential run: key order included).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startTestServer, created, TOKEN, type TestServer } from './helpers.ts';

const MODELS = fileURLToPath(new URL('./fixtures/models-creators', import.meta.url));
const ADMIN_KEYS = ['id', 'documentId', 'firstname', 'lastname', 'username', 'preferedLanguage', 'createdAt', 'updatedAt', 'publishedAt'];

describe('creator fields (populateCreatorFields)', () => {
  let s: TestServer;
  const get = (path: string, token: string | null = null) => s.fetchJson('GET', path, undefined, token);

  before(async () => {
    s = await startTestServer({ modelsDir: MODELS });
    const topic = await created(s, '/api/topics', { name: 'T' });
    await created(s, '/api/notes', { title: 'with creator', topics: [topic.documentId] });
    await created(s, '/api/notes', { title: 'without' });
    const sql = s.sql();
    await sql`insert into admin_users (document_id, firstname, lastname, username, email, password, is_active, blocked, prefered_language, created_at, updated_at, published_at)
      values ('adminadminadminadminadmi', 'Admin', 'User', 'admin', 'admin@example.com', 'hash', true, false, 'en', now(), now(), now())`;
    await sql`update notes set created_by_id = (select id from admin_users), updated_by_id = (select id from admin_users) where title = 'with creator'`;
  });
  after(() => s.stop());

  test('populated without fields: after publishedAt, null without a creator, public fields only, for the public too', async () => {
    for (const token of [null, TOKEN]) {
      const r = await get('/api/notes?populate=createdBy&sort=title', token);
      assert.equal(r.status, 200, r.text);
      const [withOne, without] = r.body.data;
      assert.deepEqual(Object.keys(withOne), ['id', 'documentId', 'title', 'createdAt', 'updatedAt', 'publishedAt', 'createdBy']);
      assert.deepEqual(Object.keys(withOne.createdBy), ADMIN_KEYS);
      assert.equal(withOne.createdBy.firstname, 'Admin');
      assert.equal(without.createdBy, null);
    }
    const both = await get('/api/notes?populate=*&sort=title');
    assert.deepEqual(Object.keys(both.body.data[0]), ['id', 'documentId', 'title', 'createdAt', 'updatedAt', 'publishedAt', 'createdBy', 'updatedBy', 'topics']);
  });

  test('with fields: after the other populated attributes; picked fields; nested under a relation', async () => {
    const r = await get('/api/notes?populate=*&fields[0]=title&sort=title');
    assert.deepEqual(Object.keys(r.body.data[0]), ['id', 'documentId', 'title', 'topics', 'createdBy', 'updatedBy']);
    const picked = await get('/api/notes?populate[createdBy][fields][0]=firstname&fields[0]=title&sort=title');
    assert.deepEqual(picked.body.data[0].createdBy, { id: picked.body.data[0].createdBy.id, documentId: 'adminadminadminadminadmi', firstname: 'Admin' });
    const nested = await get('/api/notes?populate[topics][populate][0]=createdBy&fields[0]=title&sort=title');
    assert.deepEqual(Object.keys(nested.body.data[0].topics[0]), ['id', 'documentId', 'name', 'createdAt', 'updatedAt', 'publishedAt', 'createdBy']);
    assert.equal(nested.body.data[0].topics[0].createdBy, null);
  });

  test('filters and sort through them', async () => {
    const hit = await get('/api/notes?filters[createdBy][firstname]=Admin&fields[0]=title');
    assert.deepEqual(hit.body.data.map((n: { title: string }) => n.title), ['with creator']);
    assert.deepEqual((await get('/api/notes?filters[createdBy][firstname]=x')).body.data, []);
    const sorted = await get('/api/notes?sort=createdBy.firstname:desc&fields[0]=title');
    assert.equal(sorted.status, 200, sorted.text);
    assert.equal(sorted.body.data.length, 2);
  });

  test("an admin user's private fields and relations are refused by their path", async () => {
    const err = async (q: string) => { const r = await get(`/api/notes?${q}`); assert.equal(r.status, 400, q); return [r.body.error.message, r.body.error.details.path]; };
    assert.deepEqual(await err('populate[createdBy][fields][0]=email'), ['Invalid key email', 'email']);
    assert.deepEqual(await err('populate[createdBy][populate][0]=roles'), ['Invalid key roles at createdBy.roles', 'createdBy.roles']);
    assert.deepEqual(await err('filters[createdBy][email][$startsWith]=a'), ['Invalid key email at createdBy.email', 'createdBy.email']);
    assert.deepEqual(await err('sort=createdBy.email'), ['Invalid key email at createdBy.email', 'createdBy.email']);
  });

  test('not writable through the Content API', async () => {
    const r = await s.fetchJson('POST', '/api/notes', { data: { title: 'x', createdBy: 1 } }, TOKEN);
    assert.deepEqual([r.status, r.body.error.message, r.body.error.details.path], [400, 'Invalid key createdBy', 'createdBy']);
  });
});
