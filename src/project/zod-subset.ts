// The `z` a project's Content API params are written with (`schema: (z) => z.string().max(10)`, or
// `require('@strapi/utils').z`) when the project has no Zod of its own installed: the part of Zod 4 those
// params use (scalars, enums, literals, arrays, objects; optional, nullable, default; coerce) with Zod 4's
// issues and messages, which Strapi 5.54 sends as its error message (recorded: test/fixtures/zod). Anything
// else names itself when the project's code calls it. With Zod installed, the project's own is used
// (src/project/content-api-params.ts), and its schemas run as they are.

/** One Zod issue, its keys in Zod's order (the message is their JSON). */
type Issue = Record<string, unknown> & { path: Array<string | number> };
type Result = { success: true; data: unknown } | { success: false; error: ZodSubsetError };
/** A check's or schema's own message: a string, or `{ error }` (a string or a function of the issue) / `{ message }`. */
type Message = string | { message?: string; error?: string | ((issue: Issue) => unknown) } | undefined;

export class ZodSubsetError extends Error {
  constructor(readonly issues: Issue[]) {
    super(JSON.stringify(issues, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2));
    this.name = 'ZodError';
  }
}

/** Zod's name for a value's type in "received …". */
function received(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isNaN(v) ? 'NaN' : 'number';
  if (v instanceof Date) return 'date';
  return typeof v;
}

// Zod quotes a string as is (no escaping) and marks a bigint.
const shown = (v: unknown) => (typeof v === 'string' ? `"${v}"` : typeof v === 'bigint' ? `${v}n` : String(v));

/** What one parse step found: issues at `path`, and whether later checks still run. */
interface Ctx { issues: Issue[]; path: Array<string | number> }

type Check = (v: unknown, c: Ctx) => { value?: unknown; abort?: boolean } | void;

function issue(c: Ctx, fields: Record<string, unknown>, message: string, own?: Message): void {
  const found: Issue = { ...fields, path: [...c.path], message };
  const given = typeof own === 'string' ? own : typeof own?.error === 'function' ? own.error(found) : own?.error ?? own?.message;
  const text = typeof given === 'string' ? given : (given as { message?: unknown } | undefined)?.message;
  if (typeof text === 'string') found.message = text;
  c.issues.push(found);
}

const UNSUPPORTED = new Set(['then', 'toJSON', 'constructor', '$$typeof', 'asymmetricMatch', 'nodeType']);

/** A schema: Zod's `_zod.def` (Strapi's registration checks read its type), safeParse/parse, and the builders. */
export class Schema {
  readonly _zod: { def: Record<string, unknown> };
  constructor(def: Record<string, unknown>, private readonly run: (v: unknown, c: Ctx) => unknown, readonly checks: Check[] = []) {
    this._zod = { def };
    // A builder this subset lacks names itself when called (never a silent undefined).
    return new Proxy(this, {
      get(target, prop, receiver) {
        if (typeof prop === 'symbol' || prop in target || UNSUPPORTED.has(prop)) return Reflect.get(target, prop, receiver);
        return () => { throw new TypeError(`z.${String(def.type)}().${prop}() is not supported by this server's Zod subset: install zod in the project to use it`); };
      },
    });
  }

  /** Runs the schema at `c.path`: the value it gives (issues pushed on c). */
  _parse(v: unknown, c: Ctx): unknown { return this.run(v, c); }

  safeParse(v: unknown): Result {
    const c: Ctx = { issues: [], path: [] };
    const data = this._parse(v, c);
    return c.issues.length ? { success: false, error: new ZodSubsetError(c.issues) } : { success: true, data };
  }

  parse(v: unknown): unknown {
    const r = this.safeParse(v);
    if (!r.success) throw r.error;
    return r.data;
  }

  // An optional default still gives its default (Zod's).
  optional(): Schema { return new Schema({ type: 'optional', innerType: this }, (v, c) => (v === undefined && this._zod.def.type !== 'default' ? undefined : this._parse(v, c))); }
  nullable(): Schema { return new Schema({ type: 'nullable', innerType: this }, (v, c) => (v === null ? null : this._parse(v, c))); }
  default(d: unknown): Schema {
    return new Schema({ type: 'default', innerType: this, defaultValue: d }, (v, c) => (v === undefined ? fresh(typeof d === 'function' ? (d as () => unknown)() : d) : this._parse(v, c)));
  }
  describe(): Schema { return this; }
}

