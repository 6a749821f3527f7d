// Model kinds real Strapi projects use (issue 13): a localized single type, custom fields of Strapi's own
// plugins, components without attributes (nested and repeatable), a relation to a single type.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';
import { loadModels, ModelError } from '../src/models.ts';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MODELS = fileURLToPath(new URL('./fixtures/models-kinds', import.meta.url));
let s: TestServer;

before(async () => { s = await startTestServer({ modelsDir: MODELS, env: { GRAPHQL_SHAPE: 'v5' } }); });
after(async () => { await s?.stop(); });

const call = async (method: string, path: string, data?: unknown) => {
  const r = await s.fetchJson(method, path, data === undefined ? undefined : { data }, TOKEN);
  return r;
};

test('a localized single type: one document, a localization sharing the non-localized attributes, one locale deleted', async () => {
  const en = await call('PUT', '/api/page', { title: 'Home', color: '#ff0000', box: { label: 'L', inner: {} }, markers: [{}, {}], footer: { label: 'shared footer' } });
  assert.equal(en.status, 200, en.text);
  assert.equal(en.body.data.color, '#ff0000', 'a color-picker custom field is a string');
  const fr = await call('PUT', '/api/page?locale=fr', { title: 'Accueil' });
  assert.equal(fr.status, 200, fr.text);
  assert.equal(fr.body.data.documentId, en.body.data.documentId);
  assert.equal(fr.body.data.locale, 'fr');
  assert.equal(fr.body.data.color, '#ff0000', 'color is not localized: the new locale starts with it');
  const frFull = await call('GET', '/api/page?locale=fr&populate=*');
  const enFull = await call('GET', '/api/page?populate=*');
  assert.equal(frFull.body.data.footer.label, 'shared footer', 'so does a non-localized component, as its own copy');
  assert.notEqual(frFull.body.data.footer.id, enFull.body.data.footer.id);
  assert.equal(frFull.body.data.box, null, 'a localized component is not copied');
  const both = await call('GET', '/api/page?populate=localizations&fields[0]=title');
  assert.deepEqual(both.body.data.localizations.map((l: { title: string }) => l.title), ['Accueil']);
  // A single type looks `*` up as a locale, which no row has (Strapi 5.54: 404, recorded by a side-by-side run).
  const star = await call('GET', '/api/page?locale=*');
  assert.deepEqual({ status: star.status, body: star.body }, { status: 404, body: { data: null, error: { status: 404, name: 'NotFoundError', message: 'Not Found', details: {} } } });
  // A top-level `locale` filter replaces the locale lookup (the document service spreads filters over it).
  assert.equal((await call('GET', '/api/page?filters[locale]=fr&fields[0]=title')).body.data.title, 'Accueil');
  assert.equal((await call('DELETE', '/api/page?locale=fr')).status, 204);
  assert.equal((await call('GET', '/api/page?locale=fr')).status, 404);
  assert.equal((await call('GET', '/api/page')).body.data.title, 'Home');
});

test('components without attributes, alone and nested, keep their instances', async () => {
  const r = await call('GET', '/api/page?fields[0]=title&populate[box][populate]=*&populate[markers]=true');
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.data.markers.length, 2);
  assert.ok(r.body.data.markers.every((m: object) => Object.keys(m).join() === 'id'));
  assert.equal(r.body.data.box.label, 'L');
  assert.deepEqual(Object.keys(r.body.data.box.inner), ['id']);
});

test('GraphQL serves the localized single type and a relation to it', async () => {
  const page = await call('GET', '/api/page?fields[0]=title');
  const note = await call('POST', '/api/notes', { text: 'n', page: page.body.data.documentId });
  assert.equal(note.status, 201, note.text);
  const g = await s.fetchJson('POST', '/graphql', { query: '{ page { title color localizations { locale } } notes { text page { title } } }' }, TOKEN);
  assert.equal(g.status, 200, g.text);
  assert.deepEqual(g.body.data, { page: { title: 'Home', color: '#ff0000', localizations: [] }, notes: [{ text: 'n', page: { title: 'Home' } }] });
});

