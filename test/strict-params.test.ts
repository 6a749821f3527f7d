// `api.rest.strictParams` (Strapi 5.54): a content-type route refuses a top-level query key it does not know,
// before anything else of the query (its publicationFilter's value aside) and before writing, against what a
// live Strapi 5.54 answered (test/fixtures/strict-params); users-permissions routes do not check.
import { fileURLToPath } from 'node:url';
import { recordedSuite } from './recorded.ts';
import { STEPS } from './fixtures/strict-params/steps.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
recordedSuite('strict params', here('./fixtures/models-details'), here('./fixtures/strict-params'), STEPS, { REST_STRICT_PARAMS: 'true' });
