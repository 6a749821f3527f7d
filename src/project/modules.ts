// What `@strapi/strapi` and `@strapi/utils` are for a project's code (the shims in ./shims read them from
// globalThis, so CommonJS requires, ES imports and TypeScript compiled either way share one instance).
// A name this server does not implement throws at its first use, naming itself, rather than being undefined.
import { createCoreController, createCoreRouter, createCoreService } from './factories.ts';
import { errors } from './errors.ts';
import { z as zodSubset } from './zod-subset.ts';

const KEY = Symbol.for('fastrapi.project-modules');

/** Names module interop reads on any module (`__esModule`, a thenable check…): never an error. */
const INTEROP = new Set(['__esModule', 'then', 'default', 'toJSON', 'constructor', 'inspect']);

function strict<T extends object>(name: string, exports: T): T {
  return new Proxy(exports, {
    get(target, prop, receiver) {
      if (typeof prop === 'symbol' || prop in target) return Reflect.get(target, prop, receiver);
      if (INTEROP.has(prop)) return prop === 'default' ? receiver : undefined;
      throw new TypeError(`${name}: ${prop} is not supported by this server`);
    },
  });
}

function createPolicyContext(type: string, ctx: object): object {
  return Object.assign({ is: (t: string) => t === type, get type() { return type; } }, ctx);
}

/** `require('@strapi/utils').z`: the project's own Zod once its runtime found one (useZod), else this server's subset. */
let zod: unknown = zodSubset;
export function useZod(z: unknown): void { zod = z; }

export function installModules(): void {
  const g = globalThis as { [KEY]?: unknown };
  if (g[KEY]) return;
  g[KEY] = {
    strapi: strict('@strapi/strapi', { factories: strict('@strapi/strapi factories', { createCoreRouter, createCoreController, createCoreService }) }),
    utils: strict('@strapi/utils', {
      errors,
      get z() { return zod; },
      policy: { createPolicyContext, createPolicy: (o: { name?: string; handler: unknown; validator?: (c: unknown) => void }) => ({ name: o.name ?? 'unnamed', handler: o.handler, validator: o.validator }) },
    }),
  };
}
