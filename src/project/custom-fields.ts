// Custom fields' underlying types, resolved as Strapi 5.54 resolves them (@strapi/core: loaders/plugins,
// registries/custom-fields, utils/convert-custom-field-type): every enabled plugin's register() and then the
// project's src/index register() call `strapi.customFields.register({ name, plugin, type, inputSize })` (or
// an array of them); the field's uid is `plugin::<plugin>.<name>` when `plugin` names an enabled plugin, else
// `global::<name>`; an attribute `{ type: 'customField', customField: <uid> }` then is an attribute of that
// type everywhere (storage, filters, sort, `_q`, validation, GraphQL).
//
// Why run the registers rather than read their source: plugins ship bundles (pack-up, rollup) in which the
// call's arguments are constants, spreads and maps (`plugin: PLUGIN_ID`, `FIELDS.map(…)`); only running
// register() sees what Strapi sees. It runs with a recording `strapi` in which `customFields.register`
// records and every other member is a no-op answering no-ops: a plugin's register may also add routes,
// document middlewares or hooks (none of which runs here), and must still reach its registration calls.
// What its code throws is kept and named in the error of a field left unknown, never a silent guess.
//
// A leaf of the project runtime: the model loader calls customFieldResolver(); nothing else depends on it,
// so a later general run of src/index register() can take recordingStrapi()'s place.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, relative, resolve as resolvePath } from 'node:path';
import { createRequire } from 'node:module';
import { codeFiles, projectSrc, requireCodeFile } from './load.ts';
import { configValue, deepMerge, isObject } from './config-eval.ts';
import { log } from '../log.ts';
import { CUSTOM_FIELD_TYPES, CUSTOM_FIELD_UID, type CustomFieldType } from './custom-field-types.ts';

const ALLOWED: ReadonlySet<string> = new Set(CUSTOM_FIELD_TYPES);
export const isCustomFieldType = (t: unknown): t is CustomFieldType => typeof t === 'string' && ALLOWED.has(t);

/** Custom fields of Strapi's own plugins, known without the plugin installed (checked against @strapi/plugin-color-picker 5.54). */
export const OFFICIAL_CUSTOM_FIELDS: Readonly<Record<string, CustomFieldType>> = { 'plugin::color-picker.color': 'string' };

/** Plugins Strapi always enables (INTERNAL_PLUGINS of @strapi/core), by their names: a field may name them. */
const INTERNAL_PLUGINS = ['content-manager', 'content-type-builder', 'email', 'upload', 'i18n', 'content-releases', 'review-workflows'];

interface Plugin {
  name: string;
  /** Its folder (null: one of Strapi's own, whose code is not run here). */
  dir: string | null;
  /** Why it is enabled, for messages: a package.json dependency or a config/plugins entry. */
  origin: string;
}

interface Registration { type: CustomFieldType; from: string }

/** What the project's plugins and src/index register, and what went wrong running them. */
export interface ProjectCustomFields {
  fields: Map<string, Registration>;
  plugins: Map<string, Plugin>;
  /** Plugins config/plugins disables (`enabled: false`): Strapi does not load them. */
  disabled: Set<string>;
  /** Per plugin name (or `src/index`): its server entry, the fields it registered, what failed. */
  runs: Map<string, { entry: string | null; registered: string[]; problems: string[] }>;
  /** The project's root folder, null when the models are not a Strapi project. */
  root: string | null;
  /** Dependencies of package.json not installed (their package.json not found): a plugin may be among them. */
  notInstalled: string[];
}

type Json = Record<string, unknown>;
const message = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n')[0];

function readJson(file: string): Json | null {
  try {
    const v: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return isObject(v) ? v : null;
  } catch { return null; }
}

