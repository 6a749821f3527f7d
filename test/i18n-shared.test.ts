// Non-localized attributes shared by a document's locales, as i18n's syncNonLocalizedAttributes copies them
// after each write of Strapi 5.54 (outcomes checked side by side with a live Strapi, or read from its i18n
// document middleware): when the version written shares something else than the document's first row did,
// from it to the other locales' rows in the same status only, components and zones copied anew.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';
import { tempDir } from './temp-dir.ts';

let s: TestServer;
const shared = { pluginOptions: { i18n: { localized: false } } };
const own = { pluginOptions: { i18n: { localized: true } } };

function models(): string {
  const dir = tempDir('i18n-shared');
  mkdirSync(join(dir, 'content-types'), { recursive: true });
  mkdirSync(join(dir, 'components', 'default'), { recursive: true });
  writeFileSync(join(dir, 'components', 'default', 'simple.json'), JSON.stringify({ collectionName: 'components_default_simples', info: { displayName: 'simple' }, attributes: { name: { type: 'string' } } }));
  const type = (singularName: string, pluralName: string, draftAndPublish: boolean, attributes: Record<string, unknown>) => ({
    kind: 'collectionType', collectionName: pluralName, info: { singularName, pluralName, displayName: singularName },
    options: { draftAndPublish }, pluginOptions: { i18n: { localized: true } }, attributes,
  });
  writeFileSync(join(dir, 'content-types', 'pet.json'), JSON.stringify(type('pet', 'pets', true, {
    name: { type: 'string', ...own }, note: { type: 'string', ...shared }, tagline: { type: 'component', component: 'default.simple', repeatable: false, ...shared },
    friend: { type: 'relation', relation: 'oneToOne', target: 'api::pet.pet' },
  })));
  writeFileSync(join(dir, 'content-types', 'dog.json'), JSON.stringify(type('dog', 'dogs', false, {
    name: { type: 'string', ...own }, description: { type: 'string', ...shared },
    myCompo: { type: 'component', component: 'default.simple', repeatable: false, ...shared },
    myDz: { type: 'dynamiczone', components: ['default.simple'], ...shared },
  })));
  return dir;
}

before(async () => { s = await startTestServer({ modelsDir: models(), env: { LOCALES: 'en,fr,de' } }); });
after(async () => { await s?.stop(); });

const call = (method: string, path: string, data?: unknown) => s.fetchJson(method, path, data === undefined ? undefined : { data }, TOKEN);

test('draft & publish: a write copies to the other locales in its own status only', async () => {
  const doc = (await call('POST', '/api/pets?status=published', { name: 'Rex', note: 'n1', tagline: { name: 't1' } })).body.data.documentId;
  assert.equal((await call('PUT', `/api/pets/${doc}?locale=fr&status=published`, { name: 'Rex fr' })).status, 200);
  const state = async () => {
    const out: string[] = [];
    for (const q of ['locale=fr', 'locale=fr&status=draft', 'locale=en', 'locale=en&status=draft']) {
      const d = (await call('GET', `/api/pets/${doc}?${q}&populate=*`)).body.data;
      out.push(`${d.note}/${d.tagline?.name}`);
    }
    return out;
  };
  // A publishing update of en: fr's published version follows, fr's draft does not.
  assert.equal((await call('PUT', `/api/pets/${doc}`, { note: 'n2', tagline: { name: 't2' } })).status, 200);
  assert.deepEqual(await state(), ['n2/t2', 'n1/t1', 'n2/t2', 'n2/t2']);
  // fr published from its draft (n3, t1): en's published version takes both, en's draft keeps its own.
  assert.equal((await call('PUT', `/api/pets/${doc}?locale=fr`, { note: 'n3' })).status, 200);
  assert.deepEqual(await state(), ['n3/t1', 'n3/t1', 'n3/t1', 'n2/t2']);
  // A draft-only update reaches the other drafts only.
  assert.equal((await call('PUT', `/api/pets/${doc}?status=draft`, { note: 'n4' })).status, 200);
  assert.deepEqual((await state()).map((x) => x.split('/')[0]), ['n3', 'n4', 'n3', 'n4']);
});

