// The document service's publication methods (publish, unpublish, discardDraft) behind a project's
// custom routes, and the webhook calls each sends: run against a live Strapi 5.54 by
// test/fixtures/webhooks/record-docs.ts and against this server by test/webhooks.test.ts.
// Models: the demo models (models/), laid out as a Strapi project (docsProject); token: full access.
import { cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Call, Received } from './webhooks-ops.ts';
import { tempDir } from './temp-dir.ts';

/** The project code both servers run (JavaScript, as Strapi runs it without a build). */
export const DOCS_CONTROLLER = `// The document service's publication methods behind routes.
const docs = () => strapi.documents('api::article.article');
const at = (ctx) => ({ documentId: ctx.params.id, ...(ctx.query.locale ? { locale: ctx.query.locale } : {}) });
module.exports = {
  async publish(ctx) { ctx.body = await docs().publish(at(ctx)); },
  async unpublish(ctx) { ctx.body = await docs().unpublish(at(ctx)); },
  async discard(ctx) { ctx.body = await docs().discardDraft(at(ctx)); },
};
`;
export const DOCS_ROUTES = `module.exports = {
  routes: ['publish', 'unpublish', 'discard'].map((a) => ({ method: 'POST', path: \`/docs/:id/\${a}\`, handler: \`docs.\${a}\`, config: { auth: false } })),
};
`;

/** A temp Strapi project: the demo models in Strapi's layout, and the routes and controller above. */
export function docsProject(): string {
  const models = fileURLToPath(new URL('../models', import.meta.url));
  const dir = tempDir('fastrapi-docs-events-');
  for (const f of readdirSync(join(models, 'content-types'))) {
    const name = basename(f, '.json');
    mkdirSync(join(dir, 'src', 'api', name, 'content-types', name), { recursive: true });
    cpSync(join(models, 'content-types', f), join(dir, 'src', 'api', name, 'content-types', name, 'schema.json'));
  }
  cpSync(join(models, 'components'), join(dir, 'src', 'components'), { recursive: true });
  for (const kind of ['controllers', 'routes']) mkdirSync(join(dir, 'src', 'api', 'article', kind), { recursive: true });
  writeFileSync(join(dir, 'src', 'api', 'article', 'controllers', 'docs.js'), DOCS_CONTROLLER);
  writeFileSync(join(dir, 'src', 'api', 'article', 'routes', 'docs.js'), DOCS_ROUTES);
  // The api's own routes folder holds its core router too (a folder of custom routes only would replace it).
  writeFileSync(join(dir, 'src', 'api', 'article', 'routes', 'article.js'), "module.exports = require('@strapi/strapi').factories.createCoreRouter('api::article.article');\n");
  writeFileSync(join(dir, 'package.json'), '{ "name": "docs-events", "private": true }\n');
  return dir;
}

const ok = (r: { status: number; body: any }, what: string) => {
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
};

export interface DocsOp { name: string; run(call: Call, s: Record<string, any>): Promise<unknown> }

export const DOCS_OPS: DocsOp[] = [
  { name: 'create a tag', async run(call, s) { s.tag = ok(await call('POST', '/api/tags', { data: { name: 'Docs tag' } }), 'tag').data.documentId; } },
  { name: 'create a published article (en) with a tag and its seo', async run(call, s) {
    s.a = ok(await call('POST', '/api/articles', { data: { title: 'Docs', slug: 'docs-events', views: 3, tags: [s.tag], seo: { metaTitle: 'Docs' } } }), 'article').data.documentId;
  } },
  { name: 'its fr localization (published)', async run(call, s) { ok(await call('PUT', `/api/articles/${s.a}?locale=fr`, { data: { title: 'Docs fr', slug: 'docs-events-fr' } }), 'fr'); } },
  { name: 'unpublish en', async run(call, s) { return ok(await call('POST', `/api/docs/${s.a}/unpublish?locale=en`), 'unpublish'); } },
  { name: 'publish en', async run(call, s) { return ok(await call('POST', `/api/docs/${s.a}/publish?locale=en`), 'publish'); } },
  { name: 'a draft change in en', async run(call, s) { ok(await call('PUT', `/api/articles/${s.a}?status=draft&locale=en`, { data: { title: 'Docs changed' } }), 'draft'); } },
  { name: 'discard the en draft', async run(call, s) { return ok(await call('POST', `/api/docs/${s.a}/discard?locale=en`), 'discard'); } },
  { name: 'unpublish every locale', async run(call, s) { return ok(await call('POST', `/api/docs/${s.a}/unpublish?locale=*`), 'unpublish *'); } },
  { name: 'discard drafts that have no published version', async run(call, s) { return ok(await call('POST', `/api/docs/${s.a}/discard?locale=*`), 'discard *'); } },
  { name: 'unpublish what is not published', async run(call, s) { return ok(await call('POST', `/api/docs/${s.a}/unpublish?locale=en`), 'unpublish again'); } },
];

/** Runs the ops in order; each op's deliveries are those received until `quietMs` pass without one. */
export async function runDocsOps(call: Call, got: Received[], quietMs = 700): Promise<Array<{ name: string; deliveries: Received[] }>> {
  const s: Record<string, any> = {};
  const out: Array<{ name: string; deliveries: Received[] }> = [];
  for (const op of DOCS_OPS) {
    const start = got.length;
    await op.run(call, s);
    let n = -1;
    while (n !== got.length) { n = got.length; await new Promise((r) => setTimeout(r, quietMs)); }
    out.push({ name: op.name, deliveries: got.slice(start) });
  }
  return out;
}
