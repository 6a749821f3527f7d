// Issue 30 (users part): users stay unique under concurrency — parallel registrations, creates and
// renames of one username/email leave one row in `up_users` and Strapi 5.54's answer for the others —
// and revocation is at once: blocking or deleting a user, changing a role's permissions, a user's role or
// an API token reaches the very next request on every node (and every worker thread), not after
// PERMISSIONS_CACHE_TTL (set to ten minutes here, so that the fallback cannot be what makes these pass).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, TOKEN, type TestServer, sameDatabaseNode } from './helpers.ts';
import { hashToken } from '../src/auth/permissions.ts';

const COMMON = {
  JWT_SECRET: 'users-integrity-secret-0123456789',
  AUTH_RATE_LIMIT: '1000000',
  PERMISSIONS_CACHE_TTL: '600000',
  // The response cache's invalidator carries the notifications between nodes.
  RESPONSE_CACHE: 'true',
  // Parallel writers of one name queue for their connections and locks: on a loaded test machine that
  // wait must not become the 503 of the connection deadline (tested on its own), which is not the point here.
  DB_CONNECTION_DEADLINE: '30000',
};
const TAKEN = { status: 400, name: 'ApplicationError', message: 'Email or Username are already taken', details: {} };

/** Polls until `check` holds (readiness of the nodes, or a change only the change watch can see). */
async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Waits until `n` connections of the nodes LISTEN for the change notification (one per node and thread). */
async function listening(s: TestServer, n: number): Promise<void> {
  await eventually(async () => {
    const [{ c }] = await s.sql()`select count(*)::int as c from pg_stat_activity
      where datname = current_database() and application_name = 'fastrapi' and query ilike 'listen%'`;
    return c >= n;
  }, `${n} listening connections`);
}

/** `n` case variants of `word` (distinct for n ≤ 2^letters). */
const caseVariants = (word: string, n: number) => Array.from({ length: n }, (_, i) =>
  [...word].map((ch, j) => ((i >> j) & 1 ? ch.toUpperCase() : ch.toLowerCase())).join(''));

