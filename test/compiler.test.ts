// Unit tests of the query compiler (no database): query string → validated AST → SQL text + params,
// with Strapi v5's validation errors (as recorded in shared/conformance/cases/rest.jsonl) and the
// two-level plan cache.
import { test, describe } from 'node:test';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { loadModels } from '../src/models.ts';
import { defaults } from '../config.ts';
import { Compiler, listMeta, shapeKey, type ReadPlan } from '../compiler/index.ts';
import { buildReadQuery } from '../compiler/params.ts';
import { compileRead } from '../compiler/sql.ts';
import { cacheTableOf } from '../compiler/render-cache.ts';
import { parseQueryString } from '../compiler/querystring.ts';
import { ApiError } from '../compiler/errors.ts';
import { keyedColumns, type KeyedColumn } from '../compiler/foreign-keys.ts';
import { DEMO_MODELS, ALL_TYPES_MODELS } from './helpers.ts';

const schema = loadModels(DEMO_MODELS, { defaultLocale: 'en', locales: ['en', 'fr'] });
// The SQL shapes below are the live renders; the render cache's variant has its own tests at the end.
const OPTS = { ...defaults.api.rest, renderCache: false };
const ct = (route: string) => schema.routes.get(route)!;
const fresh = () => new Compiler(schema, OPTS);

function plan(route: string, query: string, documentId?: string): ReadPlan {
  return fresh().read(ct(route), documentId === undefined ? 'list' : 'one', query, documentId);
}

/** The WHERE clause of the root row query (after the draft/locale conditions for articles). */
function where(p: ReadPlan): string {
  const m = / from "\w+" r0 where (.*?) order by r0\./.exec(p.sql.text) ?? / from "\w+" r0 where (.*?) order by /.exec(p.sql.text);
  assert.ok(m, `no root where in ${p.sql.text}`);
  return m[1];
}
const ART = 'r0.published_at is not null and r0.locale = $1::text and ';
/** The lateral subquery a row's JSON object is read from (compiler/sql.ts jsonText), as a regex part. */
const OBJ = String.raw` cross join lateral \(select .*?\) o\d+`;
/** The root filter of an articles query, without the status and locale conditions. */
const artFilter = (q: string) => {
  const w = where(plan('articles', q));
  assert.ok(w.startsWith(ART), w);
  return w.slice(ART.length);
};

function apiError(fn: () => unknown): ApiError {
  try { fn(); } catch (e) {
    assert.ok(e instanceof ApiError, `expected an ApiError, got ${String(e)}`);
    return e;
  }
  return assert.fail('no error thrown');
}
/** The error envelope's `error` object the server would send for a query. */
function queryError(route: string, query: string): Record<string, unknown> {
  const e = apiError(() => plan(route, query));
  return { status: e.status, name: e.errorName, message: e.message, details: e.details };
}

describe('operators (SQL fragment and parameter values)', () => {
  const text: Array<[string, string, unknown]> = [
    ['$eq', 'r0."name" = $1::text', 'Ada'],
    ['$eqi', 'lower(r0."name") = lower($1::text)', 'Ada'],
    ['$ne', 'r0."name" <> $1::text', 'Ada'],
    ['$nei', 'lower(r0."name") <> lower($1::text)', 'Ada'],
    ['$lt', 'r0."name" < $1::text', 'Ada'],
    ['$lte', 'r0."name" <= $1::text', 'Ada'],
    ['$gt', 'r0."name" > $1::text', 'Ada'],
    ['$gte', 'r0."name" >= $1::text', 'Ada'],
    ['$contains', 'r0."name" like $1::text', '%Ada%'],
    ['$notContains', 'not (r0."name" like $1::text)', '%Ada%'],
    ['$containsi', 'r0."name" ilike $1::text', '%Ada%'],
    ['$notContainsi', 'not (r0."name" ilike $1::text)', '%Ada%'],
    ['$startsWith', 'r0."name" like $1::text', 'Ada%'],
    ['$startsWithi', 'r0."name" ilike $1::text', 'Ada%'],
    ['$endsWith', 'r0."name" like $1::text', '%Ada'],
    ['$endsWithi', 'r0."name" ilike $1::text', '%Ada'],
  ];
  for (const [op, sql, value] of text) {
    test(`${op} on a text attribute`, () => {
      const p = plan('authors', `filters[name][${op}]=Ada`);
      assert.equal(where(p), sql);
      assert.deepEqual(p.params, [value]);
    });
  }

  test('a bare value means $eq; a list means $in', () => {
    assert.equal(where(plan('authors', 'filters[name]=Ada')), 'r0."name" = $1::text');
    const p = plan('authors', 'filters[name][0]=Ada&filters[name][1]=Alan');
    assert.equal(where(p), 'r0."name" = any($1::text::text[])');
    assert.deepEqual(p.params, ['{"Ada","Alan"}']);
    assert.equal(where(plan('authors', 'filters[name][$eq][0]=Ada&filters[name][$eq][1]=Alan')), 'r0."name" = any($1::text::text[])');
    // Strapi's where builder: any other operator given a list matches any of the values (so `$ne` a list
    // is nearly always true, as there).
    assert.equal(where(plan('authors', 'filters[name][$ne][0]=Ada&filters[name][$ne][1]=Alan')), '(r0."name" <> $1::text or r0."name" <> $2::text)');
    assert.equal(where(plan('authors', 'filters[name][$containsi][0]=ad&filters[name][$containsi][1]=al')), '(r0."name" ilike $1::text or r0."name" ilike $2::text)');
    assert.equal(where(plan('authors', 'filters[name][$null]=yes')), 'r0."name" is null', 'any value but an explicit false one is true');
    assert.equal(where(plan('authors', 'filters[name][$notNull]=false')), 'r0."name" is null');
    // Checked live: only these spellings are false; in a list every non-empty value is true.
    assert.equal(where(plan('authors', 'filters[name][$null]=FALSE')), 'r0."name" is null');
    assert.equal(where(plan('authors', 'filters[name][$null]=f')), 'r0."name" is not null');
    assert.equal(where(plan('authors', 'filters[name][$null][0]=false')), 'r0."name" is null');
    // The length of such a list is structure: lists of two and of three values never share a plan.
    const c = fresh();
    const two = c.read(ct('authors'), 'list', 'filters[name][$containsi][0]=a&filters[name][$containsi][1]=b');
    const three = c.read(ct('authors'), 'list', 'filters[name][$containsi][0]=a&filters[name][$containsi][1]=b&filters[name][$containsi][2]=c');
    assert.notEqual(two.sql.text, three.sql.text);
    assert.deepEqual(three.params.slice(0, 3), ['%a%', '%b%', '%c%']);
  });

  test('$in and $notIn carry the whole list as one array parameter', () => {
    const p = plan('authors', 'filters[name][$in][0]=a&filters[name][$in][1]=b&filters[name][$in][2]=c');
    assert.equal(where(p), 'r0."name" = any($1::text::text[])');
    assert.deepEqual(p.params, ['{"a","b","c"}']);
    const n = plan('authors', 'filters[name][$notIn][0]=a');
    assert.equal(where(n), 'not (r0."name" = any($1::text::text[]))');
    assert.deepEqual(n.params, ['{"a"}']);
    // An empty text is a value of the list, as Strapi's (`$notIn` of it leaves out the rows without one too).
    const empty = plan('authors', 'filters[name][$in]=');
    assert.deepEqual(empty.params, ['{""}']);
    assert.throws(() => plan('articles', 'filters[views][$notIn][0]=1&filters[views][$notIn][1]='), (e: ApiError) => e.status === 400 && e.message === 'Invalid value "" for views');
    const i = plan('articles', 'filters[views][$in][0]=1&filters[views][$in][1]=2');
    assert.equal(where(i).slice(ART.length), 'r0."views" = any($2::text::integer[])');
    assert.deepEqual(i.params, ['en', '{"1","2"}']);
  });

  test('$null and $notNull decide IS NULL / IS NOT NULL and take no parameter', () => {
    const cases: Array<[string, string]> = [
      ['filters[email][$null]=true', 'r0."email" is null'], ['filters[email][$null]=false', 'r0."email" is not null'],
      ['filters[email][$notNull]=true', 'r0."email" is not null'], ['filters[email][$notNull]=false', 'r0."email" is null'],
      ['filters[email][$null]=1', 'r0."email" is null'], ['filters[email][$null]=t', 'r0."email" is null'],
    ];
    for (const [q, sql] of cases) {
      const p = plan('authors', q);
      assert.equal(where(p), sql, q);
      assert.deepEqual(p.params, [], q);
    }
  });

  test('$between takes two consecutive parameters', () => {
    const p = plan('articles', 'filters[views][$between][0]=10&filters[views][$between][1]=20');
    assert.equal(where(p).slice(ART.length), 'r0."views" between $2::integer and $3::integer');
    assert.deepEqual(p.params, ['en', '10', '20']);
    const d = plan('articles', 'filters[publishDate][$between][0]=2024-01-01&filters[publishDate][$between][1]=2024-12-31');
    assert.equal(where(d).slice(ART.length), 'r0."publish_date" between $2::date and $3::date');
  });

  test('comparisons cast the parameter to the column type', () => {
    const cases: Array<[string, string, unknown]> = [
      ['filters[views][$gt]=5', 'r0."views" > $2::integer', '5'],
      ['filters[rating][$lte]=4.5', 'r0."rating" <= $2::numeric', '4.5'],
      ['filters[featured][$eq]=true', 'r0."featured" = $2::boolean', true],
      ['filters[featured][$eq]=0', 'r0."featured" = $2::boolean', false],
      ['filters[publishDate][$gte]=2024-02-01', 'r0."publish_date" >= $2::date', '2024-02-01'],
      // Strapi keeps UTC wall-clock time in `timestamp without time zone`: the UTC instant is compared as such.
      ['filters[createdAt][$lt]=2024-01-01T10:00:00%2B02:00', 'r0."created_at" < $2::timestamp', '2024-01-01T08:00:00.000Z'],
      ['filters[id][$eq]=7', 'r0."id" = $2::bigint', '7'],
      ['filters[documentId][$eq]=abc', 'r0."document_id" = $2::text', 'abc'],
      ['filters[kind][$eq]=news', 'r0."kind" = $2::text', 'news'],
    ];
    for (const [q, sql, value] of cases) {
      const p = plan('articles', q);
      assert.equal(where(p).slice(ART.length), sql, q);
      assert.deepEqual(p.params, ['en', value], q);
    }
  });

  test('text operators on non-text columns compare the text form', () => {
    assert.equal(artFilter('filters[views][$contains]=1'), 'r0."views"::text like $2::text');
    assert.equal(artFilter('filters[views][$eqi]=1'), 'lower(r0."views"::text) = lower($2::text)');
  });

  test('LIKE wildcards and backslashes in values are escaped', () => {
    const p = plan('authors', 'filters[name][$contains]=50%25_off%5C');
    assert.deepEqual(p.params, ['%50\\%\\_off\\\\%']);
    assert.deepEqual(plan('authors', 'filters[name][$startsWith]=%25').params, ['\\%%']);
  });

  test('values are never part of the SQL text', () => {
    const evil = "x'; drop table authors; --";
    const p = plan('authors', `filters[name][$eq]=${encodeURIComponent(evil)}&filters[email][$containsi]=${encodeURIComponent(evil)}`);
    assert.ok(!p.sql.text.includes('drop table'));
    assert.deepEqual(p.params.slice(0, 2), [evil, `%${evil}%`]);
  });
});

