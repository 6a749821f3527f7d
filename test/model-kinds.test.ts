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
  const en = await call('PUT', '/api/page', { title: 'Home', color: '#ff0000', box: { label: 'L', inner: {} }, markers: [{}, {}] });
  assert.equal(en.status, 200, en.text);
  assert.equal(en.body.data.color, '#ff0000', 'a color-picker custom field is a string');
  const fr = await call('PUT', '/api/page?locale=fr', { title: 'Accueil' });
  assert.equal(fr.status, 200, fr.text);
  assert.equal(fr.body.data.documentId, en.body.data.documentId);
  assert.equal(fr.body.data.locale, 'fr');
  assert.equal(fr.body.data.color, '#ff0000', 'color is not localized: the new locale starts with it');
  const both = await call('GET', '/api/page?populate=localizations&fields[0]=title');
  assert.deepEqual(both.body.data.localizations.map((l: { title: string }) => l.title), ['Accueil']);
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
