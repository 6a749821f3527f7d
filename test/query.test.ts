// Read queries against a running server with the demo (blog) models: seeded through the REST API, then
// checked for the rows returned, their order and their shape, for filters, sort, pagination, fields,
// populate, locale and status — and that every read is one SQL statement.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import postgres from 'postgres';
import { startTestServer, TOKEN, insertFile, type TestServer } from './helpers.ts';
import { queryTap } from '../src/db/connect.ts';
import { readKeyedColumns } from '../src/db/foreign-keys.ts';

let s: TestServer;
const ids: Record<string, string> = {};
const numericIds: Record<string, number> = {};
let blue: number, red: number;

const A1 = 'Understanding PostgreSQL Indexes';
const A2 = 'GraphQL vs REST';
const A3 = 'Sourdough Basics';
const A4 = 'Hello 100%_done';
const DRAFT = 'Secret Draft';
const FR = 'Comprendre les index';

async function post(path: string, data: unknown): Promise<any> {
  const r = await s.fetchJson('POST', path, { data }, TOKEN);
  assert.equal(r.status, 201, `seed ${path}: ${r.text}`);
  return r.body.data;
}

before(async () => {
  s = await startTestServer();
  blue = await insertFile(s.sql(), { name: 'cover-blue.png', alternativeText: 'A blue cover' });
  red = await insertFile(s.sql(), { name: 'cover-red.png', alternativeText: 'A red cover' });
  for (const [key, data] of [
    ['ada', { name: 'Ada Lovelace', email: 'ada@example.com', avatar: blue }],
    ['alan', { name: 'Alan Turing', email: 'alan@example.com' }],
    ['grace', { name: 'Grace Hopper' }],
  ] as const) { const d = await post('/api/authors', data); ids[key] = d.documentId; numericIds[key] = d.id; }
  ids.tech = (await post('/api/categories', { name: 'Technology', slug: 'technology' })).documentId;
  ids.dbs = (await post('/api/categories', { name: 'Databases', slug: 'databases', parent: ids.tech })).documentId;
  ids.food = (await post('/api/categories', { name: 'Food', slug: 'food' })).documentId;
  for (const t of ['GraphQL', 'REST', 'Cooking', 'Travel']) ids[t] = (await post('/api/tags', { name: t })).documentId;
  ids.a1 = (await post('/api/articles', {
    title: A1, slug: 'pg-indexes', views: 10, rating: 1.5, kind: 'tutorial', publishDate: '2024-01-10', metadata: { level: 2 },
    author: ids.ada, category: ids.dbs, tags: [ids.REST, ids.GraphQL], cover: blue,
    seo: { metaTitle: 'Indexes SEO', keywords: 'pg', shareImage: red },
    blocks: [{ __component: 'shared.quote', title: 'Q1', body: 'quoted' }, { __component: 'shared.rich-text', body: 'rich one' }, { __component: 'shared.media', file: blue }, { __component: 'shared.slider', files: [red, blue] }],
  })).documentId;
  ids.a2 = (await post('/api/articles', {
    title: A2, slug: 'gql-vs-rest', views: 50, rating: 3.25, featured: true, kind: 'opinion', publishDate: '2024-03-05',
    author: ids.alan, category: ids.tech, tags: [ids.GraphQL], cover: red, gallery: [blue, red], seo: { metaTitle: 'GQL SEO' },
  })).documentId;
  ids.a3 = (await post('/api/articles', {
    title: A3, slug: 'sourdough', views: 100, kind: 'news', author: ids.grace, category: ids.food, tags: [ids.Cooking],
    blocks: [{ __component: 'shared.quote', title: 'Bread', body: 'crumb' }],
  })).documentId;
  ids.a4 = (await post('/api/articles', { title: A4, slug: 'hello', views: 0, rating: 4.75 })).documentId;
  ids.draft = (await post('/api/articles?status=draft', { title: DRAFT, slug: 'secret-draft', views: 7, author: ids.ada, tags: [ids.Travel] })).documentId;
  const g = await s.fetchJson('PUT', '/api/global', { data: { siteName: 'Blog', siteDescription: 'A blog', defaultSeo: { metaTitle: 'Blog', shareImage: red }, favicon: blue } }, TOKEN);
  assert.equal(g.status, 200, g.text);
  const fr = await s.fetchJson('PUT', `/api/articles/${ids.a1}?locale=fr`, { data: { title: FR, slug: 'index-fr', views: 11 } }, TOKEN);
  assert.equal(fr.status, 200, fr.text);
});

after(async () => { await s?.stop(); });

async function get(path: string): Promise<any> {
  const r = await s.fetchJson('GET', path);
  assert.equal(r.status, 200, `${path}: ${r.text}`);
  return r.body;
}

let shapeSalt = 0;
/**
 * Titles of a list, in order. Each call gets a plan-cache shape of its own (empty items of a comma
 * list in `fields` are ignored), so that the known plan-cache collision between `$and`/`$or` queries of
 * different structure (see the todo tests below) cannot leak from one unrelated test into another.
 */
async function titles(query: string): Promise<string[]> {
  const b = await get(`/api/articles?fields=title${','.repeat(++shapeSalt)}&${query}`);
  return b.data.map((d: any) => d.title);
}

async function badRequest(path: string): Promise<any> {
  const r = await s.fetchJson('GET', path);
  assert.equal(r.status, 400, `${path}: ${r.text}`);
  assert.equal(r.body.data, null);
  return r.body.error;
}