describe('logical operators', () => {
  test('several keys are ANDed', () => {
    assert.equal(where(plan('authors', 'filters[name][$eq]=a&filters[email][$null]=true')), '(r0."name" = $1::text and r0."email" is null)');
  });
  test('$and / $or lists', () => {
    assert.equal(where(plan('authors', 'filters[$and][0][name][$eq]=a&filters[$and][1][email][$eq]=b')), '(r0."name" = $1::text and r0."email" = $2::text)');
    assert.equal(where(plan('authors', 'filters[$or][0][name][$eq]=a&filters[$or][1][email][$eq]=b')), '(r0."name" = $1::text or r0."email" = $2::text)');
  });
  // `not (…)` (SQL three-valued logic, as Strapi's knex `whereNot`) or a null-safe `not coalesce(…, false)`
  const NOT = (inner: string) => new RegExp(`^not (\\(${inner}\\)|coalesce\\(${inner}, false\\))$`);
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  test('$not negates the condition', () => {
    assert.match(where(plan('authors', 'filters[$not][name][$eq]=a')), NOT(esc('r0."name" = $1::text')));
    assert.match(where(plan('authors', 'filters[name][$not][$contains]=a')), NOT(esc('r0."name" like $1::text')));
  });
  test('nesting keeps the structure and the parameter order', () => {
    const p = plan('authors', 'filters[$or][0][$and][0][name][$eq]=a&filters[$or][0][$and][1][email][$eq]=b&filters[$or][1][$not][bio][$null]=true');
    const w = where(p);
    assert.ok(w.startsWith('((r0."name" = $1::text and r0."email" = $2::text) or not '), w);
    assert.match(w.slice('((r0."name" = $1::text and r0."email" = $2::text) or '.length, -1), NOT(esc('r0."bio" is null')));
    assert.deepEqual(p.params, ['a', 'b']);
  });
  test('operators combined on one attribute, and $or under an attribute', () => {
    assert.equal(artFilter('filters[views][$gt]=1&filters[views][$lt]=9'), '(r0."views" > $2::integer and r0."views" < $3::integer)');
    assert.equal(artFilter('filters[views][$or][0][$eq]=1&filters[views][$or][1][$eq]=9'), '(r0."views" = $2::integer or r0."views" = $3::integer)');
  });
  test('empty filters add no condition; a filters string is refused in Strapi 5.54\'s words (checked live)', () => {
    assert.throws(() => plan('authors', 'filters='), { message: 'The filters parameter must be an object or an array' });
    assert.equal(plan('authors', 'filters[$and]=').sql.text.includes(' r0 where '), false);
  });
});

