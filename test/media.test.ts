// Issue 29, on the models of test/fixtures/models-media, against what a live Strapi 5.54 answered to the
// same requests (test/fixtures/media: steps.ts, recorded by record.ts into cases.jsonl): media relation
// writes (`connect`/`disconnect`/`set` and the `files_related_mph` rows they leave), `$null`/`$notNull`
// on media, relations and components, GraphQL `updateUploadFile`/`deleteUploadFile`, GraphQL filters on
// repeatable components, GraphQL `DateTime` input, `populate=true` under a populate, and the key order
// of media `fields` and of dotted populates under one component.
import { fileURLToPath } from 'node:url';
import { recordedSuite } from './recorded.ts';
import { STEPS } from './fixtures/media/steps.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
recordedSuite('media', here('./fixtures/models-media'), here('./fixtures/media'), STEPS);
