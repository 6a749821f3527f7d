// Differential fuzz of GraphQL writes: random Shadow CRUD mutations (create, update, delete of every blog
// type; `status` and `locale` arguments; inputs of every attribute kind, relations as documentIds, media as
// file ids, the seo component, the blocks zone with `__typename`; values of the wrong type too) with random
// selection sets, sent in the same order to a live Strapi and to this server, each on its OWN copy of one
// database, then each written document read back over REST with `populate=*`. Statuses, `data` and errors
// (message and code) are compared once documentIds (random on each side) are mapped to one name and
// timestamps masked. Prints each difference; never fails on one.
//
//   createdb -h 127.0.0.1 -p 5499 -U postgres -T blog wfs; createdb -h 127.0.0.1 -p 5499 -U postgres -T blog wff
//   (Strapi on wfs, this server on wff with GRAPHQL_SHAPE=v5, as bench/write-diff-fuzz.ts runs them)
//   npx tsx bench/graphql-write-fuzz.ts --strapi http://127.0.0.1:1361 --fastrapi http://127.0.0.1:1362 --token T [--runs 200] [--seed 1]
//
// Made for the blog models (this repository's models/). A run changes both databases: start each run from
// fresh copies.
import { fuzzArgs } from './fuzz-args.ts';
import { normalize } from './schema-model.ts';
import { closeFuzzAgent, reportDifference, request, type FuzzAnswer } from './fuzz-http.ts';

const { strapi, fastrapi, runs, token, seed: firstSeed } = fuzzArgs('bench/graphql-write-fuzz.ts');
let seed = firstSeed;
const rnd = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x7fffffff; };
const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];
const some = <T>(a: readonly T[], p = 0.3): T[] => a.filter(() => rnd() < p);

type Side = 's' | 'f';
type Answer = FuzzAnswer<Record<string, unknown> | null>;
const send = (side: Side, method: string, path: string, body?: unknown): Promise<Answer> => request<Record<string, unknown> | null>(side === 's' ? strapi : fastrapi, method, path, { body, token });

interface Doc { s: string; f: string; name: string }
interface Type { route: string; gql: string; input: string; localized: boolean; dp: boolean; relations: Record<string, [target: string, many: boolean]>; select: string[] }
const TYPES: Type[] = [
  {
    route: 'articles', gql: 'Article', input: 'ArticleInput', localized: true, dp: true,
    relations: { author: ['authors', false], category: ['categories', false], tags: ['tags', true] },
    select: ['documentId', 'title', 'slug', 'description', 'views', 'rating', 'featured', 'kind', 'publishDate', 'metadata', 'content', 'publishedAt', 'locale',
      'author { name }', 'category { name slug }', 'tags { name }', 'tags_connection { nodes { name } pageInfo { total } }', 'cover { name url }', 'gallery { name }',
      'seo { metaTitle metaDescription keywords }', 'blocks { __typename ... on ComponentSharedQuote { title body } ... on ComponentSharedRichText { body } }',
      'localizations { locale title }'],
  },
  { route: 'authors', gql: 'Author', input: 'AuthorInput', localized: false, dp: false, relations: { articles: ['articles', true] }, select: ['documentId', 'name', 'email', 'bio', 'avatar { name }', 'articles { title }'] },
  {
    route: 'categories', gql: 'Category', input: 'CategoryInput', localized: false, dp: false,
    relations: { articles: ['articles', true], parent: ['categories', false], children: ['categories', true] },
    select: ['documentId', 'name', 'slug', 'description', 'parent { name }', 'children { name }', 'articles { title }'],
  },
  { route: 'tags', gql: 'Tag', input: 'TagInput', localized: false, dp: false, relations: { articles: ['articles', true] }, select: ['documentId', 'name', 'articles { title }'] },
];
const docs: Record<string, Doc[]> = { articles: [], authors: [], categories: [], tags: [] };
let files: number[] = [];

/** A document reference in a generated value, written as each side's documentId. */
class Ref { constructor(readonly doc: Doc | undefined) {} }
function forSide(v: unknown, side: Side): unknown {
  if (v instanceof Ref) return v.doc === undefined ? 'nope-not-a-document' : v.doc[side];
  if (Array.isArray(v)) return v.map((x) => forSide(x, side));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, forSide(x, side)]));
  return v;
}

