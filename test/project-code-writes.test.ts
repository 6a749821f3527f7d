// Project code, beyond the recorded answers (test/project-code.test.ts): route paths compiled as Strapi's
// router compiles them (src/project/path.ts against the real path-to-regexp 6.3.0 Strapi 5.54 uses), and
// the document service's publish/unpublish under concurrency through a custom route.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { compilePath, matchPath } from '../src/project/path.ts';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';

const require = createRequire(import.meta.url);
// path-to-regexp 6.3.0: a development dependency here (through s3rver's @koa/router), the version Strapi 5.54's @koa/router 12 runs.
const p2r = require('path-to-regexp') as { pathToRegexp(path: string, keys: unknown[], opts: object): RegExp };

const PATTERNS = [
  '/api/articles/:id', '/api/paths/n/:n(\\d+)', '/api/paths/opt/:slug?', '/api/paths/file/:name.:ext', '/api/paths/star/:rest*',
  '/api/paths/plus/:rest+', '/api/paths/group{/:a}?/end', '/api/paths/re/(\\w+)-:id(\\d+)', '/api/a/:b-:c', '/api/esc\\(x\\)/:y',
  '/api/x/:y(a|b)?', '/api/{v:major(\\d+)}?/z', '/api/files/:path(.*)', '/api/a/:id', '/api/A/B',
];
const PATHS = [
  '/api/articles/1', '/api/articles/', '/api/articles', '/api/paths/n/42', '/api/paths/n/x', '/api/paths/opt', '/api/paths/opt/', '/api/paths/opt/a%20b',
  '/api/paths/file/r.pdf', '/api/paths/file/r', '/api/paths/star', '/api/paths/star/a/b', '/api/paths/plus', '/api/paths/plus/a/b/', '/api/paths/group/end',
  '/api/paths/group/q/end', '/api/paths/re/ab-12', '/api/paths/re/ab-x', '/api/a/b-c', '/api/a/b-c-d', '/api/esc(x)/1', '/api/x/a', '/api/x/c', '/api/x',
  '/api/v2/z', '/api/z', '/api/files/a/b/c.txt', '/api/a/%E0%A4%A', '/api/a/b/c', '/api/a/B', '/api/a/b', '/api/ARTICLES/7',
];

test('route paths match as path-to-regexp 6.3.0 with @koa/router\'s options', () => {
  for (const pattern of PATTERNS) {
    const keys: Array<{ name: string | number }> = [];
    const want = p2r.pathToRegexp(pattern, keys, { sensitive: false, strict: false, end: true });
    const got = compilePath(pattern);
    assert.equal(got.regexp.source, want.source, pattern);
    assert.equal(got.regexp.flags, want.flags, pattern);
    assert.deepEqual(got.keys.map((k) => k.name), keys.map((k) => k.name), pattern);
    for (const path of PATHS) {
      const m = want.exec(path);
      let wantParams: Record<string, string> | null = null;
      if (m) {
        wantParams = {};
        keys.forEach((k, i) => { const c = m[i + 1]; if (c && c.length > 0) { try { wantParams![k.name] = decodeURIComponent(c); } catch { wantParams![k.name] = c; } } });
      }
      assert.deepEqual(matchPath(got, path), wantParams, `${pattern} on ${path}`);
    }
  }
});

test('a pattern path-to-regexp refuses is refused with its message', () => {
  for (const bad of ['/api/a/:', '/api/a/(?:x)', '/api/a/((x))', '/api/a/:id(', '/api/a/:a:b', '/api/a-:b*', '/api/a/{:b', '/api/a/()', '/api/a/:x([)']) {
    let want: string | null = null;
    try { p2r.pathToRegexp(bad, [], { sensitive: false, strict: false, end: true }); } catch (e) { want = (e as Error).message; }
    let got: string | null = null;
    try { compilePath(bad); } catch (e) { got = (e as Error).message; }
    assert.ok(want !== null, `path-to-regexp refuses ${bad}`);
    assert.equal(got, want, bad);
  }
});

