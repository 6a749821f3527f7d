// users-permissions account flows on Strapi's `up_users` columns (`reset_password_token`,
// `confirmation_token`): forgot/reset/change password and email confirmation, with Strapi 5.54's
// checks, messages and order of checks (legacy JWT mode: `{jwt, user}` answers, no refresh tokens).
import { randomBytes } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { RestContext } from '../rest/router.ts';
import type { Caller } from '../auth/permissions.ts';
import type { Reply } from '../rest/reply.ts';
import { ApiError } from '../../compiler/errors.ts';
import { UP } from '../auth/tables.ts';
import type { EmailProvider } from '../email/index.ts';
import { renderTemplate } from '../email/template.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { readAdvanced, readEmailTemplates } from './settings.ts';
import { userJson } from './user-json.ts';
import { validate, type Body } from './validate.ts';
import { userWritten } from './announce.ts';
import { editUser } from './user-documents.ts';

export interface AccountDeps { config: Config; email: EmailProvider }

const NOW = `date_trunc('milliseconds', now())`;
const appError = (message: string) => new ApiError(400, 'ApplicationError', message, {});
const invalid = (message: string) => new ApiError(400, 'ValidationError', message, {});
// The user attribute's minLength, checked by Strapi's entity validator when the password is written.
const PASSWORD_MIN = { minLength: 6 } as const;

/** Strapi's `server.absoluteUrl`: the configured public URL, or the listening address. */
export function absoluteUrl(config: Config): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, '');
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return `http://${host}:${config.port}`;
}

const authReply = async (ctx: RestContext, id: number, user: string | null): Promise<Reply> =>
  ({ status: 200, body: `{"jwt":${JSON.stringify(await ctx.auth.jwt.sign(id))},"user":${user ?? 'null'}}` });

async function setPassword(ctx: RestContext, id: number, password: string, clearResetToken: boolean): Promise<void> {
  // With document middlewares: Strapi's user service edit, the password checked and hashed by its last step.
  if (ctx.userDocuments) { await editUser(ctx, ctx.userDocuments, id, clearResetToken ? { resetPasswordToken: null, password } : { password }); return; }
  validate({ password }, [{ key: 'password', ...PASSWORD_MIN }]);
  const hash = await hashPassword(password);
  await ctx.db.unsafe(`update ${UP.users} set password = $2, ${clearResetToken ? 'reset_password_token = null, ' : ''}updated_at = ${NOW}, published_at = ${NOW} where id = $1`, [id, hash]);
  ctx.count(1);
  userWritten(ctx, 'entry.update', id);
}

/** A token stored on the user (`data`: Strapi's user service edit of it, with document middlewares). */
async function storeToken(ctx: RestContext, id: number, column: 'confirmation_token' | 'reset_password_token', data: Record<string, unknown>, token: string): Promise<void> {
  if (ctx.userDocuments) { await editUser(ctx, ctx.userDocuments, id, data); return; }
  await ctx.db.unsafe(`update ${UP.users} set ${column} = $2, updated_at = ${NOW}, published_at = ${NOW} where id = $1`, [id, token]);
  ctx.count(1);
  userWritten(ctx, 'entry.update', id);
}

/** Strapi's user service sendConfirmationEmail: a new token, then the templated message. */
export async function sendConfirmationEmail(deps: AccountDeps, ctx: RestContext, id: number): Promise<void> {
  const token = randomBytes(20).toString('hex');
  await storeToken(ctx, id, 'confirmation_token', { confirmationToken: token }, token);
  const user = JSON.parse((await userJson(ctx, id)) ?? 'null') as Record<string, unknown> | null;
  if (!user) return;
  const t = (await readEmailTemplates(ctx.db)).email_confirmation;
  ctx.count(2);
  const url = absoluteUrl(deps.config);
  const message = renderTemplate(t.message, { URL: `${url}/api/auth/email-confirmation`, SERVER_URL: url, ADMIN_URL: `${url}/admin`, USER: user, CODE: token });
  await deps.email.send({
    to: String(user.email),
    // Strapi names a sender here only when both parts are set (reset-password: either).
    from: t.from.email && t.from.name ? `${t.from.name} <${t.from.email}>` : undefined,
    replyTo: t.response_email || undefined,
    subject: renderTemplate(t.object, { USER: user }), text: message, html: message,
  });
}

export async function forgotPassword(deps: AccountDeps, ctx: RestContext, body: Body): Promise<Reply> {
  const { email } = validate(body, [{ key: 'email', required: true, email: true }], { noUnknown: true, plugin: true });
  const rows = await ctx.db.unsafe<Array<{ id: number; blocked: boolean | null }>>(`select id, blocked from ${UP.users} where email = lower($1) order by id limit 1`, [email]);
  ctx.count(1);
  // Unknown and blocked addresses get the same answer: nobody learns which emails have accounts.
  if (!rows.length || rows[0].blocked) return { status: 200, body: '{"ok":true}' };
  const id = Number(rows[0].id);
  const user = JSON.parse((await userJson(ctx, id)) ?? '{}') as Record<string, unknown>;
  const [templates, advanced] = [await readEmailTemplates(ctx.db), await readAdvanced(ctx.db, deps.config.usersPermissions)];
  ctx.count(3);
  const t = templates.reset_password;
  const token = randomBytes(64).toString('hex');
  const url = absoluteUrl(deps.config);
  const message = renderTemplate(t.message, { URL: advanced.email_reset_password, SERVER_URL: url, ADMIN_URL: `${url}/admin`, USER: user, TOKEN: token });
  // Stored before sending, as Strapi does, so an administrator can still build the link if sending fails.
  await storeToken(ctx, id, 'reset_password_token', { resetPasswordToken: token }, token);
  await deps.email.send({
    to: String(user.email),
    from: t.from.email || t.from.name ? `${t.from.name} <${t.from.email}>` : undefined,
    replyTo: t.response_email || undefined,
    subject: renderTemplate(t.object, { USER: user }), text: message, html: message,
  });
  return { status: 200, body: '{"ok":true}' };
}

