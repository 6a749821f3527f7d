// Differential fuzz of GraphQL reads: random Shadow CRUD operations (collection, `_connection` and single
// queries; filters with every operator, logical groups and relation paths, sort, both pagination forms,
// locale, status; nested relations with their own arguments, media, components, dynamic zones with
// fragments, localizations) sent to a live Strapi and to this server on ONE database, their HTTP status,
// `data` and errors (message and code) compared. Prints each difference; never fails on one.
//
//   npx tsx bench/graphql-diff-fuzz.ts --strapi http://127.0.0.1:1361 --fastrapi http://127.0.0.1:1362 [--runs 300] [--seed 1] [--token T]
//
// Made for the blog models on the blog Strapi made, with Strapi's graphql config of bench/side-by-side.ts's
// project (defaultLimit 25, maxLimit 100, depthLimit 10: start this server with GRAPHQL_DEFAULT_LIMIT=25
// GRAPHQL_MAX_LIMIT=100 GRAPHQL_DEPTH_LIMIT=10). The operation that shows a difference is printed whole.
import { isDeepStrictEqual } from 'node:util';
import { fuzzArgs } from './fuzz-args.ts';
import { send, closeAgent, type Answer as SentAnswer } from './schema-model.ts';

const { strapi, fastrapi, runs, token, seed: firstSeed } = fuzzArgs('bench/graphql-diff-fuzz.ts');
let seed = firstSeed;

// mulberry32: seeds give unrelated sequences (a plain LCG's nearby seeds replay one sequence shifted).
const rnd = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];
const some = <T>(a: readonly T[], p: number): T[] => a.filter(() => rnd() < p);

type GqlBody = { data?: unknown; errors?: Array<{ message?: string; extensions?: { code?: string; error?: { name?: string; message?: string; details?: unknown } } }> };
type Answer = SentAnswer<GqlBody>;
const post = (base: string, query: string, variables: Record<string, unknown>, auth: boolean): Promise<Answer> =>
  send<GqlBody>(base, 'POST', '/graphql', auth ? token : undefined, { query, variables });

interface TypeShape {
  single: string; plural: string; filters: string;
  str: string[]; num: string[]; bool: string[]; date: string[]; enum: string[];
  rel: Record<string, [string, boolean]>; media: Record<string, boolean>; comp: string[]; dz: string[]; dp: boolean; i18n: boolean;
}
const TYPES: Record<string, TypeShape> = {
  articles: {
    single: 'article', plural: 'articles', filters: 'ArticleFiltersInput',
    str: ['title', 'slug', 'description', 'body'], num: ['views', 'rating'], bool: ['featured'], date: ['publishDate', 'createdAt', 'updatedAt', 'publishedAt'], enum: ['kind'],
    rel: { author: ['authors', false], category: ['categories', false], tags: ['tags', true] }, media: { cover: false, gallery: true }, comp: ['seo'], dz: ['blocks'], dp: true, i18n: true,
  },
  authors: {
    single: 'author', plural: 'authors', filters: 'AuthorFiltersInput',
    str: ['name', 'email', 'bio'], num: [], bool: [], date: ['createdAt', 'updatedAt'], enum: [],
    rel: { articles: ['articles', true] }, media: { avatar: false }, comp: [], dz: [], dp: false, i18n: false,
  },
  categories: {
    single: 'category', plural: 'categories', filters: 'CategoryFiltersInput',
    str: ['name', 'slug', 'description'], num: [], bool: [], date: ['createdAt'], enum: [],
    rel: { articles: ['articles', true], parent: ['categories', false], children: ['categories', true] }, media: {}, comp: [], dz: [], dp: false, i18n: false,
  },
  tags: {
    single: 'tag', plural: 'tags', filters: 'TagFiltersInput',
    str: ['name'], num: [], bool: [], date: ['createdAt'], enum: [],
    rel: { articles: ['articles', true] }, media: {}, comp: [], dz: [], dp: false, i18n: false,
  },
};
const WORDS = ['Post', 'post', 'SQL', 'a', 'Ada', '#1', 'x', '', 'GraphQL', 'tutorial', '%', '_', 'é', 'null'];
const INTS = ['0', '1', '37', '74', '100', '-1'];
const FLOATS = ['1.25', '0.75', '4.5'];
const DATES = ['"2024-02-02"', '"2024-01-01T00:00:00.000Z"', '"2025"', '"nope"'];
const STR_OPS = ['eq', 'ne', 'contains', 'notContains', 'containsi', 'notContainsi', 'startsWith', 'endsWith', 'eqi', 'nei', 'null', 'notNull', 'in', 'notIn', 'lt', 'gt', 'between'];
const NUM_OPS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'notIn', 'between', 'null', 'notNull'];
const str = (s: string) => JSON.stringify(s);