/** A value that absorbs any use: properties and calls answer no-ops; never a thenable (`await` goes on). */
function noop(): unknown {
  const target = function noopMember(): void {};
  const proxy: unknown = new Proxy(target, {
    get(_t, prop) {
      if (prop === Symbol.toPrimitive) return () => '';
      if (typeof prop === 'symbol' || prop === 'then') return undefined;
      return proxy;
    },
    apply: () => proxy,
    construct: () => proxy as object,
    set: () => true,
  });
  return proxy;
}

/** The `strapi` a register() gets while the models load: customFields.register records, the rest is a no-op. */
export function recordingStrapi(record: (customField: unknown) => void): object {
  const customFields = { register: record };
  return new Proxy({ customFields }, {
    get(target, prop) {
      if (prop === 'customFields') return target.customFields;
      if (typeof prop === 'symbol' || prop === 'then') return undefined;
      return noop();
    },
    set: () => true,
  });
}

/** resolve.exports as Strapi calls it (`{ require: true }`): the first of the entry's conditions among require, node, default. */
function exportTarget(exports: unknown, conditions: ReadonlySet<string>): string | null {
  if (typeof exports === 'string') return exports;
  if (Array.isArray(exports)) {
    for (const e of exports) { const t = exportTarget(e, conditions); if (t) return t; }
    return null;
  }
  if (!isObject(exports)) return null;
  for (const [k, v] of Object.entries(exports)) if (conditions.has(k)) { const t = exportTarget(v, conditions); if (t) return t; }
  return null;
}

/** A plugin's server entry: its `./strapi-server` export (require conditions), else `./strapi-server.js`; then the export's TypeScript `source`. */
function serverEntry(dir: string): string | null {
  const pkg = readJson(join(dir, 'package.json'));
  const exports = isObject(pkg?.exports) ? pkg.exports['./strapi-server'] : undefined;
  const candidates = [exportTarget(exports, new Set(['require', 'node', 'default'])) ?? './strapi-server.js'];
  // Strapi loads the built file; a local plugin not built yet still has its source, which tsx compiles.
  const source = exportTarget(exports, new Set(['source']));
  if (source) candidates.push(source);
  for (const c of candidates) {
    const file = resolvePath(dir, c);
    if (existsSync(file) && statSync(file).isFile()) return file;
  }
  return null;
}

/** config/plugins of the project, as Strapi reads it: an object or a function of `{ env }`, config/env/<NODE_ENV>/plugins over it. */
function declaredPlugins(root: string, problems: string[]): Json {
  let out: unknown;
  for (const dir of [join(root, 'config'), join(root, 'config', 'env', process.env.NODE_ENV || 'development')]) {
    const file = codeFiles(dir).find((f) => basename(f, extname(f)) === 'plugins');
    if (!file) continue;
    try {
      out = deepMerge(out, configValue(requireCodeFile(file), process.env));
    } catch (e) {
      problems.push(`${relative(root, file)} could not be read: ${message(e)}`);
    }
  }
  return isObject(out) ? out : {};
}

