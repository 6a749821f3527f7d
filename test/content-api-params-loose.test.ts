// A project's own Content API params with neither strict setting, against what a live Strapi 5.54 answered
// running the same project so (test/fixtures/content-api-params-loose): a query param's value is no longer
// checked (sanitizeQuery still hands on what its schema made of it, or leaves it out), a body param's
// still is.
import { fileURLToPath } from 'node:url';
import { recordedSuite } from './recorded.ts';
import { STEPS } from './fixtures/content-api-params/steps.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
recordedSuite('loose content API params', here('./fixtures/content-api-params/project'), here('./fixtures/content-api-params-loose'), STEPS, { REST_STRICT_PARAMS: 'false', DOCUMENTS_STRICT_PARAMS: 'false' });
