// The upload plugin against a real server: multipart uploads (PNG, JPEG, text), Strapi's file record
// and image formats, the files on disk and at /uploads/*, media fields of entries, replace/edit/delete,
// permissions, and bad input that must leave nothing behind.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import http from 'node:http';
import sharp from 'sharp';
import postgres from 'postgres';
import { startServer, type Server } from '../src/server.ts';
import { parseMultipart, boundaryOf, MultipartError } from '../src/upload/multipart.ts';
import { slugify, nameFile } from '../src/upload/names.ts';
import { uploadPath } from '../src/upload/static.ts';
import { processImage } from '../src/upload/image.ts';

const MODELS = fileURLToPath(new URL('../models', import.meta.url));
const MAX_FILE = 300_000;

interface Format { ext: string; url: string; hash: string; mime: string; name: string; path: null; size: number; width: number; height: number; sizeInBytes: number }
interface FileRecord {
  id: number; documentId: string; name: string; alternativeText: string | null; caption: string | null; focalPoint: null;
  width: number | null; height: number | null; formats: Record<string, Format> | null; hash: string; ext: string; mime: string;
  size: number; url: string; previewUrl: null; provider: string; provider_metadata: null; createdAt: string; updatedAt: string;
  publishedAt: string; isUrlSigned?: boolean;
}
interface ErrorBody { data: null; error: { status: number; name: string; message: string } }

const RECORD_KEYS = ['id', 'documentId', 'name', 'alternativeText', 'caption', 'focalPoint', 'width', 'height', 'formats', 'hash', 'ext',
  'mime', 'size', 'url', 'previewUrl', 'provider', 'provider_metadata', 'createdAt', 'updatedAt', 'publishedAt'];
const FORMAT_KEYS = ['ext', 'url', 'hash', 'mime', 'name', 'path', 'size', 'width', 'height', 'sizeInBytes'];

let server: Server;
let dataDir: string;
let uploads: string;

const auth = { Authorization: 'Bearer T' };
const png = (width: number, height: number, color: { r: number; g: number; b: number }) =>
  sharp({ create: { width, height, channels: 3, background: color } }).png().toBuffer();
const jpeg = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 10, g: 120, b: 200 } } }).jpeg({ quality: 95 }).toBuffer();

interface Upload { data: Buffer; filename: string; type?: string }
function form(files: Upload[], fields: Record<string, string> = {}): FormData {
  const f = new FormData();
  for (const u of files) f.append('files', new Blob([new Uint8Array(u.data)], u.type ? { type: u.type } : {}), u.filename);
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  return f;
}

async function call<T>(method: string, path: string, body?: FormData | string, headers: Record<string, string> = auth): Promise<{ status: number; body: T; headers: Headers; text: string }> {
  const res = await fetch(server.url + path, { method, headers, body });
  const text = await res.text();
  return { status: res.status, body: (text && /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : text) as T, headers: res.headers, text };
}
const upload = (files: Upload[], fields: Record<string, string> = {}, query = '') => call<FileRecord[] & ErrorBody>('POST', `/api/upload${query}`, form(files, fields));
const onDisk = () => (existsSync(uploads) ? readdirSync(uploads).sort() : []);
const fileCount = async () => (await call<FileRecord[]>('GET', '/api/upload/files')).body.length;

