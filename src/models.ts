// Loads a folder of Strapi schema.json models into the normalized registry (compiler/schema.ts).
// Layouts accepted: a Strapi project (its root or its src/: api/<api>/content-types/<name>/schema.json
// and components/<category>/<name>.json), or content-types/<name>.json or content-types/<name>/schema.json
// with components/<category>/<name>.json. An invalid model stops the server naming the file and attribute.
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join, relative, basename } from 'node:path';
import {
  type Attribute, type Component, type ContentType, type Schema, type RelationKind, SCALAR_TYPES, type ScalarType, type ScalarAttr,
  type MorphAttr, type MorphRelation, type RelationAttr,
} from '../compiler/schema.ts';
import { FILE_UID, fileReadType, fillRecordTarget, pluginTypes, recordTarget, RECORD_PLUGIN_ATTRIBUTES, USERS_UID, PERMISSIONS_UID } from './plugin-types.ts';
import { customFieldResolver, type CustomFieldAnswer } from './project/custom-fields.ts';
import { ADMIN_USERS, columnName, componentsTable, inverseJoinTable, morphColumns, morphJoinTable, ownerJoinTable, tableName, type JoinTable, type StrapiRelation } from '../compiler/layout.ts';

export class ModelError extends Error {}

/** Each model's `collectionName` as written: Strapi names some indexes and `_cmps` tables from it, not from the (possibly shortened) table. */
const COLLECTION_NAMES = new WeakMap<ContentType | Component, string>();
export function collectionNameOf(model: ContentType | Component): string { return COLLECTION_NAMES.get(model) ?? model.table; }

const RESERVED = new Set(['id', 'documentId', 'document_id', 'createdAt', 'updatedAt', 'publishedAt', 'locale', 'localizations', 'createdBy', 'updatedBy', '__component', 'status', 'meta']);
const RELATIONS = new Set<RelationKind>(['oneToOne', 'oneToMany', 'manyToOne', 'manyToMany', 'oneWay', 'manyWay']);
const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
/** Columns every version table has; an attribute may not map onto one of them. */
const SYSTEM_COLUMNS = new Set(['id', 'document_id', 'locale', 'published_at', 'created_at', 'updated_at', 'created_by_id', 'updated_by_id']);
/** Filled in once every model is known (see resolveJoins). */
const UNRESOLVED: JoinTable = { table: '', source: '', target: '', order: null, inverseOrder: null };

type Json = Record<string, unknown>;

