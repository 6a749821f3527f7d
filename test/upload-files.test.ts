// Issue 28, on the models of test/fixtures/models-media, against what a live Strapi 5.54 answered to the
// same requests (test/fixtures/upload-files: steps.ts, recorded by record.ts into cases.jsonl): `fields` on
// GET /api/upload/files (applied) and /files/:id (validated only), the list's parameters (no `pagination`,
// top-level start/limit), and GET /api/upload/files/page (content-api findPage: `{ data, meta: { pagination } }`,
// guarded by plugin::upload.content-api.findPage); `populate` on the three reads (the file's `related` morph, a
// fragment per type, the private `folder`, invalid keys).
import { fileURLToPath } from 'node:url';
import { recordedSuite } from './recorded.ts';
import { STEPS } from './fixtures/upload-files/steps.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
// The public role is read from its rows (PUBLIC_PERMISSIONS emptied) at every request (PERMISSIONS_CACHE_TTL=0):
// the steps grant it upload's actions by SQL, as Strapi's admin would, and the next request sees them.
recordedSuite('upload files', here('./fixtures/models-media'), here('./fixtures/upload-files'), STEPS, { PUBLIC_PERMISSIONS: '', PERMISSIONS_CACHE_TTL: '0' });