export async function resetPassword(ctx: RestContext, body: Body): Promise<Reply> {
  // The plugin's reset-password schema, in its key order.
  const b = validate(body, [
    { key: 'password', required: true, maxBytes72: true },
    { key: 'passwordConfirmation', required: true, sameAs: { key: 'password', message: 'Passwords do not match' } },
    { key: 'code', required: true },
  ], { noUnknown: true, plugin: true });
  const rows = await ctx.db.unsafe<Array<{ id: number }>>(`select id from ${UP.users} where reset_password_token = $1 order by id limit 1`, [b.code]);
  ctx.count(1);
  if (!rows.length) throw invalid('Incorrect code provided');
  const id = Number(rows[0].id);
  // Strapi answers the user as it was read before the update.
  const user = await userJson(ctx, id);
  await setPassword(ctx, id, b.password, true);
  return authReply(ctx, id, user);
}

export async function changePassword(ctx: RestContext, caller: Caller, body: Body): Promise<Reply> {
  if (caller.kind !== 'user' || !caller.userId) throw appError('You must be authenticated to reset your password');
  // The plugin's change-password schema, in its key order (errors: passwordConfirmation, password, currentPassword).
  const b = validate(body, [
    { key: 'password', required: true, maxBytes72: true },
    { key: 'passwordConfirmation', required: true, sameAs: { key: 'password', message: 'Passwords do not match' } },
    { key: 'currentPassword', required: true },
  ], { noUnknown: true, plugin: true });
  const rows = await ctx.db.unsafe<Array<{ password: string | null }>>(`select password from ${UP.users} where id = $1`, [caller.userId]);
  ctx.count(1);
  if (!(await verifyPassword(b.currentPassword, rows[0]?.password ?? null))) throw invalid('The provided current password is invalid');
  if (b.currentPassword === b.password) throw invalid('Your new password must be different than your current password');
  const user = await userJson(ctx, caller.userId);
  await setPassword(ctx, caller.userId, b.password, false);
  return authReply(ctx, caller.userId, user);
}

/** `GET /auth/email-confirmation?confirmation=…`: redirects (REST) or answers `{jwt, user}` (GraphQL). */
export async function emailConfirmation(deps: AccountDeps, ctx: RestContext, confirmation: unknown, returnUser: boolean): Promise<Reply> {
  const { confirmation: token } = validate({ confirmation }, [{ key: 'confirmation', required: true }], { plugin: true });
  const rows = await ctx.db.unsafe<Array<{ id: number }>>(`select id from ${UP.users} where confirmation_token = $1 order by id limit 1`, [token]);
  ctx.count(1);
  if (!rows.length) throw invalid('Invalid token');
  const id = Number(rows[0].id);
  const user = await userJson(ctx, id);
  if (ctx.userDocuments) await editUser(ctx, ctx.userDocuments, id, { confirmed: true, confirmationToken: null });
  else {
    await ctx.db.unsafe(`update ${UP.users} set confirmed = true, confirmation_token = null, updated_at = ${NOW}, published_at = ${NOW} where id = $1`, [id]);
    ctx.count(2);
    userWritten(ctx, 'entry.update', id);
  }
  if (returnUser) return authReply(ctx, id, user);
  const target = (await readAdvanced(ctx.db, deps.config.usersPermissions)).email_confirmation_redirection || '/';
  ctx.count(1);
  return { status: 302, body: `Redirecting to ${target}.`, contentType: 'text/plain; charset=utf-8', headers: [['location', target]] };
}

export async function sendEmailConfirmation(deps: AccountDeps, ctx: RestContext, body: Body): Promise<Reply> {
  const { email } = validate(body, [{ key: 'email', required: true, email: true }], { plugin: true });
  const rows = await ctx.db.unsafe<Array<{ id: number; email: string; confirmed: boolean | null; blocked: boolean | null }>>(
    `select id, email, confirmed, blocked from ${UP.users} where email = lower($1) order by id limit 1`, [email]);
  ctx.count(1);
  if (!rows.length) return { status: 200, body: JSON.stringify({ email, sent: true }) };
  if (rows[0].confirmed) throw appError('Already confirmed');
  if (rows[0].blocked) throw appError('User blocked');
  await sendConfirmationEmail(deps, ctx, Number(rows[0].id));
  return { status: 200, body: JSON.stringify({ email: rows[0].email, sent: true }) };
}