function filterValue(kind: string, field: string, op: string): string {
  const one = (): string => kind === 'str' ? str(pick(WORDS))
    : kind === 'num' ? (field === 'rating' ? pick([...FLOATS, ...INTS]) : pick(INTS))
      : kind === 'bool' ? pick(['true', 'false'])
        : kind === 'date' ? pick(DATES)
          : kind === 'enum' ? str(pick(['tutorial', 'opinion', 'news'])) : str('x');
  if (op === 'null' || op === 'notNull') return pick(['true', 'false']);
  if (op === 'in' || op === 'notIn' || op === 'between') return `[${one()}, ${one()}]`;
  return one();
}

function filter(type: string, depth: number): string {
  const t = TYPES[type];
  const r = rnd();
  if (r < 0.12 && depth < 2) return `{ ${pick(['or', 'and'])}: [${filter(type, depth + 1)}, ${filter(type, depth + 1)}] }`;
  if (r < 0.17 && depth < 2) return `{ not: ${filter(type, depth + 1)} }`;
  if (r < 0.32 && depth < 2) { const [k, [target]] = pick(Object.entries(t.rel)); return `{ ${k}: ${filter(target, depth + 1)} }`; }
  if (r < 0.36) return `{ documentId: { ${pick(['eq', 'ne', 'null'])}: ${pick(['"x"', 'true'])} } }`;
  const kinds = (['str', 'num', 'bool', 'date', 'enum'] as const).filter((k) => t[k].length);
  const kind = pick(kinds);
  const field = pick(t[kind]);
  const ops = kind === 'str' ? STR_OPS : kind === 'bool' ? ['eq', 'ne', 'null'] : kind === 'enum' ? ['eq', 'ne', 'in', 'notIn', 'null'] : NUM_OPS;
  const op = pick(ops);
  return `{ ${field}: { ${op}: ${filterValue(kind, field, op)} } }`;
}

function sort(type: string): string {
  const t = TYPES[type];
  const fields = [...t.str, ...t.num, ...t.date, ...t.enum, ...t.bool, 'documentId'];
  const one = () => `${pick(fields)}${pick(['', ':asc', ':desc', ':DESC'])}`;
  return rnd() < 0.5 ? str(one()) : `[${Array.from({ length: 1 + Math.floor(rnd() * 2) }, () => str(one())).join(', ')}]`;
}

function pagination(): string {
  if (rnd() < 0.5) return `{ page: ${pick([1, 2, 3])}, pageSize: ${pick([1, 2, 5, 10, 200])} }`;
  return `{ start: ${pick([0, 1, 3, 40])}, limit: ${pick([1, 3, 10, -1, 0])} }`;
}

function listArgs(type: string, root: boolean): string {
  const t = TYPES[type];
  const args: string[] = [];
  if (rnd() < 0.5) args.push(`filters: ${filter(type, 0)}`);
  if (rnd() < 0.4) args.push(`sort: ${sort(type)}`);
  if (rnd() < 0.4) args.push(`pagination: ${pagination()}`);
  if (root && t.i18n && rnd() < 0.3) args.push(`locale: ${str(pick(['en', 'fr', 'de', 'all', '*']))}`);
  if (root && t.dp && rnd() < 0.3) args.push(`status: ${pick(['DRAFT', 'PUBLISHED'])}`);
  return args.length ? `(${args.join(', ')})` : '';
}