describe('filters: every operator', () => {
  const cases: Array<[string, string[]]> = [
    ['filters[views][$eq]=50', [A2]],
    ['filters[views]=50', [A2]],
    ['filters[slug]=sourdough', [A3]],
    ['filters[title][$eq]=graphql vs rest', []],
    ['filters[title][$eqi]=graphql VS rest', [A2]],
    ['filters[kind][$ne]=news', [A1, A2]], // null kinds do not match, as in Strapi
    ['filters[kind][$nei]=NEWS', [A1, A2]],
    ['filters[views][$lt]=10', [A4]],
    ['filters[views][$lte]=10', [A1, A4]],
    ['filters[views][$gt]=50', [A3]],
    ['filters[views][$gte]=50', [A2, A3]],
    ['filters[rating][$gte]=3.25', [A2, A4]],
    ['filters[rating][$lt]=2', [A1]],
    ['filters[kind][$in][0]=news&filters[kind][$in][1]=opinion', [A2, A3]],
    ['filters[kind][$in]=news', [A3]],
    ['filters[kind][$in]=', []],
    ['filters[views][0]=0&filters[views][1]=100', [A3, A4]],
    ['filters[kind][$notIn][0]=news&filters[kind][$notIn][1]=tutorial', [A2]],
    ['filters[title][$contains]=SQL', [A1]],
    ['filters[title][$contains]=sql', []],
    ['filters[title][$containsi]=sql', [A1]],
    ['filters[title][$notContains]=e', [A2, A3]],
    ['filters[title][$notContainsi]=e', [A3]],
    ['filters[title][$startsWith]=Hello', [A4]],
    ['filters[title][$startsWith]=hello', []],
    ['filters[title][$startsWithi]=hello', [A4]],
    ['filters[title][$endsWith]=REST', [A2]],
    ['filters[title][$endsWith]=rest', []],
    ['filters[title][$endsWithi]=rest', [A2]],
    // LIKE wildcards in values are literal characters
    ['filters[title][$contains]=%25', [A4]],
    ['filters[title][$contains]=_', [A4]],
    ['filters[title][$contains]=0%25_d', [A4]],
    ['filters[title][$startsWith]=%25', []],
    ['filters[title][$endsWithi]=_', []],
    ['filters[rating][$null]=true', [A3]],
    ['filters[rating][$null]=false', [A1, A2, A4]],
    ['filters[publishDate][$notNull]=true', [A1, A2]],
    ['filters[publishDate][$notNull]=false', [A3, A4]],
    ['filters[metadata][$null]=false', [A1]],
    ['filters[views][$between][0]=10&filters[views][$between][1]=50', [A1, A2]],
    ['filters[publishDate][$between][0]=2024-01-01&filters[publishDate][$between][1]=2024-02-01', [A1]],
    ['filters[publishDate][$gt]=2024-02-01', [A2]],
    ['filters[featured][$eq]=true', [A2]],
    ['filters[featured][$eq]=false', [A1, A3, A4]],
    ['filters[title][$not][$contains]=e', [A2, A3]],
    ['filters[createdAt][$notNull]=true', [A1, A2, A3, A4]],
  ];
  for (const [q, expected] of cases) {
    test(q, async () => {
      assert.deepEqual(await titles(`${q}&sort=id:asc`), expected);
    });
  }

  test('filters[id] and filters[documentId]', async () => {
    const one = await get(`/api/articles/${ids.a2}?fields[0]=title`);
    assert.deepEqual(await titles(`filters[id][$eq]=${one.data.id}`), [A2]);
    assert.deepEqual(await titles(`filters[documentId][$eq]=${ids.a3}`), [A3]);
    assert.deepEqual(await titles(`filters[documentId][$in][0]=${ids.a3}&filters[documentId][$in][1]=${ids.a4}&sort=id:asc`), [A3, A4]);
  });

  test('the total counts the filtered rows', async () => {
    const b = await get('/api/articles?fields[0]=title&filters[views][$gte]=10&pagination[pageSize]=1');
    assert.equal(b.data.length, 1);
    assert.deepEqual(b.meta.pagination, { page: 1, pageSize: 1, pageCount: 3, total: 3 });
  });
});

describe('filters: logic', () => {
  const cases: Array<[string, string[]]> = [
    ['filters[$and][0][featured][$eq]=false&filters[$and][1][views][$gt]=5', [A1, A3]],
    ['filters[featured][$eq]=false&filters[views][$gt]=5', [A1, A3]],
    ['filters[$or][0][views][$lt]=5&filters[$or][1][kind][$eq]=news', [A3, A4]],
    ['filters[$not][views][$gt]=10', [A1, A4]],
    // NOT (kind = 'news' OR kind = 'opinion'): a null kind is unknown, not true (Strapi's knex whereNot)
    ['filters[$not][$or][0][kind][$eq]=news&filters[$not][$or][1][kind][$eq]=opinion', [A1]],
    ['filters[$not][kind][$eq]=news', [A1, A2]],
    ['filters[$or][0][$and][0][views][$gte]=10&filters[$or][0][$and][1][views][$lte]=50&filters[$or][1][title][$eq]=Hello 100%25_done', [A1, A2, A4]],
    ['filters[views][$gt]=5&filters[views][$lt]=60', [A1, A2]],
    ['filters[views][$or][0][$eq]=0&filters[views][$or][1][$eq]=100', [A3, A4]],
    ['filters[$and][0][$or][0][kind][$eq]=news&filters[$and][0][$or][1][kind][$eq]=tutorial&filters[$and][1][views][$gt]=50', [A3]],
  ];
  for (const [q, expected] of cases) {
    test(q, async () => {
      assert.deepEqual(await titles(`${q}&sort=id:asc`), expected);
    });
  }
});

describe('filters: relations, components and media', () => {
  const cases: Array<[string, string[]]> = [
    ['filters[author][name][$eq]=Ada Lovelace', [A1]],
    ['filters[author][email][$endsWith]=example.com', [A1, A2]],
    ['filters[author][id][$null]=true', [A4]],
    ['filters[category][slug][$eq]=technology', [A2]],
    ['filters[category][parent][slug][$eq]=technology', [A1]],
    // a missing related row matches a null test at any depth (LEFT JOIN semantics, as in Strapi)
    ['filters[category][parent][parent][id][$null]=true', [A1, A2, A3, A4]],
    ['filters[category][parent][id][$notNull]=true', [A1]],
    ['filters[tags][name][$eq]=GraphQL', [A1, A2]],
    ['filters[tags][name][$in][0]=GraphQL&filters[tags][name][$in][1]=Cooking', [A1, A2, A3]],
    ['filters[tags][name][$eq]=Travel', []],
    ['filters[author][articles][title][$eq]=Sourdough Basics', [A3]],
    ['filters[seo][metaTitle][$containsi]=seo', [A1, A2]],
    ['filters[seo][keywords][$eq]=pg', [A1]],
    ['filters[seo][metaTitle][$null]=true', [A3, A4]],
    ['filters[cover][name][$eq]=cover-blue.png', [A1]],
    ['filters[gallery][name][$eq]=cover-blue.png', [A2]],
    ['filters[$or][0][author][name][$eq]=Grace Hopper&filters[$or][1][tags][name][$eq]=REST', [A1, A3]],
  ];
  for (const [q, expected] of cases) {
    test(q, async () => {
      assert.deepEqual(await titles(`${q}&sort=id:asc`), expected);
    });
  }

  test('a relation given an id means the related id', async () => {
    assert.deepEqual(await titles(`filters[author][id][$eq]=${numericIds.alan}`), [A2]);
    assert.deepEqual(await titles(`filters[author]=${numericIds.grace}`), [A3]);
  });

  test('the inverse side of a relation, and a self relation', async () => {
    const a = await get('/api/authors?fields[0]=name&filters[articles][kind][$eq]=news');
    assert.deepEqual(a.data.map((x: any) => x.name), ['Grace Hopper']);
    const c = await get('/api/categories?fields[0]=name&filters[parent][id][$null]=true&sort=id:asc');
    assert.deepEqual(c.data.map((x: any) => x.name), ['Technology', 'Food']);
    const ch = await get('/api/categories?fields[0]=name&filters[children][slug][$eq]=databases');
    assert.deepEqual(ch.data.map((x: any) => x.name), ['Technology']);
    const t = await get('/api/tags?fields[0]=name&filters[articles][views][$gte]=50&sort=name:asc');
    assert.deepEqual(t.data.map((x: any) => x.name), ['Cooking', 'GraphQL']);
  });

  test('unknown or unfilterable keys: 400 with Strapi\'s message and details', async () => {
    assert.deepEqual(await badRequest('/api/articles?filters[title][$foo]=x'),
      { status: 400, name: 'ValidationError', message: 'Invalid key $foo at title', details: { key: '$foo', path: 'title', source: 'query', param: 'filters' } });
    assert.deepEqual(await badRequest('/api/articles?filters[nope][$eq]=x'),
      { status: 400, name: 'ValidationError', message: 'Invalid key nope', details: { key: 'nope', path: null, source: 'query', param: 'filters' } });
    assert.deepEqual(await badRequest('/api/articles?filters[blocks][title][$eq]=x'),
      { status: 400, name: 'ValidationError', message: 'Invalid key blocks', details: { key: 'blocks', path: 'blocks', source: 'query', param: 'filters' } });
    assert.deepEqual(await badRequest('/api/articles?filters[createdBy][id][$eq]=1'),
      { status: 400, name: 'ValidationError', message: 'Invalid key createdBy', details: { key: 'createdBy', path: 'createdBy', source: 'query', param: 'filters' } });
    const deep = await badRequest('/api/articles?filters[author][nope][$eq]=1');
    assert.equal(deep.message, 'Invalid key nope at author');
  });

  test('values that do not fit the attribute type: 400, not 500', async () => {
    for (const q of ['filters[views][$eq]=abc', 'filters[views][$gt]=1.5', 'filters[publishDate][$eq]=yesterday',
      'filters[views][$between]=100,300', 'filters[views][$eq]=99999999999', 'filters[rating][$lt]=x', 'filters[createdAt][$gt]=nope']) {
      const e = await badRequest(`/api/articles?${q}`);
      assert.equal(e.name, 'ValidationError', q);
    }
  });

  test('a boolean filter takes any text, as Strapi 5.54 casts it (JavaScript\'s truth beyond true|t|1 and false|f|0)', async () => {
    const featured = async (v: string) => (await s.fetchJson('GET', `/api/articles?filters[featured][$eq]=${v}&fields[0]=featured`)).body.data.map((a: { featured: boolean }) => a.featured);
    assert.deepEqual([...new Set(await featured('maybe'))], [true]);
    assert.deepEqual([...new Set(await featured('FALSE'))], [true]);
    assert.deepEqual([...new Set(await featured('0'))], [false]);
  });
});

