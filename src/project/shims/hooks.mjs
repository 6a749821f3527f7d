// Module resolution hook (node:module register()) for a project's ES modules: `@strapi/strapi` and
// `@strapi/utils` resolve to this server's shims, so the project needs no Strapi install.
const SHIMS = { '@strapi/strapi': new URL('./strapi.mjs', import.meta.url).href, '@strapi/utils': new URL('./utils.mjs', import.meta.url).href };
export async function resolve(specifier, context, next) {
  const shim = SHIMS[specifier];
  return shim ? { url: shim, format: 'module', shortCircuit: true } : next(specifier, context);
}
