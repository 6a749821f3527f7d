// Strapi's example app (test/fixtures/models-getstarted: the models of strapi/strapi examples/getstarted —
// localized single types, non-D&P localized types, required components and dynamic zones with min,
// relations inside components and dynamic zones, relations to users, three levels of single components)
// against what a live Strapi 5.54 answered to the same requests (test/fixtures/getstarted: steps.ts,
// recorded by record.ts into cases.jsonl), and the schema this server creates for it against the one
// Strapi made.
import { fileURLToPath } from 'node:url';
import { recordedSuite } from './recorded.ts';
import { STEPS } from './fixtures/getstarted/steps.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
recordedSuite('getstarted', here('./fixtures/models-getstarted'), here('./fixtures/getstarted'), STEPS);
