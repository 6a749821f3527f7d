// src/index's register() and bootstrap(), as Strapi calls them: `({ strapi })`, awaited. A hook that throws
// (or is not a function) stops the start, naming the file and the error.
import { dirname, relative } from 'node:path';
import { ProjectLoadError, type LoadedFile } from './load.ts';

export type HookName = 'register' | 'bootstrap';

/** Whether src/index exports the hook. */
export function hasHook(index: LoadedFile | null, name: HookName): boolean {
  const v = index?.value as Record<string, unknown> | null | undefined;
  return !!v && (typeof v === 'object' || typeof v === 'function') && v[name] !== undefined && v[name] !== null;
}

/** Runs one hook of src/index (nothing when it has none); `src` names the file relative to the project's root. */
export async function runHook(index: LoadedFile | null, name: HookName, strapi: unknown, src: string): Promise<void> {
  if (!index || !hasHook(index, name)) return;
  const where = relative(dirname(src), index.file);
  const fn = (index.value as Record<string, unknown>)[name];
  if (typeof fn !== 'function') throw new ProjectLoadError(`${where}: ${name} must be a function ({ strapi }) => …`);
  try {
    await (fn as (o: { strapi: unknown }) => unknown).call(index.value, { strapi });
  } catch (e) {
    throw new ProjectLoadError(`${where}: ${name}() failed: ${(e as Error)?.stack ?? String(e)}`);
  }
}