test('a publish whose body gives nothing shared still copies its non-localized components to the other published versions', async () => {
  const doc = (await call('POST', '/api/pets?status=published', { name: 'Bo', note: 'n1', tagline: { name: 't1' } })).body.data.documentId;
  assert.equal((await call('PUT', `/api/pets/${doc}?locale=fr&status=published`, { name: 'Bo fr' })).status, 200);
  assert.equal((await call('PUT', `/api/pets/${doc}?status=draft`, { tagline: { name: 't2' } })).status, 200);
  const published = async (locale: string) => { const d = (await call('GET', `/api/pets/${doc}?locale=${locale}&populate=*`)).body.data; return `${d.note}/${d.tagline?.name}`; };
  assert.deepEqual([await published('en'), await published('fr')], ['n1/t1', 'n1/t1']);
  // en published from its draft with a body of its own only: fr's published version takes en's component.
  assert.equal((await call('PUT', `/api/pets/${doc}`, { name: 'Bo 2' })).status, 200);
  assert.deepEqual([await published('en'), await published('fr')], ['n1/t2', 'n1/t2']);
});

test('without draft & publish: every non-localized component and zone of the other locales is copied anew', async () => {
  const doc = (await call('POST', '/api/dogs', { name: 'Pilou', description: 'A good girl', myCompo: { name: 'my compo' }, myDz: [{ __component: 'default.simple', name: 'my compo' }] })).body.data.documentId;
  assert.equal((await call('PUT', `/api/dogs/${doc}?locale=fr`, { name: 'Pilou fr' })).status, 200);
  const before = (await call('GET', `/api/dogs/${doc}?locale=fr&populate=*`)).body.data;
  assert.equal((await call('PUT', `/api/dogs/${doc}`, { description: 'Still a good girl', myCompo: { name: 'changed' } })).status, 200);
  const fr = (await call('GET', `/api/dogs/${doc}?locale=fr&populate=*`)).body.data;
  assert.equal(fr.name, 'Pilou fr');
  assert.equal(fr.description, 'Still a good girl');
  assert.equal(fr.myCompo.name, 'changed');
  assert.notEqual(fr.myCompo.id, before.myCompo.id);
  assert.deepEqual(fr.myDz.map((b: { name: string }) => b.name), ['my compo']);
  assert.notEqual(fr.myDz[0].id, before.myDz[0].id, 'the zone is copied anew too');
  // The replaced copies are gone: no component row is left without its owner.
  const [{ n }] = await s.sql()`select count(*)::int as n from components_default_simples c
    where not exists (select 1 from dogs_cmps d where d.cmp_id = c.id) and not exists (select 1 from pets_cmps p where p.cmp_id = c.id)`;
  assert.equal(n, 0);
  const [{ held }] = await s.sql()`select count(*)::int as held from dogs_cmps`;
  assert.equal(held, 4, 'en and fr each hold one myCompo and one zone item');
});

test('with three locales, each of the others gets copies of its own (a sync to several rows)', async () => {
  const doc = (await call('POST', '/api/dogs', { name: 'Tri', myCompo: { name: 'c1' }, myDz: [{ __component: 'default.simple', name: 'z1' }] })).body.data.documentId;
  assert.equal((await call('PUT', `/api/dogs/${doc}?locale=fr`, { name: 'Tri fr' })).status, 200);
  assert.equal((await call('PUT', `/api/dogs/${doc}?locale=de`, { name: 'Tri de' })).status, 200);
  assert.equal((await call('PUT', `/api/dogs/${doc}?locale=fr`, { myCompo: { name: 'c2' }, myDz: [{ __component: 'default.simple', name: 'z2' }] })).status, 200);
  const ids = new Set<number>();
  for (const locale of ['en', 'fr', 'de']) {
    const d = (await call('GET', `/api/dogs/${doc}?locale=${locale}&populate=*`)).body.data;
    assert.deepEqual([d.myCompo?.name, d.myDz.map((b: { name: string }) => b.name)], ['c2', ['z2']], locale);
    ids.add(d.myCompo.id).add(d.myDz[0].id);
  }
  assert.equal(ids.size, 6, 'no two locales share a component row');
});

test('a publish links a localized target\'s version in the source\'s locale (Strapi\'s getRelationTargetLocale), none when it has none', async () => {
  const friend = (await call('POST', '/api/pets?status=published', { name: 'Friend' })).body.data.documentId;
  const [{ id: enDraft }] = await s.sql()`select id from pets where document_id = ${friend} and published_at is null`;
  const doc = (await call('POST', '/api/pets?status=draft&locale=de', { name: 'Hund', friend: enDraft })).body.data.documentId;
  // The draft links the very row its id names (en)...
  assert.equal((await call('GET', `/api/pets/${doc}?locale=de&status=draft&populate[friend][fields][0]=locale`)).body.data.friend.locale, 'en');
  // ...its publish looks for the friend's published version in de: there is none (checked live: null).
  const published = await call('PUT', `/api/pets/${doc}?locale=de&status=published&populate[friend][fields][0]=locale`, {});
  assert.equal(published.status, 200);
  assert.equal(published.body.data.friend, null);
  // In en, the friend's published en row.
  const en = await call('PUT', `/api/pets/${doc}?locale=en&status=published&populate[friend][fields][0]=name`, { name: 'Dog', friend: enDraft });
  assert.equal(en.body.data.friend.name, 'Friend');
  assert.ok(en.body.data.friend.id !== Number(enDraft), 'the published version');
});

