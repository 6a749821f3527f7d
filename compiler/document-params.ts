// Strapi 5.54's `api.documents.strictParams`: its document service refuses a status, locale or pagination
// value it cannot use, after the query's own checks and before reading or writing. Every caller of the
// document service meets it: REST routes (whose pagination Strapi's core service has already made numbers,
// so only status and locale can fail there) and project code (`strapi.documents(uid).findMany({ … })`).
// Without the setting these values pass (anything but `published` reads drafts).
import { validation } from './errors.ts';

/** The document-service parameters the setting checks, as the caller gave them. */
export interface DocumentParams { status?: unknown; locale?: unknown; page?: unknown; pageSize?: unknown; start?: unknown; limit?: unknown; withCount?: unknown }

// BCP 47-like, as Strapi's: a 2-3 letter language, then subtags; at most 35 characters.
const LOCALE_FORMAT = /^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/;
const MAX_LOCALE_LENGTH = 35;

/** Strapi's "not given": null, undefined or ''. */
const empty = (v: unknown) => v === undefined || v === null || v === '';

function checkStatus(status: unknown): void {
  if (empty(status) || status === 'published' || status === 'draft') return;
  throw validation(`Invalid parameter at 'status'. Expected 'published' or 'draft', received: ${String(status)}`);
}

function checkOneLocale(value: unknown, path: string): void {
  if (typeof value !== 'string') throw validation(`Invalid parameter at '${path}'. Expected a string, received: ${typeof value}`, { received: value });
  if (value === '*') return;
  const reason = value.length === 0 ? 'Locale cannot be empty'
    : value.length > MAX_LOCALE_LENGTH ? `Locale exceeds maximum length of ${MAX_LOCALE_LENGTH} characters`
      : !LOCALE_FORMAT.test(value) ? 'Locale must be a valid BCP 47 format (e.g. en, en-US, zh-Hans)' : null;
  if (reason) throw validation(`Invalid parameter at '${path}'. ${reason}.`);
}

function checkLocale(locale: unknown): void {
  if (empty(locale)) return;
  if (Array.isArray(locale)) {
    // Strapi keeps the non-empty strings of a list and checks each at its index in what is kept.
    locale.filter((l) => typeof l === 'string' && l !== '').forEach((l, i) => checkOneLocale(l, `locale[${i}]`));
    return;
  }
  if (typeof locale === 'object') {
    throw validation("Invalid parameter at 'locale'. Expected a string, array of strings, empty string, null, or undefined; received: object", { received: locale });
  }
  checkOneLocale(locale, 'locale');
}

function checkInt(name: string, value: unknown, min: number, minusOne = false): void {
  if (empty(value)) return;
  const n = Number(value);
  if (Number.isInteger(n) && (n >= min || (minusOne && n === -1))) return;
  throw validation(`Invalid parameter at '${name}'. Expected ${minusOne ? `integer >= ${min} or -1` : `integer >= ${min}`}, received: ${String(value)}`);
}

function checkPagination(p: DocumentParams): void {
  if ((!empty(p.page) || !empty(p.pageSize)) && (!empty(p.start) || !empty(p.limit))) {
    throw validation('Invalid pagination parameters. Cannot use both page-based (page, pageSize) and offset-based (start, limit) pagination in the same query.');
  }
  checkInt('page', p.page, 1);
  checkInt('pageSize', p.pageSize, 1);
  checkInt('start', p.start, 0);
  checkInt('limit', p.limit, 1, true);
  const w = p.withCount;
  if (!empty(w) && typeof w !== 'boolean' && w !== 'true' && w !== 'false') {
    throw validation(`Invalid parameter at 'withCount'. Expected a boolean, received: ${typeof w}`);
  }
}

/** Throws Strapi's ValidationError for the first value `api.documents.strictParams` refuses, in its order. */
export function checkStrictDocumentParams(p: DocumentParams): void {
  checkStatus(p.status);
  checkLocale(p.locale);
  checkPagination(p);
}
