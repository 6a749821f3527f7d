// Issue 28, on the project test/fixtures/role-data (its src/extensions add a relation to a content-type, a media
// field and a component to users-permissions' role, a media field to the user; its team relates both ways with
// upload's file and i18n's locale; a component has a media field), against what a live Strapi 5.54 answered on the
// same project (test/fixtures/role-data-cases: steps.ts, recorded by record.ts): the role's added attributes on the
// roles routes, a populated role, filters through it and GraphQL's UsersPermissionsRole; the two-way relations from
// either side (populate, filters, sort, GraphQL, a create's links); users, roles and components among a file's
// `related`; and the schema created for them against Strapi's.
import { fileURLToPath } from 'node:url';
import { recordedSuite } from './recorded.ts';
import { STEPS } from './fixtures/role-data-cases/steps.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));

recordedSuite('role-data', here('./fixtures/role-data'), here('./fixtures/role-data-cases'), STEPS);
