// `require('@strapi/utils')` from a project's code: this server's implementation (src/project/modules.ts).
'use strict';
module.exports = globalThis[Symbol.for('fastrapi.project-modules')].utils;