/** Raw GET (fetch would normalize `..` out of the path). */
function rawGet(path: string): Promise<{ status: number; type: string; body: Buffer }> {
  const u = new URL(server.url);
  return new Promise((resolve, reject) => {
    http.get({ host: u.hostname, port: u.port, path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'fastrapi-upload-'));
  uploads = join(dataDir, 'uploads');
  server = await startServer({
    env: {
      DATA_DIR: dataDir, MODELS_DIR: MODELS, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', WORKERS: '0',
      API_TOKENS: 'test:full-access:T,reader:read-only:R', PUBLIC_PERMISSIONS: '*:find,findOne',
      UPLOAD_MAX_FILE_SIZE: String(MAX_FILE), MAX_BODY_SIZE: '4096',
    },
    overrides: {},
  });
});

after(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('upload', () => {
  let red: FileRecord;
  let photo: FileRecord;
  let notes: FileRecord;

  test('a PNG becomes a Strapi file record with formats, stored and served', async () => {
    const data = await png(800, 600, { r: 200, g: 30, b: 30 });
    const res = await upload([{ data, filename: 'cover-red.png', type: 'image/png' }],
      { fileInfo: JSON.stringify({ name: 'cover-red.png', alternativeText: 'A red cover', caption: 'Red caption' }) });
    assert.equal(res.status, 201);
    assert.ok(Array.isArray(res.body) && res.body.length === 1);
    // Compact as Strapi's (its formats are no jsonb text with `"key": value` spacing).
    assert.doesNotMatch(res.text, /": |, "/);
    red = res.body[0];
    assert.deepEqual(Object.keys(red), [...RECORD_KEYS, 'isUrlSigned']);
    assert.equal(red.isUrlSigned, false);
    assert.match(red.hash, /^cover_red_[0-9a-f]{10}$/);
    assert.equal(red.url, `/uploads/${red.hash}.png`);
    assert.equal(red.documentId.length, 24);
    assert.deepEqual([red.name, red.alternativeText, red.caption, red.width, red.height, red.ext, red.mime, red.provider],
      ['cover-red.png', 'A red cover', 'Red caption', 800, 600, '.png', 'image/png', 'local']);
    assert.equal(red.focalPoint, null);
    assert.equal(red.previewUrl, null);
    assert.equal(red.provider_metadata, null);
    assert.match(red.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // Only the breakpoints below the original; jsonb key order (length, then bytes).
    assert.deepEqual(Object.keys(red.formats!), ['small', 'medium', 'thumbnail']);
    const expected: Record<string, [number, number]> = { thumbnail: [208, 156], small: [500, 375], medium: [750, 563] };
    for (const [key, f] of Object.entries(red.formats!)) {
      assert.deepEqual(Object.keys(f), FORMAT_KEYS);
      assert.deepEqual([f.width, f.height], expected[key]);
      assert.equal(f.hash, `${key}_${red.hash}`);
      assert.equal(f.name, `${key}_cover-red.png`);
      assert.equal(f.url, `/uploads/${key}_${red.hash}.png`);
      assert.equal(f.path, null);
      assert.equal(f.mime, 'image/png');
      const bytes = readFileSync(join(uploads, `${f.hash}.png`));
      assert.equal(f.sizeInBytes, bytes.length);
      assert.equal(f.size, Math.round(bytes.length / 10) / 100);
      const meta = await sharp(bytes).metadata();
      assert.deepEqual([meta.width, meta.height], expected[key]);
    }
    const original = readFileSync(join(uploads, `${red.hash}.png`));
    assert.equal(red.size, Math.round(original.length / 10) / 100);
    assert.deepEqual(onDisk(), [`${red.hash}.png`, ...['medium', 'small', 'thumbnail'].map((k) => `${k}_${red.hash}.png`)].sort());

    const served = await fetch(server.url + red.url);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), original);
  });

  test('uploads go to Strapi\'s "API Uploads" folder (folder_path, files_folder_lnk, core store), created once', async () => {
    const sql = postgres(server.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      const folders = await sql`select id, name, path_id, path from upload_folders`;
      assert.deepEqual(folders.map((f) => ({ ...f })), [{ id: folders[0].id, name: 'API Uploads', path_id: 1, path: '/1' }]);
      const [store] = await sql`select value, type from strapi_core_store_settings where key = 'plugin_upload_api-folder'`;
      assert.deepEqual([JSON.parse(store.value), store.type], [{ id: folders[0].id }, 'object']);
      const again = await upload([{ data: await png(20, 20, { r: 1, g: 2, b: 3 }), filename: 'second.png', type: 'image/png' }]);
      assert.equal(again.status, 201);
      const rows = await sql`select f.name, f.folder_path, l.folder_id, l.file_ord from files f join files_folder_lnk l on l.file_id = f.id order by f.id`;
      assert.deepEqual(rows.map((r) => ({ ...r })), [
        { name: 'cover-red.png', folder_path: '/1', folder_id: folders[0].id, file_ord: 1 },
        { name: 'second.png', folder_path: '/1', folder_id: folders[0].id, file_ord: 2 },
      ]);
      assert.equal((await sql`select count(*)::int as n from upload_folders`)[0].n, 1);
      assert.equal((await call<FileRecord>('DELETE', `/api/upload/files/${again.body[0].id}`)).status, 200);
      assert.equal((await sql`select count(*)::int as n from files_folder_lnk`)[0].n, 1, 'the folder link goes with the file');
    } finally { await sql.end({ timeout: 5 }); }
  });

  test('several files at once (JPEG, text) with a fileInfo per file; the body limit is the upload limit', async () => {
    const res = await upload([
      { data: await jpeg(1200, 300), filename: 'Holiday Photo.JPG', type: 'image/jpeg' },
      { data: Buffer.from('just some notes\n'), filename: 'notes.txt', type: 'text/plain' },
    ], { fileInfo: JSON.stringify([{ alternativeText: 'Beach' }, { name: 'my-notes.txt', caption: 'Notes' }]) });
    assert.equal(res.status, 201);
    [photo, notes] = res.body;
    assert.match(photo.hash, /^Holiday_Photo_[0-9a-f]{10}$/);
    assert.deepEqual([photo.name, photo.ext, photo.mime, photo.width, photo.height, photo.alternativeText], ['Holiday Photo.JPG', '.JPG', 'image/jpeg', 1200, 300, 'Beach']);
    assert.deepEqual(Object.keys(photo.formats!), ['large', 'small', 'medium', 'thumbnail']);
    assert.deepEqual([photo.formats!.large.width, photo.formats!.large.height], [1000, 250]);
    assert.deepEqual([photo.formats!.thumbnail.width, photo.formats!.thumbnail.height], [245, 61]);
    assert.equal((await sharp(readFileSync(join(uploads, `${photo.hash}.JPG`))).metadata()).format, 'jpeg');

    assert.match(notes.hash, /^my_notes_[0-9a-f]{10}$/);
    assert.deepEqual([notes.name, notes.ext, notes.mime, notes.width, notes.height, notes.formats, notes.caption, notes.size],
      ['my-notes.txt', '.txt', 'text/plain', null, null, null, 'Notes', 0.02]);
    const served = await fetch(server.url + notes.url);
    assert.equal(served.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.equal(await served.text(), 'just some notes\n');
  });

  test('GET /api/upload/files is a bare array; filters, sort, start and limit apply, pagination does not', async () => {
    const all = await call<FileRecord[]>('GET', '/api/upload/files');
    assert.equal(all.status, 200);
    assert.deepEqual(all.body.map((f) => f.id), [red.id, photo.id, notes.id]);
    assert.deepEqual(Object.keys(all.body[0]), [...RECORD_KEYS, 'isUrlSigned']);
    const filtered = await call<FileRecord[]>('GET', '/api/upload/files?filters[mime][$startsWith]=image/&sort=name:desc');
    assert.deepEqual(filtered.body.map((f) => f.name), ['cover-red.png', 'Holiday Photo.JPG']);
    // Strapi 5.54's findMany takes no `pagination` (recorded in test/fixtures/upload-files): top-level start/limit.
    const page = await call<FileRecord[]>('GET', '/api/upload/files?pagination[page]=2&pagination[pageSize]=2');
    assert.deepEqual(page.body.map((f) => f.id), [red.id, photo.id, notes.id]);
    const offset = await call<FileRecord[]>('GET', '/api/upload/files?start=2&limit=1');
    assert.deepEqual(offset.body.map((f) => f.id), [notes.id]);
    const bad = await call<ErrorBody>('GET', '/api/upload/files?filters[nope]=1');
    assert.equal(bad.status, 400);
  });

  test('GET /api/upload/files/:id answers one record or file.notFound', async () => {
    const one = await call<FileRecord>('GET', `/api/upload/files/${red.id}`);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body, red);
    for (const id of ['999999', 'abc']) {
      const missing = await call<ErrorBody>('GET', `/api/upload/files/${id}`);
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body.error, { status: 404, name: 'NotFoundError', message: 'file.notFound', details: {} });
    }
  });

  test('permissions: public callers are forbidden, bad tokens unauthorized, read-only tokens read', async () => {
    const forbidden = { status: 403, name: 'ForbiddenError', message: 'Forbidden', details: {} };
    const list = await call<ErrorBody>('GET', '/api/upload/files', undefined, {});
    assert.equal(list.status, 403);
    assert.deepEqual(list.body.error, forbidden);
    const before = onDisk();
    const post = await call<ErrorBody>('POST', '/api/upload', form([{ data: await png(8, 8, { r: 0, g: 0, b: 0 }), filename: 'nope.png', type: 'image/png' }]), {});
    assert.equal(post.status, 403);
    assert.deepEqual(post.body.error, forbidden);
    assert.deepEqual(onDisk(), before);
    assert.equal((await call<ErrorBody>('DELETE', `/api/upload/files/${red.id}`, undefined, {})).status, 403);
    assert.equal((await call<ErrorBody>('GET', '/api/upload/files', undefined, { Authorization: 'Bearer wrong' })).status, 401);
    const reader = { Authorization: 'Bearer R' };
    assert.equal((await call<FileRecord[]>('GET', '/api/upload/files', undefined, reader)).status, 200);
    assert.equal((await call<FileRecord>('GET', `/api/upload/files/${red.id}`, undefined, reader)).status, 200);
    assert.equal((await call<ErrorBody>('DELETE', `/api/upload/files/${red.id}`, undefined, reader)).status, 403);
    // The files themselves are public, as with Strapi's local provider.
    assert.equal((await fetch(server.url + red.url)).status, 200);
  });

  test('files set on an entry (cover, gallery) populate back; ref/refId/field attach on upload', async () => {
    const created = await call<{ data: { id: number; documentId: string } }>('POST', '/api/articles',
      JSON.stringify({ data: { title: 'With media', cover: red.id, gallery: [photo.id, notes.id] } }), { ...auth, 'Content-Type': 'application/json' });
    assert.equal(created.status, 201);
    const doc = created.body.data.documentId;
    const got = await call<{ data: { cover: FileRecord; gallery: FileRecord[] } }>('GET', `/api/articles/${doc}?populate[0]=cover&populate[1]=gallery`);
    assert.equal(got.status, 200);
    const { isUrlSigned: _, ...redAsMedia } = red;
    assert.deepEqual(got.body.data.cover, redAsMedia);
    assert.deepEqual(Object.keys(got.body.data.cover), RECORD_KEYS);
    assert.deepEqual(got.body.data.gallery.map((f) => f.id), [photo.id, notes.id]);

    const author = await call<{ data: { id: number; documentId: string } }>('POST', '/api/authors',
      JSON.stringify({ data: { name: 'Avatar Owner' } }), { ...auth, 'Content-Type': 'application/json' });
    const attached = await upload([{ data: await png(64, 64, { r: 1, g: 2, b: 3 }), filename: 'avatar.png', type: 'image/png' }],
      { ref: 'api::author.author', refId: String(author.body.data.id), field: 'avatar' });
    assert.equal(attached.status, 201);
    const withAvatar = await call<{ data: { avatar: FileRecord } }>('GET', `/api/authors/${author.body.data.documentId}?populate=avatar`);
    assert.equal(withAvatar.body.data.avatar.id, attached.body[0].id);
    assert.equal(withAvatar.body.data.avatar.formats, null);

    const galleryAdd = await upload([{ data: await png(300, 200, { r: 9, g: 9, b: 9 }), filename: 'extra.png', type: 'image/png' }],
      { ref: 'api::article.article', refId: String(created.body.data.id), field: 'gallery' });
    assert.equal(galleryAdd.status, 201);
    // Strapi's upload links each new file with `order` 1 (checked live): it comes right after the first
    // file, before the second (order 2).
    const gallery = await call<{ data: { gallery: FileRecord[] } }>('GET', `/api/articles/${doc}?populate=gallery`);
    assert.deepEqual(gallery.body.data.gallery.map((f) => f.id), [photo.id, galleryAdd.body[0].id, notes.id]);

    // A field that is no media attribute, and a row id of no entry: stored and linked all the same, as
    // Strapi 5.54 does (checked live); the entry's own reads never see such a link.
    const sql = postgres(server.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      for (const [refId, field] of [[String(created.body.data.id), 'title'], ['999999', 'gallery']]) {
        const odd = await upload([{ data: await png(8, 8, { r: 0, g: 0, b: 0 }), filename: 'x.png', type: 'image/png' }], { ref: 'api::article.article', refId, field });
        assert.equal(odd.status, 201, JSON.stringify(odd.body));
        const [link] = await sql`select related_id, field, "order" from files_related_mph where file_id = ${odd.body[0].id}`;
        assert.deepEqual([String(link.related_id), link.field, Number(link.order)], [refId, field, 1]);
      }
    } finally {
      await sql.end({ timeout: 5 });
    }
    const unknown = await upload([{ data: await png(8, 8, { r: 0, g: 0, b: 0 }), filename: 'x.png', type: 'image/png' }], { ref: 'api::nope.nope', refId: '1', field: 'cover' });
    assert.equal(unknown.status, 400);
  });

  test('POST ?id= edits fileInfo, or replaces the content under the same URL', async () => {
    const edited = await call<FileRecord>('POST', `/api/upload?id=${notes.id}`, form([], { fileInfo: JSON.stringify({ alternativeText: 'Edited' }) }));
    assert.equal(edited.status, 200);
    assert.deepEqual([edited.body.name, edited.body.alternativeText, edited.body.caption], ['my-notes.txt', 'Edited', 'Notes']);
    // A replacement starts its formats over from {}: a file without any keeps {} (Strapi 5.54, checked live).
    const retext = await call<FileRecord>('POST', `/api/upload?id=${notes.id}`, form([{ data: Buffer.from('new notes'), filename: 'my-notes.txt', type: 'text/plain' }]));
    assert.equal(retext.status, 200, JSON.stringify(retext.body));
    assert.deepEqual(retext.body.formats, {});

    const blue = await png(400, 300, { r: 30, g: 60, b: 200 });
    const replaced = await call<FileRecord>('POST', `/api/upload?id=${red.id}`, form([{ data: blue, filename: 'cover-blue.png', type: 'image/png' }]));
    assert.equal(replaced.status, 200);
    assert.deepEqual([replaced.body.id, replaced.body.hash, replaced.body.url, replaced.body.name], [red.id, red.hash, red.url, 'cover-blue.png']);
    assert.equal(replaced.body.alternativeText, 'A red cover');
    assert.deepEqual([replaced.body.width, replaced.body.height], [400, 300]);
    assert.deepEqual(Object.keys(replaced.body.formats!), ['thumbnail']);
    // The medium and small formats of the old 800×600 image are gone.
    assert.ok(!onDisk().some((n) => n === `medium_${red.hash}.png` || n === `small_${red.hash}.png`));
    const meta = await sharp(Buffer.from(await (await fetch(server.url + red.url)).arrayBuffer())).metadata();
    assert.deepEqual([meta.width, meta.height], [400, 300]);
    assert.equal((await call<ErrorBody>('POST', '/api/upload?id=999999', form([], { fileInfo: '{}' }))).status, 404);
    red = replaced.body;
  });

  test('bad input answers 400/413 in the error envelope and stores nothing', async () => {
    const before = [onDisk(), await fileCount()];
    const expectError = async (res: { status: number; body: unknown }, status: number, name: string, message?: string) => {
      assert.equal(res.status, status, JSON.stringify(res.body));
      const b = res.body as ErrorBody;
      assert.equal(b.data, null);
      assert.equal(b.error.status, status);
      assert.equal(b.error.name, name);
      if (message) assert.equal(b.error.message, message);
      assert.deepEqual([onDisk(), await fileCount()], before);
    };
    const json = { ...auth, 'Content-Type': 'application/json' };
    await expectError(await call('POST', '/api/upload', JSON.stringify({ files: 'x' }), json), 400, 'ValidationError', 'Files are empty');
    await expectError(await call('POST', '/api/upload', form([], { fileInfo: '{}' })), 400, 'ValidationError', 'Files are empty');
    await expectError(await call('POST', '/api/upload', 'garbage', { ...auth, 'Content-Type': 'multipart/form-data; boundary=xyz' }), 400, 'ValidationError');
    const truncated = (await png(400, 300, { r: 1, g: 200, b: 1 })).subarray(0, 200);
    await expectError(await upload([{ data: truncated, filename: 'broken.png', type: 'image/png' }]), 400, 'ApplicationError', 'File is not a valid image');
    // One good file and one bad: neither is kept.
    await expectError(await upload([
      { data: await png(300, 300, { r: 5, g: 5, b: 5 }), filename: 'good.png', type: 'image/png' },
      { data: truncated, filename: 'bad.png', type: 'image/png' },
    ]), 400, 'ApplicationError');
    await expectError(await upload([{ data: Buffer.from('x'), filename: 'a.txt', type: 'text/plain' }], { fileInfo: '{nope' }), 400, 'ValidationError');
    await expectError(await upload([{ data: Buffer.from('x'), filename: 'a.txt', type: 'text/plain' }], { fileInfo: JSON.stringify({ caption: { text: 'x' } }) }), 400, 'ValidationError');
    // Over the file limit but inside the request limit: the plugin's 413; far over it: the front end's.
    await expectError(await upload([{ data: Buffer.alloc(MAX_FILE + 1, 1), filename: 'big.bin', type: 'application/octet-stream' }]),
      413, 'PayloadTooLargeError', 'big.bin exceeds size limit of 300 KB.');
    await expectError(await upload([{ data: Buffer.alloc(MAX_FILE + 2 * 1024 * 1024, 1), filename: 'huge.bin' }]), 413, 'PayloadTooLargeError');
    // Other routes keep the JSON body limit (MAX_BODY_SIZE=4096).
    await expectError(await call('POST', '/api/tags', JSON.stringify({ data: { name: 'x'.repeat(5000) } }), json), 413, 'PayloadTooLargeError');
  });

  test('/uploads/* streams files of several chunks and answers HEAD', async () => {
    const data = Buffer.alloc(MAX_FILE - 10);
    for (let i = 0; i < data.length; i++) data[i] = (i * 7919) % 251;
    const res = await upload([{ data, filename: 'blob.bin', type: 'application/octet-stream' }]);
    assert.equal(res.status, 201);
    const rec = res.body[0];
    assert.equal(rec.mime, 'application/octet-stream');
    const got = await fetch(server.url + rec.url);
    assert.equal(got.headers.get('content-type'), 'application/octet-stream');
    assert.deepEqual(Buffer.from(await got.arrayBuffer()), data);
    const head = await fetch(server.url + rec.url, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(data.length));
    assert.equal((await call('DELETE', `/api/upload/files/${rec.id}`)).status, 200);
  });

  test('/uploads/* never leaves the upload folder', async () => {
    for (const path of ['/uploads/../package.json', '/uploads/..%2F..%2Fpackage.json', '/uploads/%2e%2e/x', '/uploads/', '/uploads/missing.png', '/uploads/%zz']) {
      const res = await rawGet(path);
      assert.equal(res.status, 404, path);
    }
    assert.equal(uploadPath('/srv/up', '/uploads/a.png'), '/srv/up/a.png');
    assert.equal(uploadPath('/srv/up', '/uploads/..%2Fetc'), null);
    assert.equal(uploadPath('/srv/up', '/uploads/.hidden'), null);
  });

  test('DELETE removes the record, its files and the entries\' references to it', async () => {
    const names = [`${red.hash}.png`, ...Object.values(red.formats ?? {}).map((f) => `${f.hash}.png`)];
    const del = await call<FileRecord>('DELETE', `/api/upload/files/${red.id}`);
    assert.equal(del.status, 200);
    assert.deepEqual(del.body, { ...red, updatedAt: del.body.updatedAt });
    for (const n of names) assert.ok(!onDisk().includes(n), n);
    assert.equal((await fetch(server.url + red.url)).status, 404);
    assert.equal((await call<ErrorBody>('GET', `/api/upload/files/${red.id}`)).status, 404);
    assert.equal((await call<ErrorBody>('DELETE', `/api/upload/files/${red.id}`)).status, 404);
    const articles = await call<{ data: Array<{ title: string; cover: FileRecord | null; gallery: FileRecord[] }> }>('GET', '/api/articles?populate[0]=cover&populate[1]=gallery');
    const a = articles.body.data.find((x) => x.title === 'With media')!;
    assert.equal(a.cover, null);

    const delNotes = await call<FileRecord>('DELETE', `/api/upload/files/${notes.id}`);
    assert.equal(delNotes.status, 200);
    const after = await call<{ data: Array<{ title: string; gallery: FileRecord[] }> }>('GET', '/api/articles?populate=gallery');
    assert.ok(!after.body.data.find((x) => x.title === 'With media')!.gallery.some((f) => f.id === notes.id));
  });

  test('unknown routes and methods', async () => {
    // Strapi 5.54 answers GET /api/upload as an unknown route, in its envelope (checked live).
    const get = await call<{ error: { name: string } }>('GET', '/api/upload');
    assert.deepEqual([get.status, get.body.error.name], [404, 'NotFoundError']);
    assert.equal((await call('PUT', `/api/upload/files/${photo.id}`, 'x')).status, 405);
    assert.equal((await call('GET', '/api/upload/nothing')).status, 404);
  });
});