const WORDS = ['Hello', 'Ünïcode é', '', 'x'.repeat(300), 'null', '  spaced  ', 'Lisbon', 'GraphQL'];
function data(t: Type): unknown {
  const out: Record<string, unknown> = {};
  const maybe = (p = 0.5) => rnd() < p;
  for (const [k, [target, many]] of Object.entries(t.relations)) {
    if (!maybe(0.35)) continue;
    const pool = docs[target];
    const r = rnd();
    if (r < 0.1) out[k] = null;
    else if (many) out[k] = r < 0.2 ? [] : some(pool, 0.05).slice(0, 4).map((d) => new Ref(rnd() < 0.05 ? undefined : d));
    else out[k] = new Ref(rnd() < 0.06 || !pool.length ? undefined : pick(pool));
  }
  if (t.route === 'articles') {
    if (maybe(0.7)) out.title = pick([...WORDS, 42, null]);
    if (maybe(0.3)) out.slug = pick(['my-slug', 'Not A Slug', 'article-1', '', null]);
    if (maybe(0.3)) out.description = pick(WORDS);
    if (maybe(0.3)) out.body = pick(['# Title\n\ntext', '', null]);
    if (maybe(0.2)) out.content = pick([[{ type: 'paragraph', children: [{ type: 'text', text: 'hi' }] }], [], null, 'text', [{ type: 'nope' }]]);
    if (maybe(0.3)) out.featured = pick([true, false, 'true', 1, null]);
    if (maybe(0.3)) out.views = pick([0, 7, -3, 2147483647, 2147483648, 1.5, '12', null]);
    if (maybe(0.3)) out.rating = pick([0.5, 1, '2.25', null, 1e21]);
    if (maybe(0.3)) out.publishDate = pick(['2024-02-29', '2024-13-01', '2024-02-02T10:00:00.000Z', 'nope', null]);
    if (maybe(0.3)) out.kind = pick(['news', 'tutorial', 'opinion', 'other', null]);
    if (maybe(0.2)) out.metadata = pick([{ a: 1, b: [true, null] }, [1, 2], 'text', 5, null]);
    if (maybe(0.3) && files.length) out.cover = pick([String(pick(files)), null, '99999']);
    if (maybe(0.2) && files.length) out.gallery = pick([some(files, 0.5).map(String), [], null]);
    if (maybe(0.3)) out.seo = pick([{ metaTitle: 'Meta', metaDescription: 'D', keywords: 'k' }, { metaDescription: 'no title' }, null, { metaTitle: 'M', shareImage: files[0] === undefined ? null : String(files[0]) }]);
    if (maybe(0.3)) {
      out.blocks = pick([
        [{ __typename: 'ComponentSharedQuote', title: 'Q', body: 'B' }, { __typename: 'ComponentSharedRichText', body: '**b**' }],
        [{ __typename: 'ComponentSharedMedia', file: files[0] === undefined ? null : String(files[0]) }],
        [], null, [{ __typename: 'ComponentSharedUnknown', x: 1 }], [{ title: 'no typename' }],
      ]);
    }
  } else if (t.route === 'authors') {
    if (maybe(0.8)) out.name = pick([...WORDS, null]);
    if (maybe(0.4)) out.email = pick(['a@b.co', 'not-an-email', '', null]);
    if (maybe(0.3)) out.bio = pick(WORDS);
    if (maybe(0.3) && files.length) out.avatar = pick([String(pick(files)), null]);
  } else if (t.route === 'categories') {
    if (maybe(0.8)) out.name = pick([...WORDS, `Category ${Math.floor(rnd() * 1000)}`, null]);
    if (maybe(0.3)) out.slug = pick(['cat-slug', 'Bad Slug', null]);
    if (maybe(0.3)) out.description = pick(WORDS);
  } else if (maybe(0.8)) out.name = pick([...WORDS, `Tag ${Math.floor(rnd() * 1000)}`]);
  if (maybe(0.04)) out.unknownField = 1;
  if (maybe(0.03)) out.documentId = 'forced';
  return rnd() < 0.03 ? pick([null, 'text', [out]]) : out;
}

/** A random selection; a create's always names the documentId (what maps the new document's ids on both sides). */
const selection = (t: Type, create = false) => { const s = some(t.select, 0.35); return (create && !s.includes('documentId') ? ['documentId', ...s] : s.length ? s : ['documentId']).join(' '); };
const namesOf = (side: Side) => new Map(Object.values(docs).flat().map((d) => [d[side], d.name]));