/** A default's value, a copy of a list or an object each time (Zod's shallow clone). */
const fresh = (d: unknown): unknown => (Array.isArray(d) ? [...d] : d && typeof d === 'object' ? { ...d } : d);

/** A scalar schema: its type test, then its checks in order (an aborting one stops the rest). */
function scalar(type: string, coerce: ((v: unknown) => unknown) | null, test: (v: unknown, c: Ctx) => boolean, checks: Check[]): Schema {
  return new Schema({ type, ...(coerce ? { coerce: true } : {}) }, (v, c) => {
    if (coerce) v = coerce(v);
    if (!test(v, c)) {
      // Zod still runs its length checks on anything with a length (an array given for a string).
      if (typeof v === 'string' || Array.isArray(v)) for (const check of checks) if (SIZED.has(check)) check(v, c);
      return v;
    }
    for (const check of checks) {
      const r = check(v, c);
      if (r && 'value' in r) v = r.value;
      if (r?.abort) break;
    }
    return v;
  }, checks);
}

/** The schema's type test (`own`: the schema's own message, `z.string({ error })`). */
function typeTest(expected: string, ok: (v: unknown) => boolean, own?: Message): (v: unknown, c: Ctx) => boolean {
  return (v, c) => {
    if (ok(v)) return true;
    issue(c, { expected, code: 'invalid_type' }, `Invalid input: expected ${expected}, received ${received(v)}`, own);
    return false;
  };
}

/** Length checks: they run on a value of another type too, when it has a length (Zod's `when`). */
const SIZED = new WeakSet<Check>();

/** A length bound, named by the value's own kind: a string's 'characters', an array's 'items'. */
function sized(bound: 'min' | 'max', n: number, m: Message, exact = false): Check {
  const check: Check = (v, c) => {
    const len = (v as string | unknown[]).length;
    if (bound === 'max' ? len <= n : len >= n) return;
    const origin = typeof v === 'string' ? 'string' : 'array';
    const [code, key, op] = bound === 'max' ? ['too_big', 'maximum', '<='] : ['too_small', 'minimum', '>='];
    issue(c, { origin, code, [key]: n, inclusive: true, ...(exact ? { exact: true } : {}) }, `Too ${bound === 'max' ? 'big' : 'small'}: expected ${origin} to have ${op}${n} ${origin === 'string' ? 'characters' : 'items'}`, m);
  };
  SIZED.add(check);
  return check;
}

/** An exact length: too long or too short, by the value's kind. */
function exactly(n: number, m: Message): Check {
  const over = sized('max', n, m, true);
  const under = sized('min', n, m, true);
  const check: Check = (v, c) => { const len = (v as string | unknown[]).length; if (len > n) over(v, c); else if (len < n) under(v, c); };
  SIZED.add(check);
  return check;
}

class StringSchema {
  constructor(private coerce: boolean, private checks: Check[], private own: Message) {}
  private add(check: Check): StringSchema & Schema { return stringSchema(this.coerce, [...this.checks, check], this.own); }
  min(n: number, m?: Message) { return this.add(sized('min', n, m)); }
  max(n: number, m?: Message) { return this.add(sized('max', n, m)); }
  length(n: number, m?: Message) { return this.add(exactly(n, m)); }
  regex(re: RegExp, m?: Message) { return this.add(format('regex', { pattern: String(re) }, (s) => { re.lastIndex = 0; return re.test(s); }, `Invalid string: must match pattern ${String(re)}`, m)); }
  email(m?: Message) { return this.add(format('email', { pattern: String(EMAIL) }, (s) => EMAIL.test(s), 'Invalid email address', m)); }
  uuid(m?: Message) { return this.add(format('uuid', { pattern: String(UUID) }, (s) => UUID.test(s), 'Invalid UUID', m)); }
  startsWith(p: string, m?: Message) { return this.add(format('starts_with', { prefix: p }, (s) => s.startsWith(p), `Invalid string: must start with ${JSON.stringify(p)}`, m)); }
  endsWith(p: string, m?: Message) { return this.add(format('ends_with', { suffix: p }, (s) => s.endsWith(p), `Invalid string: must end with ${JSON.stringify(p)}`, m)); }
  trim() { return this.add((v) => ({ value: (v as string).trim() })); }
  toLowerCase() { return this.add((v) => ({ value: (v as string).toLowerCase() })); }
  toUpperCase() { return this.add((v) => ({ value: (v as string).toUpperCase() })); }
  nonempty(m?: Message) { return this.min(1, m); }
}

