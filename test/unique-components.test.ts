// Unique attributes inside components (test/fixtures/models-unique), as Strapi 5.54's unique validator checks
// them (every answer recorded from a live Strapi 5.54 on these models): a value repeated in the entry's own
// root repeatable component or in its zone's entries of one component fails on each, and so does a value
// another document's published row holds at the same place (single, repeatable and nested components, zone
// entries); drafts are never checked; the errors come with yup's others, in the model's order.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startTestServer, created, TOKEN, type TestServer } from './helpers.ts';

const MODELS = fileURLToPath(new URL('./fixtures/models-unique', import.meta.url));
let s: TestServer;
before(async () => {
  s = await startTestServer({ modelsDir: MODELS });
  await created(s, '/api/clubs', { name: 'A', members: [{ nick: 'a', code: 'm1' }], info: { code: 'i11', inner: { code: 'n1' } }, sections: [{ __component: 'club.member', code: 's1' }, { __component: 'club.note', text: 't1' }] });
});
after(async () => { await s?.stop(); });

const taken = (path: string[], value: unknown) => ({ path, message: 'This attribute must be unique', name: 'ValidationError', value });
async function refused(path: string, data: unknown) {
  const r = await s.fetchJson('POST', path, { data }, TOKEN);
  assert.equal(r.status, 400, r.text);
  return r.body.error as { message: string; details: { errors: unknown[] } };
}

test('a value repeated in the entry\'s own repeatable component or zone fails on each', async () => {
  const e = await refused('/api/clubs', { name: 'B', members: [{ code: 'm2' }, { code: 'm2' }] });
  assert.deepEqual(e.details.errors, [taken(['members', '0', 'code'], 'm2'), taken(['members', '1', 'code'], 'm2')]);
  const z = await refused('/api/clubs', { name: 'B', sections: [{ __component: 'club.note', text: 't2' }, { __component: 'club.note', text: 't2' }] });
  assert.equal(z.message, '2 errors occurred');
  assert.deepEqual(z.details.errors, [taken(['sections', '0', 'text'], 't2'), taken(['sections', '1', 'text'], 't2')]);
  // Empty values are never compared.
  const ok = await s.fetchJson('POST', '/api/clubs', { data: { name: 'D', members: [{ code: '' }, { code: '' }] } }, TOKEN);
  assert.equal(ok.status, 201, ok.text);
});

test('a value another document\'s published row holds at the same place: single, repeatable, nested, zone', async () => {
  assert.deepEqual((await refused('/api/clubs', { name: 'B', members: [{ code: 'm1' }] })).details.errors, [taken(['members', '0', 'code'], 'm1')]);
  assert.deepEqual((await refused('/api/clubs', { name: 'B', info: { code: 'i11' } })).details.errors, [taken(['info', 'code'], 'i11')]);
  assert.deepEqual((await refused('/api/clubs', { name: 'B', info: { code: 'abcd', inner: { code: 'n1' } } })).details.errors, [taken(['info', 'inner', 'code'], 'n1')]);
  assert.deepEqual((await refused('/api/clubs', { name: 'B', sections: [{ __component: 'club.member', code: 's1' }] })).details.errors, [taken(['sections', '0', 'code'], 's1')]);
  assert.deepEqual((await refused('/api/clubs', { name: 'B', sections: [{ __component: 'club.note', text: 't1' }] })).details.errors, [taken(['sections', '0', 'text'], 't1')]);
  // The same value elsewhere is free: another component's field, another content-type's.
  assert.equal((await s.fetchJson('POST', '/api/clubs', { data: { name: 'E', members: [{ code: 'i11' }] } }, TOKEN)).status, 201);
  assert.equal((await s.fetchJson('POST', '/api/events?status=published', { data: { title: 'E', info: { code: 'i11' } } }, TOKEN)).status, 201);
  // An entry keeps its own values on update.
  const [{ document_id: a }] = await s.sql()`select document_id from clubs where name = 'A'`;
  const u = await s.fetchJson('PUT', `/api/clubs/${a}`, { data: { name: 'A2', members: [{ code: 'm1' }], info: { code: 'i11' } } }, TOKEN);
  assert.equal(u.status, 200, u.text);
});

test('with other faults, in the model\'s order; a min length before the unique check; drafts unchecked', async () => {
  const e = await refused('/api/clubs', { name: 5, members: [{ code: 'm1' }], info: { code: 'i11' } });
  assert.equal(e.message, '3 errors occurred');
  assert.deepEqual(e.details.errors, [
    { path: ['name'], message: 'name must be a `string` type, but the final value was: `5`.', name: 'ValidationError', value: 5 },
    taken(['members', '0', 'code'], 'm1'),
    taken(['info', 'code'], 'i11'),
  ]);
  assert.deepEqual((await refused('/api/clubs', { name: 'B', info: { code: 'i1' } })).details.errors,
    [{ path: ['info', 'code'], message: 'info.code must be at least 3 characters', name: 'ValidationError', value: 'i1' }]);
  assert.equal((await s.fetchJson('POST', '/api/events?status=published', { data: { title: 'E1', info: { code: 'e11' } } }, TOKEN)).status, 201);
  assert.deepEqual((await refused('/api/events?status=published', { title: 'E2', info: { code: 'e11' } })).details.errors, [taken(['info', 'code'], 'e11')]);
  assert.equal((await s.fetchJson('POST', '/api/events?status=draft', { data: { title: 'E3', info: { code: 'e11' } } }, TOKEN)).status, 201);
  const p = await refused('/api/events?status=published', { title: null, info: { code: 'e11' } });
  assert.deepEqual(p.details.errors, [
    { path: ['title'], message: 'title must be a `string` type, but the final value was: `null`.', name: 'ValidationError', value: null },
    taken(['info', 'code'], 'e11'),
  ]);
});
