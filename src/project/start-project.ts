// Starting a thread's project runtime: load the project's code (once per thread), subscribe its lifecycles,
// run its src/extensions strapi-server files and register(), as Strapi's loader orders them, then build
// the routes (src/project/runtime.ts). checkProject does it in the main thread first, so a broken project
// stops the server naming its file.
import type { Config } from '../../config.ts';
import { Compiler } from '../../compiler/index.ts';
import type { Schema } from '../../compiler/schema.ts';
import { FILE_UID, pluginTypes, USERS_UID } from '../plugin-types.ts';
import { ADMIN_UID, adminUsersModel, withEveryCreator } from '../models.ts';
import { log } from '../log.ts';
import type { Plugin } from '../plugins/types.ts';
import type { RestContext } from '../rest/router.ts';
import { runHook } from './boot.ts';
import { extendPlugins } from './extend-plugins.ts';
import { extendGraphql } from './graphql-extension.ts';
import { loadLifecycles } from './lifecycles.ts';
import { loadProject, type ProjectCode } from './load.ts';
import { ProjectRuntime, type DbSlot } from './runtime.ts';
import { ProjectStrapi, type StrapiDeps } from './strapi.ts';
import { transactional } from './transaction.ts';

/**
 * Loads the project's code (null when there is none), runs src/index's register() with the project's
 * `strapi` (before the routes are built, as Strapi), then builds the routes.
 */
export async function projectRuntime(schema: Schema, deps: StrapiDeps, load: () => Promise<ProjectCode | null>, db: DbSlot): Promise<ProjectRuntime | null> {
  const code = await load();
  if (!code) return null;
  const strapi = new ProjectStrapi(deps, code);
  // Its content-types' lifecycles files subscribe first (a file that cannot load stops the start, naming it).
  await loadLifecycles(deps.config.modelsDir, strapi.hooks);
  // Strapi's global `strapi` (code often uses it instead of the { strapi } it is given): this thread's project.
  (globalThis as { strapi?: unknown }).strapi = strapi.api;
  // Strapi's loader runs src/extensions/<plugin>/strapi-server before the app's register().
  const natives = new Map<string, Plugin>();
  const plugins = await extendPlugins(schema, deps, code, natives);
  const graphql = await extendGraphql(code, deps.config, strapi);
  db.registering = true;
  try {
    // Plugins register before the app (GraphQL's, when the project's strapi-server gave it one).
    await graphql?.register();
    await runHook(code.index, 'register', strapi.api, code.src);
    // GraphQL's bootstrap makes its extension service, if no register() used it yet.
    graphql?.instantiate();
  } finally { db.registering = false; strapi.endRegister(); }
  return new ProjectRuntime(schema, deps, code, strapi, db, { plugins, natives, graphql });
}

const ALL = 2147483647;

/**
 * The schema with the plugins' types a project reaches through strapi.db.query even when none of its models
 * relates to them (then the schema leaves them out): users-permissions' user, role and permission, the media
 * library's file, the admin's user.
 */
export function withUsersTypes(schema: Schema): Schema {
  const contentTypes = new Map(schema.contentTypes);
  if (!contentTypes.has(USERS_UID)) for (const ct of Object.values(pluginTypes())) contentTypes.set(ct.uid, ct);
  if (!contentTypes.has(FILE_UID) && schema.files) contentTypes.set(FILE_UID, schema.files);
  if (!contentTypes.has(ADMIN_UID)) contentTypes.set(ADMIN_UID, adminUsersModel());
  return { ...schema, contentTypes: withEveryCreator(contentTypes) };
}

/**
 * Starts the project runtime of a thread: loads the project's code (once per thread), runs register() and
 * builds its routes. `base` makes a REST context outside any request (core services and strapi.documents
 * read through it); without it the project has no database access until bind().
 */
export function startProject(config: Config, schema: Schema, base?: () => RestContext): Promise<ProjectRuntime | null> {
  const db: DbSlot = { base: base ?? null, registering: false };
  const at = (): RestContext => {
    if (db.registering) throw new Error('the database is not ready while register() runs (as in Strapi): use it in bootstrap()');
    if (!db.base) throw new Error('no database access while the project loads');
    return db.base();
  };
  // The document service has no default or maximum page and counts only when asked.
  const docs = new Compiler(schema, { ...config.api.rest, defaultLimit: ALL, maxLimit: ALL, withCount: false, maxResponseSize: config.http.maxResponseSize,
    strictDocuments: config.api.documents.strictParams, renderCacheGate: () => at().compiler.renderCacheNow() });
  // The Query Engine's: the same, reading rows of every status and locale with their private attributes.
  const rowsSchema = withUsersTypes(schema);
  const added = new Set([...rowsSchema.contentTypes.values()].filter((ct) => !schema.contentTypes.has(ct.uid)).map((ct) => ct.table));
  // Strapi's Query Engine caps nothing: every linked row populated, any size, lists as long as the code gives.
  const rows = new Compiler(rowsSchema, { uncached: added, ...config.api.rest, defaultLimit: ALL, maxLimit: ALL, withCount: false, rows: true,
    maxRelationRows: ALL, maxParameters: 1_000_000, arrayLimit: 1_000_000, maxPopulate: undefined,
    renderCacheGate: () => at().compiler.renderCacheNow() });
  if (!config.projectCode) return Promise.resolve(null);
  // Each context follows strapi.db.transaction at every use (src/project/transaction.ts).
  return projectRuntime(schema, {
    schema, config, base: () => transactional(at()), documents: () => transactional({ ...at(), compiler: docs }),
    rows: () => transactional({ ...at(), compiler: rows, schema: rowsSchema }), rowsSchema,
  }, () => loadProject(config.modelsDir), db);
}

/**
 * At start, before any worker: loads the project, runs register() and builds everything in the main thread,
 * so a broken project stops the server naming its file. The runtime it answers runs bootstrap() once the
 * database is there (server.ts): once per node, in the main thread — never once per worker thread, which
 * would repeat what it writes — and serves requests itself when there are no worker threads.
 */
export async function checkProject(config: Config, schema: Schema): Promise<ProjectRuntime | null> {
  const p = await startProject(config, schema);
  for (const [plugin, { file, why }] of p?.closedPlugins ?? []) log.warn(`${file}: ${why}: the ${plugin} plugin's routes answer 501`);
  for (const [plugin, file] of p?.extendedFiles ?? []) log.info(plugin === 'graphql'
    ? `${file}: GraphQL is served with what the project's strapi-server gives its extension service`
    : `${file}: ${plugin}'s routes as the project's strapi-server leaves them (what it replaces or adds runs as project code)`);
  if (p?.global) log.info(`the project's global middlewares run around every request: ${p.global.names.join(', ')}`);
  return p;
}
