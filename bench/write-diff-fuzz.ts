// Differential fuzz of REST writes: random creates, updates and deletes (every attribute kind, relation
// writes in all their forms — ids, documentIds, connect/disconnect/set, positions, locales —, components,
// dynamic zones, media, `status` and `locale`) sent in the same order to a live Strapi and to this server,
// each on its OWN copy of one database (writes change it), then each written document read back with
// `populate=*`. Statuses, errors and answers are compared once documentIds (random on each side) are mapped
// to one name and timestamps masked. Prints each difference; never fails on one.
//
//   createdb -h 127.0.0.1 -p 5499 -U postgres -T blog wfs; createdb -h 127.0.0.1 -p 5499 -U postgres -T blog wff
//   (Strapi on wfs, this server on wff, as bench/side-by-side.ts runs them; the token is valid on both copies)
//   npx tsx bench/write-diff-fuzz.ts --strapi http://127.0.0.1:1361 --fastrapi http://127.0.0.1:1362 --token T [--runs 200] [--seed 1]
//
// Made for the blog models (this repository's models/). A run changes both databases: start each run from
// fresh copies, or the two sides' documents and ids drift apart.
import { fuzzArgs } from './fuzz-args.ts';
import { normalize } from './schema-model.ts';
import { closeFuzzAgent, reportDifference, request, type FuzzAnswer } from './fuzz-http.ts';

const { strapi, fastrapi, runs, token, seed: firstSeed } = fuzzArgs('bench/write-diff-fuzz.ts');
let seed = firstSeed;
const rnd = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x7fffffff; };
const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];
const some = <T>(a: readonly T[], p = 0.3): T[] => a.filter(() => rnd() < p);

type Side = 'strapi' | 'fastrapi';
type Answer = FuzzAnswer<{ data?: unknown; meta?: unknown; error?: unknown } | null>;
const send = (side: Side, method: string, path: string, body?: unknown): Promise<Answer> =>
  request<Answer['body']>(side === 'strapi' ? strapi : fastrapi, method, path, { body, token });

// A document known on both sides: its documentId on each (equal for the copies' own documents).
interface Doc { s: string; f: string; name: string }
const docs: Record<string, Doc[]> = { articles: [], authors: [], categories: [], tags: [] };
const TARGET: Record<string, Record<string, string>> = {
  articles: { author: 'authors', category: 'categories', tags: 'tags' },
  authors: { articles: 'articles' },
  categories: { articles: 'articles', parent: 'categories', children: 'categories' },
  tags: { articles: 'articles' },
};
const TO_ONE = new Set(['articles.author', 'articles.category', 'categories.parent']);
let files: number[] = [];

/** A document reference in a generated value, written as each side's documentId (forSide). */
class Ref { constructor(readonly doc: Doc | undefined) {} }
function forSide(v: unknown, side: 's' | 'f'): unknown {
  if (v instanceof Ref) return v.doc === undefined ? 'nope-not-a-document' : v.doc[side];
  if (Array.isArray(v)) return v.map((x) => forSide(x, side));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, forSide(x, side)]));
  return v;
}

/** A relation value as written (every random choice made once: both sides get the same shape). */
function relationValue(type: string, field: string): unknown {
  const pool = docs[TARGET[type][field]];
  const one = TO_ONE.has(`${type}.${field}`);
  const r = rnd();
  const ds = some(pool, one ? 0.02 : 0.05).slice(0, one ? 1 : 4).map((d) => new Ref(d));
  const d1 = new Ref(pool.length ? pick(pool) : undefined);
  const bad = rnd() < 0.06;
  if (r < 0.1) return null;
  if (r < 0.25) return one ? (bad ? new Ref(undefined) : d1) : ds;
  if (r < 0.35) return { set: ds.map((d) => (rnd() < 0.5 ? d : { documentId: d })) };
  if (r < 0.45) return { disconnect: ds };
  if (r < 0.55 && !one && pool.length > 1) {
    const anchor = new Ref(pick(pool));
    return { connect: [{ documentId: d1, position: pick([{ before: anchor }, { after: anchor }, { start: true }, { end: true }]) }] };
  }
  if (r < 0.6) return { connect: [{ documentId: d1, locale: pick(['en', 'fr']) }] };
  if (r < 0.65) return one ? pick([1, 2, 3, 9999]) : [pick([1, 2, 3]), pick([4, 5, 9999])];
  return { connect: (one ? [d1] : ds).map((d) => (bad ? new Ref(undefined) : d)), ...(rnd() < 0.3 ? { disconnect: some(pool, 0.05).map((d) => new Ref(d)) } : {}) };
}