describe('plan cache: queries of different structure never share a plan', () => {
  // The shape key masks every array under `filters` as '[?]', so two `$or` (or `$and`) lists that name
  // different attributes, or nest differently, get the SQL text compiled for the first one.
  const raw = async (q: string) => {
    const r = await s.fetchJson('GET', `/api/articles?fields=title,slug,views&${q}&sort=id:asc`);
    assert.equal(r.status, 200, `${q}: ${r.text}`);
    return r.body.data.map((d: any) => d.title);
  };

  test('$or lists over different attributes', async () => {
    assert.deepEqual(await raw('filters[$or][0][title][$eq]=Sourdough Basics&filters[$or][1][title][$eq]=Hello 100%25_done'), [A3, A4]);
    assert.deepEqual(await raw('filters[$or][0][slug][$eq]=sourdough&filters[$or][1][slug][$eq]=hello'), [A3, A4]);
    assert.deepEqual(await raw('filters[$or][0][views][$eq]=0&filters[$or][1][views][$eq]=100'), [A3, A4]);
  });

  test('$and lists of different length and nesting', async () => {
    assert.deepEqual(await raw('filters[$and][0][featured][$eq]=false&filters[$and][1][views][$gt]=5'), [A1, A3]);
    assert.deepEqual(await raw('filters[$and][0][$or][0][kind][$eq]=news&filters[$and][0][$or][1][kind][$eq]=tutorial&filters[$and][1][views][$gt]=50'), [A3]);
  });
});

describe('$not over relations (Strapi negates the joined rows)', () => {
  test('a to-many relation: some related row fails the condition; no related row never matches', async () => {
    const all = (await get('/api/articles?fields[0]=title&populate[tags][fields][0]=name&pagination[pageSize]=100&sort=id')).data;
    const want = all.filter((d: any) => d.tags.some((t: any) => t.name !== 'GraphQL')).map((d: any) => d.title);
    const got = (await get('/api/articles?fields[0]=title&filters[$not][tags][name][$eq]=GraphQL&pagination[pageSize]=100&sort=id')).data.map((d: any) => d.title);
    assert.deepEqual(got, want);
    assert.ok(all.some((d: any) => d.tags.length === 0) && all.some((d: any) => d.tags.length > 1), 'the data has both kinds');
  });

  test('a to-one relation: entries without one are not matched either', async () => {
    const all = (await get('/api/articles?fields[0]=title&populate[author][fields][0]=name&pagination[pageSize]=100&sort=id')).data;
    const want = all.filter((d: any) => d.author && d.author.name !== 'Ada Lovelace').map((d: any) => d.title);
    const got = (await get('/api/articles?fields[0]=title&filters[$not][author][name][$eq]=Ada Lovelace&pagination[pageSize]=100&sort=id')).data.map((d: any) => d.title);
    assert.deepEqual(got, want);
    assert.ok(all.some((d: any) => !d.author), 'some article has no author');
  });
});

describe('_q search', () => {
  test('any text attribute (and the id) contains the text, case-insensitively; with filters, both hold', async () => {
    const r = await get('/api/articles?_q=postgresql INDEX&fields[0]=title');
    assert.deepEqual(r.data.map((d: any) => d.title), [A1]);
    const slug = await get('/api/articles?_q=SOURDOUGH&fields[0]=slug');
    assert.deepEqual(slug.data.map((d: any) => d.slug), ['sourdough'], 'the uid is searched too');
    const both = await get('/api/articles?_q=sourdough&filters[views][$lt]=50&fields[0]=title');
    assert.deepEqual(both.data, []);
  });

  test('a number also searches the numeric attributes; % and * are literal', async () => {
    const n = await get('/api/articles?_q=100&fields[0]=title&fields[1]=views');
    assert.ok(n.data.some((d: any) => d.views === 100));
    assert.deepEqual((await get('/api/articles?_q=%25&fields[0]=title')).data.map((d: any) => d.title), ['Hello 100%_done'], 'a literal %');
    assert.deepEqual((await get('/api/articles?_q=*&fields[0]=title')).data, []);
  });
});

