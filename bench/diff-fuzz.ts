// Differential fuzz of REST reads: random query strings (filters with every operator, logical groups and
// relation paths, sort, pagination, fields, every populate form, locale, status, _q; a third of them on one
// document) sent to a live Strapi and to this server on ONE database, their status, `data`, `meta` and
// `error` compared. Prints each difference; never fails on one (Strapi's own 500s are among them).
//
//   npx tsx bench/diff-fuzz.ts --strapi http://127.0.0.1:1361 --fastrapi http://127.0.0.1:1362 [--runs 300] [--seed 1] [--token T]
//
// Made for the blog models (this repository's models/ on the blog Strapi made: see bench/side-by-side.ts for
// running both on one database). Each difference it found was fixed and its case recorded from Strapi in
// test/fixtures/strapi/read-cases.jsonl; the query that shows one is printed whole, to be recorded so.
import http from 'node:http';
import { fuzzArgs } from './fuzz-args.ts';
import { readDifference } from './schema-model.ts';

const { strapi, fastrapi, runs, token, seed: firstSeed } = fuzzArgs('bench/diff-fuzz.ts');
let seed = firstSeed;

// A seeded generator: a run is repeated by its seed.
const rnd = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x7fffffff; };
const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];

interface Answer { status: number; body: { data?: unknown; meta?: unknown; error?: unknown } | null; text: string }
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
const get = (base: string, path: string, auth: boolean): Promise<Answer> => new Promise((resolve) => {
  const headers: Record<string, string> = { 'cache-control': 'no-cache' };
  if (auth && token) headers.authorization = `Bearer ${token}`;
  http.get(base + path, { agent, headers }, (res) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => { text += c; });
    res.on('end', () => { let body = null; try { body = JSON.parse(text); } catch { /* not JSON: compared by status */ } resolve({ status: res.statusCode ?? 0, body, text }); });
  }).on('error', (e) => resolve({ status: 0, body: null, text: String(e) }));
});

interface TypeShape { str: string[]; num: string[]; bool: string[]; date: string[]; enum: string[]; rel: Record<string, string>; media: string[]; comp: string[]; dz: string[] }
const TYPES: Record<string, TypeShape> = {
  articles: { str: ['title', 'slug', 'description', 'body'], num: ['views', 'rating'], bool: ['featured'], date: ['publishDate', 'createdAt', 'updatedAt', 'publishedAt'], enum: ['kind'], rel: { author: 'authors', category: 'categories', tags: 'tags' }, media: ['cover', 'gallery'], comp: ['seo'], dz: ['blocks'] },
  authors: { str: ['name', 'email', 'bio'], num: [], bool: [], date: ['createdAt'], enum: [], rel: { articles: 'articles' }, media: ['avatar'], comp: [], dz: [] },
  categories: { str: ['name', 'slug', 'description'], num: [], bool: [], date: ['createdAt'], enum: [], rel: { articles: 'articles', parent: 'categories', children: 'categories' }, media: [], comp: [], dz: [] },
  tags: { str: ['name'], num: [], bool: [], date: ['createdAt'], enum: [], rel: { articles: 'articles' }, media: [], comp: [], dz: [] },
};
const WORDS = ['Post', 'post', 'SQL', 'a', 'Ada', 'Lisbon', '#1', 'x', '', 'GraphQL', 'Node.js', 'tutorial', 'news', '%', '_', 'article-1', 'é', 'null', 'true'];
const NUMBERS = ['0', '1', '37', '74', '100', '1.25', '-1', 'abc', '', '1e2', '0.75'];
const DATES = ['2024-02-02', '2024-01-01T00:00:00.000Z', '2025', 'nope'];
const TEXT_OPS = ['$eq', '$ne', '$contains', '$notContains', '$containsi', '$notContainsi', '$startsWith', '$startsWithi', '$endsWith', '$endsWithi', '$eqi', '$nei', '$null', '$notNull', '$in', '$notIn', '$lt', '$gt'];
const NUMBER_OPS = ['$eq', '$ne', '$lt', '$lte', '$gt', '$gte', '$in', '$notIn', '$between', '$null', '$notNull'];
type Pair = [string, string];

function condition(type: string, prefix: string, depth: number): Pair[] {
  const t = TYPES[type];
  const r = rnd();
  if (r < 0.12 && depth < 2) { const op = pick(['$or', '$and']); return [...condition(type, `${prefix}[${op}][0]`, depth + 1), ...condition(type, `${prefix}[${op}][1]`, depth + 1)]; }
  if (r < 0.17 && depth < 2) return condition(type, `${prefix}[$not]`, depth + 1);
  if (r < 0.32 && depth < 2) { const [k, target] = pick(Object.entries(t.rel)); return condition(target, `${prefix}[${k}]`, depth + 1); }
  const kinds = ([['str', TEXT_OPS, WORDS], ['num', NUMBER_OPS, NUMBERS], ['bool', ['$eq', '$ne', '$null'], ['true', 'false', '1', 'x']], ['date', NUMBER_OPS, DATES], ['enum', ['$eq', '$ne', '$in'], ['tutorial', 'opinion', 'news', 'x']]] as const)
    .filter(([k]) => t[k].length);
  const [k, ops, values] = pick(kinds);
  const field = pick(t[k]);
  const op = pick(ops);
  const out: Pair[] = op === '$in' || op === '$notIn' || op === '$between' ? [[`${prefix}[${field}][${op}][0]`, pick(values)], [`${prefix}[${field}][${op}][1]`, pick(values)]]
    : op === '$null' || op === '$notNull' ? [[`${prefix}[${field}][${op}]`, pick(['true', 'false'])]]
      : [[`${prefix}[${field}][${op}]`, pick(values)]];
  // qs merges a plain value beside the operators into a list (`x: [{ $eq: … }, 'v']`).
  if (rnd() < 0.05) out.push([`${prefix}[${field}]`, pick(values)]);
  return out;
}

