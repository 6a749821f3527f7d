// The routes Strapi registers from the project's apis (src/api/<api>/routes/*): core routers with
// prefix/only/except and per-action config, custom routers `{ prefix?, routes }`, in the loader's order.
// With document service middlewares, the core routes of apis without routers join them (Strapi's core
// controller and service run them, through strapi.documents).
import { dirname, relative } from 'node:path';
import type { Schema } from '../../compiler/schema.ts';
import { createCoreRouter, isCoreRouter } from './factories.ts';
import { ProjectLoadError, type ProjectCode } from './load.ts';
import type { ProjectRoute } from './project-route.ts';
import type { RouteBuilder } from './route-builder.ts';

export interface ApiRoutes {
  routes: ProjectRoute[];
  /** First segments of content-types whose api has routers: a path there no route takes is 404/405, as in Strapi. */
  routed: Set<string>;
}

export function apiRoutes(schema: Schema, code: ProjectCode, build: RouteBuilder, strapiApi: unknown, viaDocuments: boolean): ApiRoutes {
  const routes: ProjectRoute[] = [];
  const routed = new Set<string>();
  for (const [apiName, api] of code.apis) {
    if (api.routes.length) for (const ct of schema.contentTypes.values()) if (ct.uid.startsWith(`api::${apiName}.`)) routed.add(ct.kind === 'singleType' ? ct.singularName : ct.pluralName);
    for (const loaded of api.routes) {
      // Named relative to the project's root in start errors and 501 answers (no server path goes out).
      const f = { ...loaded, file: relative(dirname(code.src), loaded.file) };
      let v = f.value;
      if (typeof v === 'function') v = (v as (o: { strapi: unknown }) => unknown)({ strapi: strapiApi });
      if (isCoreRouter(v)) routes.push(...build.coreRoutes(v, apiName, f.file));
      else if (v && typeof v === 'object' && Array.isArray((v as { routes?: unknown }).routes)) {
        const router = v as { prefix?: string; routes: Array<Record<string, unknown>> };
        for (const r of router.routes) routes.push(build.route(r, router.prefix ?? '', apiName, f.file));
      } else throw new ProjectLoadError(`${f.file}: a routes file must export createCoreRouter(…) or { routes: [...] }`);
    }
  }
  // The core router answers the types of apis without routers; with document middlewares their core
  // routes become Strapi's core controller and service here, which run them.
  if (viaDocuments) {
    for (const ct of schema.contentTypes.values()) {
      if (ct.builtin || routed.has(ct.kind === 'singleType' ? ct.singularName : ct.pluralName)) continue;
      const apiName = ct.uid.slice('api::'.length, ct.uid.indexOf('.'));
      routes.push(...build.coreRoutes(createCoreRouter(ct.uid), apiName, `src/api/${apiName}`));
    }
  }
  return { routes, routed };
}