describe('sort', () => {
  const cases: Array<[string, string[]]> = [
    ['sort=title', [A2, A4, A3, A1]],
    ['sort=title:asc', [A2, A4, A3, A1]],
    ['sort=title:desc', [A1, A3, A4, A2]],
    ['sort=views:desc', [A3, A2, A1, A4]],
    ['sort=views:DESC', [A3, A2, A1, A4]],
    ['sort=featured:desc,views:asc', [A2, A4, A1, A3]],
    ['sort[0]=featured:desc&sort[1]=views:asc', [A2, A4, A1, A3]],
    ['sort[0]=featured:desc,views:desc', [A2, A3, A1, A4]],
    ['sort[views]=asc', [A4, A1, A2, A3]],
    ['sort[views]=desc', [A3, A2, A1, A4]],
    ['sort=rating:asc', [A1, A2, A4, A3]], // nulls last ascending (PostgreSQL, as in Strapi)
    ['sort=publishDate:desc', [A3, A4, A2, A1]], // nulls first descending, then id
    ['sort=author.name:asc', [A1, A2, A3, A4]],
    ['sort[author][name]=desc', [A4, A3, A2, A1]],
    ['sort=category.name:asc', [A1, A3, A2, A4]],
    ['sort=id:desc', [A4, A3, A2, A1]],
  ];
  for (const [q, expected] of cases) {
    test(q, async () => {
      assert.deepEqual(await titles(q), expected);
    });
  }

  test('through a to-many relation: by the least value ascending, the greatest descending (as Strapi)', async () => {
    const all = (await get('/api/articles?fields[0]=title&populate[tags][fields][0]=name&pagination[pageSize]=100')).data;
    const key = (d: any, desc: boolean) => {
      const names = d.tags.map((t: any) => t.name).sort();
      return names.length ? (desc ? names[names.length - 1] : names[0]) : null;
    };
    for (const desc of [false, true]) {
      const want = [...all].sort((x: any, y: any) => {
        const [a, b] = [key(x, desc), key(y, desc)];
        // PostgreSQL: nulls sort last ascending, first descending; ties by id.
        if (a !== b) return a === null ? (desc ? -1 : 1) : b === null ? (desc ? 1 : -1) : (a < b ? -1 : 1) * (desc ? -1 : 1);
        return x.id - y.id;
      }).map((d: any) => d.title);
      const got = (await get(`/api/articles?fields[0]=title&sort=tags.name:${desc ? 'desc' : 'asc'}&pagination[pageSize]=100`)).data.map((d: any) => d.title);
      assert.deepEqual(got, want, desc ? 'desc' : 'asc');
    }
    const nested = await s.fetchJson('GET', '/api/articles?fields[0]=title&sort=tags.articles.title:asc', undefined, TOKEN);
    assert.equal(nested.status, 200, nested.text);
  });

  test('sort applies before pagination', async () => {
    const b = await get('/api/articles?fields[0]=title&sort=views:desc&pagination[page]=2&pagination[pageSize]=2');
    assert.deepEqual(b.data.map((d: any) => d.title), [A1, A4]);
  });

  test('invalid sort: 400', async () => {
    assert.deepEqual(await badRequest('/api/articles?sort=nope:asc'),
      { status: 400, name: 'ValidationError', message: 'Invalid key nope', details: { key: 'nope', path: null, source: 'query', param: 'sort' } });
    assert.deepEqual(await badRequest('/api/articles?sort=title:sideways'),
      { status: 400, name: 'ValidationError', message: 'Invalid order. order can only be one of asc|desc|ASC|DESC', details: {} });
    assert.equal((await badRequest('/api/articles?sort[title]=up')).name, 'ValidationError');
    // Checked live: a relation is not a field to sort by (`owner:asc` reads as a field `asc` of it).
    assert.deepEqual(await badRequest('/api/articles?sort=author:asc'),
      { status: 400, name: 'ValidationError', message: 'Invalid key asc at author', details: { key: 'asc', path: 'author', source: 'query', param: 'sort' } });
  });
});

describe('pagination', () => {
  test('page and pageSize', async () => {
    const b = await get('/api/articles?fields[0]=title&pagination[page]=2&pagination[pageSize]=3');
    assert.deepEqual(b.data.map((d: any) => d.title), [A4]);
    assert.deepEqual(b.meta, { pagination: { page: 2, pageSize: 3, pageCount: 2, total: 4 } });
  });

  test('a page past the end is empty but counted', async () => {
    const b = await get('/api/articles?fields[0]=title&pagination[page]=100&pagination[pageSize]=5');
    assert.deepEqual(b.data, []);
    assert.deepEqual(b.meta, { pagination: { page: 100, pageSize: 5, pageCount: 1, total: 4 } });
  });

  test('start and limit', async () => {
    const b = await get('/api/articles?fields[0]=title&pagination[start]=1&pagination[limit]=2');
    assert.deepEqual(b.data.map((d: any) => d.title), [A2, A3]);
    assert.deepEqual(b.meta, { pagination: { start: 1, limit: 2, total: 4 } });
    const only = await get('/api/articles?fields[0]=title&pagination[limit]=1');
    assert.deepEqual(only.meta, { pagination: { start: 0, limit: 1, total: 4 } });
  });

  test('withCount=false leaves the totals out', async () => {
    const a = await get('/api/articles?fields[0]=title&pagination[page]=1&pagination[pageSize]=3&pagination[withCount]=false');
    assert.equal(a.data.length, 3);
    assert.deepEqual(a.meta, { pagination: { page: 1, pageSize: 3 } });
    const b = await get('/api/articles?fields[0]=title&pagination[start]=0&pagination[limit]=3&pagination[withCount]=false');
    assert.equal(b.data.length, 3);
    assert.deepEqual(b.meta, { pagination: { start: 0, limit: 3 } });
  });

  test('out-of-range values are clamped as Strapi does', async () => {
    assert.deepEqual((await get('/api/articles?fields[0]=title&pagination[page]=0')).meta.pagination, { page: 1, pageSize: 25, pageCount: 1, total: 4 });
    assert.deepEqual((await get('/api/articles?fields[0]=title&pagination[page]=-1')).meta.pagination, { page: 1, pageSize: 25, pageCount: 1, total: 4 });
    const zero = await get('/api/articles?fields[0]=title&pagination[pageSize]=0');
    assert.equal(zero.data.length, 1);
    assert.deepEqual(zero.meta.pagination, { page: 1, pageSize: 1, pageCount: 4, total: 4 });
    assert.deepEqual((await get('/api/articles?fields[0]=title&pagination[start]=-1')).meta.pagination, { start: 0, limit: 25, total: 4 });
  });

  test('pageSize and limit are clamped to maxLimit (100)', async () => {
    const sql = s.sql();
    await sql`insert into tags (document_id, name, published_at) select 'bulk' || lpad(g::text, 20, '0'), 'bulk ' || g, now() from generate_series(1, 110) g`;
    try {
      const a = await get('/api/tags?fields[0]=name&pagination[pageSize]=1000&filters[name][$startsWith]=bulk');
      assert.equal(a.data.length, 100);
      assert.deepEqual(a.meta, { pagination: { page: 1, pageSize: 100, pageCount: 2, total: 110 } });
      const b = await get('/api/tags?fields[0]=name&pagination[limit]=1000&filters[name][$startsWith]=bulk');
      assert.equal(b.data.length, 100);
      assert.deepEqual(b.meta, { pagination: { start: 0, limit: 100, total: 110 } });
      const c = await get('/api/tags?fields[0]=name&filters[name][$startsWith]=bulk');
      assert.equal(c.data.length, 25, 'default page size');
    } finally {
      await sql`delete from tags where document_id like 'bulk%'`;
    }
  });

  test('mixing page and offset pagination: 400 PaginationError', async () => {
    assert.deepEqual(await badRequest('/api/articles?pagination[page]=1&pagination[limit]=5'),
      { status: 400, name: 'PaginationError', message: 'Cannot use both page & offset pagination in the same query', details: {} });
    assert.equal((await badRequest('/api/articles?pagination[pageSize]=1&pagination[start]=5')).name, 'PaginationError');
  });

  test('non-numeric values: 400', async () => {
    assert.deepEqual(await badRequest('/api/articles?pagination[page]=abc'),
      { status: 400, name: 'ValidationError', message: 'convertStartQueryParams expected a positive integer got NaN', details: {} });
    assert.equal((await badRequest('/api/articles?pagination[limit]=x')).name, 'ValidationError');
    assert.equal((await badRequest('/api/articles?pagination[start]=1.5')).name, 'ValidationError');
  });
});

