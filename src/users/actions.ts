// The content-API actions a role can be granted, shaped as Strapi's users-permissions getActions():
// `{ "api::article": { controllers: { article: { find: {enabled, policy}, … } } }, "plugin::…": … }`.
// Strapi lists each controller action a content-API route uses, in the controller's own key order;
// plugins come in Strapi's loading order (its internal plugins, then users-permissions).
import type { Schema } from '../../compiler/schema.ts';

type Controllers = Record<string, string[]>;

const PLUGINS: Array<[string, Controllers]> = [
  ['plugin::content-type-builder', { components: ['getComponents', 'getComponent'], 'content-types': ['getContentTypes', 'getContentType'] }],
  ['plugin::email', { email: ['send'] }],
  ['plugin::upload', { 'content-api': ['find', 'findPage', 'findOne', 'destroy', 'upload'] }],
  ['plugin::i18n', { locales: ['listLocales'] }],
  ['plugin::users-permissions', {
    auth: ['callback', 'changePassword', 'resetPassword', 'refresh', 'logout', 'getSessions', 'revokeSession', 'connect',
      'forgotPassword', 'register', 'emailConfirmation', 'sendEmailConfirmation'],
    user: ['create', 'update', 'find', 'findOne', 'count', 'destroy', 'me'],
    role: ['createRole', 'findOne', 'find', 'updateRole', 'deleteRole'],
    permissions: ['getPermissions'],
  }],
];

export type ActionMap = Record<string, { controllers: Record<string, Record<string, { enabled: boolean; policy: string }>> }>;

function collect(schema: Schema): Array<[string, Controllers]> {
  const apis = new Map<string, Controllers>();
  for (const ct of schema.contentTypes.values()) {
    if (ct.builtin || !ct.uid.startsWith('api::')) continue;
    const [api, controller] = ct.uid.split('.');
    const c = apis.get(api) ?? {};
    c[controller] = ct.kind === 'singleType' ? ['find', 'update', 'delete'] : ['find', 'findOne', 'create', 'update', 'delete'];
    apis.set(api, c);
  }
  return [...[...apis].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)), ...PLUGINS];
}

/** Every action, disabled, with `granted` ones enabled (a role's permissions). */
export function actionMap(schema: Schema, granted: ReadonlySet<string> = new Set()): ActionMap {
  const out: ActionMap = {};
  for (const [type, controllers] of collect(schema)) {
    const cs: ActionMap[string]['controllers'] = {};
    for (const [name, actions] of Object.entries(controllers)) {
      cs[name] = Object.fromEntries(actions.map((a) => [a, { enabled: false, policy: '' }]));
    }
    out[type] = { controllers: cs };
  }
  // Strapi sets each granted action into the map (`_.set`), known or not.
  for (const action of granted) {
    const [type, controller, name] = splitAction(action);
    if (!type || !controller || !name) continue;
    const t = (out[type] ??= { controllers: {} });
    (t.controllers[controller] ??= {})[name] = { enabled: true, policy: '' };
  }
  return out;
}

/** `plugin::users-permissions.auth.register` → type, controller, action (the type keeps its own dots). */
export function splitAction(action: string): [string, string, string] {
  const parts = action.split('.');
  if (parts.length < 3) return ['', '', ''];
  return [parts.slice(0, -2).join('.'), parts[parts.length - 2], parts[parts.length - 1]];
}

/** Enabled actions of a role body's `permissions` map (entries that are not objects are ignored). */
export function enabledActions(permissions: unknown): string[] {
  const out: string[] = [];
  const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : {});
  for (const [type, t] of Object.entries(obj(permissions))) {
    for (const [controller, c] of Object.entries(obj(obj(t).controllers))) {
      for (const [name, a] of Object.entries(obj(c))) if (obj(a).enabled) out.push(`${type}.${controller}.${name}`);
    }
  }
  return out;
}
