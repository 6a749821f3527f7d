// Document Service middlewares (`strapi.documents.use` in register()): the project both servers run — one
// middleware logging every api:: call's context (to the file DOC_MW_LOG names) that (a) adds a filter to
// the tags' findMany, (b) sets the article's description on create, (c) changes an article's findOne
// result, (d) refuses a tag update by throwing — and the REST requests both get. Recorded from a live
// Strapi 5.54 by test/fixtures/doc-middlewares/record.ts, replayed by test/doc-middlewares.test.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Call } from './webhooks-ops.ts';

/** The register() both servers run (a property of src/index.js's module.exports). */
export const REGISTER = `register({ strapi }) {
    const fs = require('fs');
    const { errors } = require('@strapi/utils');
    const log = (e) => { if (process.env.DOC_MW_LOG) fs.appendFileSync(process.env.DOC_MW_LOG, JSON.stringify(e) + '\\n'); };
    strapi.documents.use(async (context, next) => {
      if (!context.uid.startsWith('api::')) return next();
      log({ uid: context.uid, action: context.action, params: context.params, contentType: context.contentType && context.contentType.uid });
      if (context.uid === 'api::tag.tag' && context.action === 'findMany') {
        context.params.filters = { $and: [context.params.filters || {}, { name: { $notContainsi: 'hidden' } }] };
      }
      if (context.uid === 'api::article.article' && context.action === 'create') {
        context.params.data = { ...context.params.data, description: 'set by a document middleware' };
      }
      if (context.uid === 'api::tag.tag' && context.action === 'update' && context.params.data && context.params.data.name === 'forbidden') {
        throw new errors.ApplicationError('the middleware refuses this name', { name: 'forbidden' });
      }
      const result = await next();
      if (context.uid === 'api::article.article' && context.action === 'findOne' && result) {
        return { ...result, title: result.title + ' (seen by a middleware)', extra: 'not an attribute' };
      }
      return result;
    });
  },`;

/** A bootstrap() writing through the document service (DOC_MW_BOOT set): the middleware sees it; so do webhooks. */
export const BOOTSTRAP_WRITE = `if (process.env.DOC_MW_BOOT) await strapi.documents('api::tag.tag').create({ data: { name: 'from bootstrap' } });`;

/** src/index.js for this server (Strapi's reference app keeps its own bootstrap lines: see record.ts). */
export function indexFile(): string {
  return `'use strict';\nmodule.exports = {\n  ${REGISTER}\n  async bootstrap({ strapi }) {\n    ${BOOTSTRAP_WRITE}\n  },\n};\n`;
}

export function addDocMiddlewares(dir: string): void {
  writeFileSync(join(dir, 'src', 'index.js'), indexFile());
}

export interface MwOp { name: string; run(call: Call, s: Record<string, any>): Promise<{ status: number; body: any }> }

const keep = (key: string, r: { status: number; body: any }, s: Record<string, any>) => { s[key] = r.body?.data?.documentId; return r; };

export const MW_OPS: MwOp[] = [
  { name: 'create a tag', async run(call, s) { return keep('alpha', await call('POST', '/api/tags', { data: { name: 'Alpha' } }), s); } },
  { name: 'create a hidden tag', async run(call, s) { return keep('hidden', await call('POST', '/api/tags', { data: { name: 'a hidden tag' } }), s); } },
  { name: 'list tags (a) the middleware adds a filter', run: (call) => call('GET', '/api/tags?sort=name:asc') },
  { name: 'list tags with filters, fields and a page', run: (call) => call('GET', '/api/tags?filters[name][$startsWith]=A&fields[0]=name&pagination[page]=1&pagination[pageSize]=5') },
  { name: 'list tags with start/limit and no count', run: (call) => call('GET', '/api/tags?pagination[start]=0&pagination[limit]=2&pagination[withCount]=false&sort[0]=name:desc') },
  { name: 'one tag', run: (call, s) => call('GET', `/api/tags/${s.alpha}`) },
  { name: 'one hidden tag (findOne gets no filter)', run: (call, s) => call('GET', `/api/tags/${s.hidden}`) },
  { name: 'update a tag', run: (call, s) => call('PUT', `/api/tags/${s.alpha}`, { data: { name: 'Alpha 2' } }) },
  { name: 'an update the middleware refuses (d)', run: (call, s) => call('PUT', `/api/tags/${s.alpha}`, { data: { name: 'forbidden' } }) },
  { name: 'create a published article (b) the middleware sets a field', async run(call, s) {
    return keep('a', await call('POST', '/api/articles', { data: { title: 'Mw', slug: 'mw-article', views: 1, tags: [s.alpha] } }), s);
  } },
  { name: 'create a draft article', async run(call, s) { return keep('d', await call('POST', '/api/articles?status=draft', { data: { title: 'Mw draft', slug: 'mw-draft' } }), s); } },
  { name: 'its fr localization', run: (call, s) => call('PUT', `/api/articles/${s.a}?locale=fr`, { data: { title: 'Mw fr', slug: 'mw-fr' } }) },
  { name: 'one article (c) the middleware changes the result', run: (call, s) => call('GET', `/api/articles/${s.a}`) },
  { name: 'one article, draft, fr, tags populated', run: (call, s) => call('GET', `/api/articles/${s.a}?status=draft&locale=fr&populate[tags][fields][0]=name&fields[0]=title&fields[1]=description`) },
  { name: 'list articles in fr', run: (call) => call('GET', '/api/articles?locale=fr&fields[0]=title&fields[1]=description&sort=title:asc') },
  { name: 'list drafts', run: (call) => call('GET', '/api/articles?status=draft&fields[0]=title&sort=title:asc&populate=tags') },
  { name: 'update the en draft', run: (call, s) => call('PUT', `/api/articles/${s.a}?status=draft`, { data: { title: 'Mw changed' } }) },
  { name: 'delete fr', run: (call, s) => call('DELETE', `/api/articles/${s.a}?locale=fr`) },
  { name: 'delete a draft-only article', run: (call, s) => call('DELETE', `/api/articles/${s.d}`) },
  { name: 'delete the hidden tag', run: (call, s) => call('DELETE', `/api/tags/${s.hidden}`) },
  { name: 'a missing tag', run: (call) => call('GET', '/api/tags/nosuchdocumentid00000000') },
  { name: 'the single type, set', run: (call) => call('PUT', '/api/about', { data: { title: 'About mw' } }) },
  { name: 'the single type, read', run: (call) => call('GET', '/api/about?fields[0]=title') },
  { name: 'the single type, deleted', run: (call) => call('DELETE', '/api/about') },
];

/** A logged middleware context. */
export interface MwLogged { uid: string; action: string; params: unknown; contentType?: string }

const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/**
 * Ids, document ids and times masked: document ids by their order of appearance over the whole run (so a
 * middleware context and an answer naming the same document agree), row ids and times by kind.
 */
export function masker(): (v: unknown) => unknown {
  const docs = new Map<string, string>();
  const mask = (v: unknown, key = ''): unknown => {
    if (Array.isArray(v)) return v.map((x) => mask(x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mask(x, k)]));
    if (typeof v === 'string' && TIME.test(v)) return '<time>';
    if (key === 'id' && typeof v === 'number') return '<id>';
    if (typeof v === 'string' && (key === 'documentId' || /^[a-z0-9]{24}$/.test(v))) {
      if (!docs.has(v)) docs.set(v, `<doc${docs.size + 1}>`);
      return docs.get(v);
    }
    return v;
  };
  return mask;
}