let s: TestServer;
before(async () => {
  s = await startTestServer({ modelsDir: fileURLToPath(new URL('./fixtures/project-code', import.meta.url)), env: { LOCALES: 'en,fr' } });
});
after(async () => { await s?.stop(); });

test('30 parallel publish/unpublish of one document leave one draft and at most one published row per locale', async () => {
  const created = await s.fetchJson('POST', '/api/articles', { data: { title: 'Toggled', slug: 'toggled', seo: { metaTitle: 't' } } }, TOKEN);
  assert.equal(created.status, 201);
  const id = created.body.data.documentId as string;
  assert.equal((await s.fetchJson('PUT', `/api/articles/${id}?locale=fr`, { data: { title: 'Basculé', slug: 'bascule' } }, TOKEN)).status, 200);
  const answers = await Promise.all(Array.from({ length: 30 }, (_, i) =>
    s.fetchJson('POST', `/api/articles-toggle/${id}/${i % 3 === 0 ? 'unpublish' : 'publish'}?locale=${i % 2 ? 'fr' : 'en'}`, undefined, null)));
  for (const a of answers) assert.equal(a.status, 200, JSON.stringify(a.body));
  const rows = await s.sql()`select locale, published_at is not null as published, count(*)::int as n from articles where document_id = ${id} group by 1, 2 order by 1, 2`;
  for (const locale of ['en', 'fr']) {
    const mine = rows.filter((r) => r.locale === locale);
    assert.equal(mine.find((r) => !r.published)?.n, 1, `one ${locale} draft: ${JSON.stringify(rows)}`);
    assert.ok((mine.find((r) => r.published)?.n ?? 0) <= 1, `at most one published ${locale} row: ${JSON.stringify(rows)}`);
  }
  // Every published row owns its own copy of the seo component (none shared, none left behind).
  const seo = await s.sql()`select count(*)::int as n from articles_cmps c join articles a on a.id = c.entity_id where a.document_id = ${id} and c.field = 'seo'`;
  const orphans = await s.sql()`select count(*)::int as n from components_shared_seos s where not exists (select 1 from articles_cmps c where c.cmp_id = s.id)`;
  assert.equal(orphans[0].n, 0);
  assert.ok(seo[0].n >= 1);
  // Then a final publish in each locale answers the published entry, and an unpublish of both removes both.
  const published = await s.fetchJson('POST', `/api/articles-toggle/${id}/publish?locale=fr`, undefined, null);
  assert.deepEqual(published.body, { documentId: id, entries: 1 });
  await s.fetchJson('POST', `/api/articles-toggle/${id}/publish?locale=en`, undefined, null);
  const both = await s.fetchJson('POST', `/api/articles-toggle/${id}/unpublish?locale=*`, undefined, null);
  assert.deepEqual(both.body, { documentId: id, entries: 2 });
  const left = await s.sql()`select count(*)::int as n from articles where document_id = ${id} and published_at is not null`;
  assert.equal(left[0].n, 0);
  // A list of locales acts on each of them (Strapi's multiLocaleToLookup: locale in (…)), not the default one alone.
  const listed = await s.fetchJson('POST', `/api/articles-toggle/${id}/publish?locale[0]=en&locale[1]=fr`, undefined, null);
  assert.deepEqual(listed.body, { documentId: id, entries: 2 });
  const onlyFr = await s.fetchJson('POST', `/api/articles-toggle/${id}/unpublish?locale[0]=fr`, undefined, null);
  assert.deepEqual(onlyFr.body, { documentId: id, entries: 1 });
  assert.deepEqual((await s.sql()`select locale from articles where document_id = ${id} and published_at is not null`).map((r) => r.locale), ['en']);
  assert.deepEqual((await s.fetchJson('POST', `/api/articles-toggle/${id}/unpublish?locale[0]=en&locale[1]=fr`, undefined, null)).body, { documentId: id, entries: 1 });

  // With discardDraft in the mix (it removes a draft that has no published version left, as Strapi's):
  // never more than one draft or published row per locale, and a published row always has its draft.
  await s.fetchJson('POST', `/api/articles-toggle/${id}/publish?locale=*`, undefined, null);
  const ops = ['publish', 'unpublish', 'discardDraft'];
  const mixed = await Promise.all(Array.from({ length: 30 }, (_, i) =>
    s.fetchJson('POST', `/api/articles-toggle/${id}/${ops[i % 3]}?locale=${i % 2 ? 'fr' : 'en'}`, undefined, null)));
  for (const a of mixed) assert.equal(a.status, 200, JSON.stringify(a.body));
  const after = await s.sql()`select locale, published_at is not null as published, count(*)::int as n from articles where document_id = ${id} group by 1, 2 order by 1, 2`;
  for (const locale of ['en', 'fr']) {
    const mine = after.filter((r) => r.locale === locale);
    const drafts = mine.find((r) => !r.published)?.n ?? 0;
    const pubs = mine.find((r) => r.published)?.n ?? 0;
    assert.ok(drafts <= 1 && pubs <= 1 && (pubs === 0 || drafts === 1), `${locale}: ${JSON.stringify(after)}`);
  }
  const orphansAfter = await s.sql()`select count(*)::int as n from components_shared_seos s where not exists (select 1 from articles_cmps c where c.cmp_id = s.id)`;
  assert.equal(orphansAfter[0].n, 0);
});