const WORDS = ['Hello', 'Ünïcode é', '', 'x'.repeat(300), 'null', '  spaced  ', 'Lisbon', 'GraphQL'];
function attributes(type: string): [Record<string, unknown>, Record<string, unknown>] {
  const s: Record<string, unknown> = {};
  const f: Record<string, unknown> = {};
  const put = (k: string, v: unknown) => { s[k] = v; f[k] = v; };
  const maybe = (p = 0.5) => rnd() < p;
  const rels = Object.keys(TARGET[type]);
  for (const k of rels) if (maybe(0.35)) { const v = relationValue(type, k); s[k] = forSide(v, 's'); f[k] = forSide(v, 'f'); }
  if (type === 'articles') {
    if (maybe(0.7)) put('title', pick([...WORDS, 42, null]));
    if (maybe(0.3)) put('slug', pick(['my-slug', 'Not A Slug', 'article-1', '', null]));
    if (maybe(0.3)) put('description', pick(WORDS));
    if (maybe(0.3)) put('body', pick(['# Title\n\ntext', '', null]));
    if (maybe(0.2)) put('content', pick([[{ type: 'paragraph', children: [{ type: 'text', text: 'hi' }] }], [], null, 'text', [{ type: 'nope' }]]));
    if (maybe(0.3)) put('featured', pick([true, false, 'true', 1, null, 'x']));
    if (maybe(0.3)) put('views', pick([0, 7, -3, 2147483647, 2147483648, 1.5, '12', 'abc', null]));
    if (maybe(0.3)) put('rating', pick([0.5, 1, '2.25', 'x', null, 1e21]));
    if (maybe(0.3)) put('publishDate', pick(['2024-02-29', '2024-13-01', '2024-02-02T10:00:00.000Z', 'nope', null]));
    if (maybe(0.3)) put('kind', pick(['news', 'tutorial', 'opinion', 'other', null]));
    if (maybe(0.2)) put('metadata', pick([{ a: 1, b: [true, null] }, [1, 2], 'text', 5, null, { nested: { x: 'y' } }]));
    if (maybe(0.3) && files.length) put('cover', pick([pick(files), null, 99999, String(pick(files))]));
    if (maybe(0.2) && files.length) put('gallery', pick([some(files, 0.5), [], null, [pick(files), pick(files)]]));
    if (maybe(0.3)) put('seo', pick([{ metaTitle: 'Meta', metaDescription: 'D', keywords: 'k' }, { metaDescription: 'no title' }, null, { metaTitle: 'M', shareImage: files[0] ?? null }, { id: 1, metaTitle: 'with id' }]));
    if (maybe(0.3)) {
      put('blocks', pick([
        [{ __component: 'shared.quote', title: 'Q', body: 'B' }, { __component: 'shared.rich-text', body: '**b**' }],
        [{ __component: 'shared.media', file: files[0] ?? null }],
        [{ __component: 'shared.slider', files: files.slice(0, 2) }],
        [], null, [{ __component: 'shared.unknown', x: 1 }], [{ title: 'no component' }],
      ]));
    }
  } else if (type === 'authors') {
    if (maybe(0.8)) put('name', pick([...WORDS, null]));
    if (maybe(0.4)) put('email', pick(['a@b.co', 'not-an-email', '', null]));
    if (maybe(0.3)) put('bio', pick(WORDS));
    if (maybe(0.3) && files.length) put('avatar', pick([pick(files), null]));
  } else if (type === 'categories') {
    if (maybe(0.8)) put('name', pick([...WORDS, `Category ${Math.floor(rnd() * 1000)}`, null]));
    if (maybe(0.3)) put('slug', pick(['cat-slug', 'Bad Slug', null]));
    if (maybe(0.3)) put('description', pick(WORDS));
  } else {
    if (maybe(0.8)) put('name', pick([...WORDS, `Tag ${Math.floor(rnd() * 1000)}`]));
  }
  if (maybe(0.04)) put('unknownField', 1);
  if (maybe(0.03)) put('id', 5);
  if (maybe(0.03)) put('documentId', 'forced');
  return [s, f];
}

