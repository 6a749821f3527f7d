// Issue 28, on the project test/fixtures/plugin-data (its src/extensions add a relation to a content-type, a
// media field, a component and a dynamic zone to upload's file; a relation, a media field and a component to
// i18n's locale; scalars to users-permissions' permission and upload's folder), against what a live Strapi 5.54
// answered on the same project (test/fixtures/plugin-data-cases: steps.ts, recorded by record.ts): upload's file
// reads with populate, filters and sort on the added attributes, a content-type's media populated and filtered
// through them, a populated role's permissions, the locales, GraphQL's UploadFile, I18NLocale and
// UsersPermissionsPermission; and the schema created for them (link, component and extended plugin tables) against Strapi's.
import { fileURLToPath } from 'node:url';
import { recordedSuite } from './recorded.ts';
import { STEPS } from './fixtures/plugin-data-cases/steps.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));

recordedSuite('plugin-data', here('./fixtures/plugin-data'), here('./fixtures/plugin-data-cases'), STEPS);
