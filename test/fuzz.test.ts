// Random and mutated query strings against a running server: whatever the query, the answer is a
// 200 or a 400 with the error envelope — never a 500 — and the server keeps answering afterwards.
// Mutations start from real Strapi v5 query strings (those of the recorded conformance cases).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, TOKEN, insertFile, prng, isErrorEnvelope, type TestServer } from './helpers.ts';
import { parseQueryString, type QueryValue } from '../compiler/querystring.ts';

let s: TestServer;
let docId = '';

/** Real query strings sent to Strapi v5 (shared/conformance/cases/rest.jsonl), documentIds aside. */
const SEEDS = [
  '', 'filters[slug]=article-2&fields[0]=title&fields[1]=views', 'filters[views][$eq]=74&fields[0]=title&fields[1]=views',
  'filters[featured][$eq]=true', 'filters[title][$eqi]=HELLO WORLD %236', 'filters[kind][$ne]=news', 'filters[kind][$nei]=NEWS',
  'filters[views][$lt]=100', 'filters[views][$lte]=111', 'filters[views][$gt]=900', 'filters[rating][$gte]=4.25',
  'filters[kind][$notIn][0]=news&filters[kind][$notIn][1]=tutorial&fields[0]=title&fields[1]=kind',
  'filters[title][$contains]=node', 'filters[title][$notContainsi]=LISBON', 'filters[rating][$null]=false&pagination[pageSize]=3',
  'filters[publishDate][$notNull]=true&pagination[pageSize]=3', 'filters[metadata][$null]=false&fields[0]=title&fields[1]=metadata',
  'filters[views][$between][0]=100&filters[views][$between][1]=300', 'filters[views][$between]=100,300',
  'filters[publishDate][$between][0]=2024-03-01&filters[publishDate][$between][1]=2024-05-31', 'filters[title][$startsWithi]=why',
  'filters[title][$endsWith]=%231', 'filters[slug][$endsWithi]=LE-2&fields[0]=slug',
  'filters[$or][0][kind][$eq]=opinion&filters[$or][1][featured][$eq]=true&fields[0]=title&fields[1]=kind&fields[2]=featured',
  'filters[title][$not][$contains]=e', 'filters[author][name][$eq]=Ada Lovelace', 'filters[category][parent][slug][$eq]=technology',
  'filters[tags][name][$eq]=GraphQL', 'filters[tags][name][$in][0]=GraphQL&filters[tags][name][$in][1]=Cooking',
  'filters[author][id][$eq]=2', 'filters[author][id][$null]=true', 'filters[seo][metaTitle][$containsi]=SOURDOUGH',
  'filters[cover][name][$eq]=cover-blue.png', 'filters[title][$foo]=x', 'filters[nope][$eq]=x', 'filters[blocks][title][$eq]=x',
  'filters[createdBy][id][$eq]=1', 'filters[kind][$in]=', 'sort=title', 'sort=views:desc', 'sort=views:DESC',
  'sort=kind:desc,title:asc', 'sort=rating:asc', 'sort=publishDate:desc', 'sort[views]=asc',
  'sort[author][name]=desc&fields[0]=title&populate[author][fields][0]=name', 'sort=nope:asc', 'sort=title:sideways',
  'pagination[page]=100&pagination[pageSize]=5', 'pagination[start]=5&pagination[limit]=5&sort=id:asc',
  'pagination[page]=1&pagination[pageSize]=3&pagination[withCount]=false', 'pagination[page]=1&pagination[limit]=5',
  'pagination[pageSize]=0', 'pagination[pageSize]=1000', 'pagination[limit]=1000', 'pagination[page]=0', 'pagination[page]=-1',
  'pagination[page]=abc', 'pagination[start]=-1', 'populate=*&pagination[pageSize]=3&sort=id:asc',
  'populate[0]=author&populate[1]=category&pagination[pageSize]=3&sort=id:asc&fields[0]=title',
  'populate[author][populate][0]=avatar&populate[category][populate][parent]=true&fields[0]=title',
  'populate[author][fields][0]=name&populate[tags][fields][0]=name&fields[0]=title',
  'populate[tags][filters][name][$eq]=GraphQL&fields[0]=title&pagination[pageSize]=5&sort=id:asc',
  'populate[tags][sort]=name:desc&fields[0]=title', 'populate=cover&fields[0]=title',
  'populate[gallery][fields][0]=name&populate[gallery][fields][1]=url&fields[0]=title', 'populate=seo&fields[0]=title',
  'populate=seo.shareImage&fields[0]=title', 'populate[0]=seo.shareImage&populate[1]=author.avatar&fields[0]=title',
  'populate[blocks][populate]=*&fields[0]=title', 'populate=blocks&fields[0]=title',
  'populate[blocks][on][shared.media][populate]=*&populate[blocks][on][shared.quote]=true&populate[blocks][on][shared.rich-text]=true&fields[0]=title',
  'populate[blocks][on][shared.slider][populate][files][fields][0]=url&populate[blocks][on][shared.quote][fields][0]=title&fields[0]=title',
  'populate=localizations&fields[0]=title', 'populate[author][populate][articles][fields][0]=title&fields[0]=title',
  'populate=**', 'populate[tags][count]=true&fields[0]=title', 'fields[0]=title&pagination[pageSize]=3&sort=id:asc',
  'fields=title,slug&pagination[pageSize]=3&sort=id:asc', 'fields[0]=nope', 'fields[0]=slug&populate[category][fields][0]=slug',
  'locale=fr', 'locale=en&pagination[pageSize]=2&sort=id:asc', 'locale=*&pagination[pageSize]=3&sort=id:asc&fields[0]=title&fields[1]=locale',
  'locale=de', 'status=draft&pagination[pageSize]=5&sort=id:asc', 'status=archived', 'publicationState=preview&pagination[pageSize]=2',
  'foo=bar&pagination[pageSize]=2',
];