const namesOf = (side: 's' | 'f') => new Map(Object.values(docs).flat().map((d) => [d[side], d.name]));

let differ = 0;
function compare(label: string, a: Answer, b: Answer): void {
  if (reportDifference(label, a, b, (x, side) => normalize(x, namesOf(side)))) differ++;
}

// The copies' own documents (same documentIds on both).
for (const type of Object.keys(docs)) {
  const r = await send('strapi', 'GET', `/api/${type}?fields[0]=id&status=draft&locale=*&pagination[pageSize]=200`);
  const seen = new Set<string>();
  for (const d of (r.body?.data ?? []) as Array<{ documentId: string }>) if (!seen.has(d.documentId)) { seen.add(d.documentId); docs[type].push({ s: d.documentId, f: d.documentId, name: d.documentId }); }
}
{
  const r = await send('strapi', 'GET', '/api/upload/files');
  files = (Array.isArray(r.body) ? r.body as Array<{ id: number }> : []).map((f) => f.id).slice(0, 6);
}
console.log(`documents: ${Object.entries(docs).map(([t, d]) => `${t} ${d.length}`).join(', ')}; files ${files.join(',')}`);

/** A single type's write (a PUT, sometimes a DELETE), then the type read back. */
async function single(i: number): Promise<void> {
  const type = pick(['about', 'global']);
  const params: string[] = [];
  if (type === 'about' && rnd() < 0.4) params.push(`status=${pick(['draft', 'published'])}`);
  if (rnd() < 0.2) params.push(pick(['populate=*', 'fields[0]=title', 'fields[0]=siteName', 'populate[defaultSeo]=true']));
  const qs = params.length ? `?${params.join('&')}` : '';
  let data: Record<string, unknown> = {};
  if (type === 'about') {
    if (rnd() < 0.7) data.title = pick([...WORDS, null, 7]);
    if (rnd() < 0.4) data.blocks = pick([[{ __component: 'shared.quote', title: 'Hi', body: 'there' }], [], null, [{ __component: 'shared.media' }], [{ __component: 'shared.rich-text', body: 'x' }]]);
  } else {
    if (rnd() < 0.7) data.siteName = pick([...WORDS, null]);
    if (rnd() < 0.3) data.siteDescription = pick(WORDS);
    if (rnd() < 0.3) data.defaultSeo = pick([{ metaTitle: 'Site', metaDescription: 'D' }, null, { keywords: 'no title' }, { metaTitle: null }]);
    if (rnd() < 0.3 && files.length) data.favicon = pick([files[0], null, 99999]);
  }
  if (rnd() < 0.04) data = { ...data, unknownField: 1 };
  const del = rnd() < 0.12;
  const label = del ? `#${i} DELETE /api/${type}${qs}` : `#${i} PUT /api/${type}${qs} ${JSON.stringify({ data }).slice(0, 400)}`;
  const [a, b] = await Promise.all([send('strapi', del ? 'DELETE' : 'PUT', `/api/${type}${qs}`, del ? undefined : { data }), send('fastrapi', del ? 'DELETE' : 'PUT', `/api/${type}${qs}`, del ? undefined : { data })]);
  // A single type made anew has a random documentId on each side: one name for both.
  const sa = (a.body?.data as { documentId?: string } | undefined)?.documentId;
  const sb = (b.body?.data as { documentId?: string } | undefined)?.documentId;
  if (sa && sb && sa !== sb && !namesOf('s').has(sa)) (docs.singles ??= []).push({ s: sa, f: sb, name: `${type}-${i}` });
  compare(label, a, b);
  for (const rq of type === 'about' ? ['?status=draft&populate=*', '?status=published&populate=*'] : ['?populate=*']) {
    const [ra, rb] = await Promise.all([send('strapi', 'GET', `/api/${type}${rq}`), send('fastrapi', 'GET', `/api/${type}${rq}`)]);
    compare(`${label}\n  then GET ${type}${rq}`, ra, rb);
  }
}

