// users-permissions' user writes through a project's document service middlewares (src/users/user-documents.ts),
// compared with a live Strapi 5.54 (test/fixtures/doc-middlewares/strapi-5.54-users.json, recorded by its
// record-users.ts with the same project and requests): the `create`/`update` context each route passes
// (params: data, documentId, populate), the entity the chain's last step answers, what a middleware's change
// of `data` writes, its changed result in the answer, a throw's answer; GraphQL's register and
// updateUsersPermissionsUser in Strapi 5's shape. Registrations of one email racing stay one user.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';
import { docsProject } from './webhooks-docs-ops.ts';
import { masker } from './doc-middlewares-ops.ts';
import { addUserDocMiddlewares, authCall, USER_OPS, type UserOpState } from './doc-middlewares-users-ops.ts';
import { tempDir } from './temp-dir.ts';

interface Recorded { name: string; status: number; body: any; contexts: any[] }
const RECORDED = JSON.parse(readFileSync(new URL('./fixtures/doc-middlewares/strapi-5.54-users.json', import.meta.url), 'utf8')) as { users: Recorded[] };
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));

/** Strapi's masker, plus what differs by nature: password hashes, random tokens, JWTs, GraphQL's string ids, role ids. */
function userMasker(): (v: unknown) => unknown {
  const base = masker();
  const mask = (v: unknown, key = ''): unknown => {
    if (Array.isArray(v)) return v.map((x) => mask(x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mask(x, k)]));
    if (typeof v === 'string' && /^\$2[aby]\$\d\d\$/.test(v)) return '<hash>';
    if (typeof v === 'string' && (key === 'resetPasswordToken' || key === 'confirmationToken')) return '<token>';
    if (typeof v === 'string' && key === 'jwt') return '<jwt>';
    if (key === 'id' && typeof v === 'string' && /^\d+$/.test(v)) return '<id>';
    if (key === 'role' && typeof v === 'number') return '<role>';
    return base(v);
  };
  return (v) => mask(v);
}

describe('document service middlewares around users-permissions\' user writes', () => {
  let s: TestServer;
  const log = join(tempDir('fastrapi-docmw-users-'), 'contexts.jsonl');
  before(async () => {
    process.env.DOC_MW_LOG = log;
    const dir = docsProject();
    addUserDocMiddlewares(dir);
    s = await startTestServer({ modelsDir: dir, env: { RESPONSE_CACHE: 'false', GRAPHQL_SHAPE: 'v5', AUTH_RATE_LIMIT: '1000' } });
  });
  after(async () => { await s?.stop(); delete process.env.DOC_MW_LOG; });

  test('contexts, results, statuses and answers are Strapi 5.54\'s', async () => {
    writeFileSync(log, '');
    const call = authCall(s.url);
    const st: UserOpState = { token: TOKEN };
    const mine: Recorded[] = [];
    for (const op of USER_OPS) {
      const before = lines(log).length;
      const r = await op.run(call, st, () => lines(log));
      mine.push({ name: op.name, status: r.status, body: r.body, contexts: lines(log).slice(before) });
    }
    assert.equal(mine.length, RECORDED.users.length);
    const ours = userMasker();
    const theirs = userMasker();
    for (let i = 0; i < USER_OPS.length; i++) {
      const a = ours(mine[i]) as Recorded;
      const b = theirs(RECORDED.users[i]) as Recorded;
      assert.deepEqual(a.contexts, b.contexts, `${a.name}: the middleware's contexts and results`);
      assert.equal(a.status, b.status, `${a.name}: status ${JSON.stringify(a.body)}`);
      assert.deepEqual(a.body, b.body, `${a.name}: answer`);
      assert.equal(JSON.stringify(a.body), JSON.stringify(b.body), `${a.name}: answer's key order`);
    }
    // What the middleware set is what was written, and what it refused was not.
    const users = await s.sql().unsafe<Array<{ username: string }>>('select username from up_users order by id');
    assert.deepEqual(users.map((u) => u.username), ['reg-mw', 'gqrenamed-mw2', 'gq-mw']);
    // The password the middleware saw is the one stored: the user logs in with it.
    const login = await call('POST', '/api/auth/local', { identifier: 'reg@example.com', password: 'secret-4' }, null);
    assert.equal(login.status, 200, JSON.stringify(login.body));
  });

  test('50 concurrent registrations of one email through the middlewares make one user', async () => {
    const call = authCall(s.url);
    const all = await Promise.all(Array.from({ length: 50 }, (_, i) =>
      call('POST', '/api/auth/local/register', { username: `racer${i}`, email: 'race@example.com', password: 'secret-1' }, null)));
    assert.equal(all.filter((r) => r.status === 200).length, 1, JSON.stringify(all.map((r) => [r.status, r.body?.error?.message])));
    // The others: taken, or (the test server's small pool, held by transactions waiting for the identity
    // lock) 503 — as the native path answers the same burst without middlewares. Never a second user.
    assert.ok(all.filter((r) => r.status !== 200).every((r) => (r.status === 400 && r.body.error.message === 'Email or Username are already taken') || r.status === 503),
      JSON.stringify(all.map((r) => r.status)));
    const rows = await s.sql().unsafe('select count(*)::int as n from up_users where email = $1', ['race@example.com']);
    assert.equal(rows[0].n, 1);
  });
});