describe('fields', () => {
  test('array, comma list, timestamps and locale', async () => {
    const a = await get('/api/articles?fields[0]=title&fields[1]=views&fields[2]=rating&sort=id:asc&pagination[pageSize]=1');
    assert.deepEqual(a.data, [{ id: a.data[0].id, documentId: ids.a1, title: A1, views: 10, rating: 1.5 }]);
    const b = await get('/api/articles?fields=title,slug&sort=id:asc&pagination[pageSize]=1');
    assert.deepEqual(Object.keys(b.data[0]), ['id', 'documentId', 'title', 'slug']);
    const c = await get(`/api/articles/${ids.a1}?fields[0]=createdAt&fields[1]=locale&fields[2]=publishedAt`);
    assert.deepEqual(Object.keys(c.data), ['id', 'documentId', 'createdAt', 'locale', 'publishedAt']);
    assert.equal(c.data.locale, 'en');
    // Named fields answer in the order named, system fields among the attributes (as Strapi 5.54 live).
    const d = await get(`/api/articles/${ids.a1}?fields[0]=title&fields[1]=createdAt&fields[2]=locale&fields[3]=views`);
    assert.deepEqual(Object.keys(d.data), ['id', 'documentId', 'title', 'createdAt', 'locale', 'views']);
    const e = await get(`/api/articles/${ids.a1}?fields[0]=views&fields[1]=title`);
    assert.deepEqual(Object.keys(e.data), ['id', 'documentId', 'views', 'title']);
  });

  test('no fields / fields=* return every visible scalar in model order', async () => {
    const keys = ['id', 'documentId', 'title', 'slug', 'description', 'body', 'content', 'featured', 'views', 'rating', 'publishDate', 'kind', 'metadata', 'createdAt', 'updatedAt', 'publishedAt', 'locale'];
    assert.deepEqual(Object.keys((await get(`/api/articles/${ids.a1}`)).data), keys);
    assert.deepEqual(Object.keys((await get(`/api/articles/${ids.a1}?fields=*`)).data), keys);
  });

  test('fields of a populated relation', async () => {
    const b = await get(`/api/articles/${ids.a1}?fields[0]=slug&populate[category][fields][0]=slug`);
    assert.deepEqual(b.data, { id: b.data.id, documentId: ids.a1, slug: 'pg-indexes', category: { id: b.data.category.id, documentId: ids.dbs, slug: 'databases' } });
  });

  test('an unknown field: 400', async () => {
    assert.deepEqual(await badRequest('/api/articles?fields[0]=nope'),
      { status: 400, name: 'ValidationError', message: 'Invalid key nope', details: { key: 'nope', path: null, source: 'query', param: 'fields' } });
    assert.equal((await badRequest('/api/articles?fields[0]=author')).name, 'ValidationError');
  });
});