describe('two nodes (the second with two worker threads): uniqueness and revocation of API-made changes', () => {
  let a: TestServer;
  let b: TestServer;
  // The change watch is off in practice (ten minutes): what a node learns, it learns from the notification.
  // Anonymous requests are judged by the public role in the database.
  const env = { ...COMMON, RESPONSE_CACHE_WATCH: '600000', PUBLIC_PERMISSIONS: undefined };
  let authenticatedRole: number;

  before(async () => {
    a = await startTestServer({ env });
    b = await sameDatabaseNode(a, { ...env, WORKERS: '2' });
    // A worker thread builds its App (and starts listening) with its first task: give both threads some.
    await Promise.all(Array.from({ length: 20 }, () => b.fetchJson('GET', '/api/tags', undefined, TOKEN)));
    await listening(a, 3);
    const roles = await a.fetchJson('GET', '/api/users-permissions/roles', undefined, TOKEN);
    authenticatedRole = roles.body.roles.find((r: { type: string }) => r.type === 'authenticated').id;
    // Authenticated users may list tags (the probe below: it reads no user row, so only the caller's check can refuse it).
    const role = (await a.fetchJson('GET', `/api/users-permissions/roles/${authenticatedRole}`, undefined, TOKEN)).body.role;
    role.permissions['api::tag'].controllers.tag.find.enabled = true;
    const put = await a.fetchJson('PUT', `/api/users-permissions/roles/${authenticatedRole}`, { name: role.name, permissions: role.permissions }, TOKEN);
    assert.equal(put.status, 200, put.text);
  });
  after(async () => { await b?.stop(); await a?.stop(); });

  const nodes = () => [a, b];
  const usersNamed = async (where: string, value: string) =>
    (await a.sql().unsafe(`select count(*)::int as c from up_users where ${where}`, [value]))[0].c as number;

  test('30 parallel registrations of one username and email, on both nodes: one user, 29 "already taken"', async () => {
    const body = { username: 'racer', email: 'racer@example.test', password: 'Passw0rd!' };
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => nodes()[i % 2].fetchJson('POST', '/api/auth/local/register', body)));
    assert.equal(replies.filter((r) => r.status === 200).length, 1, replies.map((r) => r.status).join(','));
    for (const r of replies.filter((x) => x.status !== 200)) assert.deepEqual(r.body, { data: null, error: TAKEN });
    assert.equal(await usersNamed(`username = $1`, 'racer'), 1);
    assert.equal(await usersNamed(`email = $1`, 'racer@example.test'), 1);
    // The sequential path answers the same.
    assert.deepEqual((await a.fetchJson('POST', '/api/auth/local/register', body)).body.error, TAKEN);
  });

  test('30 parallel registrations of one email written in different cases, usernames differing only by case: one user', async () => {
    const names = caseVariants('casey', 30);
    const emails = caseVariants('casey@example.test', 30);
    const replies = await Promise.all(names.map((username, i) =>
      nodes()[i % 2].fetchJson('POST', '/api/auth/local/register', { username, email: emails[i], password: 'Passw0rd!' })));
    assert.equal(replies.filter((r) => r.status === 200).length, 1, replies.map((r) => r.status).join(','));
    for (const r of replies.filter((x) => x.status !== 200)) assert.deepEqual(r.body.error, TAKEN);
    assert.equal(await usersNamed(`email = $1`, 'casey@example.test'), 1);
    assert.equal(await usersNamed(`lower(username) = $1`, 'casey'), 1);
  });

  test('30 parallel POST /api/users of one username and email: one user, the others Strapi\'s "Email already taken"', async () => {
    const body = { username: 'dup-admin', email: 'dup-admin@example.test', password: 'Passw0rd!', role: authenticatedRole };
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => nodes()[i % 2].fetchJson('POST', '/api/users', body, TOKEN)));
    assert.equal(replies.filter((r) => r.status === 201).length, 1, replies.map((r) => r.status).join(','));
    for (const r of replies.filter((x) => x.status !== 201)) assert.deepEqual(r.body.error, { status: 400, name: 'ApplicationError', message: 'Email already taken', details: {} });
    assert.equal(await usersNamed(`username = $1`, 'dup-admin'), 1);
  });

  test('10 users renamed in parallel to one username (PUT /api/users/:id): one rename, 9 "Username already taken"', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await a.fetchJson('POST', '/api/users', { username: `renamed-${i}`, email: `renamed-${i}@example.test`, password: 'Passw0rd!', role: authenticatedRole }, TOKEN);
      assert.equal(r.status, 201, r.text);
      ids.push(r.body.id);
    }
    const replies = await Promise.all(ids.map((id, i) => nodes()[i % 2].fetchJson('PUT', `/api/users/${id}`, { username: 'same-name' }, TOKEN)));
    assert.equal(replies.filter((r) => r.status === 200).length, 1, replies.map((r) => r.status).join(','));
    for (const r of replies.filter((x) => x.status !== 200)) assert.deepEqual(r.body.error, { status: 400, name: 'ApplicationError', message: 'Username already taken', details: {} });
    assert.equal(await usersNamed(`username = $1`, 'same-name'), 1);
  });

  /** A registered user's JWT and id, checked to work on both nodes (which caches the user on each). */
  async function member(name: string): Promise<{ jwt: string; id: number }> {
    const r = await a.fetchJson('POST', '/api/auth/local/register', { username: name, email: `${name}@example.test`, password: 'Passw0rd!' });
    assert.equal(r.status, 200, r.text);
    const jwt = r.body.jwt as string;
    for (const s of nodes()) {
      // Several at once, so that both worker threads of the second node are likely to cache the user.
      const all = await Promise.all(Array.from({ length: 8 }, () => s.fetchJson('GET', '/api/tags', undefined, jwt)));
      assert.deepEqual(all.map((x) => x.status), Array(8).fill(200));
    }
    return { jwt, id: r.body.user.id };
  }

  /** The next requests with `jwt` (null: anonymous), on each node (several on the one with two threads), answer `status`. */
  async function nextRequests(jwt: string | null, status: number, path = '/api/tags', method = 'GET', body?: unknown): Promise<void> {
    for (const s of nodes()) {
      for (let i = 0; i < 4; i++) {
        const r = await s.fetchJson(method, path, body, jwt);
        assert.equal(r.status, status, `${s === a ? 'first' : 'second'} node, request ${i + 1}: ${r.text}`);
      }
    }
  }

  test('a user blocked through the API: the very next request with their JWT is refused on both nodes', async () => {
    const { jwt, id } = await member('blockme');
    const put = await a.fetchJson('PUT', `/api/users/${id}`, { blocked: true }, TOKEN);
    assert.equal(put.status, 200, put.text);
    await nextRequests(jwt, 401);
    // A write too (the authenticated role may change its password).
    await nextRequests(jwt, 401, '/api/auth/change-password', 'POST', { currentPassword: 'Passw0rd!', password: 'Other-pass1', passwordConfirmation: 'Other-pass1' });
    // Unblocked (through the other node): accepted again at once.
    assert.equal((await b.fetchJson('PUT', `/api/users/${id}`, { blocked: false }, TOKEN)).status, 200);
    await nextRequests(jwt, 200);
    // Blocked again through GraphQL (which runs the same handler), on the second node.
    const gql = await b.fetchJson('POST', '/graphql', { query: `mutation { updateUsersPermissionsUser(id: "${id}", data: { blocked: true }) { __typename } }` }, TOKEN);
    assert.equal(gql.status, 200, gql.text);
    assert.equal(gql.body.errors, undefined, gql.text);
    await nextRequests(jwt, 401);
  });

  test('with email confirmation on, an unconfirmed user\'s JWT is refused, as Strapi\'s users-permissions strategy does', async () => {
    const { jwt, id } = await member('unconfirm');
    // The advanced settings row as Strapi's admin stores it (a database this server made has none).
    const setting = async (on: boolean) => {
      await a.sql()`delete from strapi_core_store_settings where key = 'plugin_users-permissions_advanced'`;
      await a.sql()`insert into strapi_core_store_settings (key, value, type) values ('plugin_users-permissions_advanced', ${JSON.stringify({ unique_email: true, allow_register: true, email_confirmation: on, default_role: 'authenticated' })}, 'object')`;
    };
    const unconfirm = async (confirmed: boolean) => assert.equal((await a.fetchJson('PUT', `/api/users/${id}`, { confirmed }, TOKEN)).status, 200);
    try {
      await setting(true);
      await unconfirm(true);
      await nextRequests(jwt, 200);
      await unconfirm(false);
      await nextRequests(jwt, 401);
      // Strapi's strategy's own message, on a route that needs no permission too (login).
      for (const [method, path, body] of [['GET', '/api/tags'], ['POST', '/api/auth/local', { identifier: 'x', password: 'y' }]] as const) {
        const r = await b.fetchJson(method, path, body, jwt);
        assert.deepEqual([r.status, r.body.error.message], [401, 'Invalid credentials'], r.text);
      }
      await setting(false);
      await unconfirm(false);
      await nextRequests(jwt, 200);
    } finally {
      await setting(false);
    }
  });

  test('a user deleted through the API (second node): the very next request with their JWT is refused on both nodes', async () => {
    const { jwt, id } = await member('deleteme');
    const del = await b.fetchJson('DELETE', `/api/users/${id}`, undefined, TOKEN);
    assert.equal(del.status, 200, del.text);
    await nextRequests(jwt, 401);
  });

  test('the public role\'s permissions changed through the API apply to the very next anonymous request on both nodes and threads', async () => {
    const pub = (await a.fetchJson('GET', '/api/users-permissions/roles', undefined, TOKEN)).body.roles.find((r: { type: string }) => r.type === 'public').id;
    const setTagFind = async (s: TestServer, enabled: boolean) => {
      const role = (await s.fetchJson('GET', `/api/users-permissions/roles/${pub}`, undefined, TOKEN)).body.role;
      role.permissions['api::tag'].controllers.tag.find.enabled = enabled;
      const put = await s.fetchJson('PUT', `/api/users-permissions/roles/${pub}`, { name: role.name, permissions: role.permissions }, TOKEN);
      assert.equal(put.status, 200, put.text);
    };
    // Each node (each thread) has the roles cached; an idle thread gets the next request after the change.
    for (const s of nodes()) {
      const all = await Promise.all(Array.from({ length: 8 }, () => s.fetchJson('GET', '/api/tags', undefined, null)));
      assert.deepEqual(all.map((x) => x.status), Array(8).fill(403));
    }
    await setTagFind(a, true);
    await nextRequests(null, 200);
    await setTagFind(b, false);
    await nextRequests(null, 403);
  });

  test('a role\'s permissions and a user\'s role changed through the API apply to the very next request on both nodes', async () => {
    const permissions = (actions: string[]) => {
      const out: Record<string, { controllers: Record<string, Record<string, { enabled: boolean }>> }> = {};
      for (const action of actions) {
        const [type, rest] = action.split(/\.(?=[^.]+\.[^.]+$)/);
        const [controller, name] = rest.split('.');
        ((out[type] ??= { controllers: {} }).controllers[controller] ??= {})[name] = { enabled: true };
      }
      return out;
    };
    const base = ['plugin::users-permissions.user.me'];
    const created = await a.fetchJson('POST', '/api/users-permissions/roles', { name: 'Taggers', permissions: permissions([...base, 'api::tag.tag.create']) }, TOKEN);
    assert.equal(created.status, 200, created.text);
    const roles = await a.fetchJson('GET', '/api/users-permissions/roles', undefined, TOKEN);
    const taggers = roles.body.roles.find((r: { name: string }) => r.name === 'Taggers').id as number;
    const { jwt, id } = await member('tagger');
    const tag = (n: number) => ({ data: { name: `tag by jwt ${n}` } });
    let n = 0;
    // In the authenticated role, the user may not create tags (and each node has cached that role).
    for (const s of nodes()) assert.equal((await s.fetchJson('POST', '/api/tags', tag(n++), jwt)).status, 403);
    // Moved to Taggers (a user's role): allowed at once on both nodes.
    assert.equal((await b.fetchJson('PUT', `/api/users/${id}`, { role: taggers }, TOKEN)).status, 200);
    for (const s of nodes()) for (let i = 0; i < 4; i++) assert.equal((await s.fetchJson('POST', '/api/tags', tag(n++), jwt)).status, 201);
    // Taggers loses tag creation (a role's permissions): refused at once on both nodes.
    const update = await a.fetchJson('PUT', `/api/users-permissions/roles/${taggers}`, { name: 'Taggers', permissions: permissions(base) }, TOKEN);
    assert.equal(update.status, 200, update.text);
    await nextRequests(jwt, 403, '/api/tags', 'POST', tag(n++));
    // And gets it back through the other node.
    assert.equal((await b.fetchJson('PUT', `/api/users-permissions/roles/${taggers}`, { name: 'Taggers', permissions: permissions([...base, 'api::tag.tag.create']) }, TOKEN)).status, 200);
    for (const s of nodes()) for (let i = 0; i < 4; i++) assert.equal((await s.fetchJson('POST', '/api/tags', tag(n++), jwt)).status, 201);
  });
});