/** The plugins Strapi enables for the project (getEnabledPlugins): its own, config/plugins' entries, package.json's plugin dependencies. */
function enabledPlugins(root: string, problems: string[]): { plugins: Map<string, Plugin>; disabled: Set<string>; notInstalled: string[] } {
  const plugins = new Map<string, Plugin>();
  for (const name of INTERNAL_PLUGINS) plugins.set(name, { name, dir: null, origin: "Strapi's own" });
  const projectRequire = createRequire(join(root, 'package.json'));
  const installed = new Map<string, Plugin>();
  const deps = readJson(join(root, 'package.json'))?.dependencies;
  const notInstalled: string[] = [];
  for (const dep of isObject(deps) ? Object.keys(deps) : []) {
    let file: string;
    // As Strapi: a dependency whose package.json cannot be required is no plugin.
    try { file = projectRequire.resolve(`${dep}/package.json`); } catch { if (!dep.startsWith('@strapi/')) notInstalled.push(dep); continue; }
    const info = readJson(file)?.strapi;
    if (isObject(info) && info.kind === 'plugin' && typeof info.name === 'string') {
      // Strapi's own plugins (@strapi/plugin-graphql, -users-permissions…) register no custom field but the
      // color picker's, known here (OFFICIAL_CUSTOM_FIELDS); their server code needs Strapi itself and takes
      // most of a second to load: not run.
      installed.set(info.name, { name: info.name, dir: dep.startsWith('@strapi/') ? null : dirname(file), origin: `the dependency ${dep}` });
    }
  }
  const disabled = new Set<string>();
  const usedDirs = new Set<string>();
  for (const [name, decl] of Object.entries(declaredPlugins(root, problems))) {
    const d = typeof decl === 'boolean' ? { enabled: decl } : isObject(decl) ? decl : {};
    let dir: string | null = null;
    if (typeof d.resolve === 'string') {
      const r = d.resolve;
      if (r.startsWith('.') || isAbsolute(r)) dir = resolvePath(root, r);
      else {
        try { dir = dirname(projectRequire.resolve(`${r}/package.json`)); } catch { dir = resolvePath(root, r); }
      }
      usedDirs.add(dir);
    }
    // Strapi fills an entry from the installed plugin of that name (defaultsDeep): its folder, `enabled: true`.
    const fallback = installed.get(name);
    // Without `enabled`, an entry is loaded only when installed (Strapi drops it otherwise, `resolve` or not).
    const enabled = d.enabled === undefined ? fallback !== undefined : d.enabled === true;
    if (!enabled) { if (d.enabled !== undefined) disabled.add(name); continue; }
    plugins.set(name, { name, dir: dir ?? fallback?.dir ?? null, origin: dir ? 'config/plugins' : fallback?.origin ?? 'config/plugins' });
  }
  for (const [name, p] of installed) if (!plugins.has(name) && !disabled.has(name) && !usedDirs.has(p.dir!)) plugins.set(name, p);
  return { plugins, disabled, notInstalled };
}

/**
 * Strapi's registry checks (registries/custom-fields add()): a registration Strapi refuses is kept as a
 * problem of its register() rather than a start error here, as an argument the no-op strapi produced
 * (a config value, say) may be what made it wrong.
 */
function add(cf: unknown, from: string, plugins: Map<string, Plugin>, fields: Map<string, Registration>, run: { registered: string[]; problems: string[] }): void {
  if (!isObject(cf) || !('name' in cf) || !('type' in cf)) { run.problems.push("Custom fields require a 'name' and 'type' key"); return; }
  const { name, plugin, type, inputSize } = cf;
  if (!isCustomFieldType(type)) { run.problems.push(`Custom field type: '${String(type)}' is not a valid Strapi type or it can't be used with a Custom Field`); return; }
  if (typeof name !== 'string' || !/^(?![0-9])[a-zA-Z0-9$_-]+$/.test(name)) { run.problems.push(`Custom field name: '${String(name)}' is not a valid object key`); return; }
  if (inputSize) {
    if (!isObject(inputSize) || !('default' in inputSize) || !('isResizable' in inputSize)) { run.problems.push("inputSize should be an object with 'default' and 'isResizable' keys"); return; }
    if (![4, 6, 8, 12].includes(inputSize.default as number)) { run.problems.push('Custom fields require a valid default input size'); return; }
    if (typeof inputSize.isResizable !== 'boolean') { run.problems.push('Custom fields should specify if their input is resizable'); return; }
  }
  // As Strapi: a `plugin` that names no enabled plugin makes a global field.
  const uid = typeof plugin === 'string' && plugin && plugins.has(plugin) ? `plugin::${plugin}.${name}` : `global::${name}`;
  if (fields.has(uid)) { run.problems.push(`Custom field: '${uid}' has already been registered`); return; }
  fields.set(uid, { type, from });
  run.registered.push(uid);
}