describe('populate', () => {
  test('populate=* populates every relation, media, component and zone one level deep', async () => {
    const r = await s.fetchJson('GET', '/api/articles?populate=*&sort=id:asc&pagination[pageSize]=2');
    assert.equal(r.status, 200);
    // Eight populates: split in two statements run at once (src/rest/split-read.ts).
    assert.equal(r.headers['x-sql-statements'], '2');
    const [a1, a2] = r.body.data;
    for (const k of ['cover', 'gallery', 'author', 'category', 'tags', 'seo', 'blocks', 'localizations']) assert.ok(k in a1, k);
    assert.deepEqual(Object.keys(a1.author), ['id', 'documentId', 'name', 'email', 'bio', 'createdAt', 'updatedAt', 'publishedAt']);
    assert.equal(a1.author.name, 'Ada Lovelace');
    assert.ok(!('avatar' in a1.author), 'second level is not populated');
    assert.deepEqual(Object.keys(a1.category), ['id', 'documentId', 'name', 'slug', 'description', 'createdAt', 'updatedAt', 'publishedAt']);
    assert.deepEqual(a1.tags.map((t: any) => t.name), ['REST', 'GraphQL'], 'to-many relations keep their connect order');
    assert.deepEqual(Object.keys(a1.seo), ['id', 'metaTitle', 'metaDescription', 'keywords']);
    assert.deepEqual(a1.blocks.map((b: any) => b.__component), ['shared.quote', 'shared.rich-text', 'shared.media', 'shared.slider']);
    assert.deepEqual(Object.keys(a1.blocks[2]), ['id', '__component'], 'media inside a zone needs its own populate');
    assert.equal(a1.cover.name, 'cover-blue.png');
    assert.deepEqual(Object.keys(a1.cover), ['id', 'documentId', 'name', 'alternativeText', 'caption', 'focalPoint', 'width', 'height', 'formats', 'hash', 'ext', 'mime', 'size', 'url', 'previewUrl', 'provider', 'provider_metadata', 'createdAt', 'updatedAt', 'publishedAt']);
    assert.deepEqual(a1.gallery, []);
    assert.deepEqual(a1.localizations.map((l: any) => [l.locale, l.title]), [['fr', FR]]);
    assert.deepEqual(a2.gallery.map((f: any) => f.name), ['cover-blue.png', 'cover-red.png']);
    assert.deepEqual(a2.blocks, []);
  });

  test('populated keys come in Strapi\'s recorded order', async () => {
    // recorded cases 112/200: the dynamic zone after localizations
    const b = await get(`/api/articles/${ids.a1}?populate=*`);
    assert.deepEqual(Object.keys(b.data).slice(-8), ['cover', 'gallery', 'author', 'category', 'tags', 'seo', 'localizations', 'blocks']);
    // recorded case 125: request order for dotted paths
    const two = await get(`/api/articles/${ids.a1}?fields[0]=title&populate[0]=seo.shareImage&populate[1]=author.avatar`);
    assert.deepEqual(Object.keys(two.data), ['id', 'documentId', 'title', 'seo', 'author']);
    // recorded case 15: an entry with a nested populate comes after the plain ones
    const g = await get('/api/global?populate[defaultSeo][populate]=shareImage&populate[favicon][fields][0]=url');
    assert.deepEqual(Object.keys(g.data), ['id', 'documentId', 'siteName', 'siteDescription', 'createdAt', 'updatedAt', 'publishedAt', 'favicon', 'defaultSeo']);
    assert.deepEqual(g.data.favicon, { id: blue, documentId: g.data.favicon.documentId, url: '/uploads/cover-blue.png' });
    assert.equal(g.data.defaultSeo.shareImage.name, 'cover-red.png');
    // Object form: the entries with a nested populate come in the model's order (Strapi 5.54 live).
    const obj = await get(`/api/articles/${ids.a1}?fields[0]=title&populate[blocks][populate]=*&populate[tags][populate]=*&populate[seo][populate]=*&populate[author]=true`);
    assert.deepEqual(Object.keys(obj.data), ['id', 'documentId', 'title', 'author', 'tags', 'seo', 'blocks']);
    const pair = await get(`/api/articles/${ids.a1}?fields[0]=title&populate[blocks][populate]=*&populate[seo][populate]=*`);
    assert.deepEqual(Object.keys(pair.data), ['id', 'documentId', 'title', 'seo', 'blocks']);
    // recorded case 12: populate=* in model order
    const all = await get('/api/global?populate=*');
    assert.deepEqual(Object.keys(all.data).slice(-2), ['defaultSeo', 'favicon']);
  });

  test('an entry\'s value is a boolean: true|t|1 populate, false|f|0 do not', async () => {
    for (const [v, populated] of [['true', true], ['t', true], ['1', true], ['false', false], ['f', false], ['0', false]] as const) {
      const r = await get(`/api/articles/${ids.a1}?fields[0]=title&populate[author]=${v}`);
      assert.equal('author' in r.data, populated, v);
    }
  });

  test('array and comma forms', async () => {
    const a = await get('/api/articles?populate[0]=author&populate[1]=category&fields[0]=title&sort=id:asc&pagination[pageSize]=3');
    assert.deepEqual(a.data.map((d: any) => Object.keys(d)), Array(3).fill(['id', 'documentId', 'title', 'author', 'category']));
    assert.deepEqual(a.data.map((d: any) => [d.author?.name, d.category?.name]), [['Ada Lovelace', 'Databases'], ['Alan Turing', 'Technology'], ['Grace Hopper', 'Food']]);
    const b = await get('/api/articles?populate=author,category&fields[0]=title&sort=id:asc&pagination[pageSize]=3');
    assert.deepEqual(b.data, a.data);
  });

  test('object form with nested populate, fields, filters and sort', async () => {
    const b = await get(`/api/articles/${ids.a1}?fields[0]=title&populate[author][fields][0]=name&populate[author][populate][articles][fields][0]=title&populate[author][populate][articles][sort]=title:desc`);
    assert.deepEqual(b.data.author.articles.map((a: any) => a.title), [A1], 'only published articles of the author');
    assert.deepEqual(Object.keys(b.data.author), ['id', 'documentId', 'name', 'articles']);
    const f = await get('/api/articles?fields[0]=title&sort=id:asc&populate[tags][filters][name][$eq]=GraphQL&populate[tags][fields][0]=name');
    assert.deepEqual(f.data.map((d: any) => d.tags.map((t: any) => t.name)), [['GraphQL'], ['GraphQL'], [], []]);
    const srt = await get(`/api/articles/${ids.a1}?fields[0]=title&populate[tags][sort]=name:asc&populate[tags][fields][0]=name`);
    assert.deepEqual(srt.data.tags.map((t: any) => t.name), ['GraphQL', 'REST']);
    const nested = await get(`/api/articles/${ids.a1}?fields[0]=title&populate[category][populate][parent][populate][children][fields][0]=name`);
    assert.equal(nested.data.category.parent.name, 'Technology');
    assert.deepEqual(nested.data.category.parent.children.map((c: any) => c.name), ['Databases']);
  });

  test('a 3-level nested populate is one SQL statement, or two at once on an idle node', async () => {
    const r = await s.fetchJson('GET', '/api/articles?populate[author][populate][articles][populate][category][populate][parent]=true&populate[tags][populate][articles][fields][0]=title');
    assert.equal(r.status, 200, r.text);
    // The author's part beside the rest (src/rest/split-read.ts; test/split-read.test.ts).
    assert.equal(r.headers['x-sql-statements'], '2');
    const a1 = r.body.data.find((d: any) => d.documentId === ids.a1);
    assert.equal(a1.author.articles[0].category.parent.name, 'Technology');
    assert.deepEqual(a1.tags.map((t: any) => t.articles.map((a: any) => a.title)), [[A1], [A1, A2]]);
  });

  test('count', async () => {
    const b = await get(`/api/articles/${ids.a1}?fields[0]=title&populate[tags][count]=true`);
    assert.deepEqual(b.data.tags, { count: 2 });
    const c = await get(`/api/authors/${ids.ada}?fields[0]=name&populate[articles][count]=true`);
    assert.deepEqual(c.data.articles, { count: 1 }, 'the draft-only article is not counted');
  });

  test('component populate and dotted paths', async () => {
    const seo = await get(`/api/articles/${ids.a1}?fields[0]=title&populate=seo`);
    assert.deepEqual(Object.keys(seo.data.seo), ['id', 'metaTitle', 'metaDescription', 'keywords']);
    const dotted = await get(`/api/articles/${ids.a1}?fields[0]=title&populate=seo.shareImage`);
    assert.equal(dotted.data.seo.shareImage.name, 'cover-red.png');
    assert.equal(dotted.data.seo.metaTitle, 'Indexes SEO');
    const two = await get(`/api/articles/${ids.a1}?fields[0]=title&populate[0]=seo.shareImage&populate[1]=author.avatar`);
    assert.equal(two.data.seo.shareImage.name, 'cover-red.png');
    assert.equal(two.data.author.avatar.name, 'cover-blue.png');
    const none = await get(`/api/articles/${ids.a3}?fields[0]=title&populate=seo.shareImage`);
    assert.equal(none.data.seo, null);
  });

  test('media populate with fields', async () => {
    const b = await get(`/api/articles/${ids.a2}?fields[0]=title&populate[gallery][fields][0]=name&populate[gallery][fields][1]=url`);
    assert.deepEqual(b.data.gallery.map((f: any) => Object.keys(f)), [['id', 'documentId', 'name', 'url'], ['id', 'documentId', 'name', 'url']]);
    assert.deepEqual(b.data.gallery.map((f: any) => f.url), ['/uploads/cover-blue.png', '/uploads/cover-red.png']);
  });

  test('dynamic zone: plain, shared populate and per-component `on`', async () => {
    const plain = await get(`/api/articles/${ids.a1}?fields[0]=title&populate=blocks`);
    assert.deepEqual(plain.data.blocks.map((b: any) => Object.keys(b)), [['id', 'title', 'body', '__component'], ['id', 'body', '__component'], ['id', '__component'], ['id', '__component']]);
    const shared = await get(`/api/articles/${ids.a1}?fields[0]=title&populate[blocks][populate]=*`);
    assert.equal(shared.data.blocks[2].file.name, 'cover-blue.png');
    assert.deepEqual(shared.data.blocks[3].files.map((f: any) => f.name), ['cover-red.png', 'cover-blue.png']);
    assert.equal(shared.data.blocks[0].title, 'Q1');
    const on = await get(`/api/articles/${ids.a1}?fields[0]=title&populate[blocks][on][shared.slider][populate][files][fields][0]=url&populate[blocks][on][shared.quote][fields][0]=title`);
    assert.deepEqual(on.data.blocks.map((b: any) => ({ ...b, id: 0 })), [
      { id: 0, title: 'Q1', __component: 'shared.quote' },
      { id: 0, files: [{ id: red, documentId: on.data.blocks[1].files[0].documentId, url: '/uploads/cover-red.png' }, { id: blue, documentId: on.data.blocks[1].files[1].documentId, url: '/uploads/cover-blue.png' }], __component: 'shared.slider' },
    ], 'only the components named under `on` are returned');
    assert.equal(on.data.blocks.length, 2);
    // A list of names as a zone's shared populate is refused, as Strapi does.
    const list = await s.fetchJson('GET', `/api/articles/${ids.a1}?populate[blocks][populate][0]=file`, undefined, TOKEN);
    assert.equal(list.status, 400);
    assert.deepEqual(list.body.error, { status: 400, name: 'ValidationError', message: 'Invalid key populate at blocks', details: { key: 'populate', path: 'blocks', source: 'query', param: 'populate' } });
    // A populate of no known form: Strapi's message.
    const mixed = await s.fetchJson('GET', '/api/global?populate[defaultSeo][populate]=*&populate=favicon', undefined, TOKEN);
    assert.equal(mixed.status, 400);
    assert.equal(mixed.body.error.message, 'Invalid populate parameter. Expected a string, an array of strings, a populate object');
  });

  test('localizations', async () => {
    const b = await get(`/api/articles/${ids.a1}?fields[0]=title&populate=localizations`);
    assert.equal(b.data.localizations.length, 1);
    assert.equal(b.data.localizations[0].title, FR);
    assert.equal(b.data.localizations[0].locale, 'fr');
    assert.equal(b.data.localizations[0].documentId, ids.a1);
    const fr = await get(`/api/articles/${ids.a1}?locale=fr&fields[0]=title&populate=localizations`);
    assert.deepEqual(fr.data.localizations.map((l: any) => l.title), [A1]);
    // Every locale at once: Strapi answers each entry's localizations empty.
    const all = await get(`/api/articles?locale=*&fields[0]=title&populate=localizations&filters[documentId][$eq]=${ids.a1}`);
    assert.equal(all.data.length, 2);
    assert.deepEqual(all.data.map((x: any) => x.localizations), [[], []]);
  });

  test('inverse and self relations populate', async () => {
    const c = await get('/api/categories?populate[0]=parent&populate[1]=children&fields[0]=name&sort=id:asc');
    assert.deepEqual(c.data.map((x: any) => [x.name, x.parent?.name ?? null, x.children.map((y: any) => y.name)]), [
      ['Technology', null, ['Databases']], ['Databases', 'Technology', []], ['Food', null, []],
    ]);
    const t = await get(`/api/tags/${ids.GraphQL}?populate[articles][fields][0]=title`);
    assert.deepEqual(t.data.articles.map((a: any) => a.title), [A1, A2]);
  });

  test('a to-one relation with two link rows (as migrated data can have): the first link whose target passes, the row once', async () => {
    const sql = s.sql();
    const [row] = await sql`select id from articles where document_id = ${ids.a2} and published_at is not null and locale = 'en'`;
    const [food] = await sql`select id from categories where document_id = ${ids.food} and published_at is not null`;
    const [tech] = await sql`select category_id, article_ord from articles_category_lnk where article_id = ${row.id}`;
    // Food's link first (lower id), then Technology's again.
    await sql`delete from articles_category_lnk where article_id = ${row.id}`;
    await sql`insert into articles_category_lnk (article_id, category_id, article_ord) values (${row.id}, ${food.id}, 99), (${row.id}, ${tech.category_id}, ${tech.article_ord})`;
    try {
      const list = await get('/api/articles?fields[0]=title&populate[category][fields][0]=name&sort=id:asc&pagination[pageSize]=100');
      assert.deepEqual(list.data.map((d: any) => [d.title, d.category?.name ?? null]), [[A1, 'Databases'], [A2, 'Food'], [A3, 'Food'], [A4, null]]);
      assert.equal(list.meta.pagination.total, 4);
      const kept = await get('/api/articles?fields[0]=title&populate[category][fields][0]=name&populate[category][filters][name][$eq]=Technology&sort=id:asc');
      assert.deepEqual(kept.data.map((d: any) => [d.title, d.category?.name ?? null]), [[A1, null], [A2, 'Technology'], [A3, null], [A4, null]]);
      const one = await get(`/api/articles/${ids.a2}?fields[0]=title&populate[category][fields][0]=name`);
      assert.equal(one.data.category.name, 'Food');
    } finally {
      await sql`delete from articles_category_lnk where article_id = ${row.id}`;
      await sql`insert into articles_category_lnk (article_id, category_id, article_ord) values (${row.id}, ${tech.category_id}, ${tech.article_ord})`;
    }
    assert.equal((await get(`/api/articles/${ids.a2}?populate[category][fields][0]=name`)).data.category.name, 'Technology');
  });

  test('link columns a foreign key keeps: read from the catalog, and to-one reads skip checking their earlier links\' targets', async () => {
    // The server's own statement: the database it made has Strapi's keys (<table>_ifk, on delete cascade).
    let seen = '';
    queryTap.fn = (text) => { if (/\bas data\b/.test(text)) seen = text; };
    try { assert.equal((await get(`/api/articles/${ids.a2}?fields[0]=title&populate[category][fields][0]=name`)).data.category.name, 'Technology'); } finally { queryTap.fn = null; }
    assert.match(seen, /not exists \(select 1 from "articles_category_lnk" lt(\d+) where lt\1\."article_id" = t0\.id and lt\1\.id < lt\d+\.id\)/);
    // Which keys count, on tables of their own: validated, not deferrable, one column, to the target's id.
    const sql = s.sql();
    await sql.unsafe(`drop schema if exists fk_probe cascade; create schema fk_probe;
      create table fk_probe.t (id serial primary key, code int unique);
      create table fk_probe.kept_lnk (id serial primary key, a_id int, t_id int references fk_probe.t (id) on delete cascade);
      create table fk_probe.plain_lnk (id serial primary key, t_id int references fk_probe.t (id));
      create table fk_probe.unchecked_lnk (id serial primary key, t_id int);
      alter table fk_probe.unchecked_lnk add foreign key (t_id) references fk_probe.t (id) not valid;
      create table fk_probe.deferred_lnk (id serial primary key, t_id int references fk_probe.t (id) deferrable initially deferred);
      create table fk_probe.by_code_lnk (id serial primary key, t_code int references fk_probe.t (code));
      create table fk_probe.none_lnk (id serial primary key, t_id int)`);
    const probe = postgres(s.server.databaseUrl, { max: 1, onnotice: () => {}, connection: { search_path: 'fk_probe' } });
    try {
      const rows = await readKeyedColumns(probe);
      assert.deepEqual(rows.map((r) => `${r.table}.${r.column}>${r.target}`).sort(), ['kept_lnk.t_id>t', 'plain_lnk.t_id>t']);
    } finally { await probe.end(); await sql.unsafe('drop schema fk_probe cascade'); }
  });

  test('invalid populate: 400', async () => {
    assert.deepEqual(await badRequest('/api/articles?populate=**'),
      { status: 400, name: 'ValidationError', message: 'Invalid key **', details: { key: '**', path: '**', source: 'query', param: 'populate' } });
    for (const q of ['populate=nope', 'populate=title', 'populate[author][populate]=nope', 'populate[seo][populate][nope]=true', 'populate[blocks][on][shared.nope]=true', 'populate[author][foo]=1']) {
      assert.equal((await badRequest(`/api/articles?${q}`)).name, 'ValidationError', q);
    }
  });
});

