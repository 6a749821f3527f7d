// Request bodies checked the way Strapi's users-permissions checks them (yup, strict, every error at
// once), so messages and `details.errors` match: "email is a required field", "2 errors occurred", …
import { fieldErrors, type FieldError } from '../../compiler/errors.ts';

export type Body = Record<string, unknown>;

export interface FieldRule {
  key: string;
  required?: boolean;
  email?: boolean;
  /** bcrypt reads 72 bytes: Strapi refuses longer passwords. */
  maxBytes72?: boolean;
  /** Must equal another field (yup's oneOf([ref])) — the message to give when not. */
  sameAs?: { key: string; message: string };
  minLength?: number;
  maxLength?: number;
}

// yup 0.32's email expression (Strapi's), shortened to its ASCII core plus the Unicode ranges it allows.
const U = '\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF';
const EMAIL = new RegExp(`^(([a-z\\d!#$%&'*+\\-/=?^_\`{|}~${U}]+(\\.[a-z\\d!#$%&'*+\\-/=?^_\`{|}~${U}]+)*)|("[^"\\\\]*"))@(([a-z\\d${U}]|[a-z\\d${U}][a-z\\d\\-._~${U}]*[a-z\\d${U}])\\.)+([a-z${U}]|[a-z${U}][a-z\\d\\-._~${U}]*[a-z${U}])$`, 'i');
export const isEmail = (s: string) => EMAIL.test(s);

function printValue(v: unknown): string {
  if (v === null || v === undefined || typeof v === 'boolean' || typeof v === 'number') return String(v);
  if (typeof v === 'string') return `"${v}"`;
  return JSON.stringify(v);
}

/**
 * One field of a users-permissions body schema (`opts.plugin`), as yup 0.32 checks its strings: not nullable
 * (null is the type error), the type check and a oneOf first, ending the field's checks when they fail; then
 * its tests in the order the plugin's schemas add them — email (which skips ''), min, required ('' is
 * absent to it) —, every failing one reported (checked live: `""` for POST /api/users' password is its min
 * and its required error).
 */
function pluginField(r: FieldRule, v: unknown, b: Body, issue: (r: FieldRule, message: string) => void): void {
  // The initial tests, each reported: the type (undefined passes it) and a oneOf (undefined passes it too).
  const typeFails = v !== undefined && typeof v !== 'string';
  const oneOfFails = r.sameAs !== undefined && v !== undefined && v !== b[r.sameAs.key];
  if (typeFails) issue(r, `${r.key} must be a \`string\` type, but the final value was: \`${printValue(v)}\`.`);
  if (oneOfFails) issue(r, r.sameAs!.message);
  if (typeFails || oneOfFails) return;
  if (v === undefined) { if (r.required) issue(r, `${r.key} is a required field`); return; }
  if (typeof v !== 'string') return;
  if (r.email && v !== '' && !isEmail(v)) issue(r, `${r.key} must be a valid email`);
  if (r.minLength !== undefined && v.length < r.minLength) issue(r, `${r.key} must be at least ${r.minLength} characters`);
  if (r.required && v === '') issue(r, `${r.key} is a required field`);
  if (r.maxBytes72 && Buffer.byteLength(v, 'utf8') > 72) issue(r, 'Password must be less than 73 bytes');
}

/** A JSON object body, or Strapi's 400 for anything else. */
export function objectBody(v: unknown): Body {
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as Body;
  throw fieldErrors([{ path: [], message: `this must be a \`object\` type, but the final value was: \`${printValue(v)}\`.`, name: 'ValidationError', value: v }]);
}

/**
 * Checks a body as a yup object schema of Strapi's does (strict, every error at once), with the rules in
 * the schema's key order. yup validates the fields in reverse key order (its sortFields: toposort,
 * reversed) and then sorts their errors by the index of the first key contained in the error's path —
 * a substring test, so `passwordConfirmation` sorts with `password` — keeping completion order among
 * equals; the object's own errors (`noUnknown`) come after. `extra` are errors of fields checked
 * elsewhere (the user's role), placed as theirs. Every error echoes the value it was given (yup's
 * `value`), passwords too. `plugin`: one of the plugin's own body schemas, whose strings yup reads not
 * nullable (pluginField); without it, the entity validator's nullable ones. Returns the body's strings, typed.
 */
export function validate<K extends string>(b: Body, rules: Array<FieldRule & { key: K }>, opts: { noUnknown?: boolean; keys?: string[]; extra?: FieldError[]; plugin?: boolean } = {}): Record<K, string> {
  const keys = opts.keys ?? rules.map((r) => r.key);
  const byKey = new Map<string, FieldError[]>();
  const add = (key: string, i: FieldError) => { const list = byKey.get(key); if (list) list.push(i); else byKey.set(key, [i]); };
  const issue = (r: FieldRule, message: string) => add(r.key, { path: [r.key], message, name: 'ValidationError', ...(b[r.key] !== undefined ? { value: b[r.key] } : {}) });
  for (const r of rules) {
    const v = b[r.key];
    if (opts.plugin) { pluginField(r, v, b, issue); continue; }
    if (v !== undefined && v !== null && typeof v !== 'string') { issue(r, `${r.key} must be a \`string\` type, but the final value was: \`${printValue(v)}\`.`); continue; }
    if (v === undefined || v === null || v === '') { if (r.required) issue(r, `${r.key} is a required field`); continue; }
    // The entity validator's order: minLength, maxLength, then an email's format.
    if (r.minLength !== undefined && v.length < r.minLength) issue(r, `${r.key} must be at least ${r.minLength} characters`);
    if (r.maxLength !== undefined && v.length > r.maxLength) issue(r, `${r.key} must be at most ${r.maxLength} characters`);
    if (r.email && !isEmail(v)) issue(r, `${r.key} must be a valid email`);
    if (r.maxBytes72 && Buffer.byteLength(v, 'utf8') > 72) issue(r, 'Password must be less than 73 bytes');
    if (r.sameAs && v !== b[r.sameAs.key]) issue(r, r.sameAs.message);
  }
  for (const i of opts.extra ?? []) add(String(i.path[0] ?? ''), i);
  const done = [...keys].reverse().flatMap((k) => byKey.get(k) ?? []);
  const rank = (i: FieldError) => { const p = i.path.join('.'); const at = keys.findIndex((k) => p.includes(k)); return at === -1 ? keys.length : at; };
  const issues = done.map((i, n) => ({ i, n, r: rank(i) })).sort((x, y) => x.r - y.r || x.n - y.n).map((x) => x.i);
  if (opts.noUnknown) {
    const known = new Set<string>(keys);
    const unknown = Object.keys(b).filter((k) => !known.has(k));
    if (unknown.length) issues.push({ path: [], message: `this field has unspecified keys: ${unknown.join(', ')}`, name: 'ValidationError', value: b });
  }
  if (issues.length) throw fieldErrors(issues);
  return b as Record<K, string>;
}
