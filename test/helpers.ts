// Test helpers: start a whole server in-process (embedded PostgreSQL in a fresh temp folder, or a fresh
// database on the server named by DATABASE_URL), talk to it over HTTP, reach its database directly.
import { mkdtempSync, rmSync, cpSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import assert from 'node:assert/strict';
import { connectionTarget } from '../src/db/url.ts';
import postgres, { type Sql } from 'postgres';
import { startServer, type Server } from '../src/server.ts';
import { tempDir } from './temp-dir.ts';

/** A postgres.js client for a server's database URL (a socket directory in `?host=` included). */
function sqlFor(url: string): Sql {
  const t = connectionTarget(url);
  return postgres(t.url, { max: 2, onnotice: () => {}, ...(t.path ? { path: t.path } : {}) });
}

/** The demo models of the repository, found from this file (never a hard-coded absolute path). */
export const DEMO_MODELS = fileURLToPath(new URL('../models', import.meta.url));
/** A model folder with every attribute type and constraint (see test/fixtures/models-all-types). */
export const ALL_TYPES_MODELS = fileURLToPath(new URL('./fixtures/models-all-types', import.meta.url));

export const TOKEN = 'T';

export interface JsonResponse<T = any> {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON body, or the raw text when the body is not JSON (and '' for no body). */
  body: T;
  text: string;
}

export interface TestDatabase {
  /** URL to pass as DATABASE_URL, or null when the server should start its own embedded cluster. */
  url: string | null;
  /** The folder given as DATA_DIR (holds the embedded cluster when url is null). */
  dataDir: string;
  drop(): Promise<void>;
}

/**
 * A fresh place to keep data: with DATABASE_URL set, a new database `test_<random>` on that server;
 * otherwise an empty temp folder in which the server initialises its embedded PostgreSQL.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fastrapi-test-'));
  const base = process.env.DATABASE_URL;
  if (!base) {
    return { url: null, dataDir, drop: async () => { rmSync(dataDir, { recursive: true, force: true }); } };
  }
  const name = `test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  try { await admin.unsafe(`create database ${name}`); } finally { await admin.end({ timeout: 5 }); }
  const u = new URL(base);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    dataDir,
    drop: async () => {
      const a = postgres(base, { max: 1, onnotice: () => {} });
      try { await a.unsafe(`drop database if exists ${name} with (force)`); } finally { await a.end({ timeout: 5 }); }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The environment startServer gets for a test database, before per-test overrides. */
export function serverEnv(db: TestDatabase, modelsDir: string, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    DATA_DIR: db.dataDir,
    MODELS_DIR: modelsDir,
    PORT: '0',
    HOST: '127.0.0.1',
    WORKERS: '0',
    LOG_LEVEL: 'warn',
    API_TOKENS: `test:full-access:${TOKEN}`,
    PUBLIC_PERMISSIONS: '*:find,findOne',
    // Suites change rows behind the server's back (SQL) and count statements per request: the response
    // cache is tested on its own (test/response-cache.test.ts).
    RESPONSE_CACHE: 'false',
    ...(db.url ? { DATABASE_URL: db.url } : {}),
    ...extra,
  };
}

export interface TestServer {
  url: string;
  server: Server;
  db: TestDatabase;
  /** Sends a request; body objects are JSON-encoded, strings and Buffers are sent as they are. */
  fetchJson<T = any>(method: string, path: string, body?: unknown, token?: string | null, headers?: Record<string, string>): Promise<JsonResponse<T>>;
  /** A postgres.js client on the server's database (closed by stop). */
  sql(): Sql;
  /** Stops the server; the data is dropped unless keepData is true (then pass `db` to the next start). */
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string | undefined>;
  modelsDir?: string;
  /** Reuse the data of a previous server (stopped with keepData). */
  db?: TestDatabase;
}

export async function startTestServer(opts: StartOptions = {}): Promise<TestServer> {
  const db = opts.db ?? await createTestDatabase();
  let server: Server;
  try {
    server = await startServer({ env: serverEnv(db, opts.modelsDir ?? DEMO_MODELS, opts.env), argv: [] });
  } catch (e) {
    if (!opts.db) await db.drop().catch(() => {});
    throw e;
  }
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  let direct: Sql | null = null;
  const url = server.url;
  return {
    url,
    server,
    db,
    fetchJson: (method, path, body, token, headers) => request(agent, url, method, path, body, token, headers),
    sql: () => (direct ??= sqlFor(server.databaseUrl)),
    stop: async (o = {}) => {
      agent.destroy();
      if (direct) await direct.end({ timeout: 5 });
      await server.stop();
      if (!o.keepData) await db.drop();
    },
  };
}

