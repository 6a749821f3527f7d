// A type with more relations than a PostgreSQL function takes arguments (100): a page populating all of them
// (populate=*, 50 named ones, one document, GraphQL) is one statement like any other, not a 500. Strapi 5.54
// answers these (recorded by a differential run of its own query-array-limit-populate test).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';
import { tempDir } from './temp-dir.ts';

const N = 105;
let s: TestServer;

function models(): string {
  const dir = tempDir('wide-populate');
  mkdirSync(join(dir, 'content-types'), { recursive: true });
  const type = (singularName: string, pluralName: string, attributes: Record<string, unknown>) => ({
    kind: 'collectionType', collectionName: pluralName.replace(/-/g, '_'), info: { singularName, pluralName, displayName: singularName },
    options: { draftAndPublish: false }, attributes,
  });
  writeFileSync(join(dir, 'content-types', 'leaf.json'), JSON.stringify(type('leaf', 'leaves', { name: { type: 'string' } })));
  const rels = Object.fromEntries(Array.from({ length: N }, (_, i) => [`r${i}`, { type: 'relation', relation: 'oneToOne', target: 'api::leaf.leaf' }]));
  writeFileSync(join(dir, 'content-types', 'hub.json'), JSON.stringify(type('hub', 'hubs', { title: { type: 'string' }, ...rels })));
  return dir;
}

before(async () => {
  s = await startTestServer({ modelsDir: models(), env: { GRAPHQL_SHAPE: 'v5' } });
  const leaf = await s.fetchJson('POST', '/api/leaves', { data: { name: 'populated-leaf' } }, TOKEN);
  const other = await s.fetchJson('POST', '/api/leaves', { data: { name: 'last-leaf' } }, TOKEN);
  const hub = await s.fetchJson('POST', '/api/hubs', { data: { title: 'hub', r0: leaf.body.data.documentId, [`r${N - 1}`]: other.body.data.documentId } }, TOKEN);
  assert.equal(hub.status, 201, hub.text);
});
after(async () => { await s?.stop(); });

const names = (hub: Record<string, unknown>) => Object.keys(hub).filter((k) => /^r\d+$/.test(k));

test('populate=* over 105 relations', async () => {
  const r = await s.fetchJson('GET', '/api/hubs?populate=*', undefined, TOKEN);
  assert.equal(r.status, 200, r.text);
  const [hub] = r.body.data;
  assert.equal(names(hub).length, N);
  assert.equal(hub.r0.name, 'populated-leaf');
  assert.equal(hub[`r${N - 1}`].name, 'last-leaf');
  assert.equal(hub.r1, null);
  const one = await s.fetchJson('GET', `/api/hubs/${hub.documentId}?populate=*`, undefined, TOKEN);
  assert.equal(one.status, 200, one.text);
  assert.deepEqual(one.body.data, hub);
});

test('50 relations named one by one, and all of them through GraphQL', async () => {
  const q = Array.from({ length: 50 }, (_, i) => `populate[r${i}]=true`).join('&');
  const r = await s.fetchJson('GET', `/api/hubs?${q}`, undefined, TOKEN);
  assert.equal(r.status, 200, r.text);
  assert.equal(names(r.body.data[0]).length, 50);
  const fields = Array.from({ length: N }, (_, i) => `r${i} { name }`).join(' ');
  const g = await s.fetchJson('POST', '/graphql', { query: `{ hubs { title ${fields} } }` }, TOKEN);
  assert.equal(g.status, 200, g.text);
  assert.equal(g.body.errors, undefined, g.text);
  assert.equal(g.body.data.hubs[0].r0.name, 'populated-leaf');
  assert.equal(g.body.data.hubs[0][`r${N - 1}`].name, 'last-leaf');
});