const MEDIA_FIELDS = ['url', 'name', 'width', 'height', 'mime', 'formats', 'alternativeText', 'documentId', 'size', 'ext'];
function selection(type: string, depth: number): string {
  const t = TYPES[type];
  const scalars = some(['documentId', ...t.str, ...t.num, ...t.bool, ...t.date, ...t.enum, ...(type === 'articles' ? ['content', 'metadata', 'locale'] : [])], 0.35);
  const parts = scalars.length ? scalars : ['documentId'];
  if (depth < 3) {
    for (const [k, [target, many]] of Object.entries(t.rel)) {
      if (rnd() > 0.3) continue;
      const inner = selection(target, depth + 1);
      if (many && rnd() < 0.3) parts.push(`${k}_connection${listArgs(target, false)} { nodes { ${inner} }${rnd() < 0.2 ? ' pageInfo { total }' : ''} }`);
      else parts.push(`${k}${many ? listArgs(target, false) : ''} { ${inner} }`);
    }
  }
  for (const [k, many] of Object.entries(t.media)) {
    if (rnd() > 0.25) continue;
    const f = some(MEDIA_FIELDS, 0.3).join(' ') || 'url';
    parts.push(many && rnd() < 0.3 ? `${k}_connection { nodes { ${f} } }` : `${k}${many && rnd() < 0.3 ? `(pagination: ${pagination()})` : ''} { ${f} }`);
  }
  if (t.comp.length && rnd() < 0.25) parts.push(`seo { ${some(['id', 'metaTitle', 'metaDescription', 'keywords'], 0.5).join(' ') || 'metaTitle'}${rnd() < 0.3 ? ' shareImage { url }' : ''} }`);
  if (t.dz.length && rnd() < 0.25) {
    const frags = some([
      '... on ComponentSharedQuote { id title body }', '... on ComponentSharedRichText { body }',
      '... on ComponentSharedMedia { file { url name } }', '... on ComponentSharedSlider { files { url } }', '__typename',
    ], 0.5);
    parts.push(`blocks { ${frags.join(' ') || '__typename'} }`);
  }
  if (t.i18n && depth < 2 && rnd() < 0.15) parts.push(`localizations { documentId locale title }`);
  return parts.join(' ');
}

const documents = new Map<string, string[]>();
async function loadDocuments(): Promise<void> {
  for (const type of Object.keys(TYPES)) {
    const r = await post(strapi!, `{ ${type}(pagination: { limit: 100 }) { documentId } }`, {}, true);
    const list = (r.body?.data as Record<string, Array<{ documentId: string }>> | undefined)?.[type] ?? [];
    documents.set(type, list.map((d) => d.documentId));
  }
}

/** A single type's query (about: draft & publish, a zone; global: a component and media). */
function singleType(): string {
  if (rnd() < 0.5) {
    const zone = some(['... on ComponentSharedQuote { title body }', '... on ComponentSharedRichText { body }', '__typename'], 0.5);
    return `{ about${rnd() < 0.4 ? `(status: ${pick(['DRAFT', 'PUBLISHED'])})` : ''} { ${some(['documentId', 'title', 'createdAt', 'publishedAt'], 0.5).join(' ') || 'title'}${zone.length ? ` blocks { ${zone.join(' ')} }` : ''} } }`;
  }
  return `{ global { ${some(['documentId', 'siteName', 'siteDescription', 'updatedAt'], 0.5).join(' ') || 'siteName'}${rnd() < 0.5 ? ' defaultSeo { metaTitle metaDescription shareImage { url name } }' : ''}${rnd() < 0.5 ? ` favicon { ${some(MEDIA_FIELDS, 0.4).join(' ') || 'url'} }` : ''} } }`;
}