/** Another node on the database of `a`: its own server on the same tables (stopping it keeps the data). */
export function sameDatabaseNode(a: TestServer, env: Record<string, string | undefined> = {}): Promise<TestServer> {
  return startTestServer({ env: { ...env, DATABASE_URL: a.server.databaseUrl }, db: { url: a.server.databaseUrl, dataDir: a.db.dataDir, drop: async () => {} } });
}

/** Two nodes on one new database, the first with two worker threads: writes spread over both meet across threads and nodes. */
export async function startTwoNodes(env: Record<string, string | undefined> = {}): Promise<[TestServer, TestServer]> {
  const a = await startTestServer({ env: { ...env, WORKERS: '2' } });
  return [a, await sameDatabaseNode(a, env)];
}

/** `npm run indexes -- …args` against the database and models of `s`. */
export function indexesCli(s: TestServer, ...args: string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/indexes.ts', ...args], {
    env: { ...process.env, ...serverEnv(s.db, s.server.config.modelsDir), LOG_LEVEL: 'warn' }, encoding: 'utf8', timeout: 120_000,
  });
}

/** POSTs `{ data }` to `path` with the full-access token; the document it answered 201 with. */
export async function created<T = { documentId: string; [k: string]: unknown }>(s: TestServer, path: string, data: unknown): Promise<T> {
  const r = await s.fetchJson('POST', path, { data }, TOKEN);
  assert.equal(r.status, 201, r.text);
  return r.body.data as T;
}

export function request(agent: http.Agent, base: string, method: string, path: string, body?: unknown, token?: string | null, extraHeaders: Record<string, string> = {}): Promise<JsonResponse> {
  const headers: Record<string, string> = { ...extraHeaders };
  let payload: Buffer | undefined;
  if (body !== undefined) {
    payload = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(payload.length);
  }
  if (token) headers.authorization = `Bearer ${token}`;
  const u = new URL(base);
  // Node refuses paths with spaces, control characters or characters above U+00FF: escape just those
  // (UTF-8 percent-encoding), leaving everything else — including raw Latin-1 bytes — as given.
  const safePath = path.replace(/[^\u0021-\u00ff]/gu, (c) => {
    try { return encodeURIComponent(c); } catch {
      // a lone surrogate: send its (invalid) 3-byte UTF-8 form, as a careless client would
      const u = c.charCodeAt(0);
      return [0xe0 | (u >> 12), 0x80 | ((u >> 6) & 0x3f), 0x80 | (u & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    }
  });
  return new Promise((resolve, reject) => {
    const req = http.request({ agent, host: u.hostname, port: u.port, method, path: safePath, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        if (/json/.test(String(res.headers['content-type'] ?? '')) && text !== '') {
          try { parsed = JSON.parse(text); } catch { parsed = text; }
        }
        const h: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) h[k] = Array.isArray(v) ? v.join(', ') : String(v);
        resolve({ status: res.statusCode ?? 0, headers: h, body: parsed as any, text });
      });
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/** Copies a model folder to a fresh temp folder (to edit it in a test); returns the copy's path. */
export function copyModels(from: string, files: Record<string, string> = {}): string {
  const dir = tempDir('fastrapi-models-');
  cpSync(from, dir, { recursive: true });
  // Files written over the copy (a project variant: a file added, replaced or made to fail).
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
  return dir;
}

/** Inserts a media library file record directly (there is no upload route in these tests). */
export async function insertFile(sql: Sql, f: { name: string; url?: string; mime?: string; width?: number; height?: number; alternativeText?: string | null }): Promise<number> {
  const rows = await sql`
    insert into files (document_id, name, alternative_text, caption, width, height, hash, ext, mime, size, url, provider, created_at, updated_at, published_at)
    values (${randomBytes(12).toString('hex')}, ${f.name}, ${f.alternativeText ?? null}, ${null}, ${f.width ?? 10}, ${f.height ?? 10},
            ${f.name.replace(/\W/g, '_')}, ${'.' + (f.name.split('.').pop() ?? 'png')}, ${f.mime ?? 'image/png'}, ${1.5},
            ${f.url ?? `/uploads/${f.name}`}, ${'local'}, now(), now(), now())
    returning id::int as id`;
  return rows[0].id as number;
}

/** Asserts-friendly view of an error envelope. */
export function isErrorEnvelope(body: unknown, status: number): boolean {
  if (!body || typeof body !== 'object') return false;
  const b = body as { data?: unknown; error?: { status?: unknown; name?: unknown; message?: unknown } };
  return b.data === null && !!b.error && b.error.status === status && typeof b.error.name === 'string' && typeof b.error.message === 'string';
}

/** Deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A port free at this moment (the kernel's pick), for a child process to listen on: a random one from a
 * fixed range could be an ephemeral port another test's connection holds, and the child never listened.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
