// Finds and loads a Strapi project's own code, as Strapi resolves it: src/api/<api>/{routes,controllers,
// services,middlewares,policies}/*, src/middlewares/*, src/policies/*, src/index, in JavaScript (CommonJS
// or ES modules) or TypeScript (compiled by tsx). `@strapi/strapi` and `@strapi/utils` resolve to this
// server's implementations (./modules.ts) for require() and import alike, so the project needs no Strapi
// install. A file that throws while loading is a ProjectLoadError naming it: the server does not start.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { configValue } from './config-eval.ts';
import { basename, dirname, extname, join, relative } from 'node:path';
import Module, { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { require as tsRequire } from 'tsx/cjs/api';
import { installModules } from './modules.ts';

export class ProjectLoadError extends Error {}

export interface LoadedFile { file: string; value: unknown }

export interface ApiCode {
  routes: LoadedFile[];
  controllers: Map<string, LoadedFile>;
  services: Map<string, LoadedFile>;
  middlewares: Map<string, LoadedFile>;
  policies: Map<string, LoadedFile>;
}

/** One entry of config/middlewares: a name (`strapi::body`, `global::x`, `api::a.x`) or a file it resolves. */
export interface MiddlewareEntry {
  name: string;
  config: Record<string, unknown>;
  /** `{ resolve }`: the file it names, loaded. */
  resolved?: LoadedFile;
}

export interface GlobalMiddlewares { file: string; entries: MiddlewareEntry[] }

export interface ProjectCode {
  /** The project's src/ folder. */
  src: string;
  apis: Map<string, ApiCode>;
  /** src/middlewares and src/policies (`global::<name>`). */
  middlewares: Map<string, LoadedFile>;
  policies: Map<string, LoadedFile>;
  /** config/middlewares when it lists the project's own middlewares: every entry, Strapi's own (`strapi::…`) included. */
  globalMiddlewares: GlobalMiddlewares | null;
  /** src/extensions/<plugin>/strapi-server.*: plugins whose code the project changes. */
  extensions: Map<string, string>;
  /** src/index.* (register, bootstrap), when the project has one. */
  index: LoadedFile | null;
  /** src/api/<api>/content-types/<name>/lifecycles.*: hooks on writes, not run here (said at start). */
  lifecycles: string[];
}

const CODE = /\.(js|cjs|mjs|ts|cts|mts)$/;
const KINDS = ['routes', 'controllers', 'services', 'middlewares', 'policies'] as const;

/** The project's src/ folder when MODELS_DIR is a Strapi project (its root or its src/), else null. */
export function projectSrc(modelsDir: string): string | null {
  if (existsSync(join(modelsDir, 'src', 'api'))) return join(modelsDir, 'src');
  if (basename(modelsDir) === 'src' && existsSync(join(modelsDir, 'api'))) return modelsDir;
  return null;
}

export function codeFiles(dir: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  // Strapi reads a folder's files in name order (fs.readdir); type declarations are not code.
  return readdirSync(dir).sort().filter((f) => CODE.test(f) && !/\.d\.[cm]?ts$/.test(f)).map((f) => join(dir, f)).filter((f) => statSync(f).isFile());
}

const nameOf = (file: string) => basename(file, extname(file));

/** Every code file of the project, without loading any: empty when it has none (models only). */
export function projectFiles(src: string): string[] {
  const out: string[] = [...codeFiles(src).filter((f) => nameOf(f) === 'index'), ...codeFiles(join(dirname(src), 'config')).filter((f) => nameOf(f) === 'middlewares')];
  const ext = join(src, 'extensions');
  for (const plugin of existsSync(ext) ? readdirSync(ext) : []) out.push(...codeFiles(join(ext, plugin)).filter((f) => nameOf(f) === 'strapi-server'));
  out.push(...lifecycleFiles(src));
  const api = join(src, 'api');
  for (const name of existsSync(api) ? readdirSync(api).sort() : []) {
    for (const kind of KINDS) out.push(...codeFiles(join(api, name, kind)));
  }
  out.push(...codeFiles(join(src, 'middlewares')), ...codeFiles(join(src, 'policies')));
  return out;
}

let cjsHooked = false;
let esmHooked = false;
const SHIMS: Record<string, string> = {
  '@strapi/strapi': new URL('./shims/strapi.cjs', import.meta.url).pathname,
  '@strapi/utils': new URL('./shims/utils.cjs', import.meta.url).pathname,
};

/** `require('@strapi/strapi')` and `require('@strapi/utils')` from anywhere resolve to the shims. */
function hookRequire(): void {
  if (cjsHooked) return;
  cjsHooked = true;
  const M = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const original = M._resolveFilename;
  M._resolveFilename = function (request: string, ...rest: unknown[]) {
    return SHIMS[request] ?? original.call(this, request, ...rest);
  };
}

/** The same for ES modules (only registered when the project has some: a loader hook costs every import). */
function hookImport(): void {
  if (esmHooked) return;
  esmHooked = true;
  register(new URL('./shims/hooks.mjs', import.meta.url).href);
}

/** Whether Node treats a .js/.ts file as an ES module: its nearest package.json says `"type": "module"`. */
function packageIsModule(file: string): boolean {
  for (let d = dirname(file); ; d = dirname(d)) {
    const p = join(d, 'package.json');
    if (existsSync(p)) {
      try { return (JSON.parse(readFileSync(p, 'utf8')) as { type?: unknown }).type === 'module'; } catch { return false; }
    }
    if (dirname(d) === d) return false;
  }
}

/** Strapi's importDefault: a compiled ES module's default export, else the module itself. */
function importDefault(mod: unknown): unknown {
  const m = mod as { __esModule?: boolean; default?: unknown } | null;
  return m && (m.__esModule || (typeof m === 'object' && Object.prototype.toString.call(m) === '[object Module]')) && m.default !== undefined ? m.default : mod;
}

/**
 * Loads one code file synchronously, with `@strapi/strapi` and `@strapi/utils` resolving to the shims:
 * TypeScript through tsx, JavaScript by require (an ES module through Node's require(esm), from 20.19).
 * Throws what loading throws. For code that must run while the models load (custom fields), before any
 * await is possible.
 */
export function requireCodeFile(file: string): unknown {
  installModules();
  hookRequire();
  const ext = extname(file);
  const mod = ext === '.ts' || ext === '.cts' || ext === '.mts' ? tsRequire(file, import.meta.url) : createRequire(file)(file);
  return importDefault(mod);
}

export async function loadFile(file: string, src: string): Promise<LoadedFile> {
  const ext = extname(file);
  try {
    let mod: unknown;
    const esm = ext === '.mjs' || ext === '.mts' || ((ext === '.js' || ext === '.ts') && packageIsModule(file));
    if (esm) {
      hookImport();
      mod = await import(pathToFileURL(file).href);
    } else if (ext === '.ts' || ext === '.cts') {
      mod = tsRequire(file, import.meta.url);
    } else {
      mod = createRequire(file)(file);
    }
    return { file, value: importDefault(mod) };
  } catch (e) {
    throw new ProjectLoadError(`${relative(dirname(src), file)}: ${(e as Error)?.stack ?? String(e)}`);
  }
}

/** What loadFile needs first: `@strapi/strapi` and `@strapi/utils` resolved to this server's. */
export function installProjectModules(): void {
  installModules();
  hookRequire();
}

/**
 * Loads the project's code once (each worker calls this at start). Null when MODELS_DIR is no Strapi
 * project or it has no code file: nothing of the project runs then.
 */
export async function loadProject(modelsDir: string): Promise<ProjectCode | null> {
  const src = projectSrc(modelsDir);
  if (!src || projectFiles(src).length === 0) return null;
  installModules();
  hookRequire();
  const apis = new Map<string, ApiCode>();
  const api = join(src, 'api');
  for (const name of readdirSync(api).sort()) {
    if (!statSync(join(api, name)).isDirectory()) continue;
    const code: ApiCode = { routes: [], controllers: new Map(), services: new Map(), middlewares: new Map(), policies: new Map() };
    for (const f of codeFiles(join(api, name, 'routes'))) code.routes.push(await loadFile(f, src));
    for (const kind of ['controllers', 'services', 'middlewares', 'policies'] as const) {
      for (const f of codeFiles(join(api, name, kind))) code[kind].set(nameOf(f), await loadFile(f, src));
    }
    apis.set(name, code);
  }
  const global = async (kind: string) => {
    const m = new Map<string, LoadedFile>();
    for (const f of codeFiles(join(src, kind))) m.set(nameOf(f), await loadFile(f, src));
    return m;
  };
  return {
    src, apis, middlewares: await global('middlewares'), policies: await global('policies'),
    globalMiddlewares: await configMiddlewares(src), extensions: extensionFiles(src), index: await indexFile(src),
    lifecycles: lifecycleFiles(src),
  };
}

/** src/index (register, bootstrap), loaded. */
async function indexFile(src: string): Promise<LoadedFile | null> {
  const file = codeFiles(src).find((f) => nameOf(f) === 'index');
  return file ? loadFile(file, src) : null;
}

/**
 * config/middlewares (Strapi's global middleware list), when it names middlewares other than Strapi's own
 * `strapi::…` (whose work this server does natively): every entry in order, so the runtime can place the
 * project's around its own handling as Strapi orders them. `{ resolve }` entries are loaded here, as Strapi
 * resolves them: a package, else a path from the project's root.
 */
async function configMiddlewares(src: string): Promise<GlobalMiddlewares | null> {
  const file = codeFiles(join(dirname(src), 'config')).find((f) => nameOf(f) === 'middlewares');
  if (!file) return null;
  let list = (await loadFile(file, src)).value;
  list = configValue(list, process.env);
  if (!Array.isArray(list)) return null;
  const where = relative(dirname(src), file);
  const entries: MiddlewareEntry[] = [];
  for (const m of list as unknown[]) {
    if (typeof m === 'string') { entries.push({ name: m, config: {} }); continue; }
    const o = (m && typeof m === 'object' ? m : {}) as { name?: unknown; resolve?: unknown; config?: unknown };
    const config = (o.config && typeof o.config === 'object' ? o.config : {}) as Record<string, unknown>;
    if (typeof o.resolve === 'string') {
      let path: string;
      try { path = createRequire(join(dirname(src), 'package.json')).resolve(o.resolve); } catch { path = join(dirname(src), o.resolve); }
      entries.push({ name: typeof o.name === 'string' ? o.name : o.resolve, config, resolved: await loadFile(path, src) });
    } else if (typeof o.name === 'string') entries.push({ name: o.name, config });
    else throw new ProjectLoadError(`${where}: Middleware config must either be a string or an object {name?: string, resolve?: string, config: any}.`);
  }
  return entries.some((e) => !e.name.startsWith('strapi::') || e.resolved) ? { file, entries } : null;
}

export function lifecycleFiles(src: string): string[] {
  const api = join(src, 'api');
  return (existsSync(api) ? readdirSync(api).sort() : []).flatMap((name) => {
    const cts = join(api, name, 'content-types');
    return (existsSync(cts) ? readdirSync(cts).sort() : []).flatMap((ct) => codeFiles(join(cts, ct)).filter((f) => nameOf(f) === 'lifecycles'));
  });
}

function extensionFiles(src: string): Map<string, string> {
  const out = new Map<string, string>();
  const dir = join(src, 'extensions');
  for (const plugin of existsSync(dir) ? readdirSync(dir).sort() : []) {
    const f = codeFiles(join(dir, plugin)).find((x) => nameOf(x) === 'strapi-server');
    if (f) out.set(plugin, f);
  }
  return out;
}
