// users-permissions settings as Strapi reads them: the `advanced` and `email` rows of its core store
// (edited in Strapi's admin), Strapi's bootstrap defaults when a row is missing (a database this server
// created), and this server's configuration over both where a key is set.
import type { Sql } from 'postgres';
import type { Config } from '../../config.ts';
import { CORE_STORE } from '../auth/tables.ts';

export interface Advanced {
  unique_email: boolean;
  allow_register: boolean;
  email_confirmation: boolean;
  email_reset_password: string | null;
  email_confirmation_redirection: string | null;
  default_role: string;
}

export const ADVANCED_DEFAULTS: Advanced = {
  unique_email: true, allow_register: true, email_confirmation: false,
  email_reset_password: null, email_confirmation_redirection: null, default_role: 'authenticated',
};

export interface EmailTemplate { from: { name: string; email: string }; response_email: string; object: string; message: string }
export interface EmailTemplates { reset_password: EmailTemplate; email_confirmation: EmailTemplate }

const FROM = { name: 'Administration Panel', email: 'no-reply@strapi.io' };
/** Strapi 5.54's initEmails(), word for word. */
export const EMAIL_DEFAULTS: EmailTemplates = {
  reset_password: {
    from: FROM, response_email: '', object: 'Reset password',
    message: `<p>We heard that you lost your password. Sorry about that!</p>

<p>But don’t worry! You can use the following link to reset your password:</p>
<p><%= URL %>?code=<%= TOKEN %></p>

<p>Thanks.</p>`,
  },
  email_confirmation: {
    from: FROM, response_email: '', object: 'Account confirmation',
    message: `<p>Thank you for registering!</p>

<p>You have to confirm your email address. Please click on the link below.</p>

<p><%= URL %>?confirmation=<%= CODE %></p>

<p>Thanks.</p>`,
  },
};

type Row = Record<string, unknown>;
const isRow = (v: unknown): v is Row => !!v && typeof v === 'object' && !Array.isArray(v);

async function storeValue(db: Sql, key: string): Promise<Row | null> {
  const rows = await db.unsafe<Array<{ value: string | null }>>(`select value from ${CORE_STORE.table} where key = $1 order by id limit 1`, [key], { prepare: true });
  if (!rows[0]?.value) return null;
  try {
    const v: unknown = JSON.parse(rows[0].value);
    return isRow(v) ? v : null;
  } catch {
    return null; // unreadable: Strapi's defaults
  }
}

const pick = <T>(v: unknown, ok: (x: unknown) => boolean, fallback: T): T => (ok(v) ? v as T : fallback);
const isBool = (x: unknown) => typeof x === 'boolean';
const isStrOrNull = (x: unknown) => x === null || typeof x === 'string';

export async function readAdvanced(db: Sql, config: Config['usersPermissions']): Promise<Advanced> {
  const s = (await storeValue(db, CORE_STORE.usersPermissionsAdvanced)) ?? {};
  const d = ADVANCED_DEFAULTS;
  return {
    unique_email: config.uniqueEmail ?? pick(s.unique_email, isBool, d.unique_email),
    allow_register: config.allowRegister ?? pick(s.allow_register, isBool, d.allow_register),
    email_confirmation: config.emailConfirmation ?? pick(s.email_confirmation, isBool, d.email_confirmation),
    email_reset_password: config.emailResetPassword ?? pick(s.email_reset_password, isStrOrNull, d.email_reset_password),
    email_confirmation_redirection: config.emailConfirmationRedirection ?? pick(s.email_confirmation_redirection, isStrOrNull, d.email_confirmation_redirection),
    default_role: config.defaultRole ?? pick(s.default_role, (x) => typeof x === 'string' && x !== '', d.default_role),
  };
}

function template(stored: unknown, fallback: EmailTemplate): EmailTemplate {
  const o = isRow(stored) && isRow(stored.options) ? stored.options : null;
  if (!o) return fallback;
  const from = isRow(o.from) ? o.from : {};
  return {
    from: { name: typeof from.name === 'string' ? from.name : '', email: typeof from.email === 'string' ? from.email : '' },
    response_email: typeof o.response_email === 'string' ? o.response_email : '',
    object: typeof o.object === 'string' ? o.object : fallback.object,
    message: typeof o.message === 'string' ? o.message : fallback.message,
  };
}

export async function readEmailTemplates(db: Sql): Promise<EmailTemplates> {
  const s = await storeValue(db, CORE_STORE.usersPermissionsEmail);
  return {
    reset_password: template(s?.reset_password, EMAIL_DEFAULTS.reset_password),
    email_confirmation: template(s?.email_confirmation, EMAIL_DEFAULTS.email_confirmation),
  };
}

/** The providers a user may sign in with, as Strapi's admin stored them (Strapi's bootstrap enables `email` alone). */
export async function enabledProviders(db: Sql): Promise<Set<string>> {
  const s = await storeValue(db, CORE_STORE.usersPermissionsGrant);
  if (!s) return new Set(['email']);
  return new Set(Object.entries(s).filter(([, v]) => isRow(v) && v.enabled === true).map(([k]) => k));
}