let differ = 0;
function compare(label: string, a: Answer, b: Answer): void {
  // Strapi's GraphQL internal errors are its own defects too.
  if ((a.body as { errors?: Array<{ message?: string }> } | null)?.errors?.some((e) => e.message === 'Internal Server Error')) return;
  if (reportDifference(label, a, b, (x, side) => normalize(x, namesOf(side)))) differ++;
}

for (const t of TYPES) {
  const r = await send('s', 'GET', `/api/${t.route}?fields[0]=id&status=draft&locale=*&pagination[pageSize]=200`);
  const seen = new Set<string>();
  for (const d of ((r.body?.data ?? []) as Array<{ documentId: string }>)) if (!seen.has(d.documentId)) { seen.add(d.documentId); docs[t.route].push({ s: d.documentId, f: d.documentId, name: d.documentId }); }
}
{
  const r = await send('s', 'GET', '/api/upload/files');
  files = (Array.isArray(r.body) ? r.body as Array<{ id: number }> : []).map((f) => f.id).slice(0, 6);
}
console.log(`documents: ${Object.entries(docs).map(([t, d]) => `${t} ${d.length}`).join(', ')}; files ${files.join(',')}`);

interface Single { route: string; gql: string; input: string; dp: boolean; data: () => unknown; select: string[] }
const SINGLES: Single[] = [
  {
    route: 'about', gql: 'About', input: 'AboutInput', dp: true,
    data: () => ({
      ...(rnd() < 0.7 ? { title: pick([...WORDS, null, 7]) } : {}),
      ...(rnd() < 0.4 ? { blocks: pick([[{ __typename: 'ComponentSharedQuote', title: 'Hi', body: 'there' }], [], null, [{ __typename: 'ComponentSharedMedia' }]]) } : {}),
    }),
    select: ['documentId', 'title', 'publishedAt', 'blocks { __typename ... on ComponentSharedQuote { title body } }'],
  },
  {
    route: 'global', gql: 'Global', input: 'GlobalInput', dp: false,
    data: () => ({
      ...(rnd() < 0.7 ? { siteName: pick([...WORDS, null]) } : {}),
      ...(rnd() < 0.3 ? { siteDescription: pick(WORDS) } : {}),
      ...(rnd() < 0.3 ? { defaultSeo: pick([{ metaTitle: 'Site', metaDescription: 'D' }, null, { keywords: 'no title' }]) } : {}),
      ...(rnd() < 0.3 && files.length ? { favicon: pick([String(files[0]), null, '99999']) } : {}),
    }),
    select: ['documentId', 'siteName', 'siteDescription', 'defaultSeo { metaTitle metaDescription }', 'favicon { name }'],
  },
];

/** A single type's mutation (update, sometimes a delete), then the type read back. */
async function single(i: number): Promise<void> {
  const t = pick(SINGLES);
  const status = t.dp && rnd() < 0.4 ? pick(['DRAFT', 'PUBLISHED']) : undefined;
  const del = rnd() < 0.15;
  // The documentId always: a deleted single type comes back with a new one on each side, mapped by it.
  const sel = ['documentId', ...some(t.select.slice(1), 0.5)];
  const mutation = del ? `mutation { delete${t.gql} { documentId } }`
    : `mutation($data: ${t.input}!${status ? ', $status: PublicationStatus' : ''}) { update${t.gql}(data: $data${status ? ', status: $status' : ''}) { ${sel.join(' ')} } }`;
  const vars = del ? {} : { data: forSide(t.data(), 's'), ...(status ? { status } : {}) };
  const label = `#${i} ${mutation} ${JSON.stringify(vars).slice(0, 400)}`;
  const [a, b] = await Promise.all([send('s', 'POST', '/graphql', { query: mutation, variables: vars }), send('f', 'POST', '/graphql', { query: mutation, variables: vars })]);
  // A single type's documentId is random on each side once it is created anew: mapped to one name.
  const idOf = (x: Answer) => (x.body?.data as Record<string, { documentId?: string } | null> | undefined)?.[`${del ? 'delete' : 'update'}${t.gql}`]?.documentId;
  const [ds, df] = [idOf(a), idOf(b)];
  if (ds && df && ds !== df && !namesOf('s').has(ds)) (docs.singles ??= []).push({ s: ds, f: df, name: `${t.route}-${i}` });
  compare(label, a, b);
  for (const rq of t.dp ? ['?status=draft&populate=*', '?status=published&populate=*'] : ['?populate=*']) {
    const [ra, rb] = await Promise.all([send('s', 'GET', `/api/${t.route}${rq}`), send('f', 'GET', `/api/${t.route}${rq}`)]);
    compare(`${label}\n  then GET ${t.route}${rq}`, ra, rb);
  }
}

