// users-permissions' content API as Strapi 5.54 declares it (server/routes/content-api/*.js of
// @strapi/plugin-users-permissions 5.54.0, request/response validators left out): the route list a
// project's src/extensions/users-permissions/strapi-server gets in plugin.routes['content-api'].routes, and
// where this server's native handlers answer each action (the path a native call is made on).

import { NO_HANDLER, type PluginRouteSpec } from './plugin-object.ts';

const RATE = { middlewares: ['plugin::users-permissions.rateLimit'], prefix: '' };
const NO_PREFIX = { prefix: '' };

/** Fresh copies each call: the extension may change them in place. */
export function usersPermissionsRoutes(): PluginRouteSpec[] {
  const r = (method: string, path: string, handler: string, config?: Record<string, unknown>): PluginRouteSpec =>
    ({ method, path, handler, ...(config ? { config: structuredClone(config) } : {}) });
  return [
    r('GET', '/connect/(.*)', 'auth.connect', RATE),
    r('POST', '/auth/local', 'auth.callback', RATE),
    r('POST', '/auth/local/register', 'auth.register', RATE),
    r('GET', '/auth/:provider/callback', 'auth.callback', NO_PREFIX),
    r('POST', '/auth/forgot-password', 'auth.forgotPassword', RATE),
    r('POST', '/auth/reset-password', 'auth.resetPassword', RATE),
    r('GET', '/auth/email-confirmation', 'auth.emailConfirmation', NO_PREFIX),
    r('POST', '/auth/send-email-confirmation', 'auth.sendEmailConfirmation', RATE),
    r('POST', '/auth/change-password', 'auth.changePassword', RATE),
    r('POST', '/auth/refresh', 'auth.refresh', NO_PREFIX),
    r('POST', '/auth/logout', 'auth.logout', NO_PREFIX),
    r('GET', '/auth/sessions', 'auth.getSessions', NO_PREFIX),
    r('DELETE', '/auth/sessions/:sessionId', 'auth.revokeSession', NO_PREFIX),
    r('GET', '/users/count', 'user.count', NO_PREFIX),
    r('GET', '/users', 'user.find', NO_PREFIX),
    r('GET', '/users/me', 'user.me', NO_PREFIX),
    r('GET', '/users/:id', 'user.findOne', NO_PREFIX),
    r('POST', '/users', 'user.create', NO_PREFIX),
    r('PUT', '/users/:id', 'user.update', NO_PREFIX),
    r('DELETE', '/users/:id', 'user.destroy', NO_PREFIX),
    // No prefix in the config: under /api/users-permissions.
    r('GET', '/roles/:id', 'role.findOne'),
    r('GET', '/roles', 'role.find'),
    r('POST', '/roles', 'role.createRole'),
    r('PUT', '/roles/:role', 'role.updateRole'),
    r('DELETE', '/roles/:role', 'role.deleteRole'),
    r('GET', '/permissions', 'permissions.getPermissions'),
  ];
}

/**
 * Each controller action this server answers natively: the method and path (`:name` from ctx.params) its
 * users-permissions handler serves. Actions not listed (OAuth providers, sessions, the admin's) have no
 * native handler here.
 */
export const NATIVE_ACTIONS: Record<string, Record<string, [string, string]>> = {
  auth: {
    callback: ['POST', '/api/auth/local'],
    register: ['POST', '/api/auth/local/register'],
    forgotPassword: ['POST', '/api/auth/forgot-password'],
    resetPassword: ['POST', '/api/auth/reset-password'],
    emailConfirmation: ['GET', '/api/auth/email-confirmation'],
    sendEmailConfirmation: ['POST', '/api/auth/send-email-confirmation'],
    changePassword: ['POST', '/api/auth/change-password'],
    connect: NO_HANDLER, refresh: NO_HANDLER, logout: NO_HANDLER, getSessions: NO_HANDLER, revokeSession: NO_HANDLER,
  },
  user: {
    create: ['POST', '/api/users'], update: ['PUT', '/api/users/:id'], find: ['GET', '/api/users'], findOne: ['GET', '/api/users/:id'],
    count: ['GET', '/api/users/count'], destroy: ['DELETE', '/api/users/:id'], me: ['GET', '/api/users/me'],
  },
  role: {
    createRole: ['POST', '/api/users-permissions/roles'], findOne: ['GET', '/api/users-permissions/roles/:id'], find: ['GET', '/api/users-permissions/roles'],
    updateRole: ['PUT', '/api/users-permissions/roles/:role'], deleteRole: ['DELETE', '/api/users-permissions/roles/:role'],
  },
  permissions: { getPermissions: ['GET', '/api/users-permissions/permissions'], getPolicies: NO_HANDLER, getRoutes: NO_HANDLER },
  settings: { getEmailTemplate: NO_HANDLER, updateEmailTemplate: NO_HANDLER, getAdvancedSettings: NO_HANDLER, updateAdvancedSettings: NO_HANDLER, getProviders: NO_HANDLER, updateProviders: NO_HANDLER },
  contentmanageruser: { create: NO_HANDLER, update: NO_HANDLER },
};

/** Strapi 5.54's plugin services (each a factory ({ strapi }) => service). */
export const SERVICE_NAMES = ['jwt', 'providers', 'providers-registry', 'role', 'user', 'users-permissions', 'permission'];
