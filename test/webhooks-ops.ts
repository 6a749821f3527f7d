// The writes whose webhooks test/webhooks.test.ts compares with a live Strapi 5.54's (recorded by
// test/fixtures/webhooks/record.ts into test/fixtures/webhooks/strapi-5.54.json), and a webhook receiver.
// Models: /work/shared/conformance/models (article: i18n + draft & publish; author, global: neither).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received { path: string; method: string; headers: Record<string, string>; body: any }

/** A receiver on 127.0.0.1: every request recorded; `hang` keeps every request open (never answered). */
export async function receiver(port = 0, opts: { hang?: boolean } = {}) {
  const got: Received[] = [];
  const open = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    let b = '';
    req.on('data', (c) => { b += c; });
    req.on('end', () => {
      let body: unknown = b;
      try { body = JSON.parse(b); } catch { /* recorded as text */ }
      got.push({ path: req.url ?? '', method: req.method ?? '', headers: req.headers as Record<string, string>, body });
      if (opts.hang) open.add(res); else res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    got,
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((r) => { for (const res of open) res.destroy(); server.closeAllConnections(); server.close(() => r()); }),
  };
}

/** The headers a comparison looks at (the rest — host, content-length, user agent — differ by client). */
export const COMPARED_HEADERS = ['x-strapi-event', 'content-type', 'x-hook', 'x-both', 'x-default', 'authorization'];

/** A delivery with ids, documentIds, times and file hashes masked: what two servers must agree on. */
export function masked(r: Received): unknown {
  const headers: Record<string, string> = {};
  for (const h of COMPARED_HEADERS) if (r.headers[h] !== undefined) headers[h] = r.headers[h];
  return { path: r.path, method: r.method, headers, body: mask(r.body) };
}

const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
function mask(v: unknown, key = ''): unknown {
  if (Array.isArray(v)) return v.map((x) => mask(x));
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) o[k] = mask((v as Record<string, unknown>)[k], k);
    return o;
  }
  if (key === 'id' && typeof v === 'number') return '<id>';
  if (key === 'documentId' && typeof v === 'string') return '<documentId>';
  if (typeof v === 'string' && TIME.test(v)) return '<time>';
  if ((key === 'hash' || key === 'url') && typeof v === 'string') return v.replace(/[0-9a-f]{10}/g, '<hash>');
  return v;
}

export interface Call { (method: string, path: string, body?: unknown, multipart?: FormData): Promise<{ status: number; body: any }> }

export interface Op { name: string; run(call: Call, state: Record<string, any>): Promise<void> }

/** A Call to a live Strapi (the recording scripts): `Authorization: Bearer <token>`, JSON or multipart bodies. */
export function strapiCall(base: string, token: string): Call {
  return async (method, path, body, multipart) => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: multipart ?? (body !== undefined ? JSON.stringify(body) : undefined),
    });
    const text = await res.text();
    let b: unknown = text;
    try { b = JSON.parse(text); } catch { /* text */ }
    return { status: res.status, body: b };
  };
}

const ok = (r: { status: number; body: any }, what: string) => {
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
};
const gql = async (call: Call, query: string) => {
  const b = ok(await call('POST', '/graphql', { query }), 'graphql');
  if (b.errors) throw new Error(`graphql: ${JSON.stringify(b.errors)}`);
  return b.data;
};
/**
 * Strapi 5's v4CompatibilityMode names the document `documentId` in update and delete mutations; this
 * server's v4 shape takes `id` (and answers `data { id }`): the other form is tried when one is refused.
 */
const gqlById = async (call: Call, query: (arg: string) => string) => {
  const r = await call('POST', '/graphql', { query: query('documentId') });
  if (r.status === 400 && JSON.stringify(r.body).includes('Unknown argument')) return gql(call, query('id'));
  ok(r, 'graphql');
  if (r.body.errors) throw new Error(`graphql: ${JSON.stringify(r.body.errors)}`);
  return r.body.data;
};
const textFile = (name: string, text: string) => {
  const f = new FormData();
  f.append('files', new Blob([text], { type: 'text/plain' }), name);
  return f;
};

