// The aws-s3 upload provider against a real S3-compatible server (s3rver, started here on a free
// loopback port): objects at `<rootPath>/<hash><ext>` with their formats, the files row (url, provider),
// the upload API and populated media, replace and delete in the bucket, a second node sharing the bucket
// with the private ACL (signed URLs), provider failures answered as Strapi's 500 envelope, and the local
// provider staying the default.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import S3rver from 's3rver';
import { S3Client, ListObjectsV2Command, HeadObjectCommand } from '@aws-sdk/client-s3';
import { startServer, type Server } from '../src/server.ts';
import { loadConfig, ConfigError } from '../config.ts';
import { S3Storage, isUrlFromBucket } from '../src/upload/s3.ts';
import { ApiError } from '../compiler/errors.ts';
import { tempDir } from './temp-dir.ts';

const MODELS = fileURLToPath(new URL('../models', import.meta.url));
const BUCKET = 'media';
const ROOT = 'site/assets';

interface Format { ext: string; url: string; hash: string; mime: string; isUrlSigned?: boolean }
interface FileRecord {
  id: number; documentId: string; name: string; formats: Record<string, Format> | null; hash: string; ext: string; mime: string;
  url: string; provider: string; provider_metadata: null; isUrlSigned?: boolean;
}
interface ErrorBody { data: null; error: { status: number; name: string; message: string } }

let s3: S3rver;
let s3Dir: string;
let endpoint: string;
let client: S3Client;
let dataDir: string;
let node: Server;

const auth = { Authorization: 'Bearer T' };
const png = (width: number, height: number, r: number) =>
  sharp({ create: { width, height, channels: 3, background: { r, g: 40, b: 90 } } }).png().toBuffer();

function s3Env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    UPLOAD_PROVIDER: 'aws-s3', AWS_ENDPOINT: endpoint, AWS_REGION: 'us-east-1', AWS_BUCKET: BUCKET,
    AWS_ACCESS_KEY_ID: 'S3RVER', AWS_ACCESS_SECRET: 'S3RVER', CDN_ROOT_PATH: ROOT, ...extra,
  };
}

/** Another node on the first node's database (what several nodes sharing uploads look like). */
function startNode(env: Record<string, string>): Promise<Server> {
  return startServer({
    env: {
      DATA_DIR: tempDir('fastrapi-s3-node-'), DATABASE_URL: node.databaseUrl, MODELS_DIR: MODELS, PORT: '0', HOST: '127.0.0.1',
      LOG_LEVEL: 'silent', WORKERS: '0', API_TOKENS: 'test:full-access:T', RESPONSE_CACHE: 'false', RENDER_CACHE: 'false', ...env,
    },
  });
}

async function call<T>(srv: Server, method: string, path: string, body?: FormData | string, headers: Record<string, string> = auth): Promise<{ status: number; body: T }> {
  const res = await fetch(srv.url + path, { method, headers, body });
  const text = await res.text();
  return { status: res.status, body: (text && /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : text) as T };
}
function form(data: Buffer, filename: string, type: string): FormData {
  const f = new FormData();
  f.append('files', new Blob([new Uint8Array(data)], { type }), filename);
  return f;
}
const upload = (srv: Server, data: Buffer, filename: string, type = 'image/png', query = '') =>
  call<FileRecord[] & FileRecord & ErrorBody>(srv, 'POST', `/api/upload${query}`, form(data, filename, type));

async function keys(prefix = `${ROOT}/`): Promise<string[]> {
  const out = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (out.Contents ?? []).map((o) => o.Key!).sort();
}
const objectUrl = (key: string) => `${endpoint}/${BUCKET}/${key}`;

before(async () => {
  s3Dir = mkdtempSync(join(tmpdir(), 'fastrapi-s3rver-'));
  s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3Dir, configureBuckets: [{ name: BUCKET, configs: [] }] });
  const { port } = await s3.run();
  endpoint = `http://127.0.0.1:${port}`;
  client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  dataDir = mkdtempSync(join(tmpdir(), 'fastrapi-s3-'));
  node = await startServer({
    env: {
      DATA_DIR: dataDir, MODELS_DIR: MODELS, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', WORKERS: '0',
      API_TOKENS: 'test:full-access:T', PUBLIC_PERMISSIONS: '*:find,findOne', RESPONSE_CACHE: 'false', ...s3Env(),
    },
  });
});

after(async () => {
  await node?.stop();
  client?.destroy();
  await s3?.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(s3Dir, { recursive: true, force: true });
});

