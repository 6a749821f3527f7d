// Issue 28, on the project test/fixtures/role-data (its src/extensions add a relation to a content-type, a media
// field and a component to users-permissions' role, a media field to the user; its team relates both ways with
// upload's file and i18n's locale; a component has a media field), against what a live Strapi 5.54 answered on the
// same project (test/fixtures/role-data-cases: steps.ts, recorded by record.ts): the role's added attributes on the
// roles routes, a populated role, filters through it and GraphQL's UsersPermissionsRole; the two-way relations from
// either side (populate, filters, sort, GraphQL, a create's links); users, roles and components among a file's
// `related`; and the schema created for them against Strapi's. Then what of such a project stops the start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordedSuite } from './recorded.ts';
import { STEPS } from './fixtures/role-data-cases/steps.ts';
import { loadModels } from '../src/models.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));

recordedSuite('role-data', here('./fixtures/role-data'), here('./fixtures/role-data-cases'), STEPS);

/** Loads a copy of the project with one of its schema files (under src/) edited. */
function loadEdited(file: string, edit: (json: { attributes: Record<string, Record<string, unknown>> }) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'fastrapi-role-data-'));
  try {
    cpSync(here('./fixtures/role-data'), dir, { recursive: true });
    const path = join(dir, 'src', file);
    const json = JSON.parse(readFileSync(path, 'utf8')) as { attributes: Record<string, Record<string, unknown>> };
    edit(json);
    writeFileSync(path, JSON.stringify(json));
    loadModels(dir, { defaultLocale: 'en', locales: ['en'] });
  } finally { rmSync(dir, { recursive: true, force: true }); }
}

const TEAM = 'api/team/content-types/team/schema.json';
const FILE = 'extensions/upload/content-types/file/schema.json';

test('a two-way relation between a content-type and the file whose sides do not name each other stops the start, naming the file and attribute', () => {
  // The file's side names no relation of the team back to it.
  assert.throws(() => loadEdited(FILE, (j) => { j.attributes.owner.inversedBy = 'nope'; }),
    /file\/schema\.json: attribute "owner": inversedBy "nope" is not a relation of api::team\.team back to plugin::upload\.file/);
  // The team's mappedBy side names an attribute the file's extension does not have: it would own nothing.
  assert.throws(() => loadEdited(TEAM, (j) => { j.attributes.photos.mappedBy = 'nope'; }),
    /team\/schema\.json: attribute "photos": a relation to plugin::upload\.file must own its side here \(inversedBy or one-way, not mappedBy\)/);
  // Without the team's side, the file's inversedBy names nothing: the file is no relation target then.
  assert.throws(() => loadEdited(TEAM, (j) => { delete j.attributes.photos; }),
    /file\/schema\.json: attribute "owner": inversedBy "photos" is not a relation of api::team\.team back to plugin::upload\.file/);
});

test('GraphQL in v4\'s Entity shape builds on the same project: relations to the file and locale and the role\'s non-scalars are left out there', async () => {
  const { startTestServer, TOKEN } = await import('./helpers.ts');
  const s = await startTestServer({ modelsDir: here('./fixtures/role-data'), env: { GRAPHQL_SHAPE: 'v4', LOCALES: 'en,fr' } });
  try {
    const r = await s.fetchJson('POST', '/graphql', { query: '{ teams { data { attributes { name } } } usersPermissionsRoles(sort: "type") { data { attributes { type } } } t: __type(name: "Team") { fields { name } } }' }, TOKEN);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.data.usersPermissionsRoles.data.map((x: { attributes: { type: string } }) => x.attributes.type), ['authenticated', 'public']);
    assert.deepEqual(r.body.data.t.fields.map((f: { name: string }) => f.name), ['name', 'logo', 'pic', 'createdAt', 'updatedAt']);
  } finally { await s.stop(); }
});