describe('two nodes: API tokens changed behind the servers\' backs (SQL, as Strapi\'s admin), seen by the change watch', () => {
  let a: TestServer;
  let b: TestServer;
  const env = { ...COMMON, RESPONSE_CACHE_WATCH: '50' };
  const key = 'integrity'.padEnd(64, '0');
  const salt = 'change-me-api-token-salt';

  before(async () => {
    a = await startTestServer({ env });
    b = await sameDatabaseNode(a, env);
    await listening(a, 2);
    // Each node's watch has taken its first look (its cache serves) before anything changes.
    for (const s of [a, b]) {
      await eventually(async () => (await s.fetchJson('GET', '/api/tags', undefined, TOKEN)).headers['x-sql-statements'] === '0', 'the response cache serving');
    }
  });
  after(async () => { await b?.stop(); await a?.stop(); });

  /** Every node answers `status` to the stored token, within the watch's bound (the TTL is ten minutes). */
  const onBothNodes = (status: number) => Promise.all([a, b].map((s) =>
    eventually(async () => (await s.fetchJson('GET', '/api/tags', undefined, key)).status === status, `status ${status} on ${s === a ? 'the first' : 'the second'} node`)));

  test('a token created, its permissions changed, then revoked: each change reaches both nodes', async () => {
    const sql = a.sql();
    // Unknown at first (and remembered as unknown by both nodes).
    for (const s of [a, b]) assert.equal((await s.fetchJson('GET', '/api/tags', undefined, key)).status, 401);
    const [t] = await sql`insert into strapi_api_tokens (document_id, name, description, kind, type, access_key, created_at, updated_at, published_at)
      values ('integrity-doc', 'integrity', '', 'content-api', 'custom', ${hashToken(key, salt).toString('hex')}, now(), now(), now()) returning id`;
    const grant = async (action: string) => {
      const [p] = await sql`insert into strapi_api_token_permissions (document_id, action, created_at, updated_at, published_at)
        values (${`perm-${action}`}, ${action}, now(), now(), now()) returning id`;
      await sql`insert into strapi_api_token_permissions_token_lnk (api_token_permission_id, api_token_id, api_token_permission_ord) values (${p.id}, ${t.id}, 1)`;
    };
    await grant('api::tag.tag.find');
    await onBothNodes(200);
    // Strapi's admin replaces a custom token's permissions: the old ones are deleted, new ones created.
    await sql`delete from strapi_api_token_permissions where action = 'api::tag.tag.find'`;
    await grant('api::article.article.find');
    await onBothNodes(403);
    await sql`delete from strapi_api_tokens where id = ${t.id}`;
    await onBothNodes(401);
  });
});