describe('aws-s3 upload provider', () => {
  let cover: FileRecord;

  test('an image and its formats land in the bucket under rootPath; the row holds the object URLs', async () => {
    const data = await png(800, 600, 200);
    const res = await upload(node, data, 'cover.png');
    assert.equal(res.status, 201, JSON.stringify(res.body));
    cover = res.body[0];
    assert.equal(cover.provider, 'aws-s3');
    assert.equal(cover.provider_metadata, null);
    assert.equal(cover.isUrlSigned, false);
    assert.equal(cover.url, objectUrl(`${ROOT}/${cover.hash}.png`));
    assert.deepEqual(Object.keys(cover.formats!).sort(), ['medium', 'small', 'thumbnail']);
    for (const [k, f] of Object.entries(cover.formats!)) {
      assert.equal(f.hash, `${k}_${cover.hash}`);
      assert.equal(f.url, objectUrl(`${ROOT}/${k}_${cover.hash}.png`));
    }
    assert.deepEqual(await keys(), [`${cover.hash}.png`, ...['medium', 'small', 'thumbnail'].map((k) => `${k}_${cover.hash}.png`)].map((n) => `${ROOT}/${n}`).sort());
    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `${ROOT}/${cover.hash}.png` }));
    assert.equal(head.ContentType, 'image/png');
    // The URL is the object's: fetched from the S3 server, not from this one.
    const got = await fetch(cover.url);
    assert.equal(got.status, 200);
    const meta = await sharp(Buffer.from(await got.arrayBuffer())).metadata();
    assert.deepEqual([meta.width, meta.height], [800, 600]);
    // Nothing in the local folder, nothing at /uploads.
    const local = join(dataDir, 'uploads');
    assert.ok(!existsSync(local) || readdirSync(local).length === 0);
    assert.equal((await fetch(`${node.url}/uploads/${cover.hash}.png`)).status, 404);
  });

  test('a non-image file: one object, its MIME type kept', async () => {
    const res = await upload(node, Buffer.from('hello s3\n'), 'notes.txt', 'text/plain');
    assert.equal(res.status, 201);
    const notes = res.body[0];
    assert.equal(notes.formats, null);
    assert.equal(notes.url, objectUrl(`${ROOT}/${notes.hash}.txt`));
    assert.equal(await (await fetch(notes.url)).text(), 'hello s3\n');
    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `${ROOT}/${notes.hash}.txt` }));
    assert.match(String(head.ContentType), /^text\/plain/);
    const del = await call<FileRecord>(node, 'DELETE', `/api/upload/files/${notes.id}`);
    assert.equal(del.status, 200);
    assert.ok(!(await keys()).includes(`${ROOT}/${notes.hash}.txt`));
  });

  test('GET /api/upload/files and /files/:id answer the stored URLs; populated media carry them', async () => {
    const list = await call<FileRecord[]>(node, 'GET', '/api/upload/files');
    assert.equal(list.status, 200);
    const mine = list.body.find((f) => f.id === cover.id)!;
    assert.equal(mine.url, cover.url);
    assert.equal(mine.isUrlSigned, false);
    assert.deepEqual(mine.formats, cover.formats);
    const one = await call<FileRecord>(node, 'GET', `/api/upload/files/${cover.id}`);
    assert.equal(one.body.url, cover.url);

    const created = await call<{ data: { documentId: string } }>(node, 'POST', '/api/articles',
      JSON.stringify({ data: { title: 'S3 media', cover: cover.id } }), { ...auth, 'Content-Type': 'application/json' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const got = await call<{ data: { cover: FileRecord } }>(node, 'GET', `/api/articles/${created.body.data.documentId}?populate=cover`);
    assert.equal(got.body.data.cover.url, cover.url);
    assert.equal(got.body.data.cover.provider, 'aws-s3');
    assert.equal(got.body.data.cover.formats!.thumbnail.url, cover.formats!.thumbnail.url);
  });

  test('a second node with the private ACL shares the bucket and signs URLs read through the upload API', async () => {
    const priv = await startNode(s3Env({ AWS_ACL: 'private', AWS_SIGNED_URL_EXPIRES: '120' }));
    try {
      const one = await call<FileRecord>(priv, 'GET', `/api/upload/files/${cover.id}`);
      assert.equal(one.status, 200);
      assert.equal(one.body.isUrlSigned, true);
      const u = new URL(one.body.url);
      assert.equal(`${u.origin}${u.pathname}`, cover.url);
      assert.equal(u.searchParams.get('X-Amz-Expires'), '120');
      assert.ok(u.searchParams.get('X-Amz-Signature'));
      for (const f of Object.values(one.body.formats!)) {
        assert.equal(f.isUrlSigned, true);
        assert.ok(new URL(f.url).searchParams.get('X-Amz-Signature'));
      }
      const fetched = await fetch(one.body.url);
      assert.equal(fetched.status, 200);
      const list = await call<FileRecord[]>(priv, 'GET', '/api/upload/files');
      assert.ok(list.body.find((f) => f.id === cover.id)!.url.includes('X-Amz-Signature='));
      // Uploaded by this node: the object carries the private ACL, the row the plain object URL.
      const res = await upload(priv, Buffer.from('secret'), 'secret.txt', 'text/plain');
      assert.equal(res.status, 201);
      assert.equal(res.body[0].url, objectUrl(`${ROOT}/${res.body[0].hash}.txt`));
      assert.equal(res.body[0].isUrlSigned, false);
      const del = await call<FileRecord>(priv, 'DELETE', `/api/upload/files/${res.body[0].id}`);
      assert.equal(del.status, 200);
      assert.equal(del.body.isUrlSigned, true);
      assert.ok(!(await keys()).includes(`${ROOT}/${res.body[0].hash}.txt`));
    } finally { await priv.stop(); }
  });

  test('replace (?id=) keeps the URL, overwrites the object and removes formats the new image lacks', async () => {
    const before = await (await fetch(cover.url)).arrayBuffer();
    const res = await upload(node, await png(300, 200, 20), 'smaller.png', 'image/png', `?id=${cover.id}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.id, cover.id);
    assert.equal(res.body.url, cover.url);
    assert.deepEqual(Object.keys(res.body.formats!), ['thumbnail']);
    assert.equal(res.body.formats!.thumbnail.url, cover.formats!.thumbnail.url);
    assert.deepEqual(await keys(), [`${ROOT}/${cover.hash}.png`, `${ROOT}/thumbnail_${cover.hash}.png`]);
    const after = Buffer.from(await (await fetch(cover.url)).arrayBuffer());
    assert.notDeepEqual(after, Buffer.from(before));
    assert.deepEqual([(await sharp(after).metadata()).width], [300]);
  });

  test('a bad bucket or bad credentials answer Strapi\'s 500 envelope and store nothing', async () => {
    const count = async () => (await call<FileRecord[]>(node, 'GET', '/api/upload/files')).body.length;
    const n = await count();
    const broken: Array<Record<string, string>> = [{ AWS_BUCKET: 'no-such-bucket' }, { AWS_ACCESS_KEY_ID: 'WRONG', AWS_ACCESS_SECRET: 'WRONG' }];
    for (const env of broken) {
      const bad = await startNode(s3Env(env));
      try {
        const res = await upload(bad, await png(400, 300, 90), 'x.png');
        assert.equal(res.status, 500);
        assert.deepEqual(res.body, { data: null, error: { status: 500, name: 'InternalServerError', message: 'Internal Server Error', details: {} } });
        // The server is still up.
        assert.equal((await call<FileRecord[]>(bad, 'GET', '/api/upload/files')).status, 200);
      } finally { await bad.stop(); }
    }
    assert.equal(await count(), n);
    assert.deepEqual((await keys()).length, 2);
  });

  test('local stays the default provider; a local node leaves S3 objects alone and replaces onto its own storage', async () => {
    const local = await startNode({});
    try {
      const res = await upload(local, Buffer.from('local file'), 'here.txt', 'text/plain');
      assert.equal(res.status, 201);
      assert.equal(res.body[0].provider, 'local');
      assert.equal(res.body[0].url, `/uploads/${res.body[0].hash}.txt`);
      assert.equal(await (await fetch(local.url + res.body[0].url)).text(), 'local file');
      // An aws-s3 file replaced by a local node: stored locally now, the S3 objects untouched (as Strapi).
      const moved = await upload(local, Buffer.from('now local'), 'moved.txt', 'text/plain', `?id=${cover.id}`);
      assert.equal(moved.status, 200);
      assert.equal(moved.body.provider, 'local');
      assert.equal(moved.body.url, `/uploads/${cover.hash}.png`);
      // Strapi's replace starts the formats over from {}; a text file adds none.
      assert.deepEqual(moved.body.formats, {});
      assert.equal((await keys()).length, 2);
      assert.equal((await call(local, 'DELETE', `/api/upload/files/${res.body[0].id}`)).status, 200);
    } finally { await local.stop(); }
    // Back on the S3 node: replacing the now-local file uploads it to the bucket again.
    const back = await upload(node, await png(260, 200, 60), 'back.png', 'image/png', `?id=${cover.id}`);
    assert.equal(back.status, 200);
    assert.equal(back.body.provider, 'aws-s3');
    assert.equal(back.body.url, cover.url);
    // The S3 node deletes its file's objects, formats included.
    assert.equal((await call(node, 'DELETE', `/api/upload/files/${cover.id}`)).status, 200);
    assert.deepEqual(await keys(), []);
  });
});

describe('aws-s3 configuration and URLs', () => {
  const base = { MODELS_DIR: MODELS, DATABASE_URL: 'postgres://x@localhost/x' };

  test('defaults and Strapi\'s variable names', () => {
    const c = loadConfig(base, []);
    assert.equal(c.upload.provider, 'local');
    const s = loadConfig({ ...base, UPLOAD_PROVIDER: 'aws-s3', AWS_BUCKET: 'b', AWS_REGION: 'eu-west-3', AWS_ACL: 'none', CDN_URL: 'https://cdn.example.com', CDN_ROOT_PATH: 'r' }, []);
    const o = s.upload.providerOptions;
    assert.deepEqual([o.baseUrl, o.rootPath, o.s3Options.region, o.s3Options.params.Bucket, o.s3Options.params.ACL, o.s3Options.params.signedUrlExpires],
      ['https://cdn.example.com', 'r', 'eu-west-3', 'b', '', 900]);
    assert.throws(() => loadConfig({ ...base, UPLOAD_PROVIDER: 'aws-s3', AWS_REGION: 'x' }, []), (e: Error) => e instanceof ConfigError && /AWS_BUCKET/.test(e.message));
    assert.throws(() => loadConfig({ ...base, UPLOAD_PROVIDER: 'aws-s3', AWS_BUCKET: 'b' }, []), (e: Error) => e instanceof ConfigError && /AWS_REGION/.test(e.message));
    assert.throws(() => loadConfig({ ...base, UPLOAD_PROVIDER: 'gcs' }, []), ConfigError);
  });

  const opts = (o: { endpoint?: string; baseUrl?: string; rootPath?: string; bucket?: string; forcePathStyle?: boolean | null; acl?: string }) => ({
    baseUrl: o.baseUrl ?? '', rootPath: o.rootPath ?? '',
    s3Options: {
      credentials: { accessKeyId: 'k', secretAccessKey: 's' }, region: 'eu-west-3', endpoint: o.endpoint ?? '', forcePathStyle: o.forcePathStyle ?? null,
      params: { Bucket: o.bucket ?? 'my-bucket', ACL: o.acl ?? 'public-read', signedUrlExpires: 900 },
    },
  });

  test('object URLs as Strapi\'s provider stores them', () => {
    assert.equal(new S3Storage(opts({})).urlOf('a_1.png'), 'https://my-bucket.s3.eu-west-3.amazonaws.com/a_1.png');
    assert.equal(new S3Storage(opts({ rootPath: 'x/y/' })).urlOf('a.png'), 'https://my-bucket.s3.eu-west-3.amazonaws.com/x/y/a.png');
    assert.equal(new S3Storage(opts({ bucket: 'my.bucket' })).urlOf('a.png'), 'https://s3.eu-west-3.amazonaws.com/my.bucket/a.png');
    assert.equal(new S3Storage(opts({ endpoint: 's3.fr-par.scw.cloud', forcePathStyle: false })).urlOf('a.png'), 'https://my-bucket.s3.fr-par.scw.cloud/a.png');
    assert.equal(new S3Storage(opts({ endpoint: 'http://minio:9000/' })).urlOf('a b.png'), 'http://minio:9000/my-bucket/a%20b.png');
    assert.equal(new S3Storage(opts({ baseUrl: 'https://cdn.example.com/', rootPath: 'r' })).urlOf('a.png'), 'https://cdn.example.com/r/a.png');
    assert.equal(isUrlFromBucket('https://my-bucket.s3.eu-west-3.amazonaws.com/a.png', 'my-bucket', ''), true);
    assert.equal(isUrlFromBucket('https://other.s3.eu-west-3.amazonaws.com/a.png', 'my-bucket', ''), false);
    assert.equal(isUrlFromBucket('http://minio:9000/my-bucket/a.png', 'my-bucket', ''), true);
    assert.equal(isUrlFromBucket('https://cdn.example.com/a.png', 'my-bucket', 'https://cdn.example.com'), false);
    assert.equal(isUrlFromBucket('/uploads/a.png', 'my-bucket', ''), false);
  });

  test('a CDN URL is never signed; provider errors become ApiError 500', async () => {
    const cdn = new S3Storage(opts({ baseUrl: 'https://cdn.example.com', acl: 'private' }));
    assert.equal(cdn.isPrivate(), true);
    assert.equal(await cdn.signedUrl({ hash: 'a', ext: '.png', url: 'https://cdn.example.com/a.png' }), 'https://cdn.example.com/a.png');
    const failing = new S3Storage(opts({ endpoint }), { send: () => Promise.reject(Object.assign(new Error('boom'), { name: 'AccessDenied' })) } as unknown as S3Client);
    await assert.rejects(failing.writeAll([{ fileName: 'a.png', data: Buffer.from('x'), mime: 'image/png' }]), (e: unknown) => e instanceof ApiError && e.status === 500);
  });
});