/** In order: each op's deliveries are compared on their own (Strapi's order within one op is not fixed). */
export const OPS: Op[] = [
  { name: 'upload a file', async run(call, s) { s.file = ok(await call('POST', '/api/upload', undefined, textFile('note.txt', 'hello webhooks')), 'upload')[0]; } },
  { name: 'update the file\'s info', async run(call, s) {
    const f = new FormData();
    f.append('fileInfo', JSON.stringify({ alternativeText: 'alt', caption: 'cap', name: 'note2.txt' }));
    ok(await call('POST', `/api/upload?id=${s.file.id}`, undefined, f), 'fileInfo');
  } },
  { name: 'REST create an author (no draft & publish)', async run(call, s) { s.author = ok(await call('POST', '/api/authors', { data: { name: 'Ann', email: 'ann@example.test', avatar: s.file.id } }), 'author').data.documentId; } },
  { name: 'REST update the author', async run(call, s) { ok(await call('PUT', `/api/authors/${s.author}`, { data: { bio: 'Bio' } }), 'author update'); } },
  { name: 'REST create a tag', async run(call, s) { s.tag = ok(await call('POST', '/api/tags', { data: { name: 'T1' } }), 'tag').data.documentId; } },
  { name: 'REST create a published article with relations, media, component and dynamic zone', async run(call, s) {
    s.article = ok(await call('POST', '/api/articles', { data: {
      title: 'Hello', slug: 'hello', views: 3, cover: s.file.id, author: s.author, tags: [s.tag],
      seo: { metaTitle: 'M', metaDescription: 'D' },
      blocks: [{ __component: 'shared.quote', title: 'Q', body: 'quoted' }, { __component: 'shared.rich-text', body: 'rich' }],
    } }), 'article').data.documentId;
  } },
  { name: 'REST update the article (published)', async run(call, s) { ok(await call('PUT', `/api/articles/${s.article}`, { data: { title: 'Hello 2' } }), 'update'); } },
  { name: 'REST update the article as a draft', async run(call, s) { ok(await call('PUT', `/api/articles/${s.article}?status=draft`, { data: { title: 'Hello draft' } }), 'draft update'); } },
  { name: 'REST create the fr localization (published)', async run(call, s) { ok(await call('PUT', `/api/articles/${s.article}?locale=fr`, { data: { title: 'Bonjour', slug: 'bonjour' } }), 'fr'); } },
  { name: 'REST create a draft article', async run(call, s) { s.draft = ok(await call('POST', '/api/articles?status=draft', { data: { title: 'Draft', slug: 'draft' } }), 'draft').data.documentId; } },
  { name: 'REST delete the draft-only article', async run(call, s) { ok(await call('DELETE', `/api/articles/${s.draft}`), 'delete draft'); } },
  { name: 'REST delete the fr localization', async run(call, s) { ok(await call('DELETE', `/api/articles/${s.article}?locale=fr`), 'delete fr'); } },
  { name: 'REST delete the article', async run(call, s) { ok(await call('DELETE', `/api/articles/${s.article}`), 'delete'); } },
  { name: 'REST delete the author', async run(call, s) { ok(await call('DELETE', `/api/authors/${s.author}`), 'delete author'); } },
  { name: 'REST put a single type (no draft & publish)', async run(call) { ok(await call('PUT', '/api/global', { data: { siteName: 'Site', defaultSeo: { metaTitle: 'G' } } }), 'global'); } },
  { name: 'REST put the single type again', async run(call) { ok(await call('PUT', '/api/global', { data: { siteName: 'Site 2' } }), 'global 2'); } },
  { name: 'REST delete the single type', async run(call) { ok(await call('DELETE', '/api/global'), 'global delete'); } },
  { name: 'REST put a draft & publish single type', async run(call) { ok(await call('PUT', '/api/about', { data: { title: 'About' } }), 'about'); } },
  // (the documentId read back by REST: Strapi's v4CompatibilityMode `id` is the row id, this server's the documentId)
  { name: 'GraphQL create an article', async run(call, s) {
    s.gid = (await gql(call, 'mutation { createArticle(data: { title: "G", slug: "g", publishedAt: "2024-01-01T00:00:00.000Z" }) { data { id } } }')).createArticle.data.id;
    s.g = ok(await call('GET', '/api/articles?filters[slug][$eq]=g&status=draft'), 'find g').data[0].documentId;
  } },
  { name: 'GraphQL update the article', async run(call, s) { await gqlById(call, (arg) => `mutation { updateArticle(${arg}: "${arg === 'id' ? s.gid : s.g}", data: { title: "G2" }) { data { id } } }`); } },
  { name: 'GraphQL delete the article', async run(call, s) { await gqlById(call, (arg) => `mutation { deleteArticle(${arg}: "${arg === 'id' ? s.gid : s.g}") { ${arg === 'id' ? 'data { id }' : 'documentId'} } }`); } },
  { name: 'GraphQL create a tag', async run(call, s) {
    s.gtid = (await gql(call, 'mutation { createTag(data: { name: "GT" }) { data { id } } }')).createTag.data.id;
    s.gt = ok(await call('GET', '/api/tags?filters[name][$eq]=GT'), 'find GT').data[0].documentId;
  } },
  { name: 'GraphQL delete the tag', async run(call, s) { await gqlById(call, (arg) => `mutation { deleteTag(${arg}: "${arg === 'id' ? s.gtid : s.gt}") { ${arg === 'id' ? 'data { id }' : 'documentId'} } }`); } },
  { name: 'register a users-permissions user', async run(call, s) { s.user = ok(await call('POST', '/api/auth/local/register', { username: 'hooky', email: 'hooky@example.test', password: 'hooky-pass-1' }), 'register').user.id; } },
  { name: 'update the user', async run(call, s) { ok(await call('PUT', `/api/users/${s.user}`, { username: 'hooky2' }), 'user update'); } },
  { name: 'delete the user', async run(call, s) { ok(await call('DELETE', `/api/users/${s.user}`), 'user delete'); } },
  { name: 'delete the file', async run(call, s) { ok(await call('DELETE', `/api/upload/files/${s.file.id}`), 'delete file'); } },
];

/**
 * Runs OPS through `call`, collecting after each the deliveries `got` received: waits for `expected[i]`
 * deliveries when given (then a little more, to see any extra), else until nothing came for `quietMs`.
 */
export async function runOps(call: Call, got: Received[], expected?: number[], quietMs = 600): Promise<{ name: string; deliveries: Received[] }[]> {
  const out = [];
  const state: Record<string, any> = {};
  for (const [i, op] of OPS.entries()) {
    const start = got.length;
    await op.run(call, state);
    const deadline = Date.now() + 5000;
    let last = got.length, since = Date.now();
    for (;;) {
      await new Promise((r) => setTimeout(r, 25));
      if (got.length !== last) { last = got.length; since = Date.now(); }
      if (Date.now() > deadline) break;
      if (expected && got.length - start >= expected[i] && Date.now() - since >= 100) break;
      if (!expected && Date.now() - since >= quietMs) break;
    }
    out.push({ name: op.name, deliveries: got.slice(start) });
  }
  return out;
}