const KEYS = ['title', 'slug', 'views', 'rating', 'kind', 'featured', 'publishDate', 'metadata', 'content', 'author', 'category', 'tags',
  'seo', 'blocks', 'cover', 'gallery', 'localizations', 'id', 'documentId', 'createdAt', 'locale', 'name', 'parent', 'articles',
  'metaTitle', 'shareImage', 'avatar', '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '*', '**', '', ' ',
  'shared.quote', 'shared.nope', 'on', 'populate', 'fields', 'filters', 'sort', 'count', 'pagination', 'page', 'pageSize', 'start', 'limit', 'withCount'];
const OPS = ['$eq', '$eqi', '$ne', '$nei', '$lt', '$lte', '$gt', '$gte', '$in', '$notIn', '$contains', '$notContains', '$containsi',
  '$notContainsi', '$null', '$notNull', '$between', '$startsWith', '$startsWithi', '$endsWith', '$endsWithi', '$and', '$or', '$not',
  '$foo', '$', '$$eq', '$EQ', '$jsonSupersetOf', '$eq]', '[$eq'];
const VALUES = ['', '0', '-1', '1', '1.5', '-0', '1e308', '1e-308', '9'.repeat(40), '-9223372036854775809', '2147483648', 'NaN', 'Infinity',
  '0x10', 'true', 'false', 't', 'f', 'null', 'undefined', '2024-02-30', '2024-13-01', '24:00', '2024-01-01T00:00:00Z', 'asc', 'desc',
  'ASC', 'title:asc', 'title:desc:asc', '*', '%', '%25', '%zz', '%5B', '%5D', '%26', '%3D', '%00', '%ff%fe', '%C3%A9', '%E2%82%AC',
  '%F0%9F%98%80', 'é', 'Ā', '日本語', '😀', '\u202e', 'a b', "it's", '"quoted"', '\\', "'; drop table articles; --", '[', ']', '[]', '][',
  '&', '=', '==', 'a,b,c', ',', ',,,', '%2C'];

/** A request that gets no answer within `ms` counts as an answer with status 0 (the test goes on). */
async function getBounded(path: string, ms = 5000): Promise<{ status: number; body: any; text: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ status: number; body: any; text: string }>((resolve) => {
    timer = setTimeout(() => resolve({ status: 0, body: null, text: `no answer within ${ms} ms` }), ms);
  });
  try {
    return await Promise.race([s.fetchJson('GET', path), timeout]);
  } finally { clearTimeout(timer); }
}

function pick<T>(r: () => number, list: readonly T[]): T { return list[Math.floor(r() * list.length)]; }

/** Splits a query string into its `key=value` parts. */
const parts = (q: string) => (q === '' ? [] : q.split('&'));

function deepKey(r: () => number, depth: number): string {
  let k = pick(r, ['filters', 'populate', 'sort', 'fields', 'pagination']);
  for (let i = 0; i < depth; i++) k += `[${r() < 0.3 ? pick(r, OPS) : r() < 0.5 ? String(Math.floor(r() * 3)) : pick(r, KEYS)}]`;
  return k;
}

