// Document Service middlewares around users-permissions' user writes: the project both servers run — one
// middleware logging every `plugin::users-permissions.user` context and result (to DOC_MW_LOG) that
// (a) appends "-mw" to the username a create writes, (b) appends "-mw2" to the username an update writes,
// (c) adds a key to an update's result, (d) refuses the username "refused" by throwing — and the requests
// both get. Recorded from a live Strapi 5.54 by test/fixtures/doc-middlewares/record-users.ts, replayed by
// test/doc-middlewares-users.test.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The register() both servers run (a property of src/index.js's module.exports). */
export const REGISTER_USERS = `register({ strapi }) {
    const fs = require('fs');
    const { errors } = require('@strapi/utils');
    const log = (e) => { if (process.env.DOC_MW_LOG) fs.appendFileSync(process.env.DOC_MW_LOG, JSON.stringify(e) + '\\n'); };
    strapi.documents.use(async (context, next) => {
      if (context.uid !== 'plugin::users-permissions.user') return next();
      log({ uid: context.uid, action: context.action, params: context.params, contentType: context.contentType && context.contentType.uid });
      const data = context.params.data;
      if (data && data.username === 'refused') throw new errors.ApplicationError('the middleware refuses this username', { username: 'refused' });
      if (context.action === 'create' && data && typeof data.username === 'string') context.params.data = { ...data, username: data.username + '-mw' };
      if (context.action === 'update' && data && typeof data.username === 'string') context.params.data = { ...data, username: data.username + '-mw2' };
      const result = await next();
      log({ result });
      if (context.action === 'update' && result) return { ...result, seenByMiddleware: true };
      return result;
    });
  },`;

/** src/index.js for this server (Strapi's reference app keeps its own bootstrap lines: see record-users.ts). */
export function usersIndexFile(): string {
  return `'use strict';\nmodule.exports = {\n  ${REGISTER_USERS}\n  async bootstrap() {},\n};\n`;
}

export function addUserDocMiddlewares(dir: string): void {
  writeFileSync(join(dir, 'src', 'index.js'), usersIndexFile());
}

/** A request with its own authorization: an API token, a user's JWT, or none. */
export type AuthCall = (method: string, path: string, body: unknown, auth: string | null) => Promise<{ status: number; body: any }>;

export function authCall(base: string): AuthCall {
  return async (method, path, body, auth) => {
    const res = await fetch(base + path, {
      method,
      headers: { ...(auth ? { authorization: `Bearer ${auth}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let b: unknown = text;
    try { b = JSON.parse(text); } catch { /* text */ }
    return { status: res.status, body: b };
  };
}

/** What the operations share: the full-access token, and what earlier operations learnt (ids, JWTs, the reset code). */
export interface UserOpState { token: string; [k: string]: any }
/** `contexts`: the middleware's log lines of the operations before (the reset code is read from them, as a mail would give it). */
export interface UserOp { name: string; run(call: AuthCall, s: UserOpState, contexts: () => any[]): Promise<{ status: number; body: any }> }

const gql = (call: AuthCall, query: string, variables: Record<string, unknown>, auth: string | null) => call('POST', '/graphql', { query, variables }, auth);

export const USER_OPS: UserOp[] = [
  { name: 'register (a) the middleware sets the username', async run(call, s) {
    const r = await call('POST', '/api/auth/local/register', { username: 'reg', email: 'Reg@Example.com', password: 'secret-1' }, null);
    s.regJwt = r.body?.jwt; s.regId = r.body?.user?.id;
    return r;
  } },
  { name: 'register a refused username (d)', run: (call) => call('POST', '/api/auth/local/register', { username: 'refused', email: 'refused@example.com', password: 'secret-1' }, null) },
  { name: 'POST /api/users (a)', async run(call, s) {
    const r = await call('POST', '/api/users', { username: 'made', email: 'Made@Example.com', password: 'secret-2', role: 1 }, s.token);
    s.madeId = r.body?.id;
    return r;
  } },
  { name: 'POST /api/users refused (d)', run: (call, s) => call('POST', '/api/users', { username: 'refused', email: 'refused2@example.com', password: 'secret-2', role: 1 }, s.token) },
  { name: 'PUT /api/users/:id (b, c)', run: (call, s) => call('PUT', `/api/users/${s.madeId}`, { username: 'renamed', blocked: false }, s.token) },
  { name: 'PUT /api/users/:id refused (d)', run: (call, s) => call('PUT', `/api/users/${s.madeId}`, { username: 'refused' }, s.token) },
  { name: 'forgot password', run: (call) => call('POST', '/api/auth/forgot-password', { email: 'reg@example.com' }, null) },
  { name: 'reset password', run: (call, _s, contexts) => {
    const code = contexts().reverse().find((c) => c.params?.data?.resetPasswordToken)?.params.data.resetPasswordToken;
    return call('POST', '/api/auth/reset-password', { code, password: 'secret-3', passwordConfirmation: 'secret-3' }, null);
  } },
  { name: 'change password', async run(call) {
    const login = await call('POST', '/api/auth/local', { identifier: 'reg@example.com', password: 'secret-3' }, null);
    return call('POST', '/api/auth/change-password', { currentPassword: 'secret-3', password: 'secret-4', passwordConfirmation: 'secret-4' }, login.body?.jwt ?? 'none');
  } },
  { name: 'GraphQL register (a)', run: (call) => gql(call, 'mutation($i: UsersPermissionsRegisterInput!) { register(input: $i) { jwt user { id username email confirmed blocked } } }',
    { i: { username: 'gq', email: 'GQ@example.com', password: 'secret-5' } }, null) },
  { name: 'GraphQL updateUsersPermissionsUser (b)', run: (call, s) => gql(call, 'mutation($id: ID!) { updateUsersPermissionsUser(id: $id, data: { username: "gqrenamed" }) { data { documentId username email blocked } } }',
    { id: String(s.madeId) }, s.token) },
  { name: 'GraphQL updateUsersPermissionsUser refused (d)', run: (call, s) => gql(call, 'mutation($id: ID!) { updateUsersPermissionsUser(id: $id, data: { username: "refused" }) { data { documentId username } } }',
    { id: String(s.madeId) }, s.token) },
];