describe('multipart parser', () => {
  const body = (parts: string[], boundary = 'XyZ') => Buffer.from(`preamble\r\n${parts.map((p) => `--${boundary}\r\n${p}\r\n`).join('')}--${boundary}--\r\nepilogue`, 'latin1');

  test('fields, files, quoted boundaries and RFC 5987 filenames', () => {
    assert.equal(boundaryOf('multipart/form-data; boundary="a b;c"'), 'a b;c');
    assert.equal(boundaryOf('multipart/form-data; charset=utf-8; boundary=XyZ'), 'XyZ');
    assert.equal(boundaryOf('application/json'), null);
    assert.equal(boundaryOf('multipart/form-data'), null);
    const parts = parseMultipart(body([
      'Content-Disposition: form-data; name="fileInfo"\r\n\r\n{"a":1}',
      'Content-Disposition: form-data; name="files"; filename="a\\"b.png"\r\nContent-Type: image/png\r\n\r\n\r\n--Xy-not-the-boundary\r\n',
      'Content-Disposition: form-data; name="files"; filename="x.txt"; filename*=UTF-8\'\'%C3%A9t%C3%A9.txt\r\n\r\n',
    ]), 'XyZ');
    assert.deepEqual(parts.map((p) => [p.name, p.filename, p.contentType]), [['fileInfo', null, null], ['files', 'a"b.png', 'image/png'], ['files', 'été.txt', null]]);
    assert.equal(parts[0].data.toString(), '{"a":1}');
    assert.equal(parts[1].data.toString(), '\r\n--Xy-not-the-boundary\r\n');
    assert.equal(parts[2].data.length, 0);
  });

  test('malformed bodies throw MultipartError', () => {
    assert.throws(() => parseMultipart(Buffer.from('no boundary here'), 'XyZ'), MultipartError);
    assert.throws(() => parseMultipart(Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\nunterminated'), 'XyZ'), MultipartError);
    assert.throws(() => parseMultipart(body(['Content-Type: text/plain\r\n\r\nx']), 'XyZ'), MultipartError);
    assert.throws(() => parseMultipart(body(Array.from({ length: 3 }, () => 'Content-Disposition: form-data; name="a"\r\n\r\nx')), 'XyZ', { maxParts: 2, maxHeaderBytes: 1024 }), MultipartError);
  });
});

describe('file naming', () => {
  test('slugify as Strapi (separator _, case kept)', () => {
    assert.equal(slugify('cover-blue'), 'cover_blue');
    assert.equal(slugify('Été à Paris'), 'Ete_a_Paris');
    assert.equal(slugify('myPhoto 2024 (1)'), 'my_Photo_2024_1');
    assert.equal(slugify('Größe & Maß'), 'Groesse_and_Mass');
  });

  test('ext from the filename (or the type), hash from the shown name', () => {
    const n = nameFile('photo.jpeg', 'image/jpeg', 'Shown Name.jpeg');
    assert.equal(n.name, 'Shown Name.jpeg');
    assert.match(n.hash, /^Shown_Name_[0-9a-f]{10}$/);
    assert.equal(n.ext, '.jpeg');
    assert.equal(nameFile('blob', 'image/png', null).ext, '.png');
    assert.equal(nameFile('README', 'application/octet-stream', null).ext, '.bin');
    assert.equal(nameFile('x.<script>', 'text/plain', null).ext, '.txt');
  });
});

describe('fileInfo as Strapi 5.54 takes it (checked live)', () => {
  test('a focal point is stored; a number as a name is its text', async () => {
    const data = await png(40, 30, { r: 10, g: 200, b: 10 });
    const res = await upload([{ data, filename: 'focus.png', type: 'image/png' }], { fileInfo: JSON.stringify({ name: 5, focalPoint: { x: 1, y: 2 } }) });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual([res.body[0].name, res.body[0].focalPoint], ['5', { x: 1, y: 2 }]);
    assert.match(res.text, /"focalPoint":\{"x":1,"y":2\}/);
    const bad = await upload([{ data, filename: 'focus.png', type: 'image/png' }], { fileInfo: JSON.stringify({ focalPoint: 'middle' }) });
    assert.equal(bad.status, 400);
    // The plugin's yup schema (non-strict): coordinates cast from numeric strings, 0 to 100, other keys passed over
    // (its noUnknown never fires: Strapi 5.54, checked live); every error at once.
    const cast = await upload([{ data, filename: 'focus.png', type: 'image/png' }], { fileInfo: JSON.stringify({ focalPoint: { x: '5', y: '6.5' } }) });
    assert.deepEqual(cast.body[0].focalPoint, { x: 5, y: 6.5 });
    const out = await upload([{ data, filename: 'focus.png', type: 'image/png' }], { fileInfo: JSON.stringify({ focalPoint: { x: 500, y: -1 }, folder: 3 }) });
    assert.equal(out.status, 400);
    const error = (out.body as unknown as { error: { message: string; details: { errors: Array<{ path: string[]; message: string }> } } }).error;
    assert.equal(error.message, '2 errors occurred');
    assert.deepEqual(error.details.errors.map((e) => [e.path.join('.'), e.message]), [
      ['fileInfo.focalPoint.x', 'fileInfo.focalPoint.x must be less than or equal to 100'],
      ['fileInfo.focalPoint.y', 'fileInfo.focalPoint.y must be greater than or equal to 0'],
    ]);
    const other = await upload([{ data, filename: 'other.png', type: 'image/png' }], { fileInfo: JSON.stringify({ name: 'kept', folder: 3, nope: 1 }) });
    assert.equal(other.status, 201, other.text);
    assert.equal(other.body[0].name, 'kept');
    const named = await upload([{ data, filename: 'focus.png', type: 'image/png' }], { fileInfo: JSON.stringify({ name: { a: 1 } }) });
    assert.deepEqual((named.body as unknown as { error: { message: string } }).error.message, 'fileInfo.name must be a `string` type, but the final value was: `{\n  "a": "1"\n}`.');
  });
});

test('fileInfo matches the files let in as Strapi 5.54\'s upload (checked live): an object for one, a list for several', async () => {
  const text = (name: string): Upload => ({ data: Buffer.from(`words of ${name}`), filename: name, type: 'text/plain' });
  const before = await fileCount();
  const refusal = async (files: Upload[], fileInfo: string, type: string, cast: string) => {
    const r = await upload(files, { fileInfo });
    assert.equal(r.status, 400, r.text);
    const message = `fileInfo must be a \`${type}\` type, but the final value was: \`null\` (cast from the value \`${cast}\`).`;
    assert.deepEqual(r.body.error, { status: 400, name: 'ValidationError', message, details: { errors: [{ path: ['fileInfo'], message, name: 'ValidationError', value: null }] } });
  };
  // A list for one file; an object, or a list of one (taken as its one object), for several.
  await refusal([text('one.txt')], '[{"name":"a"},{"name":"b"}]', 'object', '[\n  {\n    "name": "\\"a\\""\n  },\n  {\n    "name": "\\"b\\""\n  }\n]');
  await refusal([text('one.txt')], '[]', 'object', '[]');
  await refusal([text('one.txt'), text('two.txt')], '{"name":"a"}', 'array', '{\n  "name": "\\"a\\""\n}');
  await refusal([text('one.txt'), text('two.txt')], '[{"name":"a","width":3}]', 'array', '{\n  "name": "\\"a\\"",\n  "width": "3"\n}');
  assert.equal(await fileCount(), before, 'nothing stored');
  // A list of one for one file is its object; a longer list than the files names them in order.
  const one = await upload([text('one.txt')], { fileInfo: '[{"name":"only","caption":"c"}]' });
  assert.equal(one.status, 201, one.text);
  assert.deepEqual([one.body[0].name, one.body[0].caption], ['only', 'c']);
  const two = await upload([text('one.txt'), text('two.txt')], { fileInfo: '[{"name":"first"},{"name":"second"},{"name":"third"}]' });
  assert.equal(two.status, 201, two.text);
  assert.deepEqual(two.body.map((f) => f.name), ['first', 'second']);
  // The list's entries are checked with their positions; the object of one file without.
  const bad = await upload([text('one.txt')], { fileInfo: '[{"focalPoint":{"x":200,"y":1}}]' });
  assert.equal(bad.body.error.message, 'fileInfo.focalPoint.x must be less than or equal to 100');
  const bad2 = await upload([text('one.txt'), text('two.txt')], { fileInfo: '[{},{"focalPoint":{"x":200,"y":1}}]' });
  assert.equal(bad2.body.error.message, 'fileInfo[1].focalPoint.x must be less than or equal to 100');
  await refusal([text('one.txt')], '5', 'object', '5');
  // An edit (`?id=`, no file) is checked on the text as sent: its cast error shows the text.
  const edit = async (fileInfo: string) => call<FileRecord & ErrorBody>('POST', `/api/upload?id=${one.body[0].id}`, form([], { fileInfo }));
  const listEdit = await edit('[{"name":"x"}]');
  assert.equal(listEdit.status, 400, listEdit.text);
  assert.equal(listEdit.body.error.message, 'fileInfo must be a `object` type, but the final value was: `null` (cast from the value `"[{"name":"x"}]"`).');
  assert.equal((await edit('5')).body.error.message, 'fileInfo must be a `object` type, but the final value was: `null` (cast from the value `"5"`).');
  const renamed = await edit('{"name":"renamed"}');
  assert.equal(renamed.status, 200, renamed.text);
  assert.equal(renamed.body.name, 'renamed');
});

test('an empty file is no file: "Files are empty" (Strapi 5.54, checked live)', async () => {
  const r = await upload([{ data: Buffer.alloc(0), filename: 'empty.txt', type: 'text/plain' }]);
  assert.equal(r.status, 400, r.text);
  assert.equal((r.body as unknown as { error: { message: string } }).error.message, 'Files are empty');
});

test('a file named without an extension, of no known type, is `.bin` (Strapi 5.54 via mime-types, checked live)', async () => {
  const r = await upload([{ data: Buffer.from('raw bytes'), filename: 'README', type: 'application/octet-stream' }]);
  assert.equal(r.status, 201, r.text);
  assert.equal(r.body[0].ext, '.bin');
  assert.match(r.body[0].url, /\.bin$/);
});

describe('a file\'s type: Strapi 5.54\'s mime validation (its name, its bytes, then the client\'s claim; checked live)', () => {
  const one = async (u: Upload) => {
    const r = await upload([u]);
    assert.equal(r.status, 201, r.text);
    return r.body[0];
  };
  test('the bytes and the name decide, not the declared type alone', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>';
    assert.equal((await one({ data: Buffer.from(svg), filename: 'logo.svg', type: 'text/plain' })).mime, 'image/svg+xml');
    const text = await one({ data: Buffer.from('just words'), filename: 'rec.txt', type: 'image/png' });
    assert.deepEqual([text.ext, text.mime, text.width], ['.txt', 'text/plain', null]);
    // Text named and declared as a JPEG is stored as one, with no dimensions: not an image sharp reads, so no "invalid image".
    const fake = await one({ data: Buffer.from('not a jpeg at all'), filename: 'evil.jpg', type: 'image/jpeg' });
    assert.deepEqual([fake.ext, fake.mime, fake.width, fake.formats], ['.jpg', 'image/jpeg', null, null]);
    // A PNG without a name's extension, sent as octet-stream: its bytes give type and extension.
    const blob = await one({ data: await png(20, 20, { r: 1, g: 2, b: 3 }), filename: 'blob', type: 'application/octet-stream' });
    assert.deepEqual([blob.ext, blob.mime, blob.width], ['.png', 'image/png', 20]);
    // A declaration its name and bytes agree with stands.
    assert.equal((await one({ data: await jpeg(20, 20), filename: 'photo.jpg', type: 'image/jpeg' })).mime, 'image/jpeg');
  });
});

describe('upload security from the project (plugin::upload.security)', () => {
  let s: Server;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fastrapi-upload-security-'));
    s = await startServer({
      env: {
        DATA_DIR: dir, MODELS_DIR: MODELS, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', WORKERS: '0', API_TOKENS: 'test:full-access:T',
        UPLOAD_ALLOWED_TYPES: 'image/*,application/pdf', UPLOAD_DENIED_TYPES: 'image/svg+xml',
      },
      overrides: {},
    });
  });
  after(async () => { await s?.stop(); rmSync(dir, { recursive: true, force: true }); });
  const send = async (files: Upload[]) => {
    const res = await fetch(s.url + '/api/upload', { method: 'POST', headers: auth, body: form(files) });
    return { status: res.status, body: await res.json() as FileRecord[] & ErrorBody };
  };
  const stored = async () => (await (await fetch(s.url + '/api/upload/files', { headers: auth })).json() as FileRecord[]).map((f) => f.name).sort();

  test('a type outside the allowed list, or denied, is refused: alone, the request fails and nothing is stored', async () => {
    const text = await send([{ data: Buffer.from('words'), filename: 'notes.txt', type: 'text/plain' }]);
    assert.equal(text.status, 400);
    assert.deepEqual(text.body.error, { status: 400, name: 'ValidationError', message: "File type 'text/plain' is not allowed", details: {} });
    // Declared as an image, the name and the bytes still say text.
    const disguised = await send([{ data: Buffer.from('words'), filename: 'notes.txt', type: 'image/png' }]);
    assert.equal(disguised.body.error.message, "File type 'text/plain' is not allowed");
    const svg = await send([{ data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), filename: 'logo.svg', type: 'image/svg+xml' }]);
    assert.equal(svg.body.error.message, "File type 'image/svg+xml' is not allowed");
    assert.deepEqual(await stored(), []);
  });

  test('with files let in beside it, a refused file is left out (with its fileInfo)', async () => {
    const f = new FormData();
    f.append('files', new Blob([new Uint8Array(Buffer.from('words'))], { type: 'text/plain' }), 'notes.txt');
    f.append('files', new Blob([new Uint8Array(await png(10, 10, { r: 9, g: 9, b: 9 }))], { type: 'image/png' }), 'dot.png');
    f.append('fileInfo', JSON.stringify({ caption: 'for the text' }));
    f.append('fileInfo', JSON.stringify({ caption: 'for the dot' }));
    const res = await fetch(s.url + '/api/upload', { method: 'POST', headers: auth, body: f });
    const body = await res.json() as FileRecord[];
    assert.equal(res.status, 201, JSON.stringify(body));
    assert.deepEqual(body.map((r) => [r.name, r.mime, r.caption]), [['dot.png', 'image/png', 'for the dot']]);
    assert.deepEqual(await stored(), ['dot.png']);
  });
});