describe('deep filters', () => {
  // Every relation is a link table: `<owner>_<attr>_lnk` with the owner's and the target's row ids.
  const AUTHOR = 'from "articles_author_lnk" lt1 join "authors" t1 on t1.id = lt1."author_id" where lt1."article_id" = r0.id';
  test('to-one relation on the owning side, through its link table', () => {
    assert.equal(artFilter('filters[author][name][$eq]=Ada'), `exists (select 1 ${AUTHOR} and t1."name" = $2::text)`);
  });
  test('to-many relation through its link table', () => {
    assert.equal(artFilter('filters[tags][name][$eq]=x'), 'exists (select 1 from "articles_tags_lnk" lt1 join "tags" t1 on t1.id = lt1."tag_id" where lt1."article_id" = r0.id and t1."name" = $2::text)');
  });
  test('inverse sides read the owner\'s link table the other way round', () => {
    assert.equal(where(plan('authors', 'filters[articles][kind][$eq]=news')), 'exists (select 1 from "articles_author_lnk" lt1 join "articles" t1 on t1.id = lt1."article_id" where lt1."author_id" = r0.id and t1."kind" = $1::text)');
    assert.equal(where(plan('tags', 'filters[articles][views][$gt]=1')), 'exists (select 1 from "articles_tags_lnk" lt1 join "articles" t1 on t1.id = lt1."article_id" where lt1."tag_id" = r0.id and t1."views" > $1::integer)');
  });
  test('two levels deep, self relation (inv_ column for the target)', () => {
    assert.equal(artFilter('filters[category][parent][slug][$eq]=x'),
      'exists (select 1 from "articles_category_lnk" lt1 join "categories" t1 on t1.id = lt1."category_id" where lt1."article_id" = r0.id and exists (select 1 from "categories_parent_lnk" lt2 join "categories" t2 on t2.id = lt2."inv_category_id" where lt2."category_id" = t1.id and t2."slug" = $2::text))');
    assert.equal(where(plan('categories', 'filters[children][name][$eq]=x')),
      'exists (select 1 from "categories_parent_lnk" lt1 join "categories" t1 on t1.id = lt1."category_id" where lt1."inv_category_id" = r0.id and t1."name" = $1::text)');
  });
  test('a null test also matches a missing related row', () => {
    assert.equal(artFilter('filters[author][id][$null]=true'), `(exists (select 1 ${AUTHOR} and t1."id" is null) or not exists (select 1 ${AUTHOR}))`);
  });
  test('a relation given a bare value filters the related id', () => {
    const p = plan('articles', 'filters[author]=3');
    assert.equal(where(p).slice(ART.length), `exists (select 1 ${AUTHOR} and t1."id" = $2::bigint)`);
    assert.deepEqual(p.params, ['en', '3']);
  });
  test('component attributes are read from the component table through the owner\'s _cmps', () => {
    const SEO = 'from "articles_cmps" ck1 join "components_shared_seos" k1 on k1.id = ck1."cmp_id" where ck1."entity_id" = r0.id and ck1."field" = \'seo\' and ck1."component_type" = \'shared.seo\'';
    assert.equal(artFilter('filters[seo][metaTitle][$eq]=x'), `exists (select 1 ${SEO} and k1."meta_title" = $2::text)`);
    assert.equal(artFilter('filters[seo][metaTitle][$null]=true'), `(exists (select 1 ${SEO} and k1."meta_title" is null) or not exists (select 1 ${SEO}))`);
  });
  test('media attributes filter the file record through files_related_mph', () => {
    assert.equal(artFilter('filters[cover][name][$eq]=a.png'), 'exists (select 1 from "files_related_mph" mf1 join "files" f1 on f1.id = mf1."file_id" where mf1."related_id" = r0.id and mf1."related_type" = \'api::article.article\' and mf1."field" = \'cover\' and f1."name" = $2::text)');
    assert.equal(artFilter('filters[gallery][mime][$startsWith]=image'), 'exists (select 1 from "files_related_mph" mf1 join "files" f1 on f1.id = mf1."file_id" where mf1."related_id" = r0.id and mf1."related_type" = \'api::article.article\' and mf1."field" = \'gallery\' and f1."mime" like $2::text)');
  });
  test('through a table known to be small, the matching target ids are read first; large or unknown tables keep the per-row search', () => {
    let small = new Set(['categories', 'tags']);
    let epoch = 0;
    const c = new Compiler(schema, { ...OPTS, smallTable: (t) => small.has(t), sizeEpoch: () => epoch });
    const w = (q: string) => where(c.read(ct('articles'), 'list', q)).slice(ART.length);
    assert.equal(w('filters[category][name][$startsWith]=Cat'),
      'r0.id in (select lt1."article_id" from "articles_category_lnk" lt1 where lt1."category_id" = any(array(select t1.id from "categories" t1 where t1."name" like $2::text)))');
    // Deeper levels alike (the inner filter is the target's own condition), the large author per row.
    assert.equal(w('filters[tags][name][$eq]=x&filters[author][name][$eq]=Ada'),
      '(r0.id in (select lt1."article_id" from "articles_tags_lnk" lt1 where lt1."tag_id" = any(array(select t1.id from "tags" t1 where t1."name" = $2::text))) and exists (select 1 from "articles_author_lnk" lt2 join "authors" t2 on t2.id = lt2."author_id" where lt2."article_id" = r0.id and t2."name" = $3::text))');
    // A null test: rows without a link pass too.
    assert.equal(w('filters[category][id][$null]=true'),
      '(r0.id in (select lt1."article_id" from "articles_category_lnk" lt1 where lt1."category_id" = any(array(select t1.id from "categories" t1 where t1."id" is null))) or not exists (select 1 from "articles_category_lnk" lt2 join "categories" t2 on t2.id = lt2."category_id" where lt2."article_id" = r0.id))');
    // A table changing class changes the epoch: the statements are made again, not served from the cache.
    small = new Set();
    assert.match(w('filters[category][name][$startsWith]=Cat'), /^r0\.id in \(/, 'same epoch: the cached statement');
    epoch++;
    assert.match(w('filters[category][name][$startsWith]=Cat'), /^exists \(select 1 from "articles_category_lnk" lt1 join "categories" t1 /);
  });
  test('the AST marks relation filters', () => {
    const { query } = buildReadQuery(schema, ct('articles'), parseQueryString('filters[author][name][$eq]=x'), { shape: 'list' }, OPTS);
    assert.equal(query.where?.t, 'relation');
    assert.equal(query.where?.t === 'relation' && query.where.target.uid, 'api::author.author');
  });
});

describe('populate', () => {
  const laterals = (sql: string) => (sql.match(/left join lateral/g) ?? []).length;

  test('* populates every non-scalar attribute and the localizations, one level deep', () => {
    const p = plan('articles', 'populate=*');
    const { query } = buildReadQuery(schema, ct('articles'), parseQueryString('populate=*'), { shape: 'list' }, OPTS);
    assert.deepEqual(query.select.populate.map((x) => (x.kind === 'localizations' ? 'localizations' : `${x.kind}:${x.attr.name}`)).sort(),
      ['component:seo', 'dynamiczone:blocks', 'localizations', 'media:cover', 'media:gallery', 'relation:author', 'relation:category', 'relation:tags']);
    for (const k of ['cover', 'gallery', 'tags', 'seo', 'localizations', 'blocks']) assert.ok(p.sql.text.includes(`',"${k}":', p`), k);
    // A to-one relation is read by joins of the row's own query (its first link), not a lateral subquery.
    for (const k of ['author', 'category']) assert.match(p.sql.text, new RegExp(String.raw`',"${k}":', case when t\d+\.id is null then 'null' else `), k);
    assert.equal(laterals(p.sql.text), 6, 'one lateral join per populated attribute but the to-one relations, nothing nested');
    // Components and zones come from their tables through the owner's _cmps rows, in `order`.
    assert.match(p.sql.text, new RegExp(String.raw`from "articles_cmps" ck\d+ join "components_shared_seos" k(\d+) on k\1\.id = ck\1\."cmp_id"${OBJ} where ck\1\."entity_id" = t0\.id and ck\1\."field" = 'seo' and ck\1\."component_type" = 'shared\.seo' order by ck\1\."order", ck\1\.id limit 1`));
    assert.match(p.sql.text, new RegExp(String.raw`when 'shared\.quote' then \(select .* from "components_shared_quotes" k(\d+)${OBJ} where k\1\.id = c\d+\."cmp_id"\)`));
    assert.match(p.sql.text, /from "articles_cmps" (c\d+) where \1\."entity_id" = t0\.id and \1\."field" = 'blocks' and \1\."component_type" in \('shared\.rich-text', 'shared\.quote', 'shared\.media', 'shared\.slider'\) order by \1\."order", \1\.id/);
    // A dynamic-zone entry names its component after its populated values.
    assert.ok(p.sql.text.includes(`',"__component":"shared.quote"}'`));
    const author = query.select.populate.find((x) => x.kind === 'relation' && x.attr.name === 'author');
    assert.ok(author && author.kind === 'relation' && author.select.populate.length === 0, 'nested relations are not populated');
    // Strapi 5.54 reads any populate string but `*` as dotted paths: `true` names no attribute (checked live).
    assert.throws(() => plan('articles', 'populate=true'), (e: ApiError) => e.status === 400 && e.message === 'Invalid key true');
  });

  test('array, comma and object forms compile to the same SQL', () => {
    const a = plan('articles', 'populate[0]=author&populate[1]=category').sql.text;
    assert.equal(plan('articles', 'populate=author,category').sql.text, a);
    assert.equal(plan('articles', 'populate[author]=true&populate[category]=true').sql.text, a);
    assert.equal(laterals(a), 0);
    assert.equal((a.match(/ or not exists \(select 1 from "articles_(author|category)_lnk"/g) ?? []).length, 2);
    assert.equal(plan('articles', 'populate=seo.shareImage').sql.text, plan('articles', 'populate[seo][populate][shareImage]=true').sql.text);
    assert.equal(plan('articles', 'populate[author]=false').sql.text, plan('articles', '').sql.text);
  });

  test('nested populate with fields, filters and sort', () => {
    const p = plan('articles', 'populate[author][fields][0]=name&populate[author][populate][articles][fields][0]=title&populate[author][populate][articles][filters][views][$gt]=5&populate[author][populate][articles][sort]=title:desc');
    assert.equal(laterals(p.sql.text), 1);
    assert.match(p.sql.text, /case when t(\d+)\.id is null then 'null' else concat\(left\(row_to_json\((o\d+)\)::text, -1\), ',"articles":', p\d+\.v, '}'\) end/);
    assert.match(p.sql.text, /left join \("articles_author_lnk" lt(\d+) join "authors" t\1 on t\1\.id = lt\1\."author_id"\) on lt\1\."article_id" = t0\.id and \(\(select case when pg_catalog\.pg_relation_size\('"articles_author_lnk"'::regclass\) .* or not exists \(.*\)\) cross join lateral \(select t\1\.id as "id", t\1\.document_id as "documentId", t\1\."name" as "name"\) o\d+ left join lateral/);
    // A sorted list is sorted by the target's values, ties by the target's id: Strapi 5.54 drops the link
    // order (its inverse order column, article_ord) when a sort is asked (checked live on tied nulls).
    const m = /t(\d+)\."views" > \$(\d+)::integer order by t\1\."title" desc, t\1\.id limit 1000/.exec(p.sql.text);
    assert.ok(m, p.sql.text);
    assert.equal(p.params[Number(m[2]) - 1], '5');
    // the articles (localized) of an author (not localized) are read in every locale, as Strapi answers
    assert.deepEqual(p.params.filter((x) => x === 'en').length, 1);
  });

  test('relation populate reads the status of the reader; a non-localized reader every locale', () => {
    const pub = plan('articles', 'populate[tags]=true').sql.text;
    assert.match(pub, new RegExp(String.raw`join "tags" t(\d+) on t\1\.id = lt\1\."tag_id"${OBJ} where lt\1\."article_id" = t0\.id order by`), 'tags have no draft & publish: no status condition');
    const back = plan('tags', 'populate[articles]=true');
    assert.match(back.sql.text, /where lt(\d+)\."tag_id" = t0\.id and t\1\.published_at is not null order by/);
    assert.doesNotMatch(back.sql.text, /\.locale = /, 'the links of a non-localized tag reach its articles in every locale');
    assert.deepEqual(back.params, []);
    const draft = plan('tags', 'populate[articles]=true&status=draft&locale=fr');
    assert.match(draft.sql.text, /where lt(\d+)\."tag_id" = t0\.id and t\1\.published_at is null order by/);
    // A localized reader reads its targets in its own locale.
    assert.match(plan('articles', 'populate[localizations]=true&locale=fr').sql.text, /t0\.locale/);
  });

  test('to-many relations keep their link order: the owner\'s order column, on the inverse side the owner\'s inverse one', () => {
    assert.match(plan('articles', 'populate=tags').sql.text, new RegExp(String.raw`from "articles_tags_lnk" lt(\d+) join "tags" t\1 on t\1\.id = lt\1\."tag_id"${OBJ} where lt\1\."article_id" = t0\.id order by lt\1\."tag_ord", lt\1\.id limit 1000`));
    assert.match(plan('tags', 'populate=articles').sql.text, new RegExp(String.raw`from "articles_tags_lnk" lt(\d+) join "articles" t\1 on t\1\.id = lt\1\."article_id"${OBJ} where lt\1\."tag_id" = t0\.id and .* order by lt\1\."article_ord", lt\1\.id limit 1000`));
    assert.match(plan('categories', 'populate=children').sql.text, new RegExp(String.raw`from "categories_parent_lnk" lt(\d+) join "categories" t\1 on t\1\.id = lt\1\."category_id"${OBJ} where lt\1\."inv_category_id" = t0\.id order by lt\1\."category_ord", lt\1\.id limit 1000`));
    // A to-one side has no order column: its first link row by id.
    assert.match(plan('categories', 'populate=parent').sql.text, /left join \("categories_parent_lnk" lt(\d+) join "categories" t\1 on t\1\.id = lt\1\."inv_category_id"\) on lt\1\."category_id" = t0\.id and \(\(select case when pg_catalog\.pg_relation_size\('"categories_parent_lnk"'::regclass\) <= 32768 then not exists \(select 1 from "categories_parent_lnk" lt\d+d group by lt\d+d\."category_id" having count\(\*\) > 1\) else false end\) or not exists \(select 1 from "categories_parent_lnk" lt(\d+) join "categories" t\2 on t\2\.id = lt\2\."inv_category_id" where lt\2\."category_id" = t0\.id and lt\2\.id < lt\1\.id\)\)/);
  });

  test('a to-one link column a foreign key keeps: its earlier links are not checked against the target table', () => {
    const keyedBy = (rows: KeyedColumn[]) => new Compiler(schema, { ...OPTS, keyedColumns: keyedColumns(rows) });
    const keyed = keyedBy([{ table: 'categories_parent_lnk', column: 'inv_category_id', target: 'categories' }, { table: 'articles_category_lnk', column: 'category_id', target: 'categories' }]);
    assert.match(keyed.read(ct('categories'), 'list', 'populate=parent').sql.text,
      /left join \("categories_parent_lnk" lt(\d+) join "categories" t\1 on t\1\.id = lt\1\."inv_category_id"\) on lt\1\."category_id" = t0\.id and \(\(select case when pg_catalog\.pg_relation_size\('"categories_parent_lnk"'::regclass\) <= 32768 then not exists \(select 1 from "categories_parent_lnk" lt\d+d group by lt\d+d\."category_id" having count\(\*\) > 1\) else false end\) or not exists \(select 1 from "categories_parent_lnk" lt(\d+) where lt\2\."category_id" = t0\.id and lt\2\.id < lt\1\.id\)/);
    // A condition on the target (a filter, a status) still reads it for every earlier link.
    assert.match(keyed.read(ct('articles'), 'list', 'populate[category][filters][name][$eq]=x').sql.text,
      /not exists \(select 1 from "articles_category_lnk" lt(\d+) join "categories" t\1 on t\1\.id = lt\1\."category_id" and /);
    // A link table the node knows is not small: the row's first link alone, its target read by id after it.
    const large = new Compiler(schema, { ...OPTS, keyedColumns: keyedColumns([{ table: 'articles_category_lnk', column: 'category_id', target: 'categories' }]), smallTable: () => false });
    assert.match(large.read(ct('articles'), 'list', 'populate=category').sql.text,
      /left join lateral \(select lt(\d+)\."category_id" as id from "articles_category_lnk" lt\1 where lt\1\."article_id" = t0\.id order by lt\1\.id limit 1\) (k\d+) on true left join lateral \(select .* from "categories" t\d+ .*where t\d+\.id = \2\.id\) \2v on true/);
    assert.doesNotMatch(large.read(ct('articles'), 'list', 'populate=category').sql.text, /not exists/);
    // …but not when a condition on the target decides which link is the first.
    assert.match(large.read(ct('articles'), 'list', 'populate[category][filters][name][$eq]=x').sql.text, /not exists \(select 1 from "articles_category_lnk" lt(\d+) join "categories" t\1 /);
    // A key on another column of the link table, or toward another table, is not this link's.
    for (const other of [[{ table: 'categories_parent_lnk', column: 'category_id', target: 'categories' }], [{ table: 'categories_parent_lnk', column: 'inv_category_id', target: 'articles' }]]) {
      assert.match(keyedBy(other).read(ct('categories'), 'list', 'populate=parent').sql.text, /not exists \(select 1 from "categories_parent_lnk" lt(\d+) join "categories" t\1 /);
    }
  });

  test('count', () => {
    assert.match(plan('articles', 'populate[tags][count]=true').sql.text, /select '\{"count":' \|\| count\(\*\) \|\| '\}' as v from "articles_tags_lnk"/);
  });

  test('media populate with fields keeps id and documentId', () => {
    const p = plan('articles', 'populate[cover][fields][0]=url');
    assert.match(p.sql.text, /select row_to_json\((o\d+)\)::text from "files_related_mph" mf(\d+) join "files" f\2 on f\2\.id = mf\2\."file_id" cross join lateral \(select f\2\.id as "id", f\2\.document_id as "documentId", f\2\.url as "url"\) \1 where mf\2\."related_id" = t0\.id and mf\2\."related_type" = 'api::article\.article' and mf\2\."field" = 'cover' order by mf\2\."order", mf\2\.id limit 1/);
  });

  test('dynamic zone: shared populate applies to every component (published: the zone\'s list; a draft may hold others of the app); `on` lists only the named ones', () => {
    const shared = plan('articles', 'populate[blocks][populate]=*').sql.text;
    assert.match(plan('articles', 'populate[blocks][populate]=*&status=draft').sql.text, /in \('shared\.rich-text', 'shared\.quote', 'shared\.media', 'shared\.slider', 'shared\.seo'\)/);
    assert.match(shared, /in \('shared\.rich-text', 'shared\.quote', 'shared\.media', 'shared\.slider'\)/);
    const on = plan('articles', 'populate[blocks][on][shared.quote][fields][0]=title&populate[blocks][on][shared.media][populate]=*').sql.text;
    assert.match(on, /in \('shared\.quote', 'shared\.media'\)/);
    assert.ok(!on.includes("'shared.slider'"));
    const { query } = buildReadQuery(schema, ct('articles'), parseQueryString('populate[blocks][on][shared.quote][fields][0]=title'), { shape: 'list' }, OPTS);
    const dz = query.select.populate[0];
    assert.ok(dz.kind === 'dynamiczone');
    assert.deepEqual([...dz.on.keys()], ['shared.quote']);
    assert.deepEqual(dz.on.get('shared.quote')!.fields.map((f) => f.name), ['title']);
  });

  test('localizations', () => {
    assert.match(plan('articles', 'populate=localizations').sql.text, /where t\d+\.document_id = t0\.document_id and t\d+\.locale is distinct from t0\.locale and t\d+\.published_at is not null/);
  });

  test('a populate nested deeper than the limit is refused', () => {
    const deep = 'populate[author][populate][articles][populate][author][populate][articles][populate][author][populate][articles][populate][author]=true';
    assert.deepEqual(queryError('articles', deep), {
      status: 400, name: 'ValidationError', message: 'populate is nested deeper than the limit of 6',
      details: { source: 'query', param: 'populate', path: 'author.articles.author.articles.author.articles' },
    });
    assert.ok(plan('articles', 'populate[author][populate][articles][populate][author][populate][articles][populate][author][populate][articles]=true'));
  });
});

describe('sort', () => {
  const order = (route: string, q: string) => {
    // A sorted page orders ids and sort keys (`… ) k`), then reads its rows.
    const m = / r0 +(?:where .*? )?order by (.*?) limit \d+(?: offset \d+)?\) (?:t0|k join)/.exec(plan(route, q).sql.text);
    assert.ok(m);
    return m[1];
  };
  test('string, direction, comma list, array and object forms', () => {
    assert.equal(order('authors', 'sort=name'), 'r0."name" asc, r0.id asc');
    assert.equal(order('authors', 'sort=name:desc'), 'r0."name" desc, r0.id asc');
    assert.equal(order('authors', 'sort=name:DESC'), 'r0."name" desc, r0.id asc');
    assert.equal(order('authors', 'sort=name:desc,email'), 'r0."name" desc, r0."email" asc, r0.id asc');
    assert.equal(order('authors', 'sort[0]=name:desc&sort[1]=email:asc'), 'r0."name" desc, r0."email" asc, r0.id asc');
    assert.equal(order('authors', 'sort[name]=desc'), 'r0."name" desc, r0.id asc');
    assert.equal(order('authors', 'sort[0][name]=desc&sort[1][email]=asc'), 'r0."name" desc, r0."email" asc, r0.id asc');
    assert.equal(order('authors', 'sort=createdAt:desc'), 'r0."created_at" desc, r0.id asc');
  });
  test('a to-one relation or component field', () => {
    assert.equal(order('articles', 'sort=author.name:desc'), '(select max(t1."name") from "articles_author_lnk" lt1 join "authors" t1 on t1.id = lt1."author_id" where lt1."article_id" = r0.id) desc, r0.id asc');
    assert.equal(order('articles', 'sort[author][name]=desc'), order('articles', 'sort=author.name:desc'));
    assert.equal(order('articles', 'sort=seo.metaTitle'), '(select k1."meta_title" from "articles_cmps" ck1 join "components_shared_seos" k1 on k1.id = ck1."cmp_id" where ck1."entity_id" = r0.id and ck1."field" = \'seo\' and ck1."component_type" = \'shared.seo\' order by ck1."order", ck1.id limit 1) asc, r0.id asc');
  });
  test('the outer query keeps the page order', () => {
    assert.match(plan('authors', 'sort=name:desc').sql.text, /order by t0\._s0 desc, t0\.id asc/);
  });
  test('invalid sorts', () => {
    assert.deepEqual(queryError('articles', 'sort=nope:asc'), { status: 400, name: 'ValidationError', message: 'Invalid key nope', details: { key: 'nope', path: null, source: 'query', param: 'sort' } });
    assert.deepEqual(queryError('articles', 'sort=title:sideways'), { status: 400, name: 'ValidationError', message: 'Invalid order. order can only be one of asc|desc|ASC|DESC', details: {} });
    assert.equal(queryError('articles', 'sort=title:asc:desc').message, 'Invalid order. order can only be one of asc|desc|ASC|DESC');
    assert.equal(queryError('articles', 'sort=tags:desc').message, 'Invalid key desc at tags', 'a relation is not a field');
    assert.match(plan('articles', 'sort=tags.name:desc').sql.text, /\(select max\(t\d+\."name"\) from "articles_tags_lnk"/, 'a to-many relation sorts by its greatest value descending');
    assert.equal(queryError('articles', 'sort=author.nope').message, 'Invalid key nope at author');
  });
});

describe('pagination', () => {
  const page = (q: string) => plan('authors', q);
  test('page mode: LIMIT/OFFSET written into the statement, and meta', () => {
    const p = page('pagination[page]=3&pagination[pageSize]=10');
    assert.deepEqual(p.params, []);
    assert.deepEqual(p.pagination, { mode: 'page', page: 3, pageSize: 10, withCount: true });
    assert.equal(listMeta(p.pagination, 42), '{"pagination":{"page":3,"pageSize":10,"pageCount":5,"total":42}}');
    assert.ok(p.sql.withTotal);
    assert.match(p.sql.text, / limit 10 offset 20\)/);
    assert.ok(!p.sql.text.includes('::bigint offset'), 'no parameter for the page');
    // The first page has no OFFSET at all; one document reads one row.
    assert.match(page('').sql.text, / limit 25\)/);
    assert.ok(!page('').sql.text.includes(' offset '));
    assert.match(plan('articles', '', 'abc').sql.text, / limit 1\)/);
  });
  test('offset mode', () => {
    const p = page('pagination[start]=5&pagination[limit]=7');
    assert.deepEqual(p.params, []);
    assert.match(p.sql.text, / limit 7 offset 5\)/);
    assert.deepEqual(p.pagination, { mode: 'offset', start: 5, limit: 7, withCount: true });
    assert.equal(listMeta(p.pagination, 9), '{"pagination":{"start":5,"limit":7,"total":9}}');
  });
  test('defaults', () => {
    assert.deepEqual(page('').pagination, { mode: 'page', page: 1, pageSize: 25, withCount: true });
    assert.deepEqual(page('pagination[limit]=3').pagination, { mode: 'offset', start: 0, limit: 3, withCount: true });
  });
  test('withCount=false drops the count', () => {
    const p = page('pagination[withCount]=false');
    assert.equal(p.sql.withTotal, false);
    assert.ok(!p.sql.text.includes('count(*)'));
    assert.equal(listMeta(p.pagination, null), '{"pagination":{"page":1,"pageSize":25}}');
    assert.equal(listMeta(page('pagination[start]=0&pagination[limit]=3&pagination[withCount]=false').pagination, null), '{"pagination":{"start":0,"limit":3}}');
  });
  test('clamping as Strapi does', () => {
    assert.deepEqual(page('pagination[pageSize]=1000').pagination, { mode: 'page', page: 1, pageSize: 100, withCount: true });
    assert.deepEqual(page('pagination[limit]=1000').pagination, { mode: 'offset', start: 0, limit: 100, withCount: true });
    assert.deepEqual(page('pagination[pageSize]=0').pagination, { mode: 'page', page: 1, pageSize: 1, withCount: true });
    assert.deepEqual(page('pagination[page]=0').pagination, { mode: 'page', page: 1, pageSize: 25, withCount: true });
    assert.deepEqual(page('pagination[page]=-1').pagination, { mode: 'page', page: 1, pageSize: 25, withCount: true });
    assert.deepEqual(page('pagination[start]=-1').pagination, { mode: 'offset', start: 0, limit: 25, withCount: true });
    assert.deepEqual(page('pagination[limit]=-1').pagination, { mode: 'offset', start: 0, limit: 1, withCount: true });
  });
  test('errors', () => {
    assert.deepEqual(queryError('articles', 'pagination[page]=1&pagination[limit]=5'), { status: 400, name: 'PaginationError', message: 'Cannot use both page & offset pagination in the same query', details: {} });
    assert.deepEqual(queryError('articles', 'pagination[page]=abc'), { status: 400, name: 'ValidationError', message: 'convertStartQueryParams expected a positive integer got NaN', details: {} });
    assert.equal(queryError('articles', 'pagination[limit]=x').name, 'ValidationError');
    assert.equal(queryError('articles', 'pagination[start]=1.5').name, 'ValidationError');
    // Strapi 5.54 (checked live): a page turns into an offset first, which its words name; a count flag in its service's words.
    assert.equal(queryError('articles', 'pagination[page]=1.5').message, 'convertStartQueryParams expected a positive integer got 12.5');
    assert.equal(queryError('articles', 'pagination[pageSize]=2.5').message, 'convertLimitQueryParams expected a positive integer got 2.5');
    assert.deepEqual(queryError('articles', 'pagination[withCount]=x'), { status: 400, name: 'ValidationError', message: 'Invalid withCount parameter. Expected "t","1","true","false","0","f"', details: {} });
  });
  test('one document: no pagination, a documentId parameter', () => {
    const p = plan('articles', '', 'abc123');
    assert.match(p.sql.text, /^select \(select x\.j from \(select row_to_json\(o1\)::text as j from \(select r0\.\* from "articles" r0 .*\) t0 cross join lateral \(select t0\.id as "id", t0\.document_id as "documentId", t0\."title" as "title", /);
    assert.match(p.sql.text, /r0\.document_id = \$2::text/);
    assert.deepEqual(p.params, ['en', 'abc123']);
    assert.equal(p.sql.withTotal, false);
  });
});

describe('fields, locale and status', () => {
  test('fields select only the named columns, with id and documentId always', () => {
    const p = plan('articles', 'fields[0]=title&fields[1]=views');
    assert.match(p.sql.text, /^select \(select string_agg\(x\.j, ','\) from \(select row_to_json\(o1\)::text as j from .* cross join lateral \(select t0\.id as "id", t0\.document_id as "documentId", t0\."title" as "title", t0\."views" as "views"\) o1 order by/);
    assert.equal(plan('articles', 'fields=title,views').sql.text, p.sql.text);
    assert.equal(plan('articles', 'fields[0]=title&fields[1]=views&fields[2]=id&fields[3]=documentId').sql.text, p.sql.text);
  });
  test('password and private attributes are never selected', () => {
    const s2 = loadModels(new URL('./fixtures/models-all-types', import.meta.url).pathname, { defaultLocale: 'en', locales: ['en', 'fr'] });
    const c = new Compiler(s2, OPTS);
    const sql = c.read(s2.routes.get('everythings')!, 'list', '').sql.text;
    assert.ok(!sql.includes('"secret"') && !sql.includes('"internal_note"'), sql);
    assert.throws(() => c.read(s2.routes.get('everythings')!, 'list', 'fields[0]=secret'), (e: ApiError) => e.status === 400 && e.message === 'Invalid key secret');
  });
  test('locale and status are conditions with parameters', () => {
    assert.deepEqual(plan('articles', 'locale=fr').params, ['fr']);
    assert.ok(!where(plan('articles', 'locale=*&filters[views][$gt]=1')).includes('locale'), 'all locales');
    assert.match(where(plan('articles', 'status=draft&filters[views][$gt]=1')), /^r0\.published_at is null and /);
    assert.match(where(plan('articles', 'status=published&filters[views][$gt]=1')), /^r0\.published_at is not null and /);
    assert.ok(!plan('authors', 'status=draft').sql.text.includes('published_at is'), 'types without draft & publish ignore status');
  });
});

describe('validation errors (as recorded from Strapi)', () => {
  const recorded: Array<[string, string, Record<string, unknown>]> = [
    ['articles', 'filters[title][$foo]=x', { status: 400, name: 'ValidationError', message: 'Invalid key $foo at title', details: { key: '$foo', path: 'title', source: 'query', param: 'filters' } }],
    ['articles', 'filters[nope][$eq]=x', { status: 400, name: 'ValidationError', message: 'Invalid key nope', details: { key: 'nope', path: null, source: 'query', param: 'filters' } }],
    ['articles', 'filters[blocks][title][$eq]=x', { status: 400, name: 'ValidationError', message: 'Invalid key blocks', details: { key: 'blocks', path: 'blocks', source: 'query', param: 'filters' } }],
    ['articles', 'filters[createdBy][id][$eq]=1', { status: 400, name: 'ValidationError', message: 'Invalid key createdBy', details: { key: 'createdBy', path: 'createdBy', source: 'query', param: 'filters' } }],
    ['articles', 'sort=nope:asc', { status: 400, name: 'ValidationError', message: 'Invalid key nope', details: { key: 'nope', path: null, source: 'query', param: 'sort' } }],
    ['articles', 'sort=title:sideways', { status: 400, name: 'ValidationError', message: 'Invalid order. order can only be one of asc|desc|ASC|DESC', details: {} }],
    ['articles', 'pagination[page]=1&pagination[limit]=5', { status: 400, name: 'PaginationError', message: 'Cannot use both page & offset pagination in the same query', details: {} }],
    ['articles', 'pagination[page]=abc', { status: 400, name: 'ValidationError', message: 'convertStartQueryParams expected a positive integer got NaN', details: {} }],
    ['articles', 'populate=**', { status: 400, name: 'ValidationError', message: 'Invalid key **', details: { key: '**', path: '**', source: 'query', param: 'populate' } }],
    ['articles', 'fields[0]=nope', { status: 400, name: 'ValidationError', message: 'Invalid key nope', details: { key: 'nope', path: null, source: 'query', param: 'fields' } }],
  ];
  for (const [route, q, expected] of recorded) {
    test(`${route}?${q}`, () => assert.deepEqual(queryError(route, q), expected));
  }

  // Checked on a live Strapi 5.54: a populated attribute's fields, sort, filters and a populate string
  // are validated as queries of their own (no parent path) and reported under `populate`.
  const nested: Array<[string, Record<string, unknown>]> = [
    ['populate[author][fields][0]=nope', { key: 'nope', path: null }],
    ['populate[author][sort]=nope', { key: 'nope', path: null }],
    ['populate[author][filters][nope][$eq]=1', { key: 'nope', path: null }],
    ['populate[author][populate]=nope', { key: 'nope', path: 'nope' }],
    ['populate[author][populate]=articles.nope', { key: 'nope', path: 'articles.nope' }],
    ['populate[seo][fields][0]=nope', { key: 'nope', path: null }],
    ['populate[blocks][on][shared.quote][fields][0]=nope', { key: 'nope', path: null }],
  ];
  for (const [q, d] of nested) {
    test(`articles?${q}`, () => {
      const e = queryError('articles', q);
      assert.deepEqual(e.details, { ...d, source: 'query', param: 'populate' });
      assert.equal(e.message, d.path && d.path !== d.key ? `Invalid key ${d.key} at ${d.path}` : `Invalid key ${d.key}`);
    });
  }

  test('what is populated under a count is validated only: none of its parameters reach the statement', () => {
    const p = fresh().read(ct('articles'), 'list', 'populate[tags][count]=true&populate[tags][populate][articles][filters][title][$eq]=x');
    assert.ok(!p.params.includes('x'), JSON.stringify(p.params));
    assert.throws(() => fresh().read(ct('articles'), 'list', 'populate[tags][count]=true&populate[tags][populate][nope]=true'), (e: ApiError) => e.message === 'Invalid key nope at tags');
  });

  test('a populate the caller may not read is left out but validated (its parameters do not reach the statement)', () => {
    const c = fresh();
    const noAuthors = { key: 'x', canRead: (uid: string) => uid !== 'api::author.author' };
    assert.throws(() => c.read(ct('articles'), 'list', 'populate[author][fields][0]=nope', undefined, noAuthors), (e: ApiError) => e.status === 400 && e.message === 'Invalid key nope');
    const ok = c.read(ct('articles'), 'list', 'populate[author][filters][name][$eq]=Ada', undefined, noAuthors);
    assert.ok(!ok.params.includes('Ada'), 'the left-out filter has no parameter');
    assert.ok(!/"authors"/.test(ok.sql.text), 'no author read');
  });

  const others: Array<[string, string, string]> = [
    ['articles', 'filters[author][nope]=1', 'Invalid key nope at author'],
    ['articles', 'filters[$foo][title]=1', 'Invalid key $foo'],
    ['articles', 'filters[views][$eq]=abc', 'Invalid value "abc" for views'],
    ['articles', 'filters[views][$eq]=2147483648', 'Invalid value "2147483648" for views'],
    ['articles', 'filters[views][$between]=100,300', '$between on views expects an array of two values'],
    // Strapi's date parser (checked live: test/fixtures/details).
    ['articles', 'filters[publishDate][$eq]=yesterday', 'Invalid format, expected yyyy-MM-dd'],
    // Strapi 5.54's words for a filters string and a fields object (checked live).
    ['articles', 'filters=abc', 'The filters parameter must be an object or an array'],
    ['articles', 'fields[0][a]=b', 'Invalid fields parameter. Expected a string or an array of strings'],
    ['articles', 'fields[a]=title', 'Invalid fields parameter. Expected a string or an array of strings'],
    // A list of locales is Strapi's multi-locale lookup; an object is refused (a 500 in Strapi 5.54) after the rest.
    ['articles', 'locale[x]=en', 'Invalid locale parameter: expected a string or a list of strings'],
    ['articles', 'locale[x]=en&filters[nope]=1', 'Invalid key nope'],
    ['articles', 'populate=nope', 'Invalid key nope'],
    // Checked on a live Strapi 5.54 (a component, a relation, a dynamic zone of the same shapes).
    ['articles', 'populate[seo][populate][nope]=true', 'Invalid key nope at seo'],
    ['articles', 'populate[seo][populate]=nope', 'Invalid key nope'],
    ['articles', 'populate[author][foo]=1', 'Invalid key foo at author'],
    // A component the zone cannot hold is no error (it reads nothing: read-cases 215-218); a model that does not exist is.
    ['articles', 'populate[blocks][on][shared.nope]=true', 'Invalid key shared.nope at blocks.on.shared.nope'],
    ['articles', 'populate[blocks][populate][nope]=true', 'Invalid key populate at blocks'],
    ['articles', 'populate=blocks.nope', 'Invalid key nope at blocks.nope'],
    ['articles', 'populate[tags][count]=maybe', 'Invalid key count at tags'],
    ['articles', 'populate[tags][limit]=2', 'Invalid key limit at tags'],
    ['articles', 'populate[tags][on][api::tag.tag]=true', 'Using fragments is not permitted to populate "tags" in "api::article.article"'],
    ['articles', 'populate[seo][on][shared.seo]=true', 'Using fragments is not permitted to populate "seo" in "api::article.article"'],
    ['articles', 'populate[tags][on][nope]=true', 'Invalid key nope at tags.on.nope'],
    // The conversion's error comes after every validation error of the query (Strapi converts last).
    ['articles', 'populate[tags][on][api::tag.tag]=true&populate[author][fields][0]=nope', 'Invalid key nope'],
    ['articles', 'populate[blocks][on]=x', 'Invalid key on at blocks.on'],
    // Dotted paths, as Strapi 5.54's validatePopulateDotPathSegments checks them (checked live on the same shapes).
    ['articles', 'populate=blocks.files.x', 'Invalid key files at blocks.files'],
    ['articles', 'populate=cover.x', 'Invalid key cover'],
    ['articles', 'populate=seo.shareImage.x', 'Invalid key shareImage at seo.shareImage'],
    ['articles', 'populate[0]=*', 'Invalid key *'],
    ['articles', 'populate=author.articles.nope', 'Invalid key nope at author.articles.nope'],
    ['articles', 'populate[blocks][populate][x]=true&populate[01]=blocks.file', 'Invalid key populate at blocks'],
    ['articles', 'filters[a][b][c][d][e][f][g][h][i][j][k][l][m][n][o][p][q][r][s][t][u][v]=1', 'Input depth exceeded depth option of 20 and strictDepth is true'],
    ['articles', Array.from({ length: 1001 }, (_, i) => `a${i}=1`).join('&'), 'Parameter limit exceeded. Only 1000 parameters allowed.'],
  ];
  for (const [route, q, message] of others) {
    test(`${route}?${q.slice(0, 80)}`, () => {
      const e = apiError(() => plan(route, q));
      assert.equal(e.status, 400);
      assert.equal(e.errorName, 'ValidationError');
      assert.equal(e.message, message);
    });
  }
});

describe('plan cache', () => {
  test('same shape and page with different values: same SQL text, different parameters', () => {
    const c = fresh();
    const a = c.read(ct('articles'), 'list', 'filters[title][$eq]=a&pagination[page]=7&locale=en');
    const b = c.read(ct('articles'), 'list', 'filters[title][$eq]=b&pagination[page]=7&locale=fr');
    assert.equal(a.sql, b.sql, 'one compiled statement object');
    assert.deepEqual(a.params, ['en', 'a']);
    assert.deepEqual(b.params, ['fr', 'b']);
    assert.equal(a.sql.prepare, true);
    const st = c.stats();
    assert.deepEqual(st.shapes, { size: 1, hits: 1, misses: 1 });
    assert.deepEqual(st.exact, { size: 2, hits: 0, misses: 2 });
  });

  test('each page of a shape is its own text; the same page in offset mode is the same text', () => {
    const c = fresh();
    const p1 = c.read(ct('articles'), 'list', 'filters[title][$eq]=a&pagination[page]=1');
    const p2 = c.read(ct('articles'), 'list', 'filters[title][$eq]=a&pagination[page]=2');
    assert.notEqual(p1.sql.text, p2.sql.text);
    assert.equal(p1.sql.text.replace(' limit 25)', ' limit 25 offset 25)'), p2.sql.text, 'the page is all that differs');
    const s = c.read(ct('articles'), 'list', 'filters[title][$eq]=a&pagination[pageSize]=10&pagination[page]=3');
    const o = c.read(ct('articles'), 'list', 'filters[title][$eq]=a&pagination[limit]=10&pagination[start]=20');
    assert.match(s.sql.text, / limit 10 offset 20\)/);
    assert.equal(s.sql.text, o.sql.text);
  });

  test('prepared statements stay bounded: the first pages of a shape are prepared, later ones sent unprepared', () => {
    const c = new Compiler(schema, { ...OPTS, preparedPages: 3 });
    const texts = new Set<string>();
    const prepared = new Set<string>();
    // Every page size and many pages, each twice (a repeat is the same plan).
    for (let size = 1; size <= 100; size++) {
      for (const page of [1, 2, 5, 1000]) {
        for (const filter of ['a', 'b']) {
          const p = c.read(ct('articles'), 'list', `filters[title][$eq]=${filter}&pagination[page]=${page}&pagination[pageSize]=${size}`);
          texts.add(p.sql.text);
          if (p.sql.prepare) prepared.add(p.sql.text);
        }
      }
    }
    assert.equal(texts.size, 400, 'one text per page');
    assert.equal(prepared.size, 3, 'at most preparedPages prepared texts for the shape');
    // A page that was prepared stays prepared; other shapes have their own budget.
    assert.equal(c.read(ct('articles'), 'list', 'filters[title][$eq]=z&pagination[page]=1&pagination[pageSize]=1').sql.prepare, true);
    assert.equal(c.read(ct('articles'), 'list', 'filters[title][$eq]=z&pagination[page]=9&pagination[pageSize]=1').sql.prepare, false);
    assert.equal(c.read(ct('articles'), 'list', 'sort=title&pagination[page]=9&pagination[pageSize]=1').sql.prepare, true);
    assert.equal(new Compiler(schema, { ...OPTS, preparedPages: 0 }).read(ct('articles'), 'list', '').sql.prepare, false, '0: nothing prepared');
  });

  test('api.documents.strictParams refuses a caller\'s locale of no BCP 47 form, never a row this server reads for itself', () => {
    const c = new Compiler(schema, { ...OPTS, strictDocuments: true });
    const a = ct('articles');
    assert.throws(() => c.read(a, 'one', 'locale=en_US', 'abc'), (e: unknown) => e instanceof ApiError && /Locale must be a valid BCP 47 format/.test(e.message));
    // Webhooks' and lifecycles' entries read the stored row's own locale (src/rest/version-row.ts).
    const plan = c.readRow(a, 'status=draft&locale=en_US', 'abc');
    assert.deepEqual(plan.params.includes('en_US'), true);
    assert.throws(() => c.read(a, 'one', 'locale=en_US', 'abc'), ApiError, 'the row read leaves no plan that skips a caller\'s check');
  });

  test('LIMIT and OFFSET in the text are exact integers: a page past them is a 400, as when PostgreSQL refused the parameter', () => {
    for (const q of ['pagination[page]=1e300', 'pagination[page]=99999999999999999999&pagination[pageSize]=100', 'pagination[start]=1e30&pagination[limit]=5']) {
      assert.deepEqual(queryError('articles', q), { status: 400, name: 'ValidationError', message: 'A number is out of range', details: {} }, q);
    }
    // An offset past every number is none: Strapi's document service names it.
    assert.equal(queryError('articles', 'pagination[page]=1e308').message, 'convertStartQueryParams expected a positive integer got Infinity');
    const last = plan('articles', `pagination[start]=${Number.MAX_SAFE_INTEGER}&pagination[limit]=5`);
    assert.match(last.sql.text, new RegExp(` limit 5 offset ${Number.MAX_SAFE_INTEGER}\\)`));
  });

  test('$in lists of any length share one plan', () => {
    const c = fresh();
    const a = c.read(ct('authors'), 'list', 'filters[name][$in][0]=a');
    const b = c.read(ct('authors'), 'list', 'filters[name][$in][0]=a&filters[name][$in][1]=b&filters[name][$in][2]=c');
    assert.equal(a.sql.text, b.sql.text);
    assert.deepEqual(b.params[0], '{"a","b","c"}');
  });

  test('a second identical query is an exact-cache hit returning the same plan', () => {
    const c = fresh();
    const q = 'filters[views][$gt]=5&populate[author][fields][0]=name&sort=title';
    const a = c.read(ct('articles'), 'list', q);
    const before = c.stats();
    const b = c.read(ct('articles'), 'list', q);
    const after = c.stats();
    assert.equal(b, a);
    assert.equal(after.exact.hits, before.exact.hits + 1);
    assert.deepEqual(after.shapes, before.shapes, 'no shape lookup on an exact hit');
  });

  test('the exact cache is keyed by content-type, shape and documentId', () => {
    const c = fresh();
    const a = c.read(ct('articles'), 'one', '', 'doc1');
    const b = c.read(ct('articles'), 'one', '', 'doc2');
    assert.notEqual(a, b);
    assert.deepEqual(b.params, ['en', 'doc2']);
    assert.equal(a.sql, b.sql);
    assert.notEqual(c.read(ct('tags'), 'list', '').sql.text, c.read(ct('authors'), 'list', '').sql.text);
    assert.notEqual(c.read(ct('authors'), 'list', '').sql.text, c.read(ct('authors'), 'one', '', 'x').sql.text);
  });

  test('what changes the SQL changes the shape', () => {
    const c = fresh();
    const texts = new Set([
      'filters[title][$eq]=a', 'filters[title][$ne]=a', 'filters[views][$eq]=1', 'filters[title][$null]=true', 'filters[title][$null]=false',
      'pagination[withCount]=false', 'locale=*', 'status=draft', 'sort=title', 'sort=title:desc', 'fields[0]=title',
      'populate=author', 'populate[author][fields][0]=name', '',
    ].map((q) => c.read(ct('articles'), 'list', q).sql.text));
    assert.equal(texts.size, 14);
  });

  test('the shape key masks values', () => {
    const q1 = parseQueryString('filters[title][$eq]=a&sort=title');
    const q2 = parseQueryString('filters[title][$eq]=b&sort=title');
    assert.equal(shapeKey(ct('articles'), 'list', q1), shapeKey(ct('articles'), 'list', q2));
    assert.notEqual(shapeKey(ct('articles'), 'list', q1), shapeKey(ct('articles'), 'list', parseQueryString('filters[title][$eq]=b&sort=views')));
  });

  test('$and / $or lists of different structure never share a plan', {
  }, () => {
    const c = fresh();
    const a = c.read(ct('articles'), 'list', 'filters[$or][0][title][$eq]=x&filters[$or][1][title][$eq]=y');
    const b = c.read(ct('articles'), 'list', 'filters[$or][0][slug][$eq]=x&filters[$or][1][slug][$eq]=y');
    assert.equal(b.sql.text, compileRead(schema, buildReadQuery(schema, ct('articles'), parseQueryString('filters[$or][0][slug][$eq]=x&filters[$or][1][slug][$eq]=y'), { shape: 'list' }, OPTS).query, { maxRelationRows: OPTS.maxRelationRows, bareList: true }).text);
    assert.notEqual(a.sql.text, b.sql.text);
    const d = c.read(ct('articles'), 'list', 'filters[$and][0][views][$gt]=1&filters[$and][1][views][$lt]=9&filters[$and][2][kind][$eq]=news');
    assert.equal((d.sql.text.match(/\$\d+/g) ?? []).reduce((m, x) => Math.max(m, Number(x.slice(1))), 0), d.params.length, 'the SQL uses exactly the parameters it is given');
  });

  test('every plan uses exactly the parameters it is given', () => {
    for (const q of ['', 'filters[views][$between][0]=1&filters[views][$between][1]=2', 'populate[tags][filters][name][$eq]=x&filters[title][$null]=true', 'populate=*&sort=author.name', 'locale=*&filters[$or][0][views]=1']) {
      const p = plan('articles', q);
      const max = (p.sql.text.match(/\$\d+/g) ?? []).reduce((m, x) => Math.max(m, Number(x.slice(1))), 0);
      assert.equal(max, p.params.length, q);
    }
  });

  test('compileRead is deterministic for one AST', () => {
    const { query } = buildReadQuery(schema, ct('articles'), parseQueryString('populate=*&filters[author][name][$eq]=x'), { shape: 'list' }, OPTS);
    assert.equal(compileRead(schema, query, { maxRelationRows: 1000 }).text, compileRead(schema, query, { maxRelationRows: 1000 }).text);
  });

  test('the caches are bounded (LRU)', () => {
    const c = new Compiler(schema, { ...OPTS, planCacheSize: 2 });
    c.read(ct('authors'), 'list', 'sort=name');
    c.read(ct('authors'), 'list', 'sort=email');
    c.read(ct('authors'), 'list', 'sort=bio');
    assert.equal(c.stats().exact.size, 2);
    assert.equal(c.stats().shapes.size, 2);
    const misses = c.stats().exact.misses;
    c.read(ct('authors'), 'list', 'sort=name');
    assert.equal(c.stats().exact.misses, misses + 1, 'the oldest entry was evicted');
  });
});

describe('row rendering', () => {
  test('values come from Strapi\'s columns in its formats: UTC wall-clock timestamps, decimals as numbers', () => {
    const text = plan('articles', '').sql.text;
    assert.ok(text.includes(`to_char(t0.created_at, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt"`), 'no time zone conversion');
    assert.ok(text.includes(`t0."rating"::float8 as "rating"`), 'numeric(10,2) would answer 4.50');
    assert.ok(!/doc_open|__json|record_json/.test(text));
  });

  test('every attribute type as Strapi 5.54 answers it (checked against a live Strapi)', () => {
    const all = loadModels(ALL_TYPES_MODELS, { defaultLocale: 'en', locales: ['en', 'fr'] });
    const text = new Compiler(all, OPTS).read(all.routes.get('everythings')!, 'list', '').sql.text;
    assert.ok(text.includes(`, t0."clock" as "clock",`), 'time: PostgreSQL\'s text, 13:45:10 or 13:45:10.5');
    assert.ok(text.includes(`, floor(extract(epoch from t0."stamp") * 1000)::bigint::text as "stamp",`), 'timestamp: epoch milliseconds as a string');
    assert.ok(text.includes(`, to_char(t0."happened_at", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "happenedAt",`), 'datetime: ISO with milliseconds');
    assert.ok(text.includes(`, t0."big"::text as "big",`), 'biginteger: a string');
    assert.ok(text.includes(`, t0."price"::float8 as "price",`), 'decimal: a number');
    assert.ok(text.includes(`, t0."ratio" as "ratio",`) && text.includes(`, t0."day" as "day",`), 'float and date: as they are');
    assert.ok(text.includes(`, case when strpos(t0."payload"::text, ': null') = 0 then json_strip_nulls(t0."payload"::json) `) && text.includes(` end as "payload",`),
      'json: compact text as JSON.stringify writes it, not jsonb\'s `{"a": 1}`');
  });

  test('a row of any width is one row_to_json; a key longer than a column name (63 bytes) is written by concat()', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fastrapi-wide-'));
    try {
      mkdirSync(join(dir, 'content-types'));
      const long = `a${'b'.repeat(70)}`;
      const type = (name: string, attributes: Record<string, unknown>) => writeFileSync(join(dir, 'content-types', `${name}.json`), JSON.stringify({
        kind: 'collectionType', collectionName: `${name}s`, info: { singularName: name, pluralName: `${name}s` }, options: { draftAndPublish: false }, attributes,
      }));
      type('wide', Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`field${i}`, { type: 'string' }])));
      type('long', { title: { type: 'string' }, [long]: { type: 'integer' } });
      const models = loadModels(dir, { defaultLocale: 'en', locales: ['en'] });
      const read = (route: string, q = '') => new Compiler(models, OPTS).read(models.routes.get(route)!, 'list', q).sql.text;
      const wide = read('wides');
      assert.match(wide, /select row_to_json\(o1\)::text as j from .* cross join lateral \(select t0\.id as "id", t0\.document_id as "documentId", t0\."field_0" as "field0", /);
      assert.ok(wide.includes('t0."field_59" as "field59", to_char(t0.created_at'));
      assert.ok(!wide.includes('json_build_object('));
      assert.match(read('wides', 'fields[0]=field1'), /cross join lateral \(select t0\.id as "id", t0\.document_id as "documentId", t0\."field_1" as "field1"\) o1 /);
      // PostgreSQL would cut the longer key (a column name): that row is written value by value.
      const text = read('longs');
      assert.ok(text.includes(`select concat('{"id":', coalesce(to_json(t0.id)::text, 'null'), ',"documentId":', coalesce(to_json(t0.document_id)::text, 'null'), ',"title":', coalesce(to_json(t0."title")::text, 'null'), ',"${long}":', coalesce(to_json(t0.`), text);
      assert.ok(!text.includes('row_to_json'));
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });
});

describe('render cache', () => {
  const cached = new Compiler(schema, { ...OPTS, renderCache: true });
  const sql = (route: string, q: string) => cached.read(ct(route), 'list', q).sql.text;

  test('a default selection copies the cached text of a current entry, rendering live on a miss', () => {
    const text = sql('tags', '');
    assert.match(text, /left join fastrapi\."tags" t0r on t0r\.id = t0\.id and t0r\.updated_at = t0\.updated_at/);
    assert.match(text, /coalesce\(t0r\.doc, left\(row_to_json\((o\d+)\)::text, -1\)\)[^]* cross join lateral \(select t0\.id as "id", t0\.document_id as "documentId", t0\."name" as "name", [^]*\) \1/);
  });

  test('populated relations, components, zones and files use their entries; the owner keeps its components\' default populate', () => {
    const text = sql('articles', 'populate=*');
    assert.match(text, /left join fastrapi\."authors" t(\d+)r on t\1r\.id = t\1\.id and t\1r\.updated_at = t\1\.updated_at/);
    assert.match(text, /left join fastrapi\."files" (f\d+)r on \1r\.id = \1\.id and \1r\.updated_at = \1\.updated_at/);
    assert.match(text, /',"seo":', coalesce\(t0r\."p_seo", \(select /);
    assert.match(text, /',"blocks":', coalesce\(t0r\."p_blocks", \(select /);
    // The zone is written where Strapi's populate puts it: after the others when the page's rows hold
    // components (its second round trip), in its place otherwise — decided once over the page (pg).
    assert.match(text, /^with pg as materialized \(select z\.id, z\.document_id, z\.locale from \(select r0\.\* from "articles" r0 /);
    assert.match(text, /select case when \(case when exists \(select 1 from pg g\d+ where true and exists \(select 1 from "articles_cmps" c\d+ where c\d+\."entity_id" = g\d+\.id and c\d+\."field" = 'blocks' and c\d+\."component_type" in \('shared\.rich-text', 'shared\.quote', 'shared\.media', 'shared\.slider'\)\)\) then 2 else 1 end\) = 1 then concat\(/);
    assert.match(text, /',"seo":', [^]*',"blocks":', [^]*',"localizations":', p\d+\.v, '}'\) else concat\([^]*',"localizations":', p\d+\.v, ',"blocks":', coalesce\(t0r\."p_blocks"/);
  });

  test('explicit fields, picked file fields and nested component populates render live', () => {
    // The render cache's tables are `fastrapi."<table>"` (the row counters' fastrapi.row_counts is another matter).
    assert.doesNotMatch(sql('tags', 'fields[0]=name'), /fastrapi\."/);
    assert.doesNotMatch(sql('articles', 'fields[0]=title&populate[cover][fields][0]=url'), /fastrapi\."/);
    const nested = sql('articles', 'fields[0]=title&populate[seo][populate]=*');
    assert.doesNotMatch(nested, /p_seo/);
  });

  test('the cache tables render exactly what a live read renders', () => {
    const t = cacheTableOf(schema, ct('articles'));
    assert.match(t.create, /^create table if not exists fastrapi\."articles" \(id integer primary key, updated_at timestamp\(6\), "doc" text, "p_seo" text, "p_blocks" text\)$/);
    const live = new Compiler(schema, OPTS).read(ct('articles'), 'list', '').sql.text;
    const text = sql('articles', '');
    const [, o] = /coalesce\(t0r\.doc, left\(row_to_json\((o\d+)\)::text, -1\)\)/.exec(text)!;
    const render = new RegExp(String.raw`cross join lateral (\(select t0\.id as "id", .*? t0\.locale as "locale"\)) ${o}`).exec(text)![1];
    assert.ok(live.includes(render), 'the live render of a read is the fallback of the cached one');
    assert.ok(t.refreshIds.includes(`left(row_to_json(o1)::text, -1)`) && t.refreshIds.includes(`cross join lateral ${render.replaceAll('t0.', 't.')} o1 where`), 'and what the cache stores');
  });
});

describe("query keys as Strapi 5.54 names them (its own API tests' scenarios, checked live)", () => {
  test('an unknown operator under `id` (no attribute in its schema) is named at the parent path', () => {
    assert.deepEqual(queryError('articles', 'filters[id][$STARTSWITH]=1'), { status: 400, name: 'ValidationError', message: 'Invalid key $STARTSWITH', details: { key: '$STARTSWITH', path: null, source: 'query', param: 'filters' } });
    assert.equal(queryError('articles', 'filters[author][id][$BAD]=1').message, 'Invalid key $BAD at author');
    assert.equal(queryError('articles', 'filters[title][$BAD]=1').message, 'Invalid key $BAD at title');
  });

  test('an empty field name is refused', () => {
    assert.deepEqual(queryError('articles', 'fields[0]='), { status: 400, name: 'ValidationError', message: 'Invalid key ', details: { key: '', path: null, source: 'query', param: 'fields' } });
    assert.equal(queryError('articles', 'fields=').message, 'Invalid key ');
  });

  test("a media populate's `fields=*` picks every field", () => {
    const p = plan('articles', 'populate[cover][fields]=*');
    const all = plan('articles', 'populate[cover]=true');
    assert.equal(p.sql.text, all.sql.text);
  });
});

describe('the hidden creator relations (createdBy/updatedBy) in a query, named as Strapi 5.54 names them (checked live)', () => {
  const err = (q: string) => { const e = queryError('articles', q); return [e.message, (e.details as { path: unknown }).path]; };
  test('filters: a key the admin user lacks under the relation, then its password, then the relation', () => {
    assert.deepEqual(err('filters[createdBy][email][$startsWith]=a'), ['Invalid key createdBy', 'createdBy']);
    assert.deepEqual(err('filters[createdBy][password][$startsWith]=$2'), ['Invalid key password at createdBy.password', 'createdBy.password']);
    assert.deepEqual(err('filters[$not][updatedBy][password][$contains]=hash'), ['Invalid key password at updatedBy.password', 'updatedBy.password']);
    assert.deepEqual(err('filters[updatedBy][t1.password][$startsWith]=$2'), ['Invalid key t1.password at updatedBy', 'updatedBy']);
  });
  test('sort and fields name the relation', () => {
    assert.deepEqual(err('sort[updatedBy][email]=asc'), ['Invalid key updatedBy', 'updatedBy']);
    assert.deepEqual(err('sort[updatedBy][password]=asc'), ['Invalid key password at updatedBy.password', 'updatedBy.password']);
    assert.deepEqual(err('fields[0]=createdBy'), ['Invalid key createdBy', 'createdBy']);
    assert.deepEqual(err('populate[cover][fields][0]=createdBy'), ['Invalid key createdBy', 'createdBy']);
  });
});

describe("a media populate's filters (Strapi 5.54: the files failing them are left out, checked live)", () => {
  test('the condition joins the file source, its value a parameter', () => {
    const p = plan('articles', 'populate[cover][filters][name][$eq]=x.png');
    assert.ok(p.params.includes('x.png'), JSON.stringify(p.params));
    const unfiltered = plan('articles', 'populate[cover]=true');
    assert.notEqual(p.sql.text, unfiltered.sql.text);
    assert.match(p.sql.text, /"name" = \$\d+::text/);
  });
});

test('sort: a key the type lacks is named before a private or password one (Strapi 5.54, checked live)', () => {
  assert.deepEqual(queryError('articles', 'sort[0]=title:desc&sort[1]=nope&sort[2]=createdBy.email'), { status: 400, name: 'ValidationError', message: 'Invalid key nope', details: { key: 'nope', path: null, source: 'query', param: 'sort' } });
  assert.equal(queryError('articles', 'sort[0]=createdBy.email&sort[1]=nope').message, 'Invalid key nope');
});

test('a route\'s own query params split the plan cache only where strictParams checks them', () => {
  const own = (id: string, key: string) => ({ id, keys: new Set([key]), check(q: Record<string, unknown>) { if (typeof q[key] === 'object') throw new ApiError(400, 'ValidationError', `bad ${key}`, {}); } });
  const a = own('a', 'search'), b = own('b', 'level');
  const loose = fresh();
  const pa = loose.read(ct('articles'), 'list', 'pagination[pageSize]=3', undefined, undefined, undefined, a);
  assert.equal(loose.read(ct('articles'), 'list', 'pagination[pageSize]=3', undefined, undefined, undefined, b), pa);
  assert.equal(loose.read(ct('articles'), 'list', 'pagination[pageSize]=3', undefined, undefined, undefined, true), pa);
  // Without strictParams neither set's keys nor values are looked at (Strapi ignores them).
  loose.read(ct('articles'), 'list', 'search[x]=1&other=2', undefined, undefined, undefined, b);
  const strict = new Compiler(schema, { ...OPTS, strictKeys: true });
  const sa = strict.read(ct('articles'), 'list', 'search=x', undefined, undefined, undefined, a);
  assert.equal(apiError(() => strict.read(ct('articles'), 'list', 'search=x', undefined, undefined, undefined, b)).message, 'Invalid key search');
  assert.equal(strict.read(ct('articles'), 'list', 'search=x', undefined, undefined, undefined, a), sa);
  assert.equal(apiError(() => strict.read(ct('articles'), 'list', 'search[y]=1', undefined, undefined, undefined, a)).message, 'bad search');
});

test('filter values cast as Strapi 5.54\'s database fields cast them (checked live)', () => {
  const p = (query: string) => plan('articles', query).params.slice(1);
  // BooleanField: true|t|1 and false|f|0 exactly, any other text by JavaScript's truth.
  assert.deepEqual(p('filters[featured][$eq]=maybe'), [true]);
  assert.deepEqual(p('filters[featured][$eq]=FALSE'), [true]);
  assert.deepEqual(p('filters[featured][$eq]=f'), [false]);
  // NumberField: the trimmed text as a number (1e2 is 100); BigIntegerField: digits with a sign.
  assert.deepEqual(p('filters[views][$eq]=1e2'), ['100']);
  assert.deepEqual(p('filters[views][$eq]=%2037%20'), ['37']);
  assert.deepEqual(p('filters[rating][$gt]=0x10'), ['16']);
  assert.equal(queryError('articles', 'filters[views][$eq]=1.5').message, 'Invalid value "1.5" for views');
  assert.equal(queryError('articles', 'filters[views][$eq]=%20').message, 'Invalid value " " for views');
});