/** Runs one register() with the recording strapi (also as the global `strapi`, which Strapi's code may use). */
function runRegister(register: unknown, from: string, plugins: Map<string, Plugin>, fields: Map<string, Registration>, run: { registered: string[]; problems: string[] }): void {
  if (register === undefined) return;
  if (typeof register !== 'function') { run.problems.push('its register is not a function'); return; }
  const calls: unknown[] = [];
  const strapi = recordingStrapi((cf) => { calls.push(...(Array.isArray(cf) ? cf : [cf])); });
  const g = globalThis as { strapi?: unknown };
  const hadGlobal = 'strapi' in g;
  const previous = g.strapi;
  g.strapi = strapi;
  try {
    const r: unknown = (register as (o: { strapi: unknown }) => unknown)({ strapi });
    if (r && typeof (r as Promise<unknown>).then === 'function') {
      (r as Promise<unknown>).then(undefined, (e: unknown) => log.debug(`${from}: register() failed while the models loaded (custom fields only)`, { error: message(e) }));
      run.problems.push('its register() is async: what it registers after its first await is not seen while the models load');
    }
  } catch (e) {
    run.problems.push(`its register() threw: ${message(e)}`);
  } finally {
    if (hadGlobal) g.strapi = previous; else delete g.strapi;
  }
  for (const cf of calls) add(cf, from, plugins, fields, run);
}

/** Loads a server entry or src/index; a plugin server may be a function of `{ env }` (Strapi's loadConfigFile). */
function loadServer(file: string, run: { problems: string[] }, callWithEnv: boolean): Json | null {
  try {
    const loaded = requireCodeFile(file);
    const v = callWithEnv ? configValue(loaded, process.env) : loaded;
    return isObject(v) ? v : null;
  } catch (e) {
    run.problems.push(`loading it threw: ${message(e)}`);
    return null;
  }
}

const cache = new Map<string, ProjectCustomFields>();

/** What a project's plugins and src/index register (run once per models folder and thread). */
export function projectCustomFields(modelsDir: string): ProjectCustomFields {
  const key = resolvePath(modelsDir);
  const hit = cache.get(key);
  if (hit) return hit;
  const src = projectSrc(key);
  const root = src ? dirname(src) : null;
  const out: ProjectCustomFields = { fields: new Map(), plugins: new Map(), disabled: new Set(), runs: new Map(), root, notInstalled: [] };
  cache.set(key, out);
  if (!root || !src) return out;
  const configProblems: string[] = [];
  const { plugins, disabled, notInstalled } = enabledPlugins(root, configProblems);
  out.plugins = plugins;
  out.disabled = disabled;
  out.notInstalled = notInstalled;
  if (configProblems.length) out.runs.set('config/plugins', { entry: null, registered: [], problems: configProblems });
  for (const p of plugins.values()) {
    if (!p.dir) continue;
    const entry = serverEntry(p.dir);
    const run = { entry: entry && relative(root, entry), registered: [] as string[], problems: [] as string[] };
    out.runs.set(p.name, run);
    if (!entry) continue;
    const server = loadServer(entry, run, true);
    runRegister(server?.register, `the plugin ${p.name} (${run.entry})`, plugins, out.fields, run);
  }
  // The project's own register() runs after the plugins', as Strapi's runUserLifecycles.
  const index = codeFiles(src).find((f) => basename(f, extname(f)) === 'index');
  if (index) {
    const run = { entry: relative(root, index), registered: [] as string[], problems: [] as string[] };
    out.runs.set('src/index', run);
    const value = loadServer(index, run, false);
    runRegister(value?.register, run.entry, plugins, out.fields, run);
  }
  for (const [name, run] of out.runs) for (const p of run.problems) log.debug(`custom fields: ${name}: ${p}`);
  return out;
}

export type CustomFieldAnswer = { type: CustomFieldType } | { error: string };

/**
 * How the model loader learns a custom field's type: the registration of the project's plugins or
 * src/index, else the setting (`CUSTOM_FIELDS`), else Strapi's own plugins' fields; otherwise an error
 * naming the field, its plugin, why it is unknown and the setting. The project is read at the first
 * custom field met, not before (models without one run nobody's code).
 */