let created = 0;
for (let i = 0; i < runs; i++) {
  if (rnd() < 0.12) { await single(i); continue; }
  const t = pick([TYPES[0], TYPES[0], TYPES[0], TYPES[1], TYPES[2], TYPES[3]]);
  const op = rnd();
  const args: Array<[string, string, unknown]> = [];
  if (t.dp && rnd() < 0.4) args.push(['status', 'PublicationStatus', pick(['DRAFT', 'PUBLISHED'])]);
  if (rnd() < (t.localized ? 0.3 : 0.03)) args.push(['locale', 'I18NLocaleCode', pick(['en', 'fr', 'de'])]);
  let target: Doc | undefined;
  let mutation: string;
  let vars: [Record<string, unknown>, Record<string, unknown>];
  const extra = (names: string[]) => args.filter(([n]) => names.includes(n));
  const decl = (list: Array<[string, string, unknown]>) => list.map(([n, ty]) => `, $${n}: ${ty}`).join('');
  const pass = (list: Array<[string, string, unknown]>) => list.map(([n]) => `, ${n}: $${n}`).join('');
  const values = Object.fromEntries(args.map(([n, , v]) => [n, v]));
  if (op < 0.45 || !docs[t.route].length) {
    const d = data(t);
    const a = extra(['status', 'locale']);
    mutation = `mutation($data: ${t.input}!${decl(a)}) { create${t.gql}(data: $data${pass(a)}) { ${selection(t, true)} } }`;
    vars = [{ data: forSide(d, 's'), ...values }, { data: forSide(d, 'f'), ...values }];
  } else if (op < 0.9) {
    target = pick(docs[t.route]);
    const d = data(t);
    const a = extra(['status', 'locale']);
    mutation = `mutation($id: ID!, $data: ${t.input}!${decl(a)}) { update${t.gql}(documentId: $id, data: $data${pass(a)}) { ${selection(t)} } }`;
    vars = [{ id: target.s, data: forSide(d, 's'), ...values }, { id: target.f, data: forSide(d, 'f'), ...values }];
  } else {
    target = pick(docs[t.route]);
    const a = extra(['locale']);
    mutation = `mutation($id: ID!${decl(a)}) { delete${t.gql}(documentId: $id${pass(a)}) { documentId } }`;
    vars = [{ id: target.s, ...values }, { id: target.f, ...values }];
  }
  const label = `#${i} ${mutation} ${JSON.stringify(vars[0]).slice(0, 400)}`;
  const [a, b] = await Promise.all([send('s', 'POST', '/graphql', { query: mutation, variables: vars[0] }), send('f', 'POST', '/graphql', { query: mutation, variables: vars[1] })]);
  const made = (x: Answer) => ((x.body?.data as Record<string, { documentId?: string } | null> | undefined)?.[`create${t.gql}`])?.documentId;
  if (!target && made(a) && made(b)) { target = { s: made(a)!, f: made(b)!, name: `new-${t.route}-${++created}` }; docs[t.route].push(target); }
  compare(label, a, b);
  if (target) {
    for (const rq of t.dp ? ['status=draft&locale=*', 'status=published&locale=*'] : ['']) {
      const p = 'populate=*&pagination[pageSize]=100&filters[documentId][$eq]=';
      const [ra, rb] = await Promise.all([send('s', 'GET', `/api/${t.route}?${p}${target.s}${rq ? `&${rq}` : ''}`), send('f', 'GET', `/api/${t.route}?${p}${target.f}${rq ? `&${rq}` : ''}`)]);
      compare(`${label}\n  then GET ${t.route} ${target.name} ${rq}`, ra, rb);
    }
  }
}
console.log(`\n${runs} mutations, ${differ} differences (seed ${firstSeed})`);
closeFuzzAgent();
