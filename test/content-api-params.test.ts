// A project's own Content API params (Strapi 5.54's strapi.contentAPI.addQueryParams / addInputParams in
// register()) under both strict settings, against what a live Strapi 5.54 answered running the same project
// (test/fixtures/content-api-params): allowed on the routes their matchRoute takes, checked with their Zod
// schema (this server's subset: the fixture has no Zod installed), in Strapi's order of checks, never
// written; the core controller's helpers in a project's own actions hand them on as Strapi's.
import { fileURLToPath } from 'node:url';
import { recordedSuite } from './recorded.ts';
import { STEPS } from './fixtures/content-api-params/steps.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
recordedSuite('content API params', here('./fixtures/content-api-params/project'), here('./fixtures/content-api-params'), STEPS);

// Strapi 5.54's registration checks (@strapi/core services/content-api), in its words: a project whose
// register() breaks one stops at start naming src/index.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContentApiParams } from '../src/project/content-api-params.ts';
import { z } from '../src/project/zod-subset.ts';

test('registering params: Strapi\'s refusals', () => {
  const p = new ContentApiParams(() => z);
  const api = p.api();
  const zs = z as unknown as { string(): unknown; object(s: object): unknown; array(e: unknown): unknown; enum(v: string[]): { optional(): unknown } };
  assert.throws(() => api.addQueryParams({ filters: { schema: zs.string() } }), { message: 'contentAPI.addQueryParams: param "filters" is reserved by Strapi; use a different name' });
  assert.throws(() => api.addQueryParams({ deep: { schema: (zz: typeof zs) => zz.object({}) } }), { message: 'contentAPI.addQueryParams: param "deep" schema must be a scalar (string, number, boolean, enum) or array of scalars; got ZodObject. Use addInputParams for nested objects.' });
  assert.throws(() => api.addQueryParams({ raw: { schema: { type: 'string' } } }), { message: 'contentAPI.addQueryParams: param "raw" schema must be a scalar (string, number, boolean, enum) or array of scalars; got Object. Use addInputParams for nested objects.' });
  api.addQueryParams({ level: { schema: zs.enum(['a', 'b']).optional() }, many: { schema: zs.array(zs.string()) } });
  assert.throws(() => api.addQueryParams({ level: { schema: zs.string() } }), { message: 'contentAPI.addQueryParams: param "level" has already been added' });
  assert.throws(() => api.addInputParams({ documentId: { schema: zs.string() } }), { message: 'contentAPI.addInputParams: param "documentId" is reserved by Strapi; use a different name' });
  api.addInputParams({ meta: { schema: zs.object({}), matchRoute: (r: Record<string, unknown>) => r.method === 'POST' } });
  assert.throws(() => api.addInputParams({ meta: { schema: zs.string() } }), { message: 'contentAPI.addInputParams: param "meta" has already been added' });
  // Routes with the same params share one set (its id keys the compiler's plans); matchRoute decides.
  const get = p.forRoute({ method: 'GET', path: '/a' });
  assert.deepEqual([...get!.keys], ['level', 'many']);
  assert.deepEqual([...get!.inputKeys], []);
  assert.equal(p.forRoute({ method: 'GET', path: '/b' }), get);
  assert.deepEqual([...p.forRoute({ method: 'POST', path: '/a' })!.inputKeys], ['meta']);
});