export function customFieldResolver(modelsDir: string, setting: Readonly<Record<string, string>>): (uid: unknown) => CustomFieldAnswer {
  let project: ProjectCustomFields | null = null;
  return (uid) => {
    if (typeof uid !== 'string' || !CUSTOM_FIELD_UID.test(uid)) {
      return { error: `"customField" must be a custom field's uid (plugin::<plugin>.<name> or global::<name>), got ${JSON.stringify(uid)}` };
    }
    project ??= projectCustomFields(modelsDir);
    const registered = project.fields.get(uid);
    const set = setting[uid];
    if (registered) {
      if (set !== undefined && set !== registered.type) {
        return { error: `custom field "${uid}" is registered by ${registered.from} as "${registered.type}", but CUSTOM_FIELDS says "${set}": remove it from CUSTOM_FIELDS` };
      }
      return { type: registered.type };
    }
    if (set !== undefined) {
      return isCustomFieldType(set) ? { type: set } : { error: `CUSTOM_FIELDS gives custom field "${uid}" the type "${set}", which is not one a custom field may have (${CUSTOM_FIELD_TYPES.join(', ')})` };
    }
    const official = OFFICIAL_CUSTOM_FIELDS[uid];
    if (official) return { type: official };
    return { error: `custom field "${uid}" has no known underlying type: ${whyUnknown(uid, project)}. Install the plugin, or say what the field stores with the setting CUSTOM_FIELDS=${uid}:<type> (comma-separated; a type among ${CUSTOM_FIELD_TYPES.join(', ')})` };
  };
}

function whyUnknown(uid: string, project: ProjectCustomFields): string {
  if (!project.root) return 'the models are not a Strapi project, so no plugin is read (known without a plugin: ' + Object.keys(OFFICIAL_CUSTOM_FIELDS).join(', ') + ')';
  const runProblems = (name: string) => {
    const run = project.runs.get(name);
    return run?.problems.length ? ` (${run.problems.join('; ')})` : '';
  };
  const config = runProblems('config/plugins');
  const m = /^plugin::([^.]+)\.(.+)$/.exec(uid);
  if (m) {
    const [, plugin, name] = m;
    if (project.disabled.has(plugin)) return `the plugin "${plugin}" is disabled in config/plugins`;
    const p = project.plugins.get(plugin);
    if (!p) {
      const missing = project.notInstalled.length
        ? ` (of package.json's dependencies, ${project.notInstalled.length > 5 ? `${project.notInstalled.slice(0, 5).join(', ')}… (${project.notInstalled.length})` : project.notInstalled.join(', ')} ${project.notInstalled.length === 1 ? 'is' : 'are'} not installed in the project's node_modules: one may be it)`
        : '';
      return `the plugin "${plugin}" is not installed: no installed dependency of package.json is a Strapi plugin named "${plugin}"${missing}, and config/plugins does not resolve one${config}`;
    }
    const run = project.runs.get(plugin);
    if (!p.dir) return `the plugin "${plugin}" is one of Strapi's own (${p.origin}), whose fields known here are ${Object.keys(OFFICIAL_CUSTOM_FIELDS).join(', ')}`;
    if (!run?.entry) return `the plugin "${plugin}" (${p.origin}, ${relative(project.root, p.dir) || '.'}) has no server entry (strapi-server)`;
    const others = run.registered.length ? `it registers ${run.registered.join(', ')}` : 'it registers none';
    return `the plugin "${plugin}" (${p.origin}, ${run.entry}) registers no field "${name}" while the models load: ${others}${runProblems(plugin)}`;
  }
  const index = project.runs.get('src/index');
  const where = index ? `${index.entry}'s register()` : 'src/index (the project has none)';
  return `neither ${where} nor a plugin registers "${uid.slice('global::'.length)}" without an enabled plugin${index ? runProblems('src/index') : ''}`;
}
