// Lifecycle hooks (src/project/lifecycles.ts): a `lifecycles.js` on two demo types that logs every event
// (to the file LC_LOG names), changes `params.data` and throws on given names; the writes both servers
// get; and the comparable form of what was logged. Recorded from a live Strapi 5.54 by
// test/fixtures/lifecycles/record.ts, replayed by test/lifecycles.test.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Call } from './webhooks-ops.ts';

/** `field` is the type's string attribute the hooks look at. */
export const lifecyclesFile = (field: string) => `const fs = require('fs');
const { errors } = require('@strapi/utils');
const log = (e) => fs.appendFileSync(process.env.LC_LOG, JSON.stringify({ action: e.action, uid: e.model.uid, singularName: e.model.singularName,
  params: e.params, state: e.state, result: e.result === undefined ? '<undefined>' : e.result }) + '\\n');
const hooks = {};
for (const a of ['Create', 'Update', 'Delete']) {
  hooks['before' + a] = (e) => {
    e.state.seen = a;
    log(e);
    const v = e.params.data && e.params.data.${field};
    if (typeof v !== 'string') return;
    if (v.startsWith('up:')) e.params.data.${field} = v.toUpperCase();
    if (v === 'crash') throw new Error('a plain error from a hook');
    if (v === 'refused') throw new errors.ApplicationError('refused by a hook', { field: '${field}' });
  };
  hooks['after' + a] = log;
}
module.exports = hooks;
`;

/** Adds the logging lifecycles to a project made by docsProject() (tag: name, article: title). */
export function addLifecycles(dir: string): void {
  writeFileSync(join(dir, 'src', 'api', 'tag', 'content-types', 'tag', 'lifecycles.js'), lifecyclesFile('name'));
  writeFileSync(join(dir, 'src', 'api', 'article', 'content-types', 'article', 'lifecycles.js'), lifecyclesFile('title'));
}

export interface LcOp { name: string; run(call: Call, s: Record<string, any>): Promise<{ status: number; body: any }> }

export const LC_OPS: LcOp[] = [
  { name: 'create a tag', async run(call, s) { const r = await call('POST', '/api/tags', { data: { name: 'lc1' } }); s.tag = r.body?.data?.documentId; return r; } },
  { name: 'a hook upper-cases the name', run: (call) => call('POST', '/api/tags', { data: { name: 'up:shout' } }) },
  { name: 'a hook throws an Error', run: (call) => call('POST', '/api/tags', { data: { name: 'crash' } }) },
  { name: 'a hook throws an ApplicationError', run: (call) => call('POST', '/api/tags', { data: { name: 'refused' } }) },
  { name: 'update the tag', run: (call, s) => call('PUT', `/api/tags/${s.tag}`, { data: { name: 'lc1b' } }) },
  { name: 'delete the tag', run: (call, s) => call('DELETE', `/api/tags/${s.tag}`) },
  { name: 'create a published article', async run(call, s) {
    const r = await call('POST', '/api/articles', { data: { title: 'lc art', slug: 'lc-art', views: 2 } }); s.a = r.body?.data?.documentId; return r;
  } },
  { name: 'update it (published)', run: (call, s) => call('PUT', `/api/articles/${s.a}`, { data: { title: 'up:lc art 2' } }) },
  { name: 'update its draft', run: (call, s) => call('PUT', `/api/articles/${s.a}?status=draft`, { data: { title: 'lc art 3' } }) },
  { name: 'a refused update changes nothing', run: (call, s) => call('PUT', `/api/articles/${s.a}`, { data: { title: 'refused' } }) },
  { name: 'read it', run: (call, s) => call('GET', `/api/articles/${s.a}?status=draft`) },
  { name: 'delete it', run: (call, s) => call('DELETE', `/api/articles/${s.a}`) },
];

export interface Logged { action: string; uid: string; singularName: string; params: { where?: unknown; data?: Record<string, unknown> }; state: unknown; result: unknown }

const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
function mask(v: unknown, key = ''): unknown {
  if (Array.isArray(v)) return v.map((x) => mask(x));
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, mask((v as Record<string, unknown>)[k], k)]));
  if (key === 'id' && typeof v === 'number') return '<id>';
  if (key === 'documentId' && typeof v === 'string') return '<documentId>';
  if (typeof v === 'string' && TIME.test(v)) return '<time>';
  return v;
}

/**
 * What both servers must agree on for one logged event: its action, type, state, the `where` given
 * (ids masked), the scalar attributes of `data` (`scalars`: the type's; components, relations and
 * media are passed in Strapi's internal forms there, which this server does not reproduce), and `result`.
 */
export function comparable(e: Logged, scalars: Record<string, string[]>): unknown {
  const keep = new Set([...(scalars[e.uid] ?? []), 'locale', 'publishedAt']);
  const data = e.params.data ? Object.fromEntries(Object.entries(e.params.data).filter(([k]) => keep.has(k)).map(([k, v]) => [k, k === 'publishedAt' ? (v === null ? null : '<time>') : v])) : undefined;
  return mask({ action: e.action, uid: e.uid, singularName: e.singularName, state: e.state, where: e.params.where, data, result: e.result });
}
