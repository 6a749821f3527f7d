// An extended plugin's controllers as Strapi's registry instantiates them: a factory is called once with
// { strapi }, an object is taken as it is. Route building and GraphQL's guard look actions up through it.
import type { Methods } from './core.ts';
import { ProjectLoadError } from './load.ts';
import type { ExtendedPlugin } from './plugin-extension.ts';

export class PluginControllers {
  /** `<plugin>/<controller>` → the controller (undefined when the plugin's member is no object). */
  private made = new Map<string, Methods | undefined>();

  constructor(private strapiApi: unknown) {}

  /** The plugin's controller `name`, instantiated once; a factory that throws stops the start naming the file. */
  get(ext: ExtendedPlugin, name: string): Methods | undefined {
    const key = `${ext.name}/${name}`;
    if (!this.made.has(key)) {
      const c = ext.plugin.controllers[name];
      let made: unknown;
      try { made = typeof c === 'function' ? (c as (o: { strapi: unknown }) => unknown)({ strapi: this.strapiApi }) : c; } catch (e) {
        throw new ProjectLoadError(`${ext.file}: controller ${name}: ${(e as Error)?.stack ?? String(e)}`);
      }
      this.made.set(key, made && typeof made === 'object' ? made as Methods : undefined);
    }
    return this.made.get(key);
  }
}
