// Issue 6: private by default, API tokens (env and stored), users-permissions JWTs, roles, rate limits.
// Issue 12: roles, permissions, users and tokens in Strapi's own tables (a fresh database and Strapi's dump).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';
import { hashToken } from '../src/auth/permissions.ts';
import { createDumpDatabase, DUMP_TOKEN, DUMP_TOKEN_SALT } from './strapi-dump.ts';

const DUMP_PROJECT = fileURLToPath(new URL('./fixtures/strapi/project', import.meta.url));

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

  test('a JWT accepted before is refused once it expires, and one not valid yet is refused until it is (verified tokens are remembered)', async () => {
    const key = new TextEncoder().encode(SECRET);
    const now = Math.floor(Date.now() / 1000);
    const user = (await s.fetchJson('GET', '/api/users/me', undefined, jwt)).body.id as number;
    const short = await new SignJWT({ id: user }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(now).setExpirationTime(now + 2).sign(key);
    const later = await new SignJWT({ id: user }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(now).setNotBefore(now + 2).setExpirationTime(now + 60).sign(key);
    assert.equal((await s.fetchJson('GET', '/api/articles', undefined, short)).status, 200);
    assert.equal((await s.fetchJson('GET', '/api/articles', undefined, short)).status, 200);
    assert.equal((await s.fetchJson('GET', '/api/articles', undefined, later)).status, 401);
    await new Promise((r) => setTimeout(r, (now + 2) * 1000 - Date.now() + 50));
    assert.equal((await s.fetchJson('GET', '/api/articles', undefined, short)).status, 401);
    assert.equal((await s.fetchJson('GET', '/api/articles', undefined, later)).status, 200);
  });

  test('stored tokens (strapi_api_tokens): custom actions, expiry, admin kind, hourly last_used_at', async () => {
    const sql = s.sql();
    const salt = 'change-me-api-token-salt';
    const insert = async (name: string, key: string, type: string, extra: { kind?: string | null; expired?: boolean; lastUsed?: string | null } = {}) => {
      const [t] = await sql`insert into strapi_api_tokens (document_id, name, description, kind, type, access_key, expires_at, last_used_at, created_at, updated_at, published_at)
        values (${name + '-doc'}, ${name}, '', ${extra.kind === undefined ? 'content-api' : extra.kind}, ${type}, ${hashToken(key, salt).toString('hex')},
                ${extra.expired ? sql`now() - interval '1 day'` : null}, ${extra.lastUsed ? sql`now() - ${extra.lastUsed}::interval` : null}, now(), now(), now())
        returning id`;
      return t.id as number;
    };
    const custom = await insert('custom', 'CUSTOM', 'custom');
    const [p] = await sql`insert into strapi_api_token_permissions (document_id, action, created_at, updated_at, published_at)
      values ('perm-doc', 'api::article.article.find', now(), now(), now()) returning id`;
    await sql`insert into strapi_api_token_permissions_token_lnk (api_token_permission_id, api_token_id, api_token_permission_ord) values (${p.id}, ${custom}, 1)`;
    await insert('old', 'OLD', 'full-access', { expired: true });
    await insert('admin', 'ADMIN', 'full-access', { kind: 'admin' });
    await insert('legacy', 'LEGACY', 'read-only', { kind: null });
    await insert('recent', 'RECENT', 'read-only', { lastUsed: '10 minutes' });
    assert.equal((await s.fetchJson('GET', '/api/articles', undefined, 'CUSTOM')).status, 200);
    assert.equal((await s.fetchJson('GET', '/api/authors', undefined, 'CUSTOM')).status, 403);
    const expired = await s.fetchJson('GET', '/api/articles', undefined, 'OLD');
    assert.equal(expired.status, 401);
    assert.equal(expired.body.error.message, 'Token expired');
    assert.equal((await s.fetchJson('GET', '/api/articles', undefined, 'ADMIN')).status, 401, 'admin tokens are not Content API tokens');
    assert.equal((await s.fetchJson('GET', '/api/articles', undefined, 'LEGACY')).status, 200, 'a token without kind is a content-api one');
    assert.equal((await s.fetchJson('GET', '/api/articles', undefined, 'RECENT')).status, 200);
    await new Promise((r) => setTimeout(r, 200));
    const used = await sql`select name, last_used_at is not null as used, last_used_at < now() - interval '5 minutes' as stale, updated_at = last_used_at as bumped
      from strapi_api_tokens where name in ('custom', 'recent') order by name`;
    // Never used: recorded now (with updated_at, as Strapi). Used ten minutes ago: Strapi waits an hour.
    assert.deepEqual(used.map((r) => ({ ...r })), [{ name: 'custom', used: true, stale: false, bumped: true }, { name: 'recent', used: true, stale: true, bumped: false }]);
  });

  test('login and register are rate limited, keyed as Strapi 5.54 keys them (route, address, and the email where the route takes one)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await s.fetchJson('POST', '/api/auth/local', { identifier: 'ann', password: 'nope', email: `x${i}@x.io` })).status);
    // AUTH_RATE_LIMIT=8 (the suite's earlier logins used some): refused from the ninth on, whatever email the
    // body carries (no identifier on /auth/local).
    const first = statuses.indexOf(429);
    assert.ok(first >= 0 && first <= 8, JSON.stringify(statuses));
    assert.deepEqual(statuses.slice(first), statuses.slice(first).map(() => 429));
    assert.deepEqual(statuses.slice(0, first), statuses.slice(0, first).map(() => 400));
    // Another route is another bucket; on forgot-password each email has its own.
    for (let i = 0; i < 9; i++) assert.equal((await s.fetchJson('POST', '/api/auth/forgot-password', { email: `nobody${i}@example.com` })).status, 200);
    const same: number[] = [];
    for (let i = 0; i < 9; i++) same.push((await s.fetchJson('POST', '/api/auth/forgot-password', { email: 'Same@Example.com' })).status);
    assert.deepEqual(same, [200, 200, 200, 200, 200, 200, 200, 200, 429]);
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
    assert.match(key, /^[0-9a-f]{256}$/);
    assert.equal((await s.fetchJson('GET', '/api/articles', undefined, key)).status, 200);
    assert.equal((await s.fetchJson('POST', '/api/tags', { data: { name: 'x' } }, key)).status, 403);
    const [stored] = await s.sql()`select document_id, kind, type, access_key, encrypted_key, lifespan, expires_at,
      created_at = published_at and last_used_at is not null as stamped from strapi_api_tokens where name = 'web'`;
    assert.deepEqual({ ...stored, document_id: stored.document_id.length },
      { document_id: 24, kind: 'content-api', type: 'read-only', access_key: hashToken(key, 'change-me-api-token-salt').toString('hex'),
        encrypted_key: null, lifespan: null, expires_at: null, stamped: true }, 'only the hash is stored, as Strapi\'s admin writes it');
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

describe('roles from the database (no permission variables)', () => {
  const env = { PUBLIC_PERMISSIONS: undefined, AUTHENTICATED_PERMISSIONS: undefined, PERMISSIONS_CACHE_TTL: '200', JWT_SECRET: SECRET };

  test('a fresh database gets Strapi\'s roles and default permissions once; role changes apply without a restart', async () => {
    let s = await startTestServer({ env });
    try {
      const sql = s.sql();
      const roles = await sql`select name, description, type, document_id is not null and created_at = published_at as stamped from up_roles order by id`;
      assert.deepEqual(roles.map((r) => ({ ...r })), [
        { name: 'Authenticated', description: 'Default role given to authenticated user.', type: 'authenticated', stamped: true },
        { name: 'Public', description: 'Default role given to unauthenticated user.', type: 'public', stamped: true },
      ]);
      const perms = async () => (await s.sql()`select r.type, p.action from up_permissions p join up_permissions_role_lnk l on l.permission_id = p.id
        join up_roles r on r.id = l.role_id order by r.type, p.action`).map((r) => `${r.type} ${r.action}`);
      const defaults = await perms();
      assert.equal(defaults.length, 13);
      assert.ok(defaults.includes('public plugin::users-permissions.auth.register') && defaults.includes('authenticated plugin::users-permissions.user.me'));

      assert.equal((await s.fetchJson('GET', '/api/tags')).status, 403, 'the public role grants no content-type');
      const reg = await s.fetchJson('POST', '/api/auth/local/register', { username: 'dbrole', email: 'dbrole@example.com', password: 'Passw0rd!' });
      assert.equal(reg.status, 200, reg.text);
      const [u] = await sql`select u.password, u.confirmed, u.blocked, r.type, l.user_ord from up_users u
        join up_users_role_lnk l on l.user_id = u.id join up_roles r on r.id = l.role_id where u.username = 'dbrole'`;
      assert.match(u.password, /^\$2a\$10\$/);
      assert.deepEqual([u.confirmed, u.blocked, u.type, u.user_ord], [true, false, 'authenticated', 1]);
      const jwt = reg.body.jwt as string;
      assert.deepEqual(Object.keys(JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString())), ['id', 'iat', 'exp']);
      assert.equal((await s.fetchJson('GET', '/api/users/me', undefined, jwt)).body.username, 'dbrole');
      assert.equal((await s.fetchJson('GET', '/api/tags', undefined, jwt)).status, 403);

      // What Strapi's admin does when a permission is ticked for a role.
      const grant = async (type: string, action: string) => sql`with p as (insert into up_permissions (document_id, action, created_at, updated_at, published_at)
        values (${action + type}, ${action}, now(), now(), now()) returning id)
        insert into up_permissions_role_lnk (permission_id, role_id, permission_ord) select p.id, r.id, 99 from p, up_roles r where r.type = ${type}`;
      await grant('public', 'api::tag.tag.find');
      await grant('authenticated', 'api::tag.tag.find');
      await new Promise((r) => setTimeout(r, 300));
      await s.fetchJson('GET', '/api/tags'); // may still answer from the expired copy while the new one loads
      await new Promise((r) => setTimeout(r, 100));
      assert.equal((await s.fetchJson('GET', '/api/tags')).status, 200);
      assert.equal((await s.fetchJson('GET', '/api/tags', undefined, jwt)).status, 200);

      // A user of another role gets that role's permissions, not the authenticated one's.
      const [editor] = await sql`insert into up_roles (document_id, name, description, type, created_at, updated_at, published_at)
        values ('editor-role', 'Editor', '', 'editor', now(), now(), now()) returning id`;
      await sql`update up_users_role_lnk set role_id = ${editor.id} where user_id = ${reg.body.user.id}`;
      await new Promise((r) => setTimeout(r, 300));
      await s.fetchJson('GET', '/api/tags', undefined, jwt);
      await new Promise((r) => setTimeout(r, 100));
      assert.equal((await s.fetchJson('GET', '/api/tags', undefined, jwt)).status, 403);

      // Starting again (a second node, a restart) adds nothing.
      const before = await perms();
      await s.stop({ keepData: true });
      s = await startTestServer({ env, db: s.db });
      assert.deepEqual(await perms(), before);
      assert.equal((await s.sql()`select count(*)::int as n from up_roles`)[0].n, 3);
    } finally { await s.stop(); }
  });
});

describe('the database Strapi 5.54 made (dump)', () => {
  let s: TestServer;
  before(async () => {
    const db = await createDumpDatabase();
    s = await startTestServer({ db, modelsDir: DUMP_PROJECT, env: { API_TOKEN_SALT: DUMP_TOKEN_SALT, API_TOKENS: undefined, PUBLIC_PERMISSIONS: undefined, AUTHENTICATED_PERMISSIONS: undefined, JWT_SECRET: SECRET } });
  });
  after(() => s?.stop());

  test('Strapi\'s token works and its use is recorded; a wrong one is 401', async () => {
    assert.equal((await s.fetchJson('POST', '/api/tags', { data: { name: 'by oracle token' } }, DUMP_TOKEN)).status, 201);
    assert.equal((await s.fetchJson('GET', '/api/articles', undefined, `${DUMP_TOKEN}x`)).status, 401);
    await new Promise((r) => setTimeout(r, 200));
    const [t] = await s.sql()`select last_used_at > created_at + interval '1 hour' as recent from strapi_api_tokens where name = 'oracle-full-access'`;
    assert.equal(t.recent, true);
  });

  test('anonymous callers get the public role of the dump', async () => {
    assert.equal((await s.fetchJson('GET', '/api/articles')).status, 200);
    assert.equal((await s.fetchJson('GET', '/api/about')).status, 200);
    assert.equal((await s.fetchJson('POST', '/api/tags', { data: { name: 'anon' } })).status, 403);
    assert.equal((await s.fetchJson('GET', '/api/upload/files')).status, 403);
    assert.equal((await s.fetchJson('GET', '/api/users')).status, 403);
  });

  test('a user stored by Strapi (bcryptjs hash, role link) logs in and gets its role\'s permissions', async () => {
    const sql = s.sql();
    // The hash Strapi 5.54's bcryptjs 2.4.3 made for 'Strapi-Pass1' (10 rounds).
    const [u] = await sql`insert into up_users (document_id, username, email, provider, password, confirmed, blocked, created_at, updated_at, published_at)
      values ('strapiuserdocumentid0001', 'strapi-user', 'strapi-user@example.com', 'local', '$2a$10$Xjc7bYFj3khuR6JSNVscceW.bJHr641r1METSSghOIpbkDkLbHQny', true, false, now(), now(), now())
      returning id`;
    await sql`insert into up_users_role_lnk (user_id, role_id, user_ord) select ${u.id}, id, 1 from up_roles where type = 'authenticated'`;
    const bad = await s.fetchJson('POST', '/api/auth/local', { identifier: 'strapi-user', password: 'wrong' });
    assert.equal(bad.status, 400);
    const login = await s.fetchJson('POST', '/api/auth/local', { identifier: 'Strapi-User@example.com', password: 'Strapi-Pass1' });
    assert.equal(login.status, 200, login.text);
    // The dump's authenticated role may create tags but not articles.
    assert.equal((await s.fetchJson('POST', '/api/tags', { data: { name: 'by strapi user' } }, login.body.jwt)).status, 201);
    assert.equal((await s.fetchJson('POST', '/api/articles', { data: { title: 'no' } }, login.body.jwt)).status, 403);
  });
});
