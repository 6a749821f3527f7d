// PostgreSQL through its Unix socket, as Strapi's pg client reaches it: DATABASE_HOST=/dir (Strapi's
// variables), a DATABASE_URL with libpq's `?host=/dir`, or a project's config/database host. The server's
// connections must arrive through the socket (no client address), and answer as through TCP.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { startTestServer, TOKEN } from './helpers.ts';
import { startPrimary, type Cluster } from './pg-cluster.ts';
import { loadConfig } from '../config.ts';
import { connectionTarget, postgresUrl } from '../src/db/url.ts';

let primary: Cluster;

before(async () => {
  primary = await startPrimary();
  const admin = postgres(primary.url(), { max: 1, onnotice: () => {} });
  try { for (const db of ['via_host', 'via_url']) await admin.unsafe(`create database ${db}`); } finally { await admin.end({ timeout: 5 }); }
});

after(() => { primary?.stop(); primary?.remove(); });

test('a socket directory becomes libpq\'s ?host= in the URL, and the socket\'s path for postgres.js', () => {
  const url = postgresUrl({ host: '/var/run/postgresql', port: 5433, user: 'strapi', password: 'p@ss', database: 'db' });
  assert.equal(url, 'postgres://strapi:p%40ss@localhost:5433/db?host=%2Fvar%2Frun%2Fpostgresql');
  assert.deepEqual(connectionTarget(url), { url: 'postgres://strapi:p%40ss@localhost:5433/db', path: '/var/run/postgresql/.s.PGSQL.5433' });
  assert.deepEqual(connectionTarget('postgres://u@db.example:5432/x?sslmode=require'), { url: 'postgres://u@db.example:5432/x?sslmode=require', path: null });
  assert.equal(connectionTarget('postgres://u@localhost/x?host=/tmp/').path, '/tmp/.s.PGSQL.5432');
  assert.deepEqual(connectionTarget('postgres://u@localhost:6000/x?host=db.internal&sslmode=require'), { url: 'postgres://u@db.internal:6000/x?sslmode=require', path: null });
  const cfg = loadConfig({ DATABASE_HOST: '/var/run/postgresql', DATABASE_NAME: 'blog', DATABASE_USERNAME: 'me' }, []);
  assert.equal(cfg.databaseUrl, 'postgres://me:strapi@localhost:5432/blog?host=%2Fvar%2Frun%2Fpostgresql');
});

for (const [name, db, env] of [
  ['Strapi\'s DATABASE_HOST=/dir', 'via_host', (c: Cluster) => ({ DATABASE_HOST: c.dir, DATABASE_PORT: String(c.port), DATABASE_USERNAME: 'postgres', DATABASE_PASSWORD: '', DATABASE_NAME: 'via_host' })],
  ['DATABASE_URL with ?host=/dir', 'via_url', (c: Cluster) => ({ DATABASE_URL: `postgres://postgres@localhost:${c.port}/via_url?host=${encodeURIComponent(c.dir)}` })],
] as const) {
  test(`${name}: the server connects through the socket and serves`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fastrapi-socket-'));
    const s = await startTestServer({ env: env(primary), db: { url: null, dataDir, drop: async () => { rmSync(dataDir, { recursive: true, force: true }); } } });
    try {
      const made = await s.fetchJson('POST', '/api/tags', { data: { name: 'socket' } }, TOKEN);
      assert.equal(made.status, 201, made.text);
      const read = await s.fetchJson('GET', '/api/tags');
      assert.deepEqual(read.body.data.map((t: { name: string }) => t.name), ['socket']);
      const admin = postgres(primary.url(), { max: 1, onnotice: () => {} });
      try {
        const rows = await admin`select client_addr::text as addr, count(*)::int as n from pg_stat_activity where datname = ${db} and application_name like 'fastrapi%' group by 1`;
        assert.ok(rows.length > 0, 'the server has connections');
        assert.deepEqual(rows.map((r) => r.addr), [null], 'every connection through the socket (no client address)');
      } finally { await admin.end({ timeout: 5 }); }
    } finally { await s.stop(); }
  });
}