let created = 0;
for (let i = 0; i < runs; i++) {
  if (rnd() < 0.12) { await single(i); continue; }
  const type = pick(['articles', 'articles', 'articles', 'authors', 'categories', 'tags']);
  const op = rnd();
  const params: string[] = [];
  if (type === 'articles' && rnd() < 0.4) params.push(`status=${pick(['draft', 'published'])}`);
  if (type === 'articles' && rnd() < 0.3) params.push(`locale=${pick(['en', 'fr', 'de'])}`);
  if (rnd() < 0.2) params.push(pick(['populate=*', 'populate[0]=tags', 'fields[0]=name', 'populate[author][fields][0]=name']));
  const qs = params.length ? `?${params.join('&')}` : '';
  let label: string;
  let a: Answer;
  let b: Answer;
  let target: Doc | undefined;
  if (op < 0.45 || !docs[type].length) {
    const [ds, df] = attributes(type);
    const wrap = rnd() < 0.03 ? [ds, df] : [{ data: ds }, { data: df }];
    label = `#${i} POST /api/${type}${qs} ${JSON.stringify(wrap[0]).slice(0, 400)}`;
    [a, b] = await Promise.all([send('strapi', 'POST', `/api/${type}${qs}`, wrap[0]), send('fastrapi', 'POST', `/api/${type}${qs}`, wrap[1])]);
    const sa = (a.body?.data as { documentId?: string } | undefined)?.documentId;
    const sb = (b.body?.data as { documentId?: string } | undefined)?.documentId;
    if (sa && sb) { target = { s: sa, f: sb, name: `new-${type}-${++created}` }; docs[type].push(target); }
  } else if (op < 0.9) {
    target = pick(docs[type]);
    const [ds, df] = attributes(type);
    label = `#${i} PUT /api/${type}/${target.name}${qs} ${JSON.stringify({ data: ds }).slice(0, 400)}`;
    [a, b] = await Promise.all([send('strapi', 'PUT', `/api/${type}/${target.s}${qs}`, { data: ds }), send('fastrapi', 'PUT', `/api/${type}/${target.f}${qs}`, { data: df })]);
  } else {
    target = pick(docs[type]);
    label = `#${i} DELETE /api/${type}/${target.name}${qs}`;
    [a, b] = await Promise.all([send('strapi', 'DELETE', `/api/${type}/${target.s}${qs}`), send('fastrapi', 'DELETE', `/api/${type}/${target.f}${qs}`)]);
  }
  compare(label, a, b);
  if (target) {
    for (const rq of type === 'articles' ? ['status=draft&locale=*', 'status=published&locale=*'] : ['']) {
      const p = `populate=*&pagination[pageSize]=100&filters[documentId][$eq]=`;
      const [ra, rb] = await Promise.all([send('strapi', 'GET', `/api/${type}?${p}${target.s}${rq ? `&${rq}` : ''}`), send('fastrapi', 'GET', `/api/${type}?${p}${target.f}${rq ? `&${rq}` : ''}`)]);
      compare(`${label}\n  then GET ${type} ${target.name} ${rq}`, ra, rb);
    }
  }
}
console.log(`\n${runs} writes, ${differ} differences`);
closeFuzzAgent();
