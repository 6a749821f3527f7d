// The project's routes in Strapi's order, and which one a request takes (the first that matches, as
// @koa/router). Routes are grouped by the first path segment after /api so that a request only tests the
// routes that may match it.
import type { Match, ProjectRoute } from './project-route.ts';
import { matchPath, safeDecode } from './path.ts';

export class RouteTable {
  /** Every route in Strapi's order (the first that matches answers). */
  private routes: ProjectRoute[] = [];
  /** Routes a path whose first segment after /api is the key may match, in order (built at first use). */
  private byFirst = new Map<string, ProjectRoute[]>();

  /** `routed`: first segments of content-types whose api has routers (a path there no route takes is 404/405). */
  constructor(private routed: Set<string>) {}

  add(r: ProjectRoute): void {
    this.routes.push(r);
    this.byFirst.clear();
  }

  /**
   * Strapi's route for a request, or null when the core router (or the plugin `plugin`, which claimed the
   * path) answers it as it would without project code.
   */
  match(method: string, path: string, plugin?: string): Match | null {
    if (!path.startsWith('/api/')) return null;
    const slash = path.indexOf('/', 5);
    const first = (slash < 0 ? path.slice(5) : path.slice(5, slash)).toLowerCase();
    let pathMatched = false;
    for (const r of this.candidates(first)) {
      if (!r.compiled.regexp.test(path)) continue;
      if (r.method !== method && r.method !== 'ALL') { pathMatched = true; continue; }
      if (r.plain) return null;
      // Strapi's public-files route (GET /((?!uploads/).+)) matches every GET too: @koa/router gives its
      // capture, the path without its first slash, as ctx.params[0] (a route's own unnamed group wins).
      const params: Record<string, string> = method === 'GET' || method === 'HEAD' ? { 0: safeDecode(path.slice(1)) } : {};
      return { route: r, params: matchPath(r.compiled, path, params)! };
    }
    // A GET no route takes is still matched by Strapi's public-files route: 404, never 405.
    if (pathMatched && method !== 'GET' && method !== 'HEAD') return { route: null, status: 405 };
    // An extended plugin's path no route takes (the extension may remove some): Strapi's router answers.
    if (pathMatched || this.routed.has(first) || plugin) return { route: null, status: 404 };
    return null;
  }

  /** The routes a path starting with segment `first` may match, in Strapi's order. */
  private candidates(first: string): ProjectRoute[] {
    let list = this.byFirst.get(first);
    if (!list) {
      list = this.routes.filter((r) => r.first === null || r.first === first);
      if (this.byFirst.size > 10_000) this.byFirst.clear();
      this.byFirst.set(first, list);
    }
    return list;
  }
}
