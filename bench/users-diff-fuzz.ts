// Differential fuzz of users-permissions: random registrations, logins, `/api/users/me`, password changes and
// the `/api/users` and `/api/users-permissions/roles` routes (reads with filters, sort, populate; creates,
// updates and deletes through a full-access token), with odd values among them (empty, wrong types, taken
// names, unknown and protected keys), sent in the same order to a live Strapi and to this server, each on its
// OWN copy of one database. Statuses and bodies are compared with JWTs, timestamps and documentIds masked
// (a user's documentId is named by its numeric id, which both copies hand out alike). Prints each
// difference; never fails on one.
//
//   createdb … -T blog wfs; createdb … -T blog wff (as bench/write-diff-fuzz.ts), then
//   npx tsx bench/users-diff-fuzz.ts --strapi http://127.0.0.1:1361 --fastrapi http://127.0.0.1:1362 --token T [--runs 200] [--seed 1]
//
// Registrations and logins are rate limited on both (Strapi's users-permissions ratelimit): each run uses
// fresh emails, and the limit's own 429s are compared like any answer.
import { fuzzArgs } from './fuzz-args.ts';
import { closeFuzzAgent, reportDifference, request, type FuzzAnswer } from './fuzz-http.ts';

const { strapi, fastrapi, runs, token, seed: firstSeed } = fuzzArgs('bench/users-diff-fuzz.ts');
/** The share of requests sent through GraphQL (`GRAPHQL=0.3`; the servers need GRAPHQL_SHAPE=v5, as Strapi 5's). */
const graphqlShare = Number(process.env.GRAPHQL ?? 0.2);
let seed = firstSeed;
const rnd = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x7fffffff; };
const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];

type Side = 's' | 'f';
type Answer = FuzzAnswer;
const send = (side: Side, method: string, path: string, body?: unknown, auth: string | null = token ?? null, ip = '10.0.0.1'): Promise<Answer> =>
  request(side === 's' ? strapi : fastrapi, method, path, { body, token: auth, headers: { 'x-forwarded-for': ip } });

/** Masks what differs by nature: JWTs, timestamps, a user's or role's documentId (named by its numeric id). */
function mask(x: unknown): unknown {
  if (Array.isArray(x)) return x.map((v) => mask(v));
  if (x && typeof x === 'object') {
    const o = x as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) {
      if (k === 'jwt' && typeof v === 'string') out[k] = '<jwt>';
      else if ((k === 'createdAt' || k === 'updatedAt' || k === 'publishedAt') && typeof v === 'string') out[k] = '<ts>';
      else if (k === 'documentId' && typeof v === 'string') out[k] = typeof o.id === 'number' ? `<doc ${o.id}>` : '<doc>';
      else out[k] = mask(v);
    }
    return out;
  }
  return x;
}

let differ = 0;
function compare(label: string, a: Answer, b: Answer): void {
  if (reportDifference(label, a, b, mask)) differ++;
}

interface Account { username: string; email: string; password: string; jwt: Partial<Record<Side, string>> }
const accounts: Account[] = [];
const run = `r${firstSeed}x${Date.now().toString(36)}`;
let n = 0;
const fresh = () => `${run}${++n}`;
const NAMES = () => [fresh(), fresh(), '', 'ab', 'x'.repeat(300), 42, null, accounts.length ? pick(accounts).username : 'nobody', accounts.length ? pick(accounts).username.toUpperCase() : 'NOBODY'];
const EMAILS = () => [`${fresh()}@example.com`, `${fresh()}@Example.COM`, 'not-an-email', '', null, 7, accounts.length ? pick(accounts).email : 'x@y.z', accounts.length ? pick(accounts).email.toUpperCase() : 'X@Y.Z'];
const PASSWORDS = ['Passw0rd!', 'short', '', null, 'x'.repeat(80), 12345678, 'ünïcødé-pass'];
const EXTRA: Array<[string, unknown]> = [['role', 1], ['confirmed', true], ['blocked', true], ['provider', 'github'], ['unknown', 1], ['resetPasswordToken', 'x'], ['id', 99]];

const both = async (label: string, method: string, path: string, body?: unknown, auth: Partial<Record<Side, string | null>> = { s: token, f: token }) => {
  const [a, b] = await Promise.all([send('s', method, path, body, auth.s ?? null), send('f', method, path, body, auth.f ?? null)]);
  compare(label, a, b);
  return [a, b] as const;
};