describe('locale and status', () => {
  test('the default locale, another locale, all locales, an unknown locale', async () => {
    assert.deepEqual(await titles('sort=id:asc'), [A1, A2, A3, A4]);
    assert.deepEqual(await titles('locale=en&sort=id:asc'), [A1, A2, A3, A4]);
    assert.deepEqual(await titles('locale=fr'), [FR]);
    const all = await get('/api/articles?locale=*&fields[0]=title&fields[1]=locale&sort=id:asc');
    assert.deepEqual(all.data.map((d: any) => [d.locale, d.title]), [['en', A1], ['en', A2], ['en', A3], ['en', A4], ['fr', FR]]);
    assert.equal(all.meta.pagination.total, 5);
    const de = await get('/api/articles?locale=de&fields[0]=title');
    assert.deepEqual(de, { data: [], meta: { pagination: { page: 1, pageSize: 25, pageCount: 0, total: 0 } } });
  });

  test('one document in a locale it does not have: 404', async () => {
    const r = await s.fetchJson('GET', `/api/articles/${ids.a2}?locale=fr`);
    assert.equal(r.status, 404);
    assert.equal((await get(`/api/articles/${ids.a1}?locale=fr`)).data.title, FR);
  });

  test('status', async () => {
    assert.deepEqual(await titles('status=published&sort=id:asc'), [A1, A2, A3, A4]);
    const drafts = await get('/api/articles?status=draft&fields[0]=title&sort=id:asc');
    assert.deepEqual(drafts.data.map((d: any) => d.title), [A1, A2, A3, A4, DRAFT]);
    assert.deepEqual(await titles('status=archived&sort=id:asc'), [A1, A2, A3, A4, DRAFT], 'anything but published reads drafts');
    assert.deepEqual(await titles('filters[views][$eq]=7'), []);
    assert.deepEqual(await titles('status=draft&filters[views][$eq]=7'), [DRAFT]);
    assert.equal((await s.fetchJson('GET', `/api/articles/${ids.draft}`)).status, 404);
    assert.equal((await get(`/api/articles/${ids.draft}?status=draft`)).data.title, DRAFT);
  });

  test('status applies to populated draft & publish relations', async () => {
    const pub = await get(`/api/tags/${ids.Travel}?populate[articles][fields][0]=title`);
    assert.deepEqual(pub.data.articles, []);
    const dr = await get(`/api/tags/${ids.Travel}?status=draft&populate[articles][fields][0]=title`);
    assert.deepEqual(dr.data.articles.map((a: any) => a.title), [DRAFT]);
    const draftAuthor = await get(`/api/articles/${ids.draft}?status=draft&fields[0]=title&populate[author][fields][0]=name`);
    assert.equal(draftAuthor.data.author.name, 'Ada Lovelace');
  });

  test('status on types without draft & publish, and ignored parameters', async () => {
    const tags = await get('/api/tags?status=draft&pagination[pageSize]=2');
    assert.equal(tags.data.length, 2);
    assert.equal(tags.meta.pagination.total, 4);
    assert.deepEqual(await titles('publicationState=preview&sort=id:asc'), [A1, A2, A3, A4]);
    assert.deepEqual(await titles('foo=bar&sort=id:asc'), [A1, A2, A3, A4]);
  });
});

