// Strapi's loader runs each src/extensions/<plugin>/strapi-server on the plugin's object before the app's
// register(). This server does so for the built-in plugins whose object it can build (users-permissions,
// upload, i18n); any other plugin's file stays unrun (its routes, if this server has them, are closed).
import { dirname, relative } from 'node:path';
import type { Schema } from '../../compiler/schema.ts';
import type { Plugin } from '../plugins/types.ts';
import { loadFile, type ProjectCode } from './load.ts';
import type { StrapiDeps } from './strapi.ts';
import type { NativeCall, Originals, PluginObject } from './plugin-object.ts';
import { runExtension, type ExtendedPlugin } from './plugin-extension.ts';
import { nativeCaller } from './native-call.ts';
import { UP_NAME, usersPermissionsObject } from './up-plugin.ts';
import { UPLOAD_NAME, uploadObject } from './upload-plugin-object.ts';
import { I18N_NAME, i18nObject } from './i18n-plugin-object.ts';

type ObjectMaker = (schema: Schema, deps: StrapiDeps, native: NativeCall) => { plugin: PluginObject; originals: Originals };

const MAKERS: Record<string, ObjectMaker> = {
  [UP_NAME]: (schema, deps, native) => usersPermissionsObject(schema, deps.config, native),
  [UPLOAD_NAME]: (schema, deps, native) => uploadObject(schema, deps.config, native),
  [I18N_NAME]: (_schema, _deps, native) => i18nObject(native),
};

/** Whether this server runs a strapi-server of `plugin`. */
export function extensible(plugin: string): boolean { return plugin in MAKERS; }

/**
 * Each built-in plugin's object through the project's strapi-server, by plugin name. `natives` (filled once the
 * thread's app made its plugins) is what the object's actions answer through.
 */
export async function extendPlugins(schema: Schema, deps: StrapiDeps, code: ProjectCode, natives: Map<string, Plugin>): Promise<Map<string, ExtendedPlugin>> {
  const out = new Map<string, ExtendedPlugin>();
  for (const [name, path] of code.extensions) {
    const make = MAKERS[name];
    if (!make) continue;
    const file = relative(dirname(code.src), path);
    let replaced: string | null = null;
    const { plugin, originals } = make(schema, deps, nativeCaller(name, natives, () => replaced));
    const ext = await runExtension(name, await loadFile(path, code.src), file, plugin, originals);
    // Native handlers do not run through the plugin's services: with one replaced they cannot honour the project.
    if (ext.replacedServices.length) replaced = `${file} replaces the plugin's service ${ext.replacedServices.join(', ')}`;
    out.set(name, ext);
  }
  return out;
}