test('a custom field of an unknown plugin is refused, naming it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fastrapi-cf-'));
  try {
    mkdirSync(join(dir, 'content-types'));
    writeFileSync(join(dir, 'content-types', 'x.json'), JSON.stringify({
      kind: 'collectionType', collectionName: 'xs', info: { singularName: 'x', pluralName: 'xs' },
      attributes: { body: { type: 'customField', customField: 'plugin::ckeditor5.CKEditor' } },
    }));
    assert.throws(() => loadModels(dir, { defaultLocale: 'en', locales: ['en'] }),
      (e: unknown) => e instanceof ModelError && /attribute "body": custom field "plugin::ckeditor5\.CKEditor" has no known underlying type/.test(e.message));
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

test('relations inside components: written, populated, filtered, kept across publishes of their targets, in GraphQL', async () => {
  const note = async (text: string) => (await call('POST', '/api/notes', { text })).body.data.documentId as string;
  const [n1, n2] = [await note('one'), await note('two')];
  const target = (await call('POST', '/api/posts', { title: 'target v1' })).body.data.documentId as string;
  const made = await call('POST', '/api/posts', { title: 'P', links: [{ label: 'a', note: n1, notes: [n2, n1], post: target }], main: { label: 'm', note: n2 } });
  assert.equal(made.status, 201, made.text);
  const doc = made.body.data.documentId as string;
  const read = async (q: string) => (await call('GET', `/api/posts/${doc}?fields[0]=title&${q}`)).body.data;
  const full = await read('populate[links][populate]=*&populate[main][populate]=*');
  assert.equal(full.links[0].note.text, 'one');
  assert.deepEqual(full.links[0].notes.map((n: { text: string }) => n.text), ['two', 'one'], 'in the order given');
  assert.equal(full.links[0].post.title, 'target v1');
  assert.equal(full.main.note.text, 'two');
  // Stored as Strapi does: the component's own link table, `<component>_id` → `<target>_id`.
  const rows = await s.sql()`select l.link_id, n.text from components_basic_links_notes_lnk l join notes n on n.id = l.note_id order by l.link_id, l.note_ord`;
  assert.deepEqual(rows.map((r) => r.text), ['two', 'one', 'two', 'one'], 'the draft\'s and the published copy\'s instance each link both notes');
  // The target is published again (a new row): the published component's link follows it.
  assert.equal((await call('PUT', `/api/posts/${target}`, { title: 'target v2' })).status, 200);
  assert.equal((await read('populate[links][populate][post][fields][0]=title')).links[0].post.title, 'target v2');
  // Kept instance (by the draft's id: updates change the draft), its to-many relation changed with disconnect.
  const id = (await read('status=draft&populate[links]=true')).links[0].id as number;
  const upd = await call('PUT', `/api/posts/${doc}`, { links: [{ id, notes: { disconnect: [n1] } }] });
  assert.equal(upd.status, 200, upd.text);
  const after = await read('populate[links][populate]=*');
  assert.deepEqual(after.links[0].notes.map((n: { text: string }) => n.text), ['two']);
  assert.equal(after.links[0].label, 'a');
  // Filters go through a component's relations.
  const hit = await call('GET', '/api/posts?fields[0]=title&filters[links][notes][text][$eq]=two');
  assert.deepEqual(hit.body.data.map((p: { title: string }) => p.title), ['P']);
  const miss = await call('GET', '/api/posts?fields[0]=title&filters[links][notes][text][$eq]=one');
  assert.deepEqual(miss.body.data, []);
  const g = await s.fetchJson('POST', '/graphql', { query: `{ post(documentId: "${doc}") { links { label note { text } notes { text } notes_connection { nodes { text } } post { title } } } }` }, TOKEN);
  assert.deepEqual(g.body.data.post.links, [{ label: 'a', note: { text: 'one' }, notes: [{ text: 'two' }], notes_connection: { nodes: [{ text: 'two' }] }, post: { title: 'target v2' } }]);
});

test('a relation inside a component is one-way: mappedBy or inversedBy there is refused by name', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fastrapi-cr-'));
  try {
    mkdirSync(join(dir, 'content-types'));
    mkdirSync(join(dir, 'components', 'c'), { recursive: true });
    writeFileSync(join(dir, 'content-types', 'x.json'), JSON.stringify({
      kind: 'collectionType', collectionName: 'xs', info: { singularName: 'x', pluralName: 'xs' },
      attributes: { ys: { type: 'relation', relation: 'oneToMany', target: 'api::x.x', mappedBy: 'x' } },
    }));
    writeFileSync(join(dir, 'components', 'c', 'y.json'), JSON.stringify({
      collectionName: 'components_c_ys', attributes: { x: { type: 'relation', relation: 'manyToOne', target: 'api::x.x', inversedBy: 'ys' } },
    }));
    assert.throws(() => loadModels(dir, { defaultLocale: 'en', locales: ['en'] }),
      (e: unknown) => e instanceof ModelError && /attribute "x": a relation in a component is one-way/.test(e.message));
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

test('a non-required repeatable component: empty is fine, null is not, `min` applies once it has items', async () => {
  const r = await call('POST', '/api/posts', { title: 'min', extras: [] });
  assert.equal(r.status, 201, r.text);
  const back = await call('GET', `/api/posts/${r.body.data.documentId}?populate=extras&fields[0]=title`);
  assert.deepEqual(back.body.data.extras, []);
  const isNull = await call('POST', '/api/posts', { title: 'min', extras: null });
  assert.equal(isNull.status, 400);
  assert.deepEqual(isNull.body.error.details.errors, [{ path: ['extras'], message: 'extras must be a `array` type, but the final value was: `null`.', name: 'ValidationError', value: null }]);
  const one = await call('POST', '/api/posts', { title: 'min', extras: [{ label: 'x' }] });
  assert.equal(one.status, 400);
  assert.equal(one.body.error.message, 'extras field must have at least 2 items');
  assert.equal((await call('POST', '/api/posts', { title: 'min', extras: [{ label: 'x' }, { label: 'y' }] })).status, 201);
});

test('component ids on update: only instances the row holds (Strapi\'s errors); ids inside a new instance are ignored', async () => {
  const made = await call('POST', '/api/posts', { title: 'ids', links: [{ label: 'a', note: null }], main: { label: 'm' }, extras: [] });
  assert.equal(made.status, 201, made.text);
  const doc = made.body.data.documentId as string;
  const draft = (await call('GET', `/api/posts/${doc}?status=draft&populate=*`)).body.data;
  const foreign = await call('PUT', `/api/posts/${doc}`, { links: [{ id: 999999, label: 'x' }] });
  assert.equal(foreign.status, 400);
  assert.deepEqual(foreign.body.error, { status: 400, name: 'ApplicationError', message: 'Some of the provided components in links are not related to the entity', details: {} });
  const single = await call('PUT', `/api/posts/${doc}`, { main: { id: 999999, label: 'x' } });
  assert.equal(single.body.error.message, 'Some of the provided components in main are not related to the entity');
  // The published version's instances are other rows: an update (of the draft) does not hold them.
  const published = (await call('GET', `/api/posts/${doc}?populate=*`)).body.data;
  assert.notEqual(published.links[0].id, draft.links[0].id);
  assert.equal((await call('PUT', `/api/posts/${doc}`, { links: [{ id: published.links[0].id }] })).status, 400);
  const kept = await call('PUT', `/api/posts/${doc}?status=draft`, { links: [{ id: draft.links[0].id, label: 'b' }] });
  assert.equal(kept.status, 200, kept.text);
  const after = (await call('GET', `/api/posts/${doc}?status=draft&populate=links`)).body.data;
  assert.deepEqual(after.links.map((l: { id: number; label: string }) => [l.id, l.label]), [[draft.links[0].id, 'b']]);
});


test('GraphQL: a required component is non-null, a required repeatable a non-null list', async () => {
  const g = await s.fetchJson('POST', '/graphql', { query: '{ __type(name: "Card") { fields { name type { kind ofType { kind name } } } } }' }, TOKEN);
  const f = Object.fromEntries((g.body.data.__type.fields as Array<{ name: string; type: { kind: string; ofType: { kind: string } | null } }>).map((x) => [x.name, x.type]));
  assert.deepEqual(f.front, { kind: 'NON_NULL', ofType: { kind: 'OBJECT', name: 'ComponentBasicOuter' } });
  assert.deepEqual(f.backs, { kind: 'NON_NULL', ofType: { kind: 'LIST', name: null } });
  assert.deepEqual(f.extra, { kind: 'OBJECT', ofType: null });
});

test('non-writable attributes (writable: false, createdAt, updatedAt) in a body are invalid keys; publishedAt is ignored', async () => {
  for (const key of ['stamp', 'createdAt', 'updatedAt']) {
    const r = await call('POST', '/api/notes', { text: 'x', [key]: 'v' });
    assert.equal(r.status, 400, key);
    assert.deepEqual(r.body.error, { status: 400, name: 'ValidationError', message: `Invalid key ${key}`, details: { key, path: key, source: 'body' } });
  }
  const ok = await call('POST', '/api/notes', { text: 'x', publishedAt: '2020-01-01T00:00:00.000Z' });
  assert.equal(ok.status, 201, ok.text);
  assert.notEqual(ok.body.data.publishedAt, '2020-01-01T00:00:00.000Z');
  assert.equal(ok.body.data.stamp, null, 'readable all the same');
});

test('relations to users-permissions users: link tables beside Strapi\'s up_users, populated with what Strapi shows of a user, filtered', async () => {
  const user = async (username: string) => (await s.sql()`insert into up_users (document_id, username, email, provider, password, confirmed, blocked, created_at, updated_at, published_at)
    values (${`user${username}doc0000000000000`.slice(0, 24)}, ${username}, ${`${username}@example.com`}, 'local', 'secret-hash', true, false, now(), now(), now()) returning id, document_id`)[0];
  const [ada, bob] = [await user('ada'), await user('bob')];
  const made = await call('POST', '/api/notes', { text: 'reviewed', writer: ada.document_id, reviewers: [bob.id, ada.id] });
  assert.equal(made.status, 201, made.text);
  const doc = made.body.data.documentId as string;
  const r = (await call('GET', `/api/notes/${doc}?populate[writer]=true&populate[reviewers][fields][0]=username`)).body.data;
  assert.deepEqual(Object.keys(r.writer), ['id', 'documentId', 'username', 'email', 'provider', 'confirmed', 'blocked', 'createdAt', 'updatedAt', 'publishedAt']);
  assert.equal(r.writer.username, 'ada');
  assert.deepEqual(r.reviewers.map((u: { username: string }) => u.username), ['bob', 'ada']);
  const links = await s.sql()`select note_id, user_id, user_ord, note_ord from notes_reviewers_lnk order by user_ord`;
  assert.equal(links.length, 2, 'Strapi\'s columns: note_id, user_id and both order columns');
  const hit = await call('GET', '/api/notes?fields[0]=text&filters[writer][username][$eq]=ada');
  assert.deepEqual(hit.body.data.map((n: { text: string }) => n.text), ['reviewed']);
  assert.equal((await call('GET', '/api/notes?filters[writer][password][$eq]=x')).status, 400, 'a user\'s password is never filterable');
  // A populated user shows its role, and a role its permissions, never its users (users-permissions'
  // output sanitizer removes them; the populate is still validated): as a live Strapi 5.54.
  const [role] = await s.sql()`select id from up_roles where type = 'authenticated'`;
  await s.sql()`insert into up_users_role_lnk (user_id, role_id, user_ord) values (${ada.id}, ${role.id}, 1)`;
  const withRole = (await call('GET', `/api/notes/${doc}?populate[writer][fields][0]=username&populate[writer][populate][role][populate]=*`)).body.data;
  assert.deepEqual(Object.keys(withRole.writer), ['id', 'documentId', 'username', 'role']);
  assert.equal(withRole.writer.role.type, 'authenticated');
  assert.ok(Array.isArray(withRole.writer.role.permissions) && withRole.writer.role.permissions.length > 0);
  assert.ok(!('users' in withRole.writer.role));
  const users = (await call('GET', `/api/notes/${doc}?populate[writer][populate][role][populate][users][fields][0]=username`)).body.data;
  assert.deepEqual(Object.keys(users.writer.role), ['id', 'documentId', 'name', 'description', 'type', 'createdAt', 'updatedAt', 'publishedAt']);
  const bad = await call('GET', `/api/notes/${doc}?populate[writer][populate][role][populate][users][fields][0]=nope`);
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body.error.details, { key: 'nope', path: null, source: 'query', param: 'populate' });
  assert.equal((await call('GET', `/api/notes/${doc}?populate[writer][populate][role][populate][users][filters][username][$eq]=ada`)).status, 200);
  const g = await s.fetchJson('POST', '/graphql', { query: '{ notes { text } }' }, TOKEN);
  assert.equal(g.status, 200, g.text);
});