describe('one statement per read (two at once for a costly list on an idle node)', () => {
  for (const [q, n] of [
    ['/api/articles', 1], ['/api/articles?populate=*', 2], ['/api/articles/ID?populate=*', 1],
    ['/api/articles?populate[author][populate][articles][populate][tags]=true', 1],
    ['/api/articles?filters[tags][name][$eq]=GraphQL&populate[blocks][populate]=*&sort=author.name', 1], ['/api/authors?populate=*', 1],
  ] as const) {
    test(q, async () => {
      const r = await s.fetchJson('GET', q.replace('ID', ids.a1));
      assert.equal(r.status, 200);
      assert.equal(r.headers['x-sql-statements'], String(n));
    });
  }
});

// Last: it changes a draft. Strapi 5.54 sorts a draft & publish type by a virtual `status` (its
// validator lets the key through, its order-by helper ranks a row 0 when its document was never
// published, 1 when the row is newer than the published one, 2 otherwise).
describe('sort by status', () => {
  test('drafts never published, then modified, then published; an invalid key elsewhere', async () => {
    const r = await s.fetchJson('PUT', `/api/articles/${ids.a2}?status=draft`, { data: { views: 51 } }, TOKEN);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(await titles('status=draft&sort=status:asc,title:asc'), [DRAFT, A2, A4, A3, A1]);
    assert.deepEqual(await titles('status=draft&sort[0]=status:desc&sort[1]=title:asc'), [A4, A3, A1, A2, DRAFT]);
    assert.deepEqual(await titles('sort=status:asc,title:desc'), [A1, A3, A4, A2]);
    const tags = await s.fetchJson('GET', '/api/tags?sort=status:asc', undefined, TOKEN);
    assert.equal(tags.status, 400);
    assert.equal(tags.body.error.message, 'Invalid key status');
  });
});