function readJson(file: string, root: string): Json {
  let v: unknown;
  try { v = JSON.parse(readFileSync(file, 'utf8')); } catch (e) {
    throw new ModelError(`${relative(root, file)}: not valid JSON (${(e as Error).message})`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ModelError(`${relative(root, file)}: a model must be a JSON object`);
  return v as Json;
}

function listJson(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const p = join(dir, entry);
    if (statSync(p).isDirectory()) {
      const schema = join(p, 'schema.json');
      if (existsSync(schema)) out.push(schema);
      else out.push(...listJson(p));
    } else if (entry.endsWith('.json')) out.push(p);
  }
  return out;
}

interface Raw { file: string; json: Json }

/** Where a models folder keeps its content-type files and components, and how uids are formed. */
interface ModelFiles { contentTypes: Array<{ file: string; uid: string | null }>; componentsDir: string; extensionsDir: string }

/** A Strapi project (root or src/) or the flat content-types/ + components/ layout. */
function findModelFiles(dir: string): ModelFiles {
  const src = existsSync(join(dir, 'src', 'api')) ? join(dir, 'src') : existsSync(join(dir, 'api')) ? dir : null;
  if (src) {
    const contentTypes: ModelFiles['contentTypes'] = [];
    const apiDir = join(src, 'api');
    for (const api of readdirSync(apiDir).sort()) {
      const ctDir = join(apiDir, api, 'content-types');
      if (!existsSync(ctDir)) continue;
      for (const name of readdirSync(ctDir).sort()) {
        const file = join(ctDir, name, 'schema.json');
        if (existsSync(file)) contentTypes.push({ file, uid: `api::${api}.${name}` });
      }
    }
    return { contentTypes, componentsDir: join(src, 'components'), extensionsDir: join(src, 'extensions') };
  }
  return { contentTypes: listJson(join(dir, 'content-types')).map((file) => ({ file, uid: null })), componentsDir: join(dir, 'components'), extensionsDir: join(dir, 'extensions') };
}

export interface ModelOptions {
  defaultLocale: string;
  locales: string[];
  /** The setting CUSTOM_FIELDS: custom field uid → its type, for fields no installed plugin registers. */
  customFields?: Readonly<Record<string, string>>;
}

export function loadModels(dir: string, opts: ModelOptions): Schema {
  if (!existsSync(dir)) throw new ModelError(`models folder not found: ${dir}`);
  const files = findModelFiles(dir);
  const compDir = files.componentsDir;
  if (files.contentTypes.length === 0) throw new ModelError(`no content-types found in ${dir} (expected src/api/*/content-types/*/schema.json or content-types/)`);

  const components = new Map<string, Component>();
  const rawComponents: Raw[] = [];
  for (const file of listJson(compDir)) {
    const rel = relative(compDir, file).split(/[\\/]/);
    const category = rel.length > 1 ? rel[0] : 'default';
    const name = basename(file, '.json');
    const uid = `${category}.${name}`;
    const json = readJson(file, dir);
    // Strapi 5 has no default component table: it stops with this message when collectionName is missing.
    if (typeof json.collectionName !== 'string' || json.collectionName === '') throw new ModelError(`Component ${name} is missing a "collectionName" property.\nVerify file ${relative(dir, file)}.`);
    const table = tableName(json.collectionName);
    if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new ModelError(`${relative(dir, file)}: collectionName "${table}" must be lower-case letters, digits and _`);
    rawComponents.push({ file, json });
    // singularName = the file's name (Strapi's modelName), snake-cased where Strapi names join columns.
    const component: Component = { uid, category, table, singularName: name, attributes: [], byName: new Map() };
    COLLECTION_NAMES.set(component, json.collectionName);
    components.set(uid, component);
  }

  const contentTypes = new Map<string, ContentType>();
  const rawTypes: Raw[] = [];
  const where = (f: string) => relative(dir, f);
  for (const { file, uid: folderUid } of files.contentTypes) {
    const json = readJson(file, dir);
    const info = (json.info ?? {}) as Json;
    const singular = info.singularName, plural = info.pluralName;
    if (typeof singular !== 'string' || !NAME.test(singular)) throw new ModelError(`${where(file)}: info.singularName is missing or invalid`);
    if (typeof plural !== 'string' || !NAME.test(plural)) throw new ModelError(`${where(file)}: info.pluralName is missing or invalid`);
    const kind = json.kind ?? 'collectionType';
    if (kind !== 'collectionType' && kind !== 'singleType') throw new ModelError(`${where(file)}: kind must be collectionType or singleType`);
    const collection = typeof json.collectionName === 'string' ? json.collectionName : plural;
    const table = tableName(collection);
    if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new ModelError(`${where(file)}: collectionName "${table}" must be lower-case letters, digits and _`);
    const uid = folderUid ?? `api::${singular}.${singular}`;
    if (contentTypes.has(uid)) throw new ModelError(`${where(file)}: content-type ${uid} is defined twice`);
    const options = (json.options ?? {}) as Json;
    const i18n = ((json.pluginOptions as Json | undefined)?.i18n ?? {}) as Json;
    const ct: ContentType = {
      uid, kind, singularName: singular, pluralName: plural, apiName: singular, table,
      draftAndPublish: options.draftAndPublish === true,
      localized: i18n.localized === true,
      attributes: [], byName: new Map(),
    };
    COLLECTION_NAMES.set(ct, collection);
    if (options.populateCreatorFields === true) CREATOR_TYPES.add(ct);
    contentTypes.set(uid, ct);
    rawTypes.push({ file, json });
  }

  const schema: Schema = {
    contentTypes, components, routes: new Map(),
    defaultLocale: opts.defaultLocale, locales: opts.locales,
  };
  for (const ct of contentTypes.values()) {
    const route = ct.kind === 'singleType' ? ct.singularName : ct.pluralName;
    if (schema.routes.has(route)) throw new ModelError(`two content-types use the route /api/${route}`);
    schema.routes.set(route, ct);
  }

  const ctList = [...contentTypes.values()];
  const extensions = readExtensions(files.extensionsDir, dir);
  addBuiltinTargets(contentTypes, [...rawTypes, ...rawComponents, ...extensions], extensions.length > 0);
  const customField = customFieldResolver(dir, opts.customFields ?? {});
  rawTypes.forEach((raw, i) => {
    const ct = ctList[i];
    ct.attributes = parseAttributes(raw, schema, dir, ct, ct.localized, customField);
    for (const a of ct.attributes) ct.byName.set(a.name, a);
    if (CREATOR_TYPES.has(ct)) addCreatorFields(ct, contentTypes);
  });
  // The extended plugin types, with their attributes, beside the models' own (relations checked alike); upload's
  // file and i18n's locale keep their records' lists (schema.pluginRecords) with the added scalars, and are relation
  // targets with every added attribute when a content-type relates to them.
  const extended = extensions.filter((raw) => !RECORD_TYPES.has(raw.uid)).map((raw) => extendPluginType(raw, schema, dir, customField));
  const records = extensions.filter((raw) => RECORD_TYPES.has(raw.uid));
  for (const raw of records) extendRecordType(raw, schema, dir, customField);
  // The file and the locale as the content-types' relation targets, with what their extensions added.
  const targets = [...RECORD_TYPES.keys()].flatMap((uid) => schema.contentTypes.get(uid) ?? []);
  for (const t of targets) fillRecordTarget(t, schema);
  const compList = [...components.values()];
  rawComponents.forEach((raw, i) => {
    const c = compList[i];
    c.attributes = parseAttributes(raw, schema, dir, c, false, customField);
    for (const a of c.attributes) c.byName.set(a.name, a);
  });
  // (A target no extension changed has only the plugin's attributes, whose links are the plugin's: nothing to check.)
  const targetFiles = targets.map((ct) => ({ ct, file: records.find((r) => r.uid === ct.uid)?.file ?? join(dir, 'src/extensions') }));
  checkRelationPairs(schema, [...ctList.map((ct, i) => ({ ct, file: rawTypes[i].file })), ...extended, ...targetFiles], dir);
  checkMorphTargets(schema, rawTypes, dir);
  checkComponentCycles(schema);
  resolveJoins(schema);
  schema.files = schema.contentTypes.get(FILE_UID) ?? fileReadType(schema);
  return schema;
}

/** Plugin types a model may relate to, made known when some model does (or the project extends them). */
export const ADMIN_UID = 'admin::user';

/** Types whose schema sets `options.populateCreatorFields`. */
const CREATOR_TYPES = new WeakSet<ContentType>();

/**
 * `populateCreatorFields`: Strapi then answers createdBy/updatedBy as relations to admin users (their
 * public fields; the others private) wherever a populate, filter or sort names them (checked live). They
 * live in the row's own `created_by_id`/`updated_by_id` columns: the type's table serves as their link
 * table (one "link" per row, the row itself), so every read path joins them as any to-one relation.
 */
function addCreatorFields(ct: ContentType, contentTypes: Map<string, ContentType>): void {
  if (!contentTypes.has(ADMIN_UID)) contentTypes.set(ADMIN_UID, adminUsersModel());
  ct.creators = creatorsOf(ct);
  for (const a of ct.creators) ct.byName.set(a.name, a);
}

function creatorsOf(ct: ContentType): RelationAttr[] {
  return (['createdBy', 'updatedBy'] as const).map((name): RelationAttr => ({
    kind: 'relation', name, relation: 'oneToOne', target: ADMIN_UID, toMany: false, owner: true, creator: true, readOnly: true,
    required: false, private: false, localized: false,
    join: { table: ct.table, source: 'id', target: name === 'createdBy' ? 'created_by_id' : 'updated_by_id', order: null, inverseOrder: null },
  }));
}

/**
 * Content-types as Strapi's database layer sees them: createdBy and updatedBy are relations of every one
 * (the project's, users-permissions', the media library's, the admin's; `populate: true` of the Query
 * Engine reads them), whatever `populateCreatorFields` says. Copies: the content API's types keep their own.
 */
export function withEveryCreator(contentTypes: Map<string, ContentType>): Map<string, ContentType> {
  const out = new Map(contentTypes);
  if (!out.has(ADMIN_UID)) throw new Error('withEveryCreator: the types must hold admin::user, the creators\' target');
  for (const [uid, ct] of contentTypes) {
    if (ct.creators) continue;
    const creators = creatorsOf(ct);
    out.set(uid, { ...ct, creators, byName: new Map([...ct.byName, ...creators.map((a) => [a.name, a] as const)]) });
  }
  return out;
}

function addBuiltinTargets(contentTypes: Map<string, ContentType>, raws: Array<Raw & { uid?: string }>, usersExtended: boolean): void {
  const targetsOf = (rs: Raw[]) => new Set(rs.flatMap((r) => Object.values((r.json.attributes ?? {}) as Record<string, Json>)
    .map((d) => (d && typeof d === 'object' && d.type === 'relation' ? d.target : undefined))));
  const targets = targetsOf(raws);
  // A populated user shows its role (and a role its permissions) as in Strapi: the plugin's three types.
  if ((usersExtended || targets.has(USERS_UID)) && !contentTypes.has(USERS_UID)) {
    for (const ct of Object.values(pluginTypes())) contentTypes.set(ct.uid, ct);
  }
  if (targets.has(ADMIN_UID) && !contentTypes.has(ADMIN_UID)) contentTypes.set(ADMIN_UID, adminUsersModel());
  // Upload's file and i18n's locale as relation targets (attributes set once the extensions are read): of the
  // project's types, not of the plugin types' own (a folder's files, a file's folder are the plugin's links).
  const recordTargets = targetsOf(raws.filter((r) => !r.uid || !RECORD_TYPES.has(r.uid)));
  for (const uid of RECORD_TYPES.keys()) {
    const target = recordTargets.has(uid) && !contentTypes.has(uid) ? recordTarget(uid) : null;
    if (target) contentTypes.set(uid, target);
  }
}

const scalar = (name: string, type: ScalarType, extra: Partial<ScalarAttr> = {}): ScalarAttr =>
  ({ kind: 'scalar', name, type, column: columnName(name), unique: false, required: false, private: false, localized: false, ...extra });

/**
 * Strapi's admin users (`admin_users`) as a relation target: a populated one shows its names and
 * language, never its email, password, tokens or state (private in Strapi's admin model, checked live).
 * Only the caller allowed everything (a full-access token) may read them, as no role can grant
 * `admin::user.find`.
 */
export function adminUsersModel(): ContentType {
  const attributes: Attribute[] = [
    scalar('firstname', 'string'), scalar('lastname', 'string'), scalar('username', 'string'),
    scalar('email', 'email', { private: true }), scalar('password', 'password', { private: true }),
    scalar('resetPasswordToken', 'string', { private: true }), scalar('registrationToken', 'string', { private: true }),
    scalar('isActive', 'boolean', { private: true }), scalar('blocked', 'boolean', { private: true }),
    scalar('preferedLanguage', 'string'),
  ];
  return {
    uid: ADMIN_UID, kind: 'collectionType', singularName: 'user', pluralName: 'users', apiName: 'user', table: ADMIN_USERS,
    draftAndPublish: false, localized: false, attributes, byName: new Map(attributes.map((a) => [a.name, a])),
    builtin: { graphqlName: 'AdminUser' }, privateRelations: new Set(['roles']),
  };
}

/** Plugin types whose attributes a project's `src/extensions/<plugin>/content-types/<name>/schema.json` changed. */
const EXTENDED = new WeakSet<ContentType>();
export function isExtended(ct: ContentType): boolean { return EXTENDED.has(ct); }

/** Plugin content-types Strapi 5.54 lets a project extend (its plugins' `contentTypes`, merged alike), all served here. */
const EXTENSIBLE: Record<string, ReadonlySet<string>> = {
  'users-permissions': new Set(['user', 'role', 'permission']),
  upload: new Set(['file', 'folder']),
  i18n: new Set(['locale']),
};

/** Plugin types whose records this server renders from fixed lists, which an extension's scalars join. */
const RECORD_TYPES = new Map(Object.entries(RECORD_PLUGIN_ATTRIBUTES).map(([k, v]) => [v.uid, k as keyof typeof RECORD_PLUGIN_ATTRIBUTES]));

/**
 * An extension of upload's file or i18n's locale, merged as Strapi merges it (its `attributes` the type's whole
 * list): the plugin's attributes must stay with their types; the added scalars join the type's columns (in the
 * table before the timestamps, as Strapi's schema sync puts them) and its answers, in attribute order. Added
 * one-way relations, media, components and dynamic zones are stored as on any model (`<table>_<attr>_lnk`,
 * `files_related_mph` rows of the plugin type, `<table>_cmps`); so are two-way relations with a content-type that
 * relates back (joined with the content-types' relations); polymorphic relations stop the start.
 */
function extendRecordType(raw: Raw & { uid: string }, schema: Schema, root: string, customField: (uid: unknown) => CustomFieldAnswer): void {
  const key = RECORD_TYPES.get(raw.uid)!;
  const def = RECORD_PLUGIN_ATTRIBUTES[key];
  const file = relative(root, raw.file);
  const json = raw.json;
  if (json.collectionName !== undefined && json.collectionName !== def.table) throw new ModelError(`${file}: collectionName "${String(json.collectionName)}": ${raw.uid} stays in ${def.table} here`);
  if (json.attributes === undefined) return;
  const attrs = json.attributes;
  if (!attrs || typeof attrs !== 'object' || Array.isArray(attrs)) throw new ModelError(`${file}: "attributes" must be an object`);
  const given = attrs as Json;
  const own = new Map(def.attributes.map(([name, type, isPrivate]) => [name, { type, isPrivate }]));
  for (const [name, { type }] of own) {
    const d = given[name] as Json | undefined;
    if (!d || typeof d !== 'object') throw new ModelError(`${file}: attribute "${name}" is missing: the extension's attributes replace the plugin's (Strapi merges the schema's top-level keys), and the plugin needs it`);
    if (d.type !== type) throw new ModelError(`${file}: attribute "${name}": type "${String(d.type)}", the plugin needs "${type}"`);
  }
  const ct: ContentType = {
    uid: raw.uid, kind: 'collectionType', singularName: key, pluralName: `${key}s`, apiName: key, table: def.table,
    draftAndPublish: false, localized: false, attributes: [], byName: new Map(),
  };
  const added = Object.fromEntries(Object.entries(given).filter(([k]) => !own.has(k)));
  const parsed = parseAttributes({ file: raw.file, json: { collectionName: def.table, attributes: added } }, schema, root, ct, false, customField);
  const others = parsed.filter((a) => a.kind !== 'scalar');
  // A folder's added relations or components would only be tables here: nothing reads folders (no content-API route
  // nor GraphQL type answers them), and the tables are left to Strapi rather than made without a reader.
  if (key === 'folder' && others.length) throw new ModelError(`${file}: attribute "${others[0].name}": only scalar attributes can be added to ${raw.uid} here (Strapi 5.54 takes any)`);
  for (const a of others) {
    // Polymorphic relations are not linked here (their links would need the plugin type among morph targets).
    if (a.kind === 'morph') throw new ModelError(`${file}: attribute "${a.name}": a ${a.relation} relation cannot be added to ${raw.uid} here (Strapi 5.54 takes it)`);
    // A two-way relation's other side is a content-type's relation to this plugin type, which made it a relation
    // target (schema.contentTypes): linked there with the content-types' relations (resolveJoins, checkRelationPairs).
    if (a.kind === 'relation' && (a.mappedBy || a.inversedBy) && !schema.contentTypes.has(raw.uid)) throw new ModelError(`${file}: attribute "${a.name}": ${a.mappedBy ? 'mappedBy' : 'inversedBy'} "${a.mappedBy ?? a.inversedBy}" is not a relation of ${a.target} back to ${raw.uid}`);
    if (a.kind === 'relation' && !a.mappedBy && !a.inversedBy) a.join = ownerJoinTable(ct, a.name, schema.contentTypes.get(a.target)!, strapiRelation(a.relation), false);
  }
  const scalars = parsed.filter((a): a is ScalarAttr => a.kind === 'scalar');
  const ownScalars = new Map([...own].filter(([, d]) => d.type !== 'relation')
    .map(([name, d]) => [name, scalar(name, d.type as ScalarType, { private: d.isPrivate })] as const));
  const columns = new Set([...ownScalars.values()].map((a) => a.column));
  for (const a of scalars) if (columns.has(a.column)) throw new ModelError(`${file}: attribute "${a.name}": its column name "${a.column}" collides with another attribute`);
  const byName = new Map<string, ScalarAttr>([...ownScalars, ...scalars.map((a) => [a.name, a] as const)]);
  const order = Object.keys(given);
  ct.attributes = order.flatMap((k) => byName.get(k) ?? []);
  ct.byName = new Map(ct.attributes.map((a) => [a.name, a]));
  schema.pluginRecords = { ...schema.pluginRecords, [key]: { ct, order, added: scalars, others } };
}

/**
 * The project's extended plugin content-types. Strapi reads `extensions/<plugin>/content-types/<name>/schema.json`
 * for the content-types its plugins have and ignores any other file: users-permissions' user, role and permission,
 * upload's file and folder, i18n's locale.
 */
function readExtensions(dir: string, root: string): Array<Raw & { uid: string }> {
  if (!existsSync(dir)) return [];
  const out: Array<Raw & { uid: string }> = [];
  for (const plugin of readdirSync(dir).sort()) {
    const ctDir = join(dir, plugin, 'content-types');
    if (!EXTENSIBLE[plugin] || !existsSync(ctDir)) continue;
    for (const name of readdirSync(ctDir).sort()) {
      const file = join(ctDir, name, 'schema.json');
      if (!existsSync(file) || !EXTENSIBLE[plugin].has(name)) continue;
      out.push({ file, json: readJson(file, root), uid: `plugin::${plugin}.${name}` });
    }
  }
  return out;
}

/**
 * Strapi's merge of an extension (`{ ...plugin's schema, ...extension }`): top-level keys replace the plugin's,
 * so the file's `attributes` are the type's whole list, in its order (the user's, a role's). The plugin's own attributes keep their
 * definitions here (users-permissions' code relies on them and refuses without them); the others are parsed as
 * any model's, stored as Strapi stores them for `up_users` / `up_roles`.
 */
function extendPluginType(raw: Raw & { uid: string }, schema: Schema, root: string, customField: (uid: unknown) => CustomFieldAnswer): { ct: ContentType; file: string } {
  const ct = schema.contentTypes.get(raw.uid)!;
  const file = relative(root, raw.file);
  const json = raw.json;
  if (json.collectionName !== undefined && json.collectionName !== ct.table) throw new ModelError(`${file}: collectionName "${String(json.collectionName)}": ${raw.uid} stays in ${ct.table} here`);
  if (json.attributes === undefined) return { ct: ct, file: raw.file };
  const attrs = json.attributes;
  if (!attrs || typeof attrs !== 'object' || Array.isArray(attrs)) throw new ModelError(`${file}: "attributes" must be an object`);
  const given = attrs as Json;
  const plugin = new Map(ct.attributes.map((a) => [a.name, a]));
  for (const a of ct.attributes) {
    const d = given[a.name] as Json | undefined;
    const type = a.kind === 'scalar' ? a.type : a.kind;
    if (!d || typeof d !== 'object') throw new ModelError(`${file}: attribute "${a.name}" is missing: the extension's attributes replace the plugin's (Strapi merges the schema's top-level keys), and users-permissions needs it`);
    if (d.type !== type) throw new ModelError(`${file}: attribute "${a.name}": type "${String(d.type)}", users-permissions needs "${type}"`);
  }
  const added = Object.fromEntries(Object.entries(given).filter(([k]) => !plugin.has(k)));
  const parsed = parseAttributes({ file: raw.file, json: { collectionName: ct.table, attributes: added } }, schema, root, ct, false, customField);
  // The user and the role take any attribute (stored and read as any model's); the permission only scalars.
  const other = raw.uid === PERMISSIONS_UID && parsed.find((a) => a.kind !== 'scalar');
  if (other) throw new ModelError(`${file}: attribute "${other.name}": only scalar attributes can be added to ${raw.uid} here (Strapi 5.54 takes any)`);
  const columns = new Set(ct.attributes.flatMap((a) => (a.kind === 'scalar' ? [a.column] : [])));
  for (const a of parsed) if (a.kind === 'scalar' && columns.has(a.column)) throw new ModelError(`${file}: attribute "${a.name}": its column name "${a.column}" collides with another attribute`);
  const byName = new Map<string, Attribute>([...plugin, ...parsed.map((a) => [a.name, a] as const)]);
  ct.attributes = Object.keys(given).map((k) => byName.get(k)!);
  ct.byName = new Map(ct.attributes.map((a) => [a.name, a]));
  EXTENDED.add(ct);
  return { ct: ct, file: raw.file };
}

/** Strapi's relation name for a one-way spelling. */
const strapiRelation = (r: RelationKind): StrapiRelation => (r === 'oneWay' ? 'oneToOne' : r === 'manyWay' ? 'oneToMany' : r);

/** Join tables of every relation: owners first (they name the table), then the mappedBy sides reverse them. */
function resolveJoins(schema: Schema): void {
  // Plugin types come with their link tables; the attributes a project's extension adds do not.
  const models = [...schema.contentTypes.values()];
  // Components own their (one-way) relations through `<component table>_<attribute>_lnk`, as Strapi.
  for (const m of [...models, ...schema.components.values()]) {
    for (const a of m.attributes) {
      if (a.kind !== 'relation' || !a.owner || a.join !== UNRESOLVED) continue;
      const target = schema.contentTypes.get(a.target)!;
      a.join = ownerJoinTable(m, a.name, target, strapiRelation(a.relation), a.inversedBy !== undefined);
    }
  }
  for (const ct of models) {
    for (const a of ct.attributes) {
      if (a.kind !== 'relation' || a.owner || a.join !== UNRESOLVED) continue;
      const owner = schema.contentTypes.get(a.target)!.byName.get(a.mappedBy!)!;
      if (owner.kind === 'relation') a.join = inverseJoinTable(owner.join);
    }
  }
}

function num(v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

function parseAttributes(raw: Raw, schema: Schema, root: string, owner: ContentType | Component, typeLocalized: boolean, customField: (uid: unknown) => CustomFieldAnswer): Attribute[] {
  const isComponent = !('kind' in owner);
  // Named from the collectionName as written, not from the (possibly shortened) table name.
  const cmpsTable = componentsTable(typeof raw.json.collectionName === 'string' ? raw.json.collectionName : owner.table);
  const file = relative(root, raw.file);
  const attrs = raw.json.attributes;
  if (!attrs || typeof attrs !== 'object' || Array.isArray(attrs)) throw new ModelError(`${file}: "attributes" must be an object`);
  const out: Attribute[] = [];
  const columns = new Set<string>();
  for (const [name, defRaw] of Object.entries(attrs as Json)) {
    const fail = (msg: string): never => { throw new ModelError(`${file}: attribute "${name}": ${msg}`); };
    if (!NAME.test(name)) fail('invalid attribute name');
    if (RESERVED.has(name)) fail('this name is reserved');
    if (!defRaw || typeof defRaw !== 'object') fail('definition must be an object');
    let def = defRaw as Json;
    let customFieldUid: string | undefined;
    if (def.type === 'customField') {
      // As Strapi once every register() ran: the attribute is of the type its custom field registers.
      const answer = customField(def.customField);
      if ('error' in answer) fail(answer.error);
      else { def = { ...def, type: answer.type }; customFieldUid = def.customField as string; }
    }
    const type = def.type;
    const i18n = ((def.pluginOptions as Json | undefined)?.i18n ?? {}) as Json;
    // Strapi localizes every attribute of a localized type unless it opts out explicitly.
    // Strapi's i18n: an attribute is localized when it says so; relations and uids always are.
    const localized = typeLocalized && (i18n.localized === true || type === 'relation' || type === 'uid');
    const base = { name, required: def.required === true, private: def.private === true, localized, ...(def.writable === false ? { readOnly: true } : {}) };
    const column = columnName(name);
    if (columns.has(column)) fail(`its column name "${column}" collides with another attribute`);
    if (SYSTEM_COLUMNS.has(column)) fail(`its column name "${column}" is reserved for the system`);
    columns.add(column);
    if (typeof type !== 'string') fail('"type" is missing');
    if (SCALAR_TYPES.has(type as string)) {
      const t = type as ScalarType;
      if (t === 'enumeration') {
        if (!Array.isArray(def.enum) || def.enum.length === 0 || !def.enum.every((v) => typeof v === 'string')) fail('enumeration needs a non-empty "enum" array of strings');
      }
      if (def.regex !== undefined) {
        if (typeof def.regex !== 'string') fail('"regex" must be a string');
        try { new RegExp(def.regex as string); } catch { fail(`invalid regex ${String(def.regex)}`); }
      }
      for (const k of ['min', 'max', 'minLength', 'maxLength']) if (def[k] !== undefined && num(def[k]) === undefined) fail(`"${k}" must be a number`);
      out.push({
        ...base, kind: 'scalar', type: t, column, unique: def.unique === true || t === 'uid',
        default: def.default, min: num(def.min), max: num(def.max), minLength: num(def.minLength), maxLength: num(def.maxLength),
        regex: def.regex as string | undefined, enum: def.enum as string[] | undefined,
        targetField: typeof def.targetField === 'string' ? def.targetField : undefined,
        ...(def.searchable === false ? { searchable: false as const } : {}),
        ...(customFieldUid ? { customField: customFieldUid } : {}),
      });
    } else if (type === 'media') {
      if (def.allowedTypes !== undefined && !Array.isArray(def.allowedTypes)) fail('"allowedTypes" must be an array');
      out.push({
        ...base, kind: 'media', multiple: def.multiple === true, allowedTypes: (def.allowedTypes as string[] | undefined) ?? null,
        relatedType: owner.uid,
      });
    } else if (type === 'relation' && typeof def.relation === 'string' && def.relation.startsWith('morph')) {
      const m = morphAttribute(def, base, owner, schema, isComponent, fail);
      for (const c of m.columns ? [m.columns.id, m.columns.type] : []) {
        if (columns.has(c) || SYSTEM_COLUMNS.has(c)) fail(`its column "${c}" collides with another attribute (Strapi keeps every morphToOne link in target_id/target_type)`);
        columns.add(c);
      }
      out.push(m);
    } else if (type === 'relation') {
      const relation = def.relation as RelationKind;
      if (!RELATIONS.has(relation)) fail(`unsupported relation "${String(def.relation)}"`);
      const target = def.target;
      if (typeof target !== 'string' || !schema.contentTypes.has(target)) fail(`relation target "${String(target)}" is not a known content-type`);
      // Strapi allows only one-way relations in components.
      if (isComponent && (def.mappedBy !== undefined || def.inversedBy !== undefined)) fail('a relation in a component is one-way: no mappedBy or inversedBy');
      const mappedBy = typeof def.mappedBy === 'string' ? def.mappedBy : undefined;
      const inversedBy = typeof def.inversedBy === 'string' ? def.inversedBy : undefined;
      if (mappedBy && inversedBy) fail('a relation has either mappedBy or inversedBy, not both');
      const toMany = relation === 'oneToMany' || relation === 'manyToMany' || relation === 'manyWay';
      out.push({
        ...base, kind: 'relation', relation, target: target as string, toMany, owner: !mappedBy, mappedBy, inversedBy,
        join: UNRESOLVED,
      });
    } else if (type === 'component') {
      if (typeof def.component !== 'string' || !schema.components.has(def.component)) fail(`unknown component "${String(def.component)}"`);
      out.push({ ...base, kind: 'component', component: def.component as string, repeatable: def.repeatable === true, cmpsTable, min: num(def.min), max: num(def.max) });
    } else if (type === 'dynamiczone') {
      if (isComponent) fail('dynamic zones are not allowed inside components');
      const comps = def.components;
      if (!Array.isArray(comps) || comps.length === 0) fail('"components" must be a non-empty array');
      for (const c of comps as unknown[]) if (typeof c !== 'string' || !schema.components.has(c)) fail(`unknown component "${String(c)}"`);
      out.push({ ...base, kind: 'dynamiczone', components: comps as string[], cmpsTable, min: num(def.min), max: num(def.max) });
    } else {
      fail(`unknown type "${String(type)}"`);
    }
  }
  return out;
}

const MORPHS = new Set<MorphRelation>(['morphToOne', 'morphToMany', 'morphOne', 'morphMany']);

/**
 * Strapi's polymorphic relations. The owning sides (morphToOne, morphToMany) name no target: their
 * links carry the related row's type. morphOne/morphMany read the links another type's morphTo
 * attribute (`morphBy`) made toward this type; they are checked once every model is parsed.
 */
function morphAttribute(def: Json, base: Omit<MorphAttr, 'kind' | 'relation' | 'toMany'>, owner: ContentType | Component, schema: Schema, isComponent: boolean, fail: (m: string) => never): MorphAttr {
  const relation = def.relation as MorphRelation;
  if (!MORPHS.has(relation)) fail(`unsupported relation "${String(def.relation)}"`);
  if (isComponent) fail(`a ${relation} relation is not allowed inside a component`);
  const common = { ...base, kind: 'morph' as const, relation };
  if (relation === 'morphToOne') {
    const mc = (def.morphColumn ?? {}) as { idColumn?: { name?: unknown }; typeColumn?: { name?: unknown } };
    const id = typeof mc.idColumn?.name === 'string' ? mc.idColumn.name : undefined;
    const type = typeof mc.typeColumn?.name === 'string' ? mc.typeColumn.name : undefined;
    return { ...common, toMany: false, columns: morphColumns({ id, type }) };
  }
  if (relation === 'morphToMany') return { ...common, toMany: true, join: morphJoinTable(owner, base.name) };
  const target = def.target, morphBy = def.morphBy;
  if (typeof target !== 'string' || !schema.contentTypes.has(target) || schema.contentTypes.get(target)!.builtin) fail(`morph target "${String(target)}" is not a known content-type`);
  if (typeof morphBy !== 'string') fail(`a ${relation} relation needs "morphBy" (the target's morphToOne or morphToMany attribute)`);
  return { ...common, toMany: relation === 'morphMany', target: target as string, morphBy: morphBy as string };
}

/** morphOne/morphMany name a morphToOne or morphToMany attribute of their target (Strapi stops otherwise). */
function checkMorphTargets(schema: Schema, raws: Raw[], root: string): void {
  [...schema.contentTypes.values()].filter((ct) => !ct.builtin).forEach((ct, i) => {
    for (const a of ct.attributes) {
      if (a.kind !== 'morph' || !a.target) continue;
      const by = schema.contentTypes.get(a.target)!.byName.get(a.morphBy!);
      if (!by || by.kind !== 'morph' || (by.relation !== 'morphToOne' && by.relation !== 'morphToMany')) {
        throw new ModelError(`${relative(root, raws[i].file)}: attribute "${a.name}": Morph target attribute not found. Looking for ${a.morphBy} (a morphToOne or morphToMany attribute of ${a.target})`);
      }
    }
  });
}

function checkRelationPairs(schema: Schema, owners: Array<{ ct: ContentType; file: string }>, root: string): void {
  owners.forEach(({ ct, file: path }) => {
    const file = relative(root, path);
    for (const a of ct.attributes) {
      if (a.kind !== 'relation' || (ct.builtin && a.join !== UNRESOLVED)) continue;
      const target = schema.contentTypes.get(a.target)!;
      const other = a.mappedBy ?? a.inversedBy;
      if (!other) continue;
      // A plugin type's side the project does not declare (no extension naming it): one-way for us, so it must own.
      if (target.builtin && !target.byName.has(other)) {
        if (a.mappedBy) throw new ModelError(`${file}: attribute "${a.name}": a relation to ${target.uid} must own its side here (inversedBy or one-way, not mappedBy)`);
        continue;
      }
      const o = target.byName.get(other);
      if (!o || o.kind !== 'relation' || o.target !== ct.uid) {
        throw new ModelError(`${file}: attribute "${a.name}": ${a.mappedBy ? 'mappedBy' : 'inversedBy'} "${other}" is not a relation of ${target.uid} back to ${ct.uid}`);
      }
      if (a.mappedBy && !o.owner) throw new ModelError(`${file}: attribute "${a.name}": both sides of the relation use mappedBy`);
    }
  });
}

function checkComponentCycles(schema: Schema): void {
  const visit = (uid: string, path: string[]) => {
    if (path.includes(uid)) throw new ModelError(`component ${uid} contains itself (${[...path, uid].join(' → ')})`);
    for (const a of schema.components.get(uid)!.attributes) if (a.kind === 'component') visit(a.component, [...path, uid]);
  };
  for (const uid of schema.components.keys()) visit(uid, []);
}
