// The columns of the attributes a project's extension adds to the user (src/models.ts), as Strapi's
// database layer writes a body's values for them: the users routes pass the body to `strapi.db.query`,
// which keeps the model's attributes and drops any other key. The plugin's own attributes keep the
// checks of their routes (users-crud.ts, plugin.ts).
import type { TransactionSql } from 'postgres';
import type { Attribute, ContentType, Schema, ScalarAttr } from '../../compiler/schema.ts';
import { usersPermissionsTypes } from '../plugin-types.ts';
import { BodyValidator, throwIfErrors } from '../rest/validate.ts';
import { Writer } from '../rest/writer.ts';

const PLUGIN = new Set(usersPermissionsTypes().users.attributes.map((a) => a.name));

/** The scalars the project added to the user, in attribute order. */
export function addedScalars(users: ContentType): ScalarAttr[] {
  return users.attributes.filter((a): a is ScalarAttr => a.kind === 'scalar' && !PLUGIN.has(a.name));
}

/**
 * `[column, value]` of each added scalar the body sets (`only`: of these names alone). JSON values are sent as
 * their text; the others as given, typed by their column as PostgreSQL infers the parameter.
 */
export function addedColumns(schema: Schema, b: Record<string, unknown>, opts: { only?: ReadonlySet<string>; withDefaults?: boolean } = {}): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const a of addedScalars(usersPermissionsTypes(schema).users)) {
    const given = Object.prototype.hasOwnProperty.call(b, a.name) && b[a.name] !== undefined && (!opts.only || opts.only.has(a.name));
    // A new row gets each attribute's `default` the body leaves out, as the database layer's create does.
    if (!given && !(opts.withDefaults && a.default !== undefined)) continue;
    const v = given ? b[a.name] : a.default;
    out.push([a.column, (a.type === 'json' || a.type === 'blocks') && v !== null ? JSON.stringify(v) : v]);
  }
  return out;
}

/** The user as seen by the content writer: the added media, relations and components only (the rest is src/users/'s). */
const LINKED = new WeakMap<ContentType, ContentType>();
function linkedView(users: ContentType): ContentType {
  let v = LINKED.get(users);
  if (!v) {
    const attributes: Attribute[] = users.attributes.filter((a) => !PLUGIN.has(a.name) && a.kind !== 'scalar');
    v = { ...users, attributes, byName: new Map(attributes.map((a) => [a.name, a])) };
    LINKED.set(users, v);
  }
  return v;
}

/**
 * Writes the added media, relation and component values the body sets on user `id`, in `tx`, through the
 * content writer (the same checks and statements as a content-type's; Strapi's database layer writes them
 * alike for a valid body). Returns the statements run.
 */
export async function writeAddedLinks(schema: Schema, tx: TransactionSql, id: number, documentId: string, b: Record<string, unknown>, creating: boolean, only?: ReadonlySet<string>): Promise<number> {
  const view = linkedView(usersPermissionsTypes(schema).users);
  const data = Object.fromEntries(Object.entries(b).filter(([k, v]) => view.byName.has(k) && v !== undefined && (!only || only.has(k))));
  if (!Object.keys(data).length) return 0;
  const w = new Writer(schema, tx, view);
  const v = new BodyValidator(schema, view, false);
  const n = v.run(data, creating ? new Map() : await w.existingComponents(view, id));
  throwIfErrors(v.errors);
  const row = { id, locale: null, published: true };
  await w.check(n, documentId, null);
  await w.ownedOnly(row, n, creating);
  await w.relations(row, n, documentId, creating);
  return w.statements;
}
