// How Strapi evaluates a project's configuration files: its `env` helper (@strapi/utils) and the merge of
// config/env/<NODE_ENV>/<file> over config/<file>. One place for the project loader, the configuration
// files and the custom-field resolver, which each read some of those files.

type Env = Record<string, string | undefined>;
type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Strapi's `env` helper (@strapi/utils), over `env` rather than process.env (tests pass their own). */
export function strapiEnv(env: Env) {
  const has = (k: string) => Object.prototype.hasOwnProperty.call(env, k) && env[k] !== undefined;
  const get = <T>(k: string, d?: T): string | T | undefined => (has(k) ? env[k] : d);
  return Object.assign(get, {
    int: (k: string, d?: number) => (has(k) ? parseInt(env[k]!, 10) : d),
    float: (k: string, d?: number) => (has(k) ? parseFloat(env[k]!) : d),
    bool: (k: string, d?: boolean) => (has(k) ? env[k] === 'true' : d),
    json: (k: string, d?: unknown) => {
      if (!has(k)) return d;
      try { return JSON.parse(env[k]!); } catch (e) { throw new Error(`Invalid json environment variable ${k}: ${(e as Error).message}`); }
    },
    array: (k: string, d?: string[]) => {
      if (!has(k)) return d;
      let v = env[k]!;
      if (v.startsWith('[') && v.endsWith(']')) v = v.slice(1, -1);
      return v.split(',').map((x) => x.trim().replace(/^"+|"+$/g, ''));
    },
    date: (k: string, d?: Date) => (has(k) ? new Date(env[k]!) : d),
    oneOf: (k: string, values: unknown[], d?: unknown) => {
      const v = get(k, d);
      return values.includes(v) ? v : d;
    },
  });
}

/** A configuration file's value: an object, or a function Strapi calls with `{ env }`. */
export function configValue(value: unknown, env: Env): unknown {
  return typeof value === 'function' ? (value as (o: { env: unknown }) => unknown)({ env: strapiEnv(env) }) : value;
}

/** Strapi merges config/env/<env>/x over config/x (lodash merge: objects deep, the rest replaced). */
export function deepMerge(a: unknown, b: unknown): unknown {
  if (!isObject(a) || !isObject(b)) return b === undefined ? a : b;
  const out: Json = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = deepMerge(a[k], v);
  return out;
}