const userIds = async (): Promise<number[]> => {
  const r = await send('s', 'GET', '/api/users?pagination[pageSize]=100');
  return Array.isArray(r.body) ? (r.body as Array<{ id: number }>).map((u) => u.id) : [];
};

for (let i = 0; i < runs; i++) {
  if (graphqlShare > 0 && rnd() < graphqlShare) { await graphql(i); continue; }
  const op = rnd();
  if (op < 0.22) {
    const body: Record<string, unknown> = { username: pick(NAMES()), email: pick(EMAILS()), password: pick(PASSWORDS) };
    if (rnd() < 0.2) delete body[pick(['username', 'email', 'password'])];
    if (rnd() < 0.25) { const [k, v] = pick(EXTRA); body[k] = v; }
    const [a, b] = await both(`#${i} register ${JSON.stringify(body)}`, 'POST', '/api/auth/local/register', body, {});
    const ja = (a.body as { jwt?: string } | null)?.jwt;
    const jb = (b.body as { jwt?: string } | null)?.jwt;
    if (ja && jb) accounts.push({ username: String(body.username), email: String(body.email), password: String(body.password), jwt: { s: ja, f: jb } });
  } else if (op < 0.4 && accounts.length) {
    const acc = pick(accounts);
    const body: Record<string, unknown> = {
      identifier: pick([acc.username, acc.email, acc.email.toUpperCase(), acc.username.toUpperCase(), 'nobody', '', null]),
      password: pick([acc.password, acc.password, 'wrong', '', null]),
    };
    if (rnd() < 0.1) delete body[pick(['identifier', 'password'])];
    const [a, b] = await both(`#${i} login ${JSON.stringify(body)}`, 'POST', '/api/auth/local', body, {});
    const ja = (a.body as { jwt?: string } | null)?.jwt;
    const jb = (b.body as { jwt?: string } | null)?.jwt;
    if (ja && jb) acc.jwt = { s: ja, f: jb };
  } else if (op < 0.5 && accounts.length) {
    const acc = pick(accounts);
    const path = pick(['/api/users/me', '/api/users/me?populate=role', '/api/users/me?fields[0]=username', '/api/users/me?populate=*']);
    await both(`#${i} GET ${path} as ${acc.username}`, 'GET', path, undefined, { s: acc.jwt.s ?? null, f: acc.jwt.f ?? null });
  } else if (op < 0.56 && accounts.length) {
    const acc = pick(accounts);
    const body = { currentPassword: pick([acc.password, 'wrong']), password: pick(PASSWORDS), passwordConfirmation: pick(['Passw0rd!', 'other', null]) };
    const [a] = await both(`#${i} change-password ${acc.username} ${JSON.stringify(body)}`, 'POST', '/api/auth/change-password', body, { s: acc.jwt.s ?? null, f: acc.jwt.f ?? null });
    if (a.status === 200) acc.password = String(body.password);
  } else if (op < 0.75) {
    const q = pick([
      'pagination[pageSize]=5', 'sort=username:desc', 'filters[username][$contains]=r', 'populate=role', 'populate=*', 'fields[0]=email',
      'filters[role][name][$eq]=Authenticated', 'filters[confirmed]=true', 'filters[blocked][$ne]=true&sort=id:desc', 'start=1&limit=2',
      'filters[email][$endsWith]=.com&fields[0]=username&fields[1]=email', 'filters[password][$notNull]=true', 'sort=password', 'populate[role][fields][0]=type',
    ]);
    const path = pick([`/api/users?${q}`, `/api/users/count?${q}`, `/api/users-permissions/roles`, `/api/users-permissions/roles/1`, '/api/users-permissions/roles/99']);
    await both(`#${i} GET ${path}`, 'GET', path);
  } else if (op < 0.85) {
    const ids = await userIds();
    const id = ids.length && rnd() < 0.9 ? pick(ids) : 99999;
    const body: Record<string, unknown> = {};
    if (rnd() < 0.5) body.username = pick(NAMES());
    if (rnd() < 0.4) body.email = pick(EMAILS());
    if (rnd() < 0.2) body.password = pick(PASSWORDS);
    if (rnd() < 0.3) { const [k, v] = pick(EXTRA); body[k] = v; }
    if (rnd() < 0.1) body.role = pick([2, '2', 99, null]);
    const q = rnd() < 0.3 ? `?${pick(['populate=role', 'fields[0]=username'])}` : '';
    await both(`#${i} PUT /api/users/${id}${q} ${JSON.stringify(body)}`, 'PUT', `/api/users/${id}${q}`, body);
    await both(`#${i} then GET /api/users/${id}`, 'GET', `/api/users/${id}?populate=role`);
  } else if (op < 0.94) {
    const body: Record<string, unknown> = { username: pick(NAMES()), email: pick(EMAILS()), password: pick(PASSWORDS) };
    if (rnd() < 0.4) body.role = pick([1, 2, 99, '2']);
    if (rnd() < 0.3) { const [k, v] = pick(EXTRA); body[k] = v; }
    await both(`#${i} POST /api/users ${JSON.stringify(body)}`, 'POST', '/api/users', body);
  } else {
    const ids = await userIds();
    const id = ids.length && rnd() < 0.9 ? pick(ids) : 99999;
    await both(`#${i} DELETE /api/users/${id}`, 'DELETE', `/api/users/${id}`);
  }
}

