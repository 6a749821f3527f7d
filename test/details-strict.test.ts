// The details steps (test/fixtures/details) under both strict settings, as Strapi's own API test app runs
// (`api.rest.strictParams` and `api.documents.strictParams`), against what a live Strapi 5.54 so set up
// answered (test/fixtures/details-strict).
import { fileURLToPath } from 'node:url';
import { recordedSuite } from './recorded.ts';
import { STEPS } from './fixtures/details/steps.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
recordedSuite('details (strict settings)', here('./fixtures/models-details'), here('./fixtures/details-strict'), STEPS, { REST_STRICT_PARAMS: 'true', DOCUMENTS_STRICT_PARAMS: 'true' });