const MUTATIONS: Array<(r: () => number, q: string) => string> = [
  // replace a value
  (r, q) => parts(q).map((p) => (r() < 0.5 ? p.replace(/=.*$/, `=${pick(r, VALUES)}`) : p)).join('&'),
  // replace an operator or a key segment
  (r, q) => q.replace(/\[([^\]]*)\]/g, (m) => (r() < 0.25 ? `[${r() < 0.5 ? pick(r, OPS) : pick(r, KEYS)}]` : m)),
  // break the brackets
  (r, q) => q.replace(/[[\]]/g, (m) => (r() < 0.15 ? pick(r, ['', '[[', ']]', '][', '%5B', '%5D', m + m]) : m)),
  // truncate anywhere
  (r, q) => q.slice(0, Math.floor(r() * (q.length + 1))),
  // duplicate a parameter
  (r, q) => { const p = parts(q); return p.length ? [...p, pick(r, p)].join('&') : q; },
  // join with another real query
  (r, q) => [q, pick(r, SEEDS)].filter(Boolean).join('&'),
  // deep nesting
  (r, q) => `${q}&${deepKey(r, 1 + Math.floor(r() * 30))}=${pick(r, VALUES)}`,
  // long arrays
  (r, q) => {
    const key = pick(r, ['filters[views][$in]', 'filters[title][$notIn]', 'filters[$or]', 'sort', 'fields', 'populate', 'filters[id][$between]', 'filters[$and]']);
    const n = 1 + Math.floor(r() * 250);
    const items: string[] = [];
    for (let i = 0; i < n; i++) items.push(key.startsWith('filters[$') ? `${key}[${i}][${pick(r, KEYS)}][${pick(r, OPS)}]=${pick(r, VALUES)}` : `${key}[${r() < 0.9 ? i : pick(r, VALUES)}]=${pick(r, VALUES)}`);
    return [q, ...items].filter(Boolean).join('&');
  },
  // huge numbers for pagination
  (r, q) => `${q}&pagination[${pick(r, ['page', 'pageSize', 'start', 'limit', 'withCount'])}]=${pick(r, ['1e308', '9'.repeat(30), '-9'.repeat(10), '2147483648', '0.5', '1', 'x'])}`,
  // percent-escape or raw-encode characters
  (r, q) => q.replace(/[^&=]/g, (c) => (r() < 0.1 ? `%${c.charCodeAt(0).toString(16).padStart(2, '0')}` : r() < 0.02 ? pick(r, ['%', '%g', '\u00e9', '\u00ff', '+']) : c)),
  // random key=value pairs
  (r, q) => { const extra: string[] = []; for (let i = 0, n = 1 + Math.floor(r() * 6); i < n; i++) extra.push(`${deepKey(r, Math.floor(r() * 5))}=${pick(r, VALUES)}`); return [q, ...extra].filter(Boolean).join('&'); },
  // unicode values and keys
  (r, q) => `${q}&filters[${pick(r, ['title', 'slug', 'views', '日本', '😀'])}][${pick(r, OPS)}]=${pick(r, ['日本語', '😀', '\u0000', '\ud800', 'é', 'ß'])}`,
];

function mutate(r: () => number, q: string): string {
  let out = q;
  for (let i = 0, n = 1 + Math.floor(r() * 3); i < n; i++) out = pick(r, MUTATIONS)(r, out);
  return out;
}

before(async () => {
  // a short shutdown wait: a request the server never answers must not hold the suite for long
  s = await startTestServer({ env: { SHUTDOWN_TIMEOUT: '1' } });
  const file = await insertFile(s.sql(), { name: 'cover-blue.png' });
  const post = async (path: string, data: unknown) => {
    const r = await s.fetchJson('POST', path, { data }, TOKEN);
    assert.equal(r.status, 201, r.text);
    return r.body.data.documentId as string;
  };
  const author = await post('/api/authors', { name: 'Ada Lovelace', avatar: file });
  const parent = await post('/api/categories', { name: 'Technology', slug: 'technology' });
  const category = await post('/api/categories', { name: 'Databases', slug: 'databases', parent });
  const tag = await post('/api/tags', { name: 'GraphQL' });
  docId = await post('/api/articles', {
    title: 'hello world #6', slug: 'article-2', views: 74, rating: 4.25, kind: 'news', featured: true, publishDate: '2024-03-05',
    metadata: { a: 1 }, author, category, tags: [tag], cover: file, gallery: [file],
    seo: { metaTitle: 'SEO sourdough', shareImage: file }, blocks: [{ __component: 'shared.quote', title: 'q', body: 'b' }, { __component: 'shared.media', file }],
  });
  await post('/api/articles?status=draft', { title: 'Why Types Matter', views: 900, author });
  await post('/api/articles', { title: 'A Week in Lisbon', slug: 'lisbon', views: 111, kind: 'tutorial', tags: [tag] });
  await post('/api/articles', { title: 'Caching Strategies', slug: 'caching', views: 20, rating: 1.5, kind: 'opinion', author, category: parent });
  const fr = await s.fetchJson('PUT', `/api/articles/${docId}?locale=fr`, { data: { title: 'Bonjour' } }, TOKEN);
  assert.equal(fr.status, 200);
});

