// The last details of Strapi 5.54's answers (issue 25), on the models of test/fixtures/models-details,
// against what a live Strapi 5.54 answered to the same requests (test/fixtures/details: steps.ts,
// recorded by record.ts into cases.jsonl): `$or`/`$and` arrays as groups, `$null` with any value, `_q`
// over private but never `searchable: false` attributes, passwords in component filters and in `fields`,
// time and date filter values, populate filters on to-one relations, components and dynamic-zone
// fragments, the key order of populated attributes, GraphQL `Long` numbers, the components validation
// errors echo, a required single component given null.
import { fileURLToPath } from 'node:url';
import { recordedSuite } from './recorded.ts';
import { STEPS } from './fixtures/details/steps.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
recordedSuite('details', here('./fixtures/models-details'), here('./fixtures/details'), STEPS);