test('strapi.db.transaction: its writes commit together or not at all, its reads see them, nested calls join it', async () => {
  const call = async (name: string, mode: string, q = '') => (await s.fetchJson('POST', `/api/articles-transaction/${name}/${mode}${q}`, undefined, null)).body;
  assert.deepEqual(await call('txok', 'ok'), { out: { inside: 2, nested: true }, after: 2, committed: true, rolledBack: false, outside: false });
  assert.deepEqual(await call('txthrow', 'throw'), { out: { thrown: 'Error', message: 'the callback failed' }, after: 0, committed: false, rolledBack: true, outside: false });
  assert.deepEqual(await call('txrb', 'rollback'), { out: { inside: 2, nested: true }, after: 0, committed: false, rolledBack: true, outside: false });
  assert.deepEqual(await call('txnest', 'nested'), { out: { thrown: 'Error', message: 'the inner callback failed' }, after: 0, committed: false, rolledBack: true, outside: false });
});

test('50 parallel transactions writing one document: none hangs or fails, every write lands once', async () => {
  const created = await s.fetchJson('POST', '/api/articles', { data: { title: 'Tx target', slug: 'tx-target' } }, TOKEN);
  const id = (created.body as { data: { documentId: string } }).data.documentId;
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) =>
    s.fetchJson('POST', `/api/articles-transaction/par${i}/ok?article=${id}`, undefined, null)));
  assert.deepEqual(answers.filter((a) => a.status !== 200 || (a.body as { committed?: boolean }).committed !== true).map((a) => a.body), []);
  const [{ n }] = await s.sql()`select count(*)::int as n from tags where name like 'par%'`;
  assert.equal(n, 100);
  const rows = await s.sql()`select published_at is not null as published, count(*)::int as n from articles where document_id = ${id} and locale = 'en' group by 1 order by 1`;
  assert.deepEqual(rows.map((r) => [r.published, r.n]), [[false, 1], [true, 1]]);
  const [{ title }] = await s.sql()`select title from articles where document_id = ${id} and published_at is not null`;
  assert.match(title as string, /^par\d+ title$/);
});

test('strapi.documents reads hasPublishedVersion and publicationFilter as Strapi\'s document service does, and refuses lookup', async () => {
  await s.fetchJson('POST', '/api/articles?status=draft', { data: { title: 'Cohort draft', slug: 'cohort-draft' } }, TOKEN);
  await s.fetchJson('POST', '/api/articles', { data: { title: 'Cohort published', slug: 'cohort-published' } }, TOKEN);
  const r = await s.fetchJson('GET', '/api/articles-cohorts/Cohort', undefined, null);
  assert.deepEqual(r.body, {
    neverPublished: ['Cohort draft'], published: ['Cohort published'], filter: ['Cohort draft'],
    lookup: { thrown: 'ValidationError', message: "Invalid params: 'lookup'", details: {} },
  });
});

