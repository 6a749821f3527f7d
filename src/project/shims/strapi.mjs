// `import … from '@strapi/strapi'` from a project's ES module: named exports of this server's implementation.
const m = globalThis[Symbol.for('fastrapi.project-modules')].strapi;
export const factories = m.factories;
export default m;
