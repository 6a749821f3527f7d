// Hostile input (issue 15): names of Object.prototype members anywhere in a query or a body, and JSON
// nested deeper than the limit, are refused with a 400 naming the key or the limit — never a 500, never
// silently ignored.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, TOKEN, isErrorEnvelope, type TestServer } from './helpers.ts';

let s: TestServer;
before(async () => { s = await startTestServer({ env: { MAX_JSON_DEPTH: '32' } }); });
after(async () => { await s?.stop(); });

const PROTO = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

test('Object.prototype names in filters, sort, fields, populate and pagination are a 400 naming the key', async () => {
  for (const name of PROTO) {
    const cases: Array<[string, string]> = [
      [`sort=${name}`, 'sort'], [`sort=${name}:desc`, 'sort'], [`sort=author.${name}`, 'sort'], [`sort[0][${name}]=asc`, 'sort'],
      [`filters[${name}][$eq]=1`, 'filters'], [`filters[${name}]=1`, 'filters'], [`filters[title][${name}]=1`, 'filters'],
      [`filters[$or][0][${name}]=1`, 'filters'], [`filters[author][${name}][name]=x`, 'filters'],
      [`fields[0]=${name}`, 'fields'], [`populate[${name}]=true`, 'populate'], [`populate=${name}`, 'populate'],
      [`populate[author][populate][${name}]=true`, 'populate'], [`populate[blocks][on][${name}]=true`, 'populate'],
      [`pagination[${name}]=1`, 'pagination'],
    ];
    for (const [q, param] of cases) {
      const r = await s.fetchJson('GET', `/api/articles?${q}`, undefined, TOKEN);
      assert.equal(r.status, 400, `${q}: ${r.text}`);
      assert.ok(isErrorEnvelope(r.body, 400), q);
      assert.equal(r.body.error.details.key, name, q);
      assert.equal(r.body.error.details.param, param, q);
    }
  }
  // A top-level parameter named so is not a query parameter Strapi knows: ignored, like any other.
  assert.equal((await s.fetchJson('GET', '/api/articles?constructor=1', undefined, TOKEN)).status, 200);
});

test('Object.prototype names in bodies and GraphQL arguments are refused', async () => {
  for (const name of PROTO) {
    const body = `{"data":{"title":"x","slug":"proto-${Math.random().toString(36).slice(2)}","${name}":{"a":1}}}`;
    const r = await s.fetchJson('POST', '/api/articles', body, TOKEN);
    assert.equal(r.status, 400, r.text);
    // `__proto__` is refused by Strapi's body parser already (co-body's @hapi/bourne), the others by validation.
    assert.equal(r.body.error.message, name === '__proto__' ? 'Object contains forbidden prototype property' : `Invalid key ${name}`);
    const nested = await s.fetchJson('POST', '/api/articles', { data: { title: 'x', seo: { [name]: 1 } } }, TOKEN);
    assert.equal(nested.status, 400, nested.text);
    const g = await s.fetchJson('POST', '/graphql', { query: `{ articles(sort: "${name}") { data { id } } }` }, TOKEN);
    assert.ok(g.body.errors?.length, `GraphQL sort ${name}: ${g.text}`);
    assert.match(g.body.errors[0].message, new RegExp(`Invalid key ${name.replace(/\$/g, '\\$')}`));
  }
  const list = await s.fetchJson('GET', '/api/articles?fields[0]=title&pagination[pageSize]=100', undefined, TOKEN);
  assert.ok(list.body.data.every((a: { title: string }) => a.title !== 'x'), 'nothing was written');
});

test('JSON nested deeper than MAX_JSON_DEPTH is a 400 naming the limit, in bodies, json attributes and GraphQL', async () => {
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  const body = `{"data":{"title":"deep","slug":"deep-json","metadata":${deep(5000)}}}`;
  const r = await s.fetchJson('POST', '/api/articles', body, TOKEN);
  assert.equal(r.status, 400, r.text);
  assert.match(r.body.error.message, /nested deeper than 32 levels/);
  const g = await s.fetchJson('POST', '/graphql', `{"query":"{ articles { title } }","variables":{"x":${deep(100)}}}`, TOKEN);
  assert.equal(g.status, 400, g.text);
  // Strings holding brackets do not count, and nesting at the limit is fine.
  const ok = await s.fetchJson('POST', '/api/articles', `{"data":{"title":"[[[[{{{{","slug":"json-at-limit","metadata":${deep(29)}}}`, TOKEN);
  assert.equal(ok.status, 201, ok.text);
  assert.equal((await s.fetchJson('GET', '/api/articles?filters[slug]=deep-json', undefined, TOKEN)).body.data.length, 0, 'nothing was written');
});
