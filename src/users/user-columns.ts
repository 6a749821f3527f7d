// The columns of the attributes a project's extension adds to the user (src/models.ts), as Strapi's
// database layer writes a body's values for them: the users routes pass the body to `strapi.db.query`,
// which keeps the model's attributes and drops any other key. The plugin's own attributes keep the
// checks of their routes (users-crud.ts, plugin.ts).
import type { ContentType, Schema, ScalarAttr } from '../../compiler/schema.ts';
import { usersPermissionsTypes } from '../plugin-types.ts';

const PLUGIN = new Set(usersPermissionsTypes().users.attributes.map((a) => a.name));

/** The scalars the project added to the user, in attribute order. */
export function addedScalars(users: ContentType): ScalarAttr[] {
  return users.attributes.filter((a): a is ScalarAttr => a.kind === 'scalar' && !PLUGIN.has(a.name));
}

/**
 * `[column, value]` of each added scalar the body sets (`only`: of these names alone). JSON values are sent as
 * their text; the others as given, typed by their column as PostgreSQL infers the parameter.
 */
export function addedColumns(schema: Schema, b: Record<string, unknown>, only?: ReadonlySet<string>): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const a of addedScalars(usersPermissionsTypes(schema).users)) {
    if (!Object.prototype.hasOwnProperty.call(b, a.name) || b[a.name] === undefined || (only && !only.has(a.name))) continue;
    const v = b[a.name];
    out.push([a.column, (a.type === 'json' || a.type === 'blocks') && v !== null ? JSON.stringify(v) : v]);
  }
  return out;
}