function populate(type: string, prefix: string, depth: number): Pair[] {
  const t = TYPES[type];
  const all = [...Object.keys(t.rel), ...t.media, ...t.comp, ...t.dz];
  const r = rnd();
  if (r < 0.15 && depth === 0) return [[prefix, '*']];
  if (r < 0.3) { const names = all.filter(() => rnd() < 0.4); return names.map((a, i): Pair => [`${prefix}[${i}]`, a]); }
  const out: Pair[] = [];
  for (const a of all) {
    if (rnd() > 0.35) continue;
    const p = `${prefix}[${a}]`;
    const target = t.rel[a];
    if (t.dz.includes(a)) out.push(...pick<Pair[]>([[[`${p}[on][shared.quote]`, 'true'], [`${p}[on][shared.media][populate]`, '*']], [[`${p}[on][shared.rich-text][fields][0]`, 'body']], [[`${p}[populate]`, '*']]]));
    else if (t.comp.includes(a)) out.push(pick<Pair>([[`${p}[fields][0]`, 'metaTitle'], [`${p}[populate][shareImage][fields][0]`, 'url'], [p, 'true']]));
    else if (t.media.includes(a)) out.push(pick<Pair>([[`${p}[fields][0]`, pick(['url', 'name', 'mime'])], [`${p}[sort]`, pick(['name:desc', 'size'])], [`${p}[filters][mime][$contains]`, 'png'], [p, 'true']]));
    else if (target) {
      const before = out.length;
      if (rnd() < 0.5) out.push([`${p}[fields][0]`, pick(TYPES[target].str)]);
      if (rnd() < 0.3) out.push([`${p}[sort]`, `${pick(TYPES[target].str)}:${pick(['asc', 'desc'])}`]);
      if (rnd() < 0.3) out.push(...condition(target, `${p}[filters]`, 1));
      if (rnd() < 0.3 && depth < 2) out.push(...populate(target, `${p}[populate]`, depth + 1));
      if (out.length === before) out.push([p, 'true']);
    }
  }
  return out;
}

function query(type: string, one: boolean): Pair[] {
  const t = TYPES[type];
  const q: Pair[] = [];
  if (!one && rnd() < 0.6) q.push(...condition(type, 'filters', 0));
  if (!one && rnd() < 0.5) { const fs = [...t.str, ...t.num, ...t.date]; q.push(['sort', `${pick(fs)}:${pick(['asc', 'desc'])}`]); if (rnd() < 0.3) q.push(['sort', pick(fs)]); }
  if (!one && rnd() < 0.15 && type === 'articles') q.push(['sort', pick(['author.name:asc', 'category.name:desc', 'tags.name'])]);
  if (!one && rnd() < 0.4) q.push(...(rnd() < 0.6 ? [['pagination[page]', pick(['1', '2'])], ['pagination[pageSize]', pick(['2', '5', '200'])]] as Pair[] : [['pagination[start]', pick(['0', '3'])], ['pagination[limit]', pick(['1', '-1'])]] as Pair[]));
  if (!one && rnd() < 0.15) q.push(['pagination[withCount]', pick(['false', 'true'])]);
  if (rnd() < 0.4) [...t.str, ...t.num, ...t.bool, ...t.enum, ...t.date].filter(() => rnd() < 0.35).forEach((f, i) => q.push([`fields[${i}]`, f]));
  if (rnd() < 0.6) q.push(...populate(type, 'populate', 0));
  if (rnd() < 0.25) q.push(['locale', pick(['en', 'fr', '*', 'de'])]);
  if (rnd() < 0.25) q.push(['status', pick(['draft', 'published'])]);
  if (!one && rnd() < 0.1) q.push(['_q', pick(WORDS)]);
  return q;
}

const encode = (q: Pair[]) => q.map(([k, v]) => `${encodeURIComponent(k).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${encodeURIComponent(v)}`).join('&');

const documents = new Map<string, string[]>();
for (const type of Object.keys(TYPES)) {
  const r = await get(strapi, `/api/${type}?fields[0]=id&status=draft&locale=*&pagination[pageSize]=100`, true);
  documents.set(type, ((r.body?.data ?? []) as Array<{ documentId: string }>).map((d) => d.documentId));
}

let differ = 0;
for (let i = 0; i < runs; i++) {
  const type = pick(['articles', 'articles', 'articles', 'authors', 'categories', 'tags']);
  const one = rnd() < 0.3 && (documents.get(type)?.length ?? 0) > 0;
  const path = `/api/${type}${one ? `/${pick(documents.get(type)!)}` : ''}?${encode(query(type, one))}`;
  const auth = rnd() < 0.8;
  const [a, b] = await Promise.all([get(strapi, path, auth), get(fastrapi, path, auth)]);
  const why = readDifference(a, b);
  if (!why) continue;
  differ++;
  console.log(`\n#${i} ${why}${auth ? '' : ' (public)'} ${path}\n  strapi:   ${a.text.slice(0, 400)}\n  fastrapi: ${b.text.slice(0, 400)}`);
}
console.log(`\n${differ} of ${runs} differ (seed ${firstSeed})`);
agent.destroy();
