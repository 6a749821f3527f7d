// What the benchmark requests. Read scenarios also name the content-type route, shape and documentId,
// so the runner can compile the very same SQL the server runs and measure PostgreSQL alone.
import { docId, countsFor, UPDATE_TAG, type SizeName } from './seed.ts';

export interface ReadScenario {
  kind: 'read';
  name: string;
  /** Route segment under /api (plural for collections, singular for single types). */
  route: string;
  shape: 'list' | 'one';
  documentId?: string;
  /** Raw query string without `?`, exactly as sent (the compiler gets the same text). */
  query: string;
  /** What a correct answer looks like beyond a 2xx: guards against benchmarking an empty result. */
  expect: 'non-empty-list' | 'object';
  /** Answered from the response cache (the others send `Cache-Control: no-cache`, which bypasses it). */
  cached?: boolean;
  /** Measured with the indexes `npm run indexes -- --for` advises for it (its own filters and sort). */
  indexes?: true;
}

/** The load thread turns `vary` into an autocannon setupRequest (functions cannot cross threads). */
export interface WriteScenario {
  kind: 'write';
  name: string;
  method: 'POST' | 'PUT';
  path: string;
  /** How each request's body differs from the previous one. */
  vary: 'create-tag' | 'update-tag' | 'update-article';
}

/** A GraphQL operation (v5 shape) sent as one POST; it must answer 200 without `errors`. */
export interface GraphqlScenario {
  kind: 'graphql';
  name: string;
  body: string;
  cached?: boolean;
}

export type Scenario = ReadScenario | WriteScenario | GraphqlScenario;

const gql = (query: string, variables: Record<string, unknown> = {}) => JSON.stringify({ query, variables });

/** Strapi clients (qs.stringify) percent-encode brackets; do the same so the server decodes real input. */
function qs(pairs: Array<[string, string | number | boolean]>): string {
  return pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&');
}

export function scenarios(size: SizeName): Scenario[] {
  const counts = countsFor(size);
  const middle = docId('article', Math.ceil(counts.articles / 2));
  return [
    { kind: 'read', name: 'list', route: 'articles', shape: 'list', query: '', expect: 'non-empty-list' },
    { kind: 'read', name: 'list populate=*', route: 'articles', shape: 'list', query: qs([['populate', '*']]), expect: 'non-empty-list' },
    {
      kind: 'read', name: 'list deep populate', route: 'articles', shape: 'list', expect: 'non-empty-list',
      // Three relation levels (author → articles → category), a component with its media, and a
      // dynamic zone with the per-component `on` strategy.
      query: qs([
        ['populate[author][populate][articles][populate][category]', true],
        ['populate[seo][populate]', '*'],
        ['populate[cover]', true],
        ['populate[tags][fields][0]', 'name'],
        ['populate[blocks][on][shared.quote]', true],
        ['populate[blocks][on][shared.rich-text]', true],
        ['populate[blocks][on][shared.media][populate]', '*'],
      ]),
    },
    {
      kind: 'read', name: 'list filter+sort+page', route: 'articles', shape: 'list', expect: 'non-empty-list', indexes: true,
      query: qs([
        ['filters[kind][$eq]', 'tutorial'],
        ['filters[views][$gte]', 1000],
        ['filters[category][name][$startsWith]', 'Category 1'],
        ['sort[0]', 'publishDate:desc'],
        ['sort[1]', 'title:asc'],
        ['pagination[page]', 2],
        ['pagination[pageSize]', 10],
        ['fields[0]', 'title'],
        ['fields[1]', 'slug'],
        ['fields[2]', 'views'],
        ['fields[3]', 'publishDate'],
        ['populate[category][fields][0]', 'name'],
      ]),
    },
    // The rest of issue 31's sizes table: pages far from the first, no count, search, a broad relation
    // filter sorted by a relation's field, one document with its populate.
    {
      kind: 'read', name: 'list late page', route: 'articles', shape: 'list', expect: 'non-empty-list',
      query: qs([['pagination[page]', Math.max(1, Math.floor(counts.articles / 25) - 1)], ['pagination[pageSize]', 25]]),
    },
    { kind: 'read', name: 'list withCount=false', route: 'articles', shape: 'list', query: qs([['pagination[withCount]', 'false']]), expect: 'non-empty-list' },
    { kind: 'read', name: 'list _q', route: 'articles', shape: 'list', query: qs([['_q', `article ${Math.ceil(counts.articles / 2) + 7}`]]), expect: 'non-empty-list' },
    {
      kind: 'read', name: 'list category + author sort', route: 'articles', shape: 'list', expect: 'non-empty-list', indexes: true,
      query: qs([['filters[category][name][$eq]', 'Category 7'], ['sort[0]', 'author.name:asc']]),
    },
    { kind: 'read', name: 'get one', route: 'articles', shape: 'one', documentId: middle, query: '', expect: 'object' },
    { kind: 'read', name: 'get one populate=*', route: 'articles', shape: 'one', documentId: middle, query: qs([['populate', '*']]), expect: 'object' },
    { kind: 'read', name: 'single type', route: 'global', shape: 'one', query: '', expect: 'object' },
    // The same requests answered from the response cache (a hit costs about what a static reply does).
    { kind: 'read', name: 'list populate=* (cached)', route: 'articles', shape: 'list', query: qs([['populate', '*']]), expect: 'non-empty-list', cached: true },
    { kind: 'read', name: 'get one (cached)', route: 'articles', shape: 'one', documentId: middle, query: '', expect: 'object', cached: true },
    { kind: 'write', name: 'create tag', method: 'POST', path: '/api/tags', vary: 'create-tag' },
    { kind: 'write', name: 'update tag', method: 'PUT', path: `/api/tags/${docId('tag', UPDATE_TAG)}`, vary: 'update-tag' },
    // Draft & publish: every PUT updates the draft and publishes it anew, all on one document (the
    // writes queue on its lock, as 50 editors saving one page would).
    { kind: 'write', name: 'update article (publish)', method: 'PUT', path: `/api/articles/${docId('article', 1)}`, vary: 'update-article' },
    {
      kind: 'graphql', name: 'graphql list nested',
      body: gql('query { articles(pagination: {pageSize: 25}) { documentId title slug views publishedAt author { name email } category { name slug } tags { name } } }'),
    },
    {
      kind: 'graphql', name: 'graphql get one',
      body: gql('query ($id: ID!) { article(documentId: $id) { documentId title description views author { name } seo { metaTitle } } }', { id: middle }),
    },
    {
      kind: 'graphql', name: 'graphql list nested (cached)', cached: true,
      body: gql('query { articles(pagination: {pageSize: 25}) { documentId title slug views publishedAt author { name email } category { name slug } tags { name } } }'),
    },
  ];
}