after(async () => { await s?.stop(); });

interface Anomaly { path: string; status: number; body: string }

/** Sends `count` generated requests with bounded concurrency; returns every answer breaking the contract. */
async function fuzz(seed: number, count: number, salt: boolean): Promise<{ anomalies: Anomaly[]; statuses: Map<number, number> }> {
  const r = prng(seed);
  const requests: string[] = [];
  for (let i = 0; i < count; i++) {
    const base = r() < 0.15 ? '' : pick(r, SEEDS);
    let q = r() < 0.05 ? base : mutate(r, base);
    // A parameter Strapi ignores, unique per request: every request compiles its own plan, so a
    // plan-cache collision (a separate known bug, see the todo test) cannot show up here.
    if (salt) q = q ? `${q}&fuzz${i}=1` : `fuzz${i}=1`;
    requests.push(`${r() < 0.7 ? '/api/articles' : `/api/articles/${docId}`}?${q}`);
  }
  const anomalies: Anomaly[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const path = requests[next++];
      const res = await getBounded(path);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const one = !path.startsWith('/api/articles?');
      let ok = false;
      if (res.status === 200) {
        const b = res.body;
        ok = !!b && typeof b === 'object' && (one
          ? typeof b.data === 'object' && b.data !== null && typeof b.data.documentId === 'string'
          : Array.isArray(b.data) && typeof b.meta?.pagination === 'object');
      } else if (res.status === 400) {
        ok = isErrorEnvelope(res.body, 400);
      } else if (res.status === 414) {
        // the server's own URL limit (http.maxQueryStringLength, 16 KiB by default), only when exceeded
        // by the URL as sent (non-ASCII characters percent-encoded)
        ok = isErrorEnvelope(res.body, 414) && new URL(path, 'http://h').search.length > 16 * 1024;
      } else if (res.status === 404 && one) {
        // a document read in a locale or status it does not have (locale=de, status=...) is not found
        ok = isErrorEnvelope(res.body, 404) && res.body.error.name === 'NotFoundError';
      }
      if (!ok) anomalies.push({ path, status: res.status, body: res.text.slice(0, 300) });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return { anomalies, statuses };
}

/**
 * A known server bug (see the todo tests): a list filter (`$in`, `$notIn`, `$eq`/`$ne` with several
 * values) on the boolean attribute `featured` answers 500 "cannot cast type boolean to boolean[]".
 * Such answers are reported by their own todo test so that the strict test catches everything else.
 */
function isKnownBooleanListBug(a: Anomaly): boolean {
  if (a.status !== 500) return false;
  let q: { [k: string]: QueryValue };
  try { q = parseQueryString(a.path.slice(a.path.indexOf('?') + 1), { depth: 20, arrayLimit: 100, parameterLimit: 100000 }); } catch { return false; }
  const hasList = (v: QueryValue): boolean => Array.isArray(v) || (typeof v === 'object' && Object.entries(v).some(([k, x]) => ['$in', '$notIn'].includes(k) || hasList(x)));
  const walk = (v: QueryValue): boolean => typeof v === 'object' && !Array.isArray(v)
    ? Object.entries(v).some(([k, x]) => (k === 'featured' && hasList(x)) || walk(x))
    : Array.isArray(v) && v.some(walk);
  return q.filters !== undefined && walk(q.filters);
}

let mainRun: { anomalies: Anomaly[]; statuses: Map<number, number> } | null = null;

const describeAnomalies = (a: Anomaly[]) => `${a.length} bad answers, e.g.:\n${a.slice(0, 8).map((x) => `  ${x.status} GET ${x.path.slice(0, 300)}\n    ${x.body}`).join('\n')}`;

test('10,000 random and mutated query strings: only 200, 400 (414 past the URL limit) with the error envelope', { timeout: 120_000 }, async () => {
  mainRun = await fuzz(20240601, 10_000, true);
  const { statuses } = mainRun;
  const anomalies = mainRun.anomalies.filter((a) => !isKnownBooleanListBug(a));
  assert.deepEqual(anomalies, [], describeAnomalies(anomalies));
  // the generator really produced both kinds of answers
  assert.ok((statuses.get(200) ?? 0) > 1000, `200s: ${statuses.get(200)}`);
  assert.ok((statuses.get(400) ?? 0) > 1000, `400s: ${statuses.get(400)}`);
});

test('…including list filters on a boolean attribute', () => {
  assert.ok(mainRun, 'the main fuzz run ran');
  const known = mainRun.anomalies.filter(isKnownBooleanListBug);
  assert.deepEqual(known, [], describeAnomalies(known));
});

/** Conditions on the seeded articles, some true for some rows, to build `$and`/`$or` lists from. */
const CONDITIONS = [
  'title][$eq]=hello world #6', 'title][$containsi]=LISBON', 'slug][$eq]=caching', 'slug][$startsWith]=art', 'views][$gt]=50',
  'views][$lt]=50', 'views][$between][0]=10&@[$between][1]=80', 'kind][$eq]=news', 'kind][$in][0]=opinion&@[$in][1]=news', 'rating][$gte]=4',
  'rating][$null]=true', 'publishDate][$notNull]=true', 'author][name][$eq]=Ada Lovelace', 'tags][name][$eq]=GraphQL',
  'category][slug][$eq]=technology', 'seo][metaTitle][$containsi]=seo', 'documentId][$ne]=x', 'title][$not][$contains]=e',
];

/** `filters[$or|$and][i]…` lists of different lengths, nesting and attributes. */
function logicQuery(r: () => number): string {
  const list = (prefix: string, depth: number): string[] => {
    const op = pick(r, ['$or', '$and']);
    const out: string[] = [];
    for (let i = 0, n = 1 + Math.floor(r() * 3); i < n; i++) {
      const at = `${prefix}[${op}][${i}]`;
      if (depth < 2 && r() < 0.25) { out.push(...list(at, depth + 1)); continue; }
      const c = pick(r, CONDITIONS);
      const attr = c.slice(0, c.indexOf(']'));
      out.push(`${at}[${c}`.replace(/@/g, `${at}[${attr}]`));
    }
    return out;
  };
  const q = list('filters', 0);
  if (r() < 0.3) q.push(`filters[${pick(r, CONDITIONS)}`.replace(/@/g, 'filters[views]'));
  return [...q, 'fields[0]=title', ...(r() < 0.3 ? ['populate[tags][fields][0]=name'] : [])].join('&');
}

/**
 * Differential check of the plan cache: every query is sent as it is (plans shared by shape, and
 * cached by exact text) and again with a unique ignored parameter (a plan compiled for it alone);
 * the two answers must be the same. Reads only, so the data cannot change in between.
 */
async function differential(seed: number, count: number): Promise<Anomaly[]> {
  const r = prng(seed);
  const queries: string[] = [];
  for (let i = 0; i < count; i++) queries.push(r() < 0.5 ? logicQuery(r) : mutate(r, pick(r, SEEDS)));
  const out: Anomaly[] = [];
  let next = 0;
  const worker = async () => {
    while (next < queries.length) {
      const i = next++;
      const q = queries[i];
      const cached = await getBounded(`/api/articles?${q}`);
      const fresh = await getBounded(`/api/articles?${q ? `${q}&` : ''}fresh${i}=1`);
      if (cached.status !== fresh.status || cached.text !== fresh.text) {
        out.push({ path: `/api/articles?${q}`, status: cached.status, body: `cached: ${cached.text.slice(0, 140)} | fresh plan: ${fresh.status} ${fresh.text.slice(0, 140)}` });
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return out;
}

test('the plan cache never changes an answer (1,500 queries, cached vs freshly compiled)',
  { timeout: 90_000 }, async () => {
    const anomalies = await differential(77, 1_500);
    assert.deepEqual(anomalies, [], describeAnomalies(anomalies));
  });

test('the server still answers normally after the fuzzing', async () => {
  const list = await s.fetchJson('GET', '/api/articles?fields[0]=title&populate[author][fields][0]=name');
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.data.map((d: any) => [d.title, d.author?.name ?? null]), [['hello world #6', 'Ada Lovelace'], ['A Week in Lisbon', null], ['Caching Strategies', 'Ada Lovelace']]);
  const one = await s.fetchJson('GET', `/api/articles/${docId}?populate=*`);
  assert.equal(one.status, 200);
  assert.equal(one.body.data.blocks.length, 2);
  const bad = await s.fetchJson('GET', '/api/articles?filters[nope]=1');
  assert.equal(bad.status, 400);
  const write = await s.fetchJson('POST', '/api/tags', { data: { name: 'after fuzz' } }, TOKEN);
  assert.equal(write.status, 201);
});
