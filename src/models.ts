// Loads a folder of Strapi schema.json models into the normalized registry (compiler/schema.ts).
// Layouts accepted: content-types/<name>.json or content-types/<name>/schema.json, and
// components/<category>/<name>.json. An invalid model stops the server naming the file and attribute.
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join, relative, basename } from 'node:path';
import {
  type Attribute, type Component, type ContentType, type Schema, type RelationKind, SCALAR_TYPES, snake, type ScalarType,
} from '../compiler/schema.ts';

export class ModelError extends Error {}

const RESERVED = new Set(['id', 'documentId', 'document_id', 'createdAt', 'updatedAt', 'publishedAt', 'locale', 'localizations', 'createdBy', 'updatedBy', '__component', 'status', 'meta']);
const RELATIONS = new Set<RelationKind>(['oneToOne', 'oneToMany', 'manyToOne', 'manyToMany', 'oneWay', 'manyWay']);
const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
/** Columns every version table has; an attribute may not map onto one of them. */
const SYSTEM_COLUMNS = new Set(['id', 'document_id', 'locale', 'published_at', 'created_at', 'updated_at', 'doc_open']);

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

export function loadModels(dir: string, opts: { defaultLocale: string; locales: string[] }): Schema {
  if (!existsSync(dir)) throw new ModelError(`models folder not found: ${dir}`);
  const ctFiles = listJson(join(dir, 'content-types'));
  const compDir = join(dir, 'components');
  if (ctFiles.length === 0) throw new ModelError(`no content-types found in ${join(dir, 'content-types')}`);

  const components = new Map<string, Component>();
  const rawComponents: Raw[] = [];
  for (const file of listJson(compDir)) {
    const rel = relative(compDir, file).split(/[\\/]/);
    const category = rel.length > 1 ? rel[0] : 'default';
    const uid = `${category}.${basename(file, '.json')}`;
    rawComponents.push({ file, json: readJson(file, dir) });
    components.set(uid, { uid, category, attributes: [], byName: new Map() });
  }

  const contentTypes = new Map<string, ContentType>();
  const rawTypes: Raw[] = [];
  const where = (f: string) => relative(dir, f);
  for (const file of ctFiles) {
    const json = readJson(file, dir);
    const info = (json.info ?? {}) as Json;
    const singular = info.singularName, plural = info.pluralName;
    if (typeof singular !== 'string' || !NAME.test(singular)) throw new ModelError(`${where(file)}: info.singularName is missing or invalid`);
    if (typeof plural !== 'string' || !NAME.test(plural)) throw new ModelError(`${where(file)}: info.pluralName is missing or invalid`);
    const kind = json.kind ?? 'collectionType';
    if (kind !== 'collectionType' && kind !== 'singleType') throw new ModelError(`${where(file)}: kind must be collectionType or singleType`);
    const table = typeof json.collectionName === 'string' ? json.collectionName : snake(plural);
    if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new ModelError(`${where(file)}: collectionName "${table}" must be lower-case letters, digits and _`);
    const uid = `api::${singular}.${singular}`;
    if (contentTypes.has(uid)) throw new ModelError(`${where(file)}: content-type ${uid} is defined twice`);
    const options = (json.options ?? {}) as Json;
    const i18n = ((json.pluginOptions as Json | undefined)?.i18n ?? {}) as Json;
    contentTypes.set(uid, {
      uid, kind, singularName: singular, pluralName: plural, apiName: singular, table,
      draftAndPublish: options.draftAndPublish === true,
      localized: i18n.localized === true,
      attributes: [], byName: new Map(),
    });
    rawTypes.push({ file, json });
  }

  const schema: Schema = {
    contentTypes, components, routes: new Map(), filesTable: 'files',
    defaultLocale: opts.defaultLocale, locales: opts.locales,
  };
  for (const ct of contentTypes.values()) {
    const route = ct.kind === 'singleType' ? ct.singularName : ct.pluralName;
    if (schema.routes.has(route)) throw new ModelError(`two content-types use the route /api/${route}`);
    schema.routes.set(route, ct);
  }

  const ctList = [...contentTypes.values()];
  rawTypes.forEach((raw, i) => {
    const ct = ctList[i];
    ct.attributes = parseAttributes(raw, schema, dir, ct.table, ct.localized);
    for (const a of ct.attributes) ct.byName.set(a.name, a);
  });
  const compList = [...components.values()];
  rawComponents.forEach((raw, i) => {
    const c = compList[i];
    c.attributes = parseAttributes(raw, schema, dir, null, false);
    for (const a of c.attributes) c.byName.set(a.name, a);
  });
  checkRelationPairs(schema, rawTypes, dir);
  checkComponentCycles(schema);
  return schema;
}