test('the project\'s breakpoints replace Strapi\'s (the thumbnail stays)', async () => {
  const image = await processImage(await png(1200, 600, { r: 1, g: 1, b: 1 }), { xl: 1100, sm: 300 });
  assert.deepEqual(image?.formats.map((f) => [f.key, f.width, f.height]), [['thumbnail', 245, 123], ['xl', 1100, 550], ['sm', 300, 150]]);
});

test('a list sorts through a media field to its file\'s fields (Strapi 5.54: `sort=image.name`, checked live)', async () => {
  const json = { ...auth, 'Content-Type': 'application/json' };
  const files: Record<string, number> = {};
  for (const n of ['m-beta.png', 'm-alpha.png', 'm-gamma.png']) files[n] = (await upload([{ data: await png(8, 8, { r: 3, g: 3, b: 3 }), filename: n, type: 'image/png' }])).body[0].id;
  const titles: Array<[string, number | null]> = [['sort B', files['m-beta.png']], ['sort A', files['m-alpha.png']], ['sort none', null], ['sort G', files['m-gamma.png']]];
  for (const [title, cover] of titles) assert.equal((await call('POST', '/api/articles', JSON.stringify({ data: { title, cover } }), json)).status, 201);
  const order = async (sort: string) => (await call<{ data: Array<{ title: string }> }>('GET', `/api/articles?filters[title][$startsWith]=sort &fields[0]=title&sort=${sort}`)).body.data.map((a) => a.title);
  assert.deepEqual(await order('cover.name:asc'), ['sort A', 'sort B', 'sort G', 'sort none']);
  assert.deepEqual(await order('cover.name:desc'), ['sort none', 'sort G', 'sort B', 'sort A']);
  const bad = await call<ErrorBody>('GET', '/api/articles?sort=cover.nope');
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.message, 'Invalid key nope at cover');
});

test('ref and field without refId (or any one or two of the three) is a plain upload, linked to nothing (Strapi 5.54, checked live)', async () => {
  const r = await upload([{ data: Buffer.from('unlinked'), filename: 'unlinked.txt', type: 'text/plain' }], { ref: 'api::article.article', field: 'cover' });
  assert.equal(r.status, 201, r.text);
  const sql = postgres(server.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const [{ n }] = await sql`select count(*)::int as n from files_related_mph where file_id = ${r.body[0].id}`;
    assert.equal(n, 0);
  } finally { await sql.end({ timeout: 5 }); }
});
