// The i18n plugin's content API: `GET /api/i18n/locales`, behind `plugin::i18n.locales.listLocales`.
import type { Plugin } from '../plugins/types.ts';
import { methodNotAllowed } from '../rest/reply.ts';
import { forbidden, notFound, unauthorized } from '../../compiler/errors.ts';
import { localesJson } from './locales.ts';

export function i18nPlugin(): Plugin {
  return {
    name: 'i18n',
    claims: (path) => path === '/api/i18n' || path.startsWith('/api/i18n/'),
    async handle(ctx, task, caller) {
      if (!caller) throw unauthorized();
      if (task.path !== '/api/i18n/locales') throw notFound();
      if (task.method !== 'GET') return methodNotAllowed();
      if (!ctx.auth.allowsPlugin(caller, 'plugin::i18n.locales.listLocales')) throw forbidden();
      const body = await localesJson(ctx.db, ctx.schema);
      ctx.count(1);
      return { status: 200, body };
    },
  };
}
