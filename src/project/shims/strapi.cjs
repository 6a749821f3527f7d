// `require('@strapi/strapi')` from a project's code: this server's implementation (src/project/modules.ts),
// installed on globalThis before the project loads, so CommonJS and ESM loads share one instance.
'use strict';
module.exports = globalThis[Symbol.for('fastrapi.project-modules')].strapi;
