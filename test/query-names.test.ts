// A populated attribute given a name instead of `true` or an object, and the media library's file reads
// validated as Strapi's upload controllers validate them (each answer checked live on Strapi 5.54 with the
// blog models, found by bench/upload-diff-fuzz.ts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, insertFile, TOKEN, type TestServer } from './helpers.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
  await insertFile(s.sql(), { name: 'cover-red.png', alternativeText: 'A red cover' });
  await insertFile(s.sql(), { name: 'avatar-green.png' });
  await s.sql()`update files set folder_path = '/1'`;
  const r = await s.fetchJson('POST', '/api/articles', { data: { title: 'Named' } }, TOKEN);
  assert.equal(r.status, 201, r.text);
});
after(() => s?.stop());

const get = (path: string) => s.fetchJson('GET', path, undefined, TOKEN);
const keyError = (r: { body: { error: { message: string; details: { path?: string | null; param?: string } } } }) =>
  [r.body.error.message, r.body.error.details.path, r.body.error.details.param];

test('a populated attribute given a name: read as keys of its target, so one of them is named by its own path', async () => {
  // Strapi's validator reads `populate[category]=articles` as the category's key `articles`.
  assert.deepEqual(keyError(await get('/api/articles?populate[category]=articles')), ['Invalid key articles at category.articles', 'category.articles', 'populate']);
  assert.deepEqual(keyError(await get('/api/articles?populate[category]=nope')), ['Invalid key nope at category', 'category', 'populate']);
  assert.deepEqual(keyError(await get('/api/articles?populate[seo]=metaTitle')), ['Invalid key metaTitle at seo.metaTitle', 'seo.metaTitle', 'populate']);
  assert.deepEqual(keyError(await get('/api/articles?populate[cover]=name')), ['Invalid key name at cover.name', 'cover.name', 'populate']);
  assert.deepEqual(keyError(await get('/api/articles?populate[category][populate][parent]=name')), ['Invalid key name at category.parent.name', 'category.parent.name', 'populate']);
  // localizations too (a name was taken as `true` here).
  assert.deepEqual(keyError(await get('/api/articles?populate[localizations]=title')), ['Invalid key title at localizations.title', 'localizations.title', 'populate']);
  // A zone's query conversion reads the name as an object of its characters.
  const zone = await get('/api/articles?populate[blocks]=nope');
  assert.deepEqual(zone.body.error, { status: 400, name: 'ValidationError', message: 'Invalid nested populate for article.blocks (api::article.article). Expected a fragment ("on") or "count" but found "nope"', details: {} });
  // A morph with no target populates nothing for a name.
  const files = await get('/api/upload/files?populate[related]=folder&fields[0]=name');
  assert.equal(files.status, 200, files.text);
  assert.deepEqual(files.body.map((f: Record<string, unknown>) => Object.keys(f)), [['id', 'documentId', 'name', 'isUrlSigned'], ['id', 'documentId', 'name', 'isUrlSigned']]);
});

test('file reads: the query is validated first (filters, sort, fields, populate), then the route\'s own parameters and the file\'s id', async () => {
  assert.deepEqual(keyError(await get('/api/upload/files?sort=nope&fields[0]=folderPath')), ['Invalid key nope', null, 'sort']);
  assert.deepEqual(keyError(await get('/api/upload/files?filters[folderPath][$eq]=/1&fields[0]=folderPath')), ['Invalid key folderPath', 'folderPath', 'filters']);
  assert.deepEqual(keyError(await get('/api/upload/files?sort=nope&start=-1')), ['Invalid key nope', null, 'sort']);
  assert.deepEqual(keyError(await get('/api/upload/files/x?sort=nope')), ['Invalid key nope', null, 'sort']);
  assert.deepEqual(keyError(await get('/api/upload/files/99?filters[folderPath][$eq]=/1')), ['Invalid key folderPath', 'folderPath', 'filters']);
  assert.equal((await get('/api/upload/files/99')).status, 404);
  // A value that does not cast comes after every key.
  assert.deepEqual(keyError(await get('/api/upload/files?filters[size][$in][0]=x&fields[0]=folderPath')), ['Invalid key folderPath', 'folderPath', 'fields']);
  assert.equal((await get('/api/upload/files?filters[size][$in][0]=x')).body.error.message, 'Invalid value "x" for size');
});

test('file reads: `_q` searches the files (not their folder path)', async () => {
  const names = async (q: string) => (await get(`/api/upload/files?_q=${encodeURIComponent(q)}&fields[0]=name`)).body.map((f: { name: string }) => f.name);
  assert.deepEqual(await names('red'), ['cover-red.png']);
  assert.deepEqual(await names('/1'), []);
  assert.deepEqual(await names(''), ['cover-red.png', 'avatar-green.png']);
});

test('file list: with no start or limit, ordered as Strapi\'s query orders it (by the sort alone, else the table\'s own order: an edited file moves); else by the sort, then id', async () => {
  const ids = async (q: string) => (await get(`/api/upload/files?fields[0]=name${q}`)).body.map((f: { id: number }) => f.id);
  const [first, second] = await ids('&sort=id');
  // A new version of the first row lies after the second's.
  await s.sql()`update files set caption = 'edited' where id = ${first}`;
  assert.deepEqual(await ids(''), [second, first]);
  assert.deepEqual(await ids('&limit=-1'), [second, first]);
  assert.deepEqual(await ids('&limit=0'), [first, second]);
  assert.deepEqual(await ids('&start=0'), [first, second]);
  assert.deepEqual(await ids('&sort=id'), [first, second]);
  // Ties of a sort as PostgreSQL's sort leaves them for the upload service's own query.
  await insertFile(s.sql(), { name: 'third.png' });
  await s.sql()`update files set caption = 'same'`;
  const strapiOrder = (await s.sql()`select id from files order by caption asc`).map((r) => Number(r.id));
  assert.deepEqual(await ids('&sort=caption'), strapiOrder);
});
