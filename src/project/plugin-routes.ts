// A built-in plugin's content-api routes as the project's src/extensions/<plugin>/strapi-server left them,
// and which of them this server's native plugin still answers untouched. Also GraphQL's guard: whether a
// users-permissions mutation (which calls the plugin's controller actions, in Strapi) may run natively.
import type { ExtendedPlugin } from './plugin-extension.ts';
import type { PluginControllers } from './plugin-controllers.ts';
import type { ProjectRoute } from './project-route.ts';
import type { RouteBuilder } from './route-builder.ts';
import { NATIVE_ACTIONS } from './up-routes.ts';

/**
 * A built-in route still as Strapi declares it, on the plugin's own action, with the plugin's own middlewares,
 * is `plain`: the native handler answers it, untouched. With a service replaced, native actions cannot honour
 * it: their routes are closed, naming the file.
 */
export function pluginRoutes(build: RouteBuilder, ext: ExtendedPlugin): ProjectRoute[] {
  const builtins = ext.originals.builtins;
  const closed = ext.replacedServices.length
    ? `it replaces the plugin's service ${ext.replacedServices.join(', ')}, which this server's own users-permissions handlers do not run through`
    : null;
  const sameMiddlewares = Object.entries(ext.originals.middlewares).every(([k, v]) => ext.plugin.middlewares[k] === v);
  const out: ProjectRoute[] = [];
  for (const spec of ext.plugin.routes['content-api'].routes as unknown as Array<Record<string, unknown>>) {
    const r = build.route(spec, '', '', ext.file, ext);
    const b = builtins.find((x) => x.method === spec.method && x.path === spec.path && x.handler === spec.handler);
    if (r.native && closed) r.closed ??= closed;
    r.plain = !!b && r.native === b.handler && !r.closed && sameMiddlewares
      && JSON.stringify(spec.config ?? {}) === JSON.stringify(b.config ?? {});
    out.push(r);
  }
  return out;
}

/**
 * Why GraphQL may not answer the users-permissions action served natively at `method path` (its mutations
 * call the plugin's controller actions, as Strapi's): the extension replaced that action or a service.
 */
export function usersGuard(ext: ExtendedPlugin, controllers: PluginControllers, method: string, path: string): string | null {
  if (ext.replacedServices.length) return `${ext.file}: it replaces the plugin's service ${ext.replacedServices.join(', ')}`;
  // Literal paths first: GET /api/users/me is me's, not findOne's (/api/users/:id).
  const entries = [...ext.originals.actions].sort(([, a], [, b]) => Number(nativePath(a).includes(':')) - Number(nativePath(b).includes(':')));
  for (const [fn, name] of entries) {
    const [controller, action] = name.split('.');
    const [m, p] = NATIVE_ACTIONS[controller][action];
    if (m !== method || !new RegExp(`^${p.replace(/:\w+/g, '[^/]+')}$`).test(path)) continue;
    return controllers.get(ext, controller)?.[action] === fn ? null : `${ext.file}: it replaces ${name}`;
  }
  return null;
}

/** The path the native handler of `name` ('user.me') serves. */
function nativePath(name: string): string {
  const [controller, action] = name.split('.');
  return NATIVE_ACTIONS[controller][action][1];
}
