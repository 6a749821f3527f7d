// Issue 6: private by default, API tokens (env and stored), users-permissions JWTs, roles, rate limits.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';
import { hashToken } from '../src/auth/permissions.ts';

const SECRET = 'test-jwt-secret-0123456789abcdef';

describe('permissions', () => {
  let s: TestServer;
  let jwt = '';
  before(async () => {
    s = await startTestServer({
      env: {
        PUBLIC_PERMISSIONS: 'tag:find', AUTHENTICATED_PERMISSIONS: '*:find,findOne;tag:create,update,delete',
        API_TOKENS: `full:full-access:${TOKEN},ro:read-only:RO`, JWT_SECRET: SECRET, AUTH_RATE_LIMIT: '8',
      },
    });
  });
  after(() => s.stop());

  test('private by default; public role gets exactly what it is granted', async () => {
    assert.equal((await s.fetchJson('GET', '/api/tags')).status, 200);
    const denied = await s.fetchJson('GET', '/api/articles');
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, { data: null, error: { status: 403, name: 'ForbiddenError', message: 'Forbidden', details: {} } });
    assert.equal((await s.fetchJson('POST', '/api/tags', { data: { name: 'x' } })).status, 403);
  });

  test('full-access token does everything; read-only token cannot write', async () => {
    const c = await s.fetchJson('POST', '/api/tags', { data: { name: 'full' } }, TOKEN);
    assert.equal(c.status, 201);
    assert.equal((await s.fetchJson('GET', '/api/articles', undefined, 'RO')).status, 200);
    assert.equal((await s.fetchJson('POST', '/api/tags', { data: { name: 'ro' } }, 'RO')).status, 403);
    assert.equal((await s.fetchJson('DELETE', `/api/tags/${c.body.data.documentId}`, undefined, 'RO')).status, 403);
    assert.equal((await s.fetchJson('GET', '/api/articles', undefined, 'wrong')).status, 401);
  });

  test('register and login return a JWT; the password never appears', async () => {
    const r = await s.fetchJson('POST', '/api/auth/local/register', { username: 'ann', email: 'Ann@Example.com', password: 'Passw0rd!' });
    assert.equal(r.status, 200, r.text);
    assert.ok(!r.text.includes('password') && !r.text.includes('Passw0rd'));
    assert.deepEqual(Object.keys(r.body.user), ['id', 'documentId', 'username', 'email', 'provider', 'confirmed', 'blocked', 'createdAt', 'updatedAt', 'publishedAt']);
    const dup = await s.fetchJson('POST', '/api/auth/local/register', { username: 'ann', email: 'ann@example.com', password: 'Passw0rd!' });
    assert.equal(dup.body.error.message, 'Email or Username are already taken');
    const extra = await s.fetchJson('POST', '/api/auth/local/register', { username: 'b', email: 'b@example.com', password: 'Passw0rd!', role: 1 });
    assert.equal(extra.body.error.message, 'Invalid parameters: role');
    const l = await s.fetchJson('POST', '/api/auth/local', { identifier: 'ann', password: 'Passw0rd!' });
    assert.equal(l.status, 200);
    jwt = l.body.jwt;
    const wrong = await s.fetchJson('POST', '/api/auth/local', { identifier: 'ann', password: 'nope' });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error.message, 'Invalid identifier or password');
    const me = await s.fetchJson('GET', '/api/users/me', undefined, jwt);
    assert.equal(me.body.username, 'ann');
    const users = await s.fetchJson('GET', '/api/users', undefined, TOKEN);
    assert.ok(!users.text.includes('password'));
    assert.equal((await s.fetchJson('GET', '/api/users')).status, 403);
    assert.equal((await s.fetchJson('GET', '/api/users/me')).status, 403);
  });

  test('authenticated role: allowed and forbidden actions', async () => {
    assert.equal((await s.fetchJson('POST', '/api/tags', { data: { name: 'by jwt' } }, jwt)).status, 201);
    assert.equal((await s.fetchJson('POST', '/api/articles', { data: { title: 'no' } }, jwt)).status, 403);
    assert.equal((await s.fetchJson('GET', '/api/articles', undefined, jwt)).status, 200);
  });

  test('tampered, unsigned, expired and malformed JWTs get 401', async () => {
    const [h, p, sig] = jwt.split('.');
    const payload = Buffer.from(JSON.stringify({ id: 999, iat: 1 })).toString('base64url');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${p}.`;
    const expired = await new SignJWT({ id: 1 }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(1).setExpirationTime(2).sign(new TextEncoder().encode(SECRET));
    const other = await new SignJWT({ id: 1 }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode('another-secret-0123456789'));
    for (const bad of [`${h}.${payload}.${sig}`, none, expired, other, 'a.b.c', `${h}.${p}`]) {
      const r = await s.fetchJson('GET', '/api/tags', undefined, bad);
      assert.equal(r.status, 401, bad);
      assert.equal(r.body.error.name, 'UnauthorizedError');
    }
  });

  test('stored tokens: custom permissions, expiry and revocation', async () => {
    const sql = s.sql();
    const salt = 'change-me-api-token-salt';
    await sql`insert into api_tokens (document_id, name, type, permissions, access_key) values ('t1', 'custom', 'custom', ${['api::article.article.find']}, ${hashToken('CUSTOM', salt).toString('hex')})`;
    await sql`insert into api_tokens (document_id, name, type, access_key, expires_at) values ('t2', 'old', 'full-access', ${hashToken('OLD', salt).toString('hex')}, now() - interval '1 day')`;
    assert.equal((await s.fetchJson('GET', '/api/articles', undefined, 'CUSTOM')).status, 200);
    assert.equal((await s.fetchJson('GET', '/api/authors', undefined, 'CUSTOM')).status, 403);
    assert.equal((await s.fetchJson('GET', '/api/articles', undefined, 'OLD')).status, 401);
    const used = await sql`select last_used_at from api_tokens where name = 'custom'`;
    await new Promise((r) => setTimeout(r, 100));
    assert.ok(used[0].last_used_at !== null || (await sql`select last_used_at from api_tokens where name = 'custom'`)[0].last_used_at !== null);
  });

  test('login and register are rate limited', async () => {
    let last = 0;
    for (let i = 0; i < 12; i++) last = (await s.fetchJson('POST', '/api/auth/local', { identifier: 'ann', password: 'nope' })).status;
    assert.equal(last, 429);
  });
});

test('npm run token creates a working token (CLI)', async () => {
  const s = await startTestServer({ env: { API_TOKENS: '' } });
  try {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'src/cli/token.ts', 'create', '--name', 'web', '--type', 'read-only'], {
      cwd: root, env: { ...process.env, DATABASE_URL: s.server.databaseUrl, MODELS_DIR: s.server.config.modelsDir, LOG_LEVEL: 'warn' }, encoding: 'utf8',
    });
    const key = out.trim().split('\n').pop()!;
    assert.match(key, /^[0-9a-f]{96}$/);
    assert.equal((await s.fetchJson('GET', '/api/articles', undefined, key)).status, 200);
    assert.equal((await s.fetchJson('POST', '/api/tags', { data: { name: 'x' } }, key)).status, 403);
    const stored = await s.sql()`select access_key from api_tokens where name = 'web'`;
    assert.notEqual(stored[0].access_key, key, 'only the hash is stored');
  } finally { await s.stop(); }
});

test('populated relations appear only when the caller may find the target', async () => {
  const s = await startTestServer({ env: { PUBLIC_PERMISSIONS: 'article:find,findOne' } });
  try {
    const a = await s.fetchJson('POST', '/api/authors', { data: { name: 'Hidden' } }, TOKEN);
    await s.fetchJson('POST', '/api/articles', { data: { title: 'Visible', author: a.body.data.documentId } }, TOKEN);
    const pub = await s.fetchJson('GET', '/api/articles?populate=*');
    assert.equal(pub.status, 200);
    assert.ok(!('author' in pub.body.data[0]), 'author is left out for the public role');
    const full = await s.fetchJson('GET', '/api/articles?populate=*', undefined, TOKEN);
    assert.equal(full.body.data[0].author.name, 'Hidden');
  } finally { await s.stop(); }
});