/** users-permissions through GraphQL: login, register, me, the users and roles queries and mutations. */
async function graphql(i: number): Promise<void> {
  const acc = accounts.length ? pick(accounts) : null;
  const sel = pick(['jwt user { username email confirmed blocked role { name type } }', 'jwt', 'user { id username }']);
  const ops: Array<[string, Record<string, unknown>, Partial<Record<Side, string | null>>]> = [
    ['mutation($i: UsersPermissionsLoginInput!) { login(input: $i) { ' + sel + ' } }',
      { i: { identifier: acc ? pick([acc.username, acc.email, 'nobody']) : 'nobody', password: acc ? pick([acc.password, 'wrong']) : 'x', ...(rnd() < 0.2 ? { provider: pick(['local', 'github']) } : {}) } }, {}],
    ['mutation($i: UsersPermissionsRegisterInput!) { register(input: $i) { ' + sel + ' } }',
      { i: { username: pick(NAMES()), email: pick(EMAILS()), password: pick(PASSWORDS) } }, {}],
    ['{ me { id username email confirmed blocked role { name } } }', {}, acc ? { s: acc.jwt.s ?? null, f: acc.jwt.f ?? null } : {}],
    ['query($f: UsersPermissionsUserFiltersInput) { usersPermissionsUsers(filters: $f, sort: "id:asc") { username email role { name } } }',
      { f: pick([{ username: { contains: 'r' } }, { confirmed: { eq: true } }, {}, { role: { name: { eq: 'Authenticated' } } }]) }, { s: token, f: token }],
    ['{ usersPermissionsRoles { name type description } }', {}, { s: token, f: token }],
    ['mutation($d: UsersPermissionsUserInput!) { createUsersPermissionsUser(data: $d) { data { username email confirmed role { name } } } }',
      { d: { username: pick(NAMES()), email: pick(EMAILS()), password: pick(PASSWORDS), ...(rnd() < 0.5 ? { role: pick(['1', '2', '99']) } : {}) } }, { s: token, f: token }],
    ['mutation($id: ID!, $d: UsersPermissionsUserInput!) { updateUsersPermissionsUser(id: $id, data: $d) { data { username email blocked } } }',
      { id: String(pick([...(await userIds()), 99999])), d: { ...(rnd() < 0.6 ? { username: pick(NAMES()) } : {}), ...(rnd() < 0.3 ? { blocked: pick([true, false]) } : {}) } }, { s: token, f: token }],
    ['mutation($e: String!) { forgotPassword(email: $e) { ok } }', { e: pick(EMAILS()) }, {}],
  ];
  const [query, variables, auth] = pick(ops);
  const vars = JSON.parse(JSON.stringify(variables, (_k, v) => (v === null ? undefined : v))) as Record<string, unknown>;
  const [a, b] = await both(`#${i} GraphQL ${query} ${JSON.stringify(vars)}`, 'POST', '/graphql', { query, variables: vars }, auth);
  const ja = ((a.body as { data?: { login?: { jwt?: string }; register?: { jwt?: string } } } | null)?.data);
  const jb = ((b.body as { data?: { login?: { jwt?: string }; register?: { jwt?: string } } } | null)?.data);
  const reg = ja?.register?.jwt && jb?.register?.jwt ? [ja.register.jwt, jb.register.jwt] : null;
  const i2 = vars.i as Record<string, unknown> | undefined;
  if (reg && i2) accounts.push({ username: String(i2.username), email: String(i2.email), password: String(i2.password), jwt: { s: reg[0], f: reg[1] } });
}
console.log(`\n${runs} requests, ${differ} differences (seed ${firstSeed})`);
closeFuzzAgent();
