// `import … from '@strapi/utils'` from a project's ES module: named exports of this server's implementation.
const m = globalThis[Symbol.for('fastrapi.project-modules')].utils;
export const errors = m.errors;
export const policy = m.policy;
export default m;