function num(v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

function parseAttributes(raw: Raw, schema: Schema, root: string, table: string | null, typeLocalized: boolean): Attribute[] {
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
    const def = defRaw as Json;
    const type = def.type;
    const i18n = ((def.pluginOptions as Json | undefined)?.i18n ?? {}) as Json;
    // Strapi localizes every attribute of a localized type unless it opts out explicitly.
    const localized = typeLocalized && i18n.localized !== false;
    const base = { name, required: def.required === true, private: def.private === true, localized };
    const column = snake(name);
    if (columns.has(column)) fail(`its column name "${column}" collides with another attribute`);
    if (SYSTEM_COLUMNS.has(column) || column.endsWith('__json')) fail(`its column name "${column}" is reserved for the system`);
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
      });
    } else if (type === 'media') {
      if (def.allowedTypes !== undefined && !Array.isArray(def.allowedTypes)) fail('"allowedTypes" must be an array');
      out.push({
        ...base, kind: 'media', multiple: def.multiple === true, allowedTypes: (def.allowedTypes as string[] | undefined) ?? null,
        column: `${column}_file`, linkTable: `${table ?? 'component'}_${column}_mlnk`,
      });
    } else if (type === 'relation') {
      const relation = def.relation as RelationKind;
      if (!RELATIONS.has(relation)) fail(`unsupported relation "${String(def.relation)}"`);
      const target = def.target;
      if (typeof target !== 'string' || !schema.contentTypes.has(target)) fail(`relation target "${String(target)}" is not a known content-type`);
      if (table === null) fail('relations inside components are not supported');
      const mappedBy = typeof def.mappedBy === 'string' ? def.mappedBy : undefined;
      const inversedBy = typeof def.inversedBy === 'string' ? def.inversedBy : undefined;
      if (mappedBy && inversedBy) fail('a relation has either mappedBy or inversedBy, not both');
      const toMany = relation === 'oneToMany' || relation === 'manyToMany' || relation === 'manyWay';
      out.push({
        ...base, kind: 'relation', relation, target: target as string, toMany, owner: !mappedBy, mappedBy, inversedBy,
        column: `${column}_doc`, linkTable: `${table}_${column}_lnk`,
      });
    } else if (type === 'component') {
      if (typeof def.component !== 'string' || !schema.components.has(def.component)) fail(`unknown component "${String(def.component)}"`);
      out.push({ ...base, kind: 'component', component: def.component as string, repeatable: def.repeatable === true, column, min: num(def.min), max: num(def.max) });
    } else if (type === 'dynamiczone') {
      if (table === null) fail('dynamic zones are not allowed inside components');
      const comps = def.components;
      if (!Array.isArray(comps) || comps.length === 0) fail('"components" must be a non-empty array');
      for (const c of comps as unknown[]) if (typeof c !== 'string' || !schema.components.has(c)) fail(`unknown component "${String(c)}"`);
      out.push({ ...base, kind: 'dynamiczone', components: comps as string[], column, min: num(def.min), max: num(def.max) });
    } else {
      fail(`unknown type "${String(type)}"`);
    }
  }
  return out;
}

function checkRelationPairs(schema: Schema, raws: Raw[], root: string): void {
  const ctList = [...schema.contentTypes.values()];
  ctList.forEach((ct, i) => {
    const file = relative(root, raws[i].file);
    for (const a of ct.attributes) {
      if (a.kind !== 'relation') continue;
      const target = schema.contentTypes.get(a.target)!;
      const other = a.mappedBy ?? a.inversedBy;
      if (!other) continue;
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
