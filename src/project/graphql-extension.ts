// Runs a project's src/extensions/graphql/strapi-server on GraphQL's plugin object (graphql-plugin-object.ts),
// as Strapi 5.54's loader does before the app's register(), and says what this server honours:
// - `services.extension` wrapped (`({ strapi }) => { const s = extension({ strapi }); s.use(…); s.shadowCRUD(…); return s; }`):
//   made when Strapi's registry would (its first use in a register(), else once register() ran, as GraphQL's
//   bootstrap makes it), so what it registers reaches the schema this server builds;
// - `register` replaced: run with the project's `strapi` before the app's register(), as Strapi runs plugins';
// - `config` read (as this server applies it).
// Anything else it replaces or adds (bootstrap, another service, config, routes…) cannot run here: /graphql
// stays closed, answering 501 naming the file and the member. A file that throws stops the start naming it.
import { dirname, relative } from 'node:path';
import type { Config } from '../../config.ts';
import { ExtensionService } from '../graphql/extension.ts';
import { loadFile, ProjectLoadError, type ProjectCode } from './load.ts';
import { callStrapiServer } from './plugin-extension.ts';
import { graphqlObject, GRAPHQL_NAME, type GraphqlOriginals, type GraphqlPluginObject, type ServiceFactory } from './graphql-plugin-object.ts';
import type { ProjectStrapi } from './strapi.ts';

export interface GraphqlExtension {
  /** The project's file (relative to the project's root). */
  file: string;
  /** Why /graphql cannot be served with the file applied (the members it replaces), or null. */
  closed: string | null;
  /** Runs the plugin's register() the file replaced (none: nothing to run), before the app's. */
  register(): Promise<void>;
  /** Makes the extension service as GraphQL's bootstrap would, if no register() made it yet. */
  instantiate(): void;
}

/** GraphQL's extension (null without a src/extensions/graphql/strapi-server). */
export async function extendGraphql(code: ProjectCode, config: Config, strapi: ProjectStrapi): Promise<GraphqlExtension | null> {
  const path = code.extensions.get(GRAPHQL_NAME);
  if (!path) return null;
  const file = relative(dirname(code.src), path);
  // Strapi's registry makes the service once; any other call of the factory makes a service of its own,
  // whose registrations reach no schema (as in Strapi).
  let registry = false;
  const own: ServiceFactory = () => (registry ? strapi.graphql : new ExtensionService()).forProject(strapi.api);
  const made = new Set<unknown>();
  const original: ServiceFactory = (o) => { const s = own(o); if (registry) made.add(s); return s; };
  const { plugin, originals } = graphqlObject(config, original);
  const out = await callStrapiServer(await loadFile(path, code.src), file, plugin);
  if (!out || typeof out !== 'object' || !(out as GraphqlPluginObject).services || typeof (out as GraphqlPluginObject).services !== 'object') {
    throw new ProjectLoadError(`${file}: the function must return the plugin (with its services)`);
  }
  const p = out as GraphqlPluginObject;
  const replaced = replacedMembers(p, originals);
  const ext: GraphqlExtension = {
    file,
    closed: replaced.length ? `it replaces ${replaced.join(', ')} of the graphql plugin, which this server does not run` : null,
    register: async () => {
      if (p.register === originals.register) return;
      if (typeof p.register !== 'function') { ext.closed ??= 'its register is not a function'; return; }
      try { await p.register({ strapi: strapi.api }); } catch (e) {
        throw new ProjectLoadError(`${file}: the graphql plugin's register: ${(e as Error)?.stack ?? String(e)}`);
      }
    },
    instantiate: () => { strapi.graphqlService(); },
  };
  const factory = p.services.extension;
  if (factory !== original) {
    strapi.graphqlFactory = () => {
      if (typeof factory !== 'function') { ext.closed ??= 'its services.extension is not a factory ({ strapi }) => service'; return factory; }
      let service: unknown;
      registry = true;
      try { service = (factory as ServiceFactory)({ strapi: strapi.api }); } catch (e) {
        throw new ProjectLoadError(`${file}: the graphql plugin's services.extension: ${(e as Error)?.stack ?? String(e)}`);
      } finally { registry = false; }
      // Served only when what it makes is GraphQL's own service (its use and shadowCRUD), with additions or not.
      const s = service as { use?: unknown; shadowCRUD?: unknown } | null;
      const ours = !!s && [...made].some((m) => (m as typeof s)!.use === s.use && (m as typeof s)!.shadowCRUD === s.shadowCRUD);
      if (!ours) ext.closed ??= 'its services.extension makes a service other than the graphql plugin\'s own, which this server does not run';
      return service;
    };
  }
  return ext;
}

/** The members the file replaced or added that this server cannot run, named as the file names them. */
function replacedMembers(p: GraphqlPluginObject, o: GraphqlOriginals): string[] {
  const out: string[] = [];
  if (p.bootstrap !== o.bootstrap) out.push('bootstrap');
  if (p.destroy !== o.destroy) out.push('destroy');
  for (const name of new Set([...Object.keys(o.services), ...Object.keys(p.services)])) {
    if (name !== 'extension' && p.services[name] !== o.services[name]) out.push(`services.${name}`);
  }
  const config = (p.config ?? {}) as Record<string, unknown>;
  for (const key of new Set([...Object.keys(o.config), ...Object.keys(config)])) {
    if (JSON.stringify(config[key]) !== o.config[key]) out.push(`config.${key}`);
  }
  for (const k of Object.keys(o.json) as Array<keyof GraphqlOriginals['json']>) {
    if (JSON.stringify(p[k] ?? (k === 'routes' ? [] : {})) !== o.json[k]) out.push(k);
  }
  return out;
}
