// A Strapi project's own code (test/fixtures/project-code: populate route middlewares — Strapi's documented
// example and LaunchPad's pattern —, policies on ctx.state.user, a controller reshaping super.find, a
// service override, custom routes on strapi.documents) against what a live Strapi 5.54 running the same
// files answered (test/fixtures/project-code-cases, recorded by record.ts), and what only this server can
// show: statements per request, a project that fails to load.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { recordedSuite } from './recorded.ts';
import { STEPS } from './fixtures/project-code-cases/steps.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const server = recordedSuite('project-code', here('./fixtures/project-code'), here('./fixtures/project-code-cases'), STEPS,
  { AUTHENTICATED_PERMISSIONS: '*:find,findOne;tag:create,update,delete' });

test('a route middleware that only sets ctx.query runs one statement', async () => {
  const r = await server().fetchJson('GET', '/api/articles?sort=title:asc', undefined, null);
  assert.equal(r.status, 200);
  assert.equal(r.headers['x-sql-statements'], '1');
  assert.ok(r.body.data[0].author, 'populated by the middleware');
});