function operation(): { query: string; variables: Record<string, unknown> } {
  if (rnd() < 0.08) return { query: singleType(), variables: {} };
  const type = pick(Object.keys(TYPES));
  const t = TYPES[type];
  const r = rnd();
  if (r < 0.25) {
    const ids = documents.get(type) ?? [];
    const id = rnd() < 0.9 && ids.length ? pick(ids) : 'nope';
    const extra = [t.i18n && rnd() < 0.3 ? `locale: ${str(pick(['en', 'fr', 'de']))}` : '', t.dp && rnd() < 0.3 ? `status: ${pick(['DRAFT', 'PUBLISHED'])}` : ''].filter(Boolean);
    if (rnd() < 0.3) return { query: `query One($id: ID!) { ${t.single}(documentId: $id${extra.map((e) => `, ${e}`).join('')}) { ${selection(type, 0)} } }`, variables: { id } };
    return { query: `{ ${t.single}(documentId: ${str(id)}${extra.map((e) => `, ${e}`).join('')}) { ${selection(type, 0)} } }`, variables: {} };
  }
  if (r < 0.45) {
    return { query: `{ ${t.plural}_connection${listArgs(type, true)} { nodes { ${selection(type, 0)} } pageInfo { ${some(['total', 'page', 'pageSize', 'pageCount'], 0.6).join(' ') || 'total'} } } }`, variables: {} };
  }
  return { query: `{ ${t.plural}${listArgs(type, true)} { ${selection(type, 0)} } }`, variables: {} };
}

/** Where two answers first part, as a path and the two values there (what to look at first). */
function firstDifference(a: unknown, b: unknown, path = 'data'): string {
  if (isDeepStrictEqual(a, b)) return '';
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) { const d = firstDifference(a[i], b[i], `${path}[${i}]`); if (d) return d; }
    return `${path}: ${a.length} vs ${b.length} entries`;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const k of keys) { const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`); if (d) return d; }
    return `${path}: key order ${JSON.stringify(Object.keys(a))} vs ${JSON.stringify(Object.keys(b))}`;
  }
  return `${path}: ${JSON.stringify(a)?.slice(0, 200)} vs ${JSON.stringify(b)?.slice(0, 200)}`;
}

/** What is compared of an error: its message and code (locations and paths follow from the same operation). */
const errorsOf = (a: Answer) => (a.body?.errors ?? []).map((e) => ({ message: e.message, code: e.extensions?.code, name: e.extensions?.error?.name }));

await loadDocuments();
let differ = 0;
for (let i = 0; i < runs; i++) {
  const { query, variables } = operation();
  const auth = rnd() < 0.7;
  const [a, b] = await Promise.all([post(strapi, query, variables, auth), post(fastrapi, query, variables, auth)]);
  const kinds: string[] = [];
  if (a.status !== b.status) kinds.push(`status ${a.status} vs ${b.status}`);
  if (!isDeepStrictEqual(a.body?.data ?? null, b.body?.data ?? null)) kinds.push('data');
  if (!isDeepStrictEqual(errorsOf(a), errorsOf(b))) kinds.push('errors');
  if (!kinds.length) continue;
  differ++;
  console.log(`#${i} ${kinds.join(', ')}${auth ? '' : ' (public)'} ${query}${Object.keys(variables).length ? ` variables ${JSON.stringify(variables)}` : ''}`);
  if (kinds.includes('data')) console.log(`  first difference: ${firstDifference(a.body?.data ?? null, b.body?.data ?? null)}`);
  console.log(`  strapi:   ${a.text.slice(0, 700)}`);
  console.log(`  fastrapi: ${b.text.slice(0, 700)}\n`);
}
console.log(`${differ} of ${runs} differ (seed ${firstSeed})`);
closeAgent();