// Zod 4's own patterns (the recorded messages print them).
const EMAIL = /^(?!\.)(?!.*\.\.)([A-Za-z0-9_'+\-\.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$/;
const UUID = /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/;

function format(name: string, fields: Record<string, unknown>, ok: (s: string) => boolean, message: string, m: Message): Check {
  return (v, c) => { if (!ok(v as string)) issue(c, { origin: 'string', code: 'invalid_format', format: name, ...fields }, message, m); };
}

/** The builder classes' own helpers, not Zod's methods. */
const HELPERS = new Set(['add', 'bound']);

/** Builders as methods of the schema object itself (z.string().max(3) is a schema with .optional() too). */
function withBuilders<B extends object>(schema: Schema, builders: B): Schema & B {
  for (const k of Object.getOwnPropertyNames(Object.getPrototypeOf(builders))) {
    if (k !== 'constructor' && !HELPERS.has(k)) Object.defineProperty(schema, k, { value: (builders as Record<string, (...a: unknown[]) => unknown>)[k].bind(builders) });
  }
  return schema as Schema & B;
}

function stringSchema(coerce: boolean, checks: Check[] = [], own?: Message): StringSchema & Schema {
  const s = scalar('string', coerce ? (v) => String(v) : null, typeTest('string', (v) => typeof v === 'string', own), checks);
  return withBuilders(s, new StringSchema(coerce, checks, own));
}

class NumberSchema {
  constructor(private coerce: boolean, private checks: Check[], private own: Message) {}
  private add(check: Check): NumberSchema & Schema { return numberSchema(this.coerce, [...this.checks, check], this.own); }
  private bound(kind: 'min' | 'max', n: number, inclusive: boolean, m?: Message) {
    return this.add((v, c) => {
      const x = v as number;
      const ok = kind === 'min' ? (inclusive ? x >= n : x > n) : (inclusive ? x <= n : x < n);
      if (ok) return;
      const op = (kind === 'min' ? '>' : '<') + (inclusive ? '=' : '');
      issue(c, { origin: 'number', code: kind === 'min' ? 'too_small' : 'too_big', [kind === 'min' ? 'minimum' : 'maximum']: n, inclusive }, `Too ${kind === 'min' ? 'small' : 'big'}: expected number to be ${op}${n}`, m);
    });
  }
  min(n: number, m?: Message) { return this.bound('min', n, true, m); }
  gte(n: number, m?: Message) { return this.bound('min', n, true, m); }
  gt(n: number, m?: Message) { return this.bound('min', n, false, m); }
  max(n: number, m?: Message) { return this.bound('max', n, true, m); }
  lte(n: number, m?: Message) { return this.bound('max', n, true, m); }
  lt(n: number, m?: Message) { return this.bound('max', n, false, m); }
  positive(m?: Message) { return this.bound('min', 0, false, m); }
  nonnegative(m?: Message) { return this.bound('min', 0, true, m); }
  negative(m?: Message) { return this.bound('max', 0, false, m); }
  nonpositive(m?: Message) { return this.bound('max', 0, true, m); }
  /** An integer in the safe range: a failure stops the checks after it (Zod's abort). */
  int(m?: Message) {
    return this.add((v, c) => {
      const x = v as number;
      if (!Number.isInteger(x)) { issue(c, { expected: 'int', format: 'safeint', code: 'invalid_type' }, 'Invalid input: expected int, received number', m); return { abort: true }; }
      const limit = Number.MAX_SAFE_INTEGER;
      if (Math.abs(x) <= limit) return;
      const big = x > 0;
      issue(c, { code: big ? 'too_big' : 'too_small', [big ? 'maximum' : 'minimum']: big ? limit : -limit, note: 'Integers must be within the safe integer range.', origin: 'int', inclusive: true },
        `Too ${big ? 'big' : 'small'}: expected int to be ${big ? '<=' : '>='}${big ? limit : -limit}`, m);
      return { abort: true };
    });
  }
}

function numberSchema(coerce: boolean, checks: Check[] = [], own?: Message): NumberSchema & Schema {
  const test = (v: unknown, c: Ctx): boolean => {
    if (typeof v === 'number' && Number.isFinite(v)) return true;
    const special = typeof v === 'number' ? (Number.isNaN(v) ? 'NaN' : 'Infinity') : null;
    issue(c, { expected: 'number', code: 'invalid_type', ...(special ? { received: special } : {}) }, `Invalid input: expected number, received ${received(v)}`, own);
    return false;
  };
  return withBuilders(scalar('number', coerce ? (v) => Number(v) : null, test, checks), new NumberSchema(coerce, checks, own));
}

function valueIssue(values: unknown[], own?: Message): (v: unknown, c: Ctx) => boolean {
  return (v, c) => {
    if (values.includes(v)) return true;
    issue(c, { code: 'invalid_value', values }, values.length === 1 ? `Invalid input: expected ${shown(values[0])}` : `Invalid option: expected one of ${values.map(shown).join('|')}`, own);
    return false;
  };
}

class ArraySchema {
  constructor(private element: Schema, private checks: Check[], private own: Message) {}
  private add(check: Check): ArraySchema & Schema { return arraySchema(this.element, [...this.checks, check], this.own); }
  min(n: number, m?: Message) { return this.add(sized('min', n, m)); }
  max(n: number, m?: Message) { return this.add(sized('max', n, m)); }
  nonempty(m?: Message) { return this.min(1, m); }
  length(n: number, m?: Message) { return this.add(exactly(n, m)); }
}

function arraySchema(element: Schema, checks: Check[] = [], own?: Message): ArraySchema & Schema {
  const s = new Schema({ type: 'array', element }, (v, c) => {
    if (!typeTest('array', Array.isArray, own)(v, c)) {
      // A string given for a list: its length is still checked (Zod's `when`).
      if (typeof v === 'string') for (const check of checks) if (SIZED.has(check)) check(v, c);
      return v;
    }
    const out = (v as unknown[]).map((x, i) => element._parse(x, { issues: c.issues, path: [...c.path, i] }));
    for (const check of checks) check(out, c);
    return out;
  }, checks);
  return withBuilders(s, new ArraySchema(element, checks, own));
}

function objectSchema(shape: Record<string, Schema>, own?: Message): Schema {
  return new Schema({ type: 'object', shape }, (v, c) => {
    if (!typeTest('object', (x) => typeof x === 'object' && x !== null && !Array.isArray(x), own)(v, c)) return v;
    const input = v as Record<string, unknown>;
    // Unknown keys are left out (Zod's default, "strip"); an optional key given nothing stays absent.
    const out: Record<string, unknown> = {};
    for (const [k, s] of Object.entries(shape)) {
      const x = s._parse(input[k], { issues: c.issues, path: [...c.path, k] });
      if (x !== undefined || k in input) out[k] = x;
    }
    return out;
  });
}

const zBase = (coerce: boolean) => ({
  string: (own?: Message) => stringSchema(coerce, [], own),
  number: (own?: Message) => numberSchema(coerce, [], own),
  boolean: (own?: Message) => scalar('boolean', coerce ? (v) => Boolean(v) : null, typeTest('boolean', (v) => typeof v === 'boolean', own), []),
});

/** The `z` handed to a project's `schema: (z) => …` when it has no Zod of its own. */
export const z: Record<string, unknown> = new Proxy({
  ...zBase(false),
  coerce: zBase(true),
  // A list of values, or an object whose values they are (a TypeScript enum's form).
  enum: (given: readonly string[] | Record<string, string>, own?: Message) => {
    const values = Array.isArray(given) ? [...given] : Object.values(given);
    return new Schema({ type: 'enum', entries: Object.fromEntries(values.map((x) => [x, x])) }, (v, c) => (valueIssue(values, own)(v, c), v));
  },
  literal: (value: unknown, own?: Message) => new Schema({ type: 'literal', values: [value] }, (v, c) => (valueIssue([value], own)(v, c), v)),
  array: (element: Schema, own?: Message) => arraySchema(element, [], own),
  object: (shape: Record<string, Schema>, own?: Message) => objectSchema(shape, own),
}, {
  get(target, prop, receiver) {
    if (typeof prop === 'symbol' || prop in target || UNSUPPORTED.has(prop) || prop === '__esModule' || prop === 'default') return Reflect.get(target, prop, receiver);
    throw new TypeError(`z.${prop} is not supported by this server's Zod subset: install zod in the project to use it`);
  },
});
