// Runs a project's src/extensions/<plugin>/strapi-server on the plugin's object, as Strapi 5.54's loader does
// (`plugins[name] = await strapiServer(plugin)`, after the plugin's config is resolved), and says what this
// server cannot honour: what throws stops the start naming the file; changes to contentTypes or config (read
// at start by this server, from schema.json and config/plugins) stop it too, pointing at those files.
import { ProjectLoadError, type LoadedFile } from './load.ts';
import type { Originals, PluginObject } from './plugin-object.ts';

export interface ExtendedPlugin {
  /** The plugin's name ('upload'): its routes' default prefix and the `plugin::<name>.` of its handlers. */
  name: string;
  /** The project's file (relative to the project's root). */
  file: string;
  plugin: PluginObject;
  originals: Originals;
  /** Services the extension replaced (native handlers do not run through them): why native routes close. */
  replacedServices: string[];
}

/** What a strapi-server file's function returns for `plugin` (any plugin's object); a file that is no function or throws stops the start naming it. */
export async function callStrapiServer(loaded: LoadedFile, file: string, plugin: object): Promise<unknown> {
  if (typeof loaded.value !== 'function') throw new ProjectLoadError(`${file}: a strapi-server file must export a function (plugin) => plugin`);
  try { return await (loaded.value as (p: object) => unknown)(plugin); } catch (e) {
    throw new ProjectLoadError(`${file}: ${(e as Error)?.stack ?? String(e)}`);
  }
}

export async function runExtension(name: string, loaded: LoadedFile, file: string, plugin: PluginObject, originals: Originals): Promise<ExtendedPlugin> {
  const p = await callStrapiServer(loaded, file, plugin) as PluginObject | null;
  const routes = (p?.routes as Record<string, unknown> | undefined)?.['content-api'] as { routes?: unknown } | undefined;
  if (!p || typeof p !== 'object' || !p.controllers || typeof p.controllers !== 'object' || !Array.isArray(routes?.routes)) {
    throw new ProjectLoadError(`${file}: the function must return the plugin (with its controllers and routes['content-api'].routes)`);
  }
  if (JSON.stringify(p.contentTypes ?? {}) !== originals.contentTypes) {
    throw new ProjectLoadError(`${file}: changes plugin.contentTypes, which this server cannot follow from code: extend the type in src/extensions/<plugin>/content-types/<name>/schema.json`);
  }
  if (JSON.stringify(p.config ?? {}) !== originals.config) {
    throw new ProjectLoadError(`${file}: changes plugin.config, which this server reads at start: set it in config/plugins`);
  }
  p.policies ??= {};
  p.middlewares ??= {};
  p.services ??= {};
  const replacedServices = Object.keys(originals.services).filter((k) => p.services[k] !== originals.services[k]);
  return { name, file, plugin: p, originals, replacedServices };
}