/**
 * The small-database goals' reads (issue 31) on the blog Strapi made (`../shared/strapi-reference/
 * blog-strapi-5.54.sql`, the conformance seed): the benchmark's list, populate and GraphQL reads as they
 * are, a filter its content matches, and `article` (a documentId of it) for the get-one reads.
 */
export function blogScenarios(article: string): Array<ReadScenario | GraphqlScenario> {
  const bench = scenarios('1k');
  const named = (n: string) => bench.find((s) => s.name === n) as ReadScenario | GraphqlScenario;
  return [
    named('list'), named('list populate=*'), named('list deep populate'),
    {
      kind: 'read', name: 'list filter+sort+page', route: 'articles', shape: 'list', expect: 'non-empty-list',
      query: qs([
        ['filters[kind][$eq]', 'news'], ['filters[views][$gte]', 100], ['filters[category][name][$startsWith]', 'T'],
        ['sort[0]', 'publishDate:desc'], ['sort[1]', 'title:asc'], ['pagination[page]', 1], ['pagination[pageSize]', 10],
        ['fields[0]', 'title'], ['fields[1]', 'slug'], ['fields[2]', 'views'], ['fields[3]', 'publishDate'], ['populate[category][fields][0]', 'name'],
      ]),
    },
    { kind: 'read', name: 'get one', route: 'articles', shape: 'one', documentId: article, query: '', expect: 'object' },
    { kind: 'read', name: 'get one populate=*', route: 'articles', shape: 'one', documentId: article, query: qs([['populate', '*']]), expect: 'object' },
    named('single type'),
    named('graphql list nested'),
    {
      kind: 'graphql', name: 'graphql get one',
      body: gql('query ($id: ID!) { article(documentId: $id) { documentId title description views author { name } seo { metaTitle } } }', { id: article }),
    },
  ];
}

export const path = (s: ReadScenario): string =>
  `/api/${s.route}${s.documentId ? `/${s.documentId}` : ''}${s.query ? `?${s.query}` : ''}`;