test('the sync runs when the written version shares something else than the document\'s first row did (i18n\'s middleware), body or not', async () => {
  const doc = (await call('POST', '/api/pets?status=published', { name: 'Mo', note: 'n1', tagline: { name: 't1' } })).body.data.documentId;
  assert.equal((await call('PUT', `/api/pets/${doc}?locale=fr&status=published`, { name: 'Mo fr' })).status, 200);
  // A publishing update of en: the published versions follow, fr's draft keeps n1.
  assert.equal((await call('PUT', `/api/pets/${doc}`, { note: 'n2' })).status, 200);
  const draft = async (locale: string) => { const d = (await call('GET', `/api/pets/${doc}?locale=${locale}&status=draft&populate=*`)).body.data; return `${d.note}/${d.tagline?.name}`; };
  assert.deepEqual([await draft('en'), await draft('fr')], ['n2/t1', 'n1/t1']);
  // A draft update of fr naming nothing shared: fr's draft differs from the first row (en's published version), so what it holds goes to en's draft.
  assert.equal((await call('PUT', `/api/pets/${doc}?locale=fr&status=draft`, { name: 'Mo fr 2' })).status, 200);
  assert.deepEqual([await draft('en'), await draft('fr')], ['n1/t1', 'n1/t1']);
});

test('a write that leaves the shared values as the first row holds them copies nothing (components keep their ids)', async () => {
  const doc = (await call('POST', '/api/dogs', { name: 'Same', description: 'd', myCompo: { name: 'c' } })).body.data.documentId;
  assert.equal((await call('PUT', `/api/dogs/${doc}?locale=fr`, { name: 'Same fr' })).status, 200);
  const before = (await call('GET', `/api/dogs/${doc}?locale=fr&populate=*`)).body.data.myCompo.id;
  assert.equal((await call('PUT', `/api/dogs/${doc}`, { name: 'Same 2', description: 'd' })).status, 200);
  assert.equal((await call('GET', `/api/dogs/${doc}?locale=fr&populate=*`)).body.data.myCompo.id, before);
});

test('a write\'s populated answer shows the other locales as they were before the sync (checked live)', async () => {
  const doc = (await call('POST', '/api/dogs', { name: 'Ans', description: 'd1' })).body.data.documentId;
  assert.equal((await call('PUT', `/api/dogs/${doc}?locale=fr`, { name: 'Ans fr' })).status, 200);
  const r = await call('PUT', `/api/dogs/${doc}?populate[localizations][fields][0]=description`, { description: 'd2' });
  assert.equal(r.status, 200);
  assert.equal(r.body.data.description, 'd2');
  assert.deepEqual(r.body.data.localizations.map((l: { description: string }) => l.description), ['d1']);
  assert.equal((await call('GET', `/api/dogs/${doc}?locale=fr`)).body.data.description, 'd2', 'synced all the same');
  // A new localization's answer too.
  const de = await call('PUT', `/api/dogs/${doc}?locale=de&populate[localizations][fields][0]=description`, { name: 'Ans de', description: 'd3' });
  assert.deepEqual(de.body.data.localizations.map((l: { description: string }) => l.description).sort(), ['d2', 'd2']);
  assert.equal((await call('GET', `/api/dogs/${doc}?locale=fr`)).body.data.description, 'd3');
});

test('a new localization copies from the row Strapi\'s lookup meets first (published_at desc: a draft before any published version)', async () => {
  const doc = (await call('POST', '/api/pets?status=published', { name: 'Src', note: 'n1' })).body.data.documentId;
  assert.equal((await call('PUT', `/api/pets/${doc}?locale=de&status=draft`, { name: 'Src de' })).status, 200);
  // A publishing update of en: en's draft and published versions hold n2, de's draft (no published version) keeps n1.
  assert.equal((await call('PUT', `/api/pets/${doc}`, { note: 'n2' })).status, 200);
  assert.equal((await call('GET', `/api/pets/${doc}?locale=de&status=draft`)).body.data.note, 'n1');
  // fr starts from de's draft, the first row `order by published_at desc` meets (checked live on the kitchensink homepage).
  assert.equal((await call('PUT', `/api/pets/${doc}?locale=fr`, { name: 'Src fr' })).status, 200);
  assert.equal((await call('GET', `/api/pets/${doc}?locale=fr&status=draft`)).body.data.note, 'n1');
});
