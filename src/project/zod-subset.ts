// The `z` a project's Content API params are written with (`schema: (z) => z.string().max(10)`, or
// `require('@strapi/utils').z`) when the project has no Zod of its own installed: the part of Zod 4 those
// params use (scalars, enums, literals, arrays, objects; optional, nullable, default; coerce) with Zod 4's
// issues and messages, which Strapi 5.54 sends as its error message (recorded: test/fixtures/zod). Anything
// else names itself when the project's code calls it. With Zod installed, the project's own is used
// (src/project/content-api-params.ts), and its schemas run as they are.

/** One Zod issue, its keys in Zod's order (the message is their JSON). */
type Issue = Record<string, unknown> & { path: Array<string | number> };
type Result = { success: true; data: unknown } | { success: false; error: ZodSubsetError };
type Message = string | { message?: string } | undefined;

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

const shown = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : String(v));
const custom = (m: Message): string | undefined => (typeof m === 'string' ? m : m?.message);

/** What one parse step found: issues at `path`, and whether later checks still run. */
interface Ctx { issues: Issue[]; path: Array<string | number> }

type Check = (v: unknown, c: Ctx) => { value?: unknown; abort?: boolean } | void;

function issue(c: Ctx, fields: Record<string, unknown>, message: string, own?: string): void {
  c.issues.push({ ...fields, path: [...c.path], message: own ?? message });
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

  optional(): Schema { return new Schema({ type: 'optional', innerType: this }, (v, c) => (v === undefined ? undefined : this._parse(v, c))); }
  nullable(): Schema { return new Schema({ type: 'nullable', innerType: this }, (v, c) => (v === null ? null : this._parse(v, c))); }
  default(d: unknown): Schema {
    return new Schema({ type: 'default', innerType: this, defaultValue: d }, (v, c) => (v === undefined ? (typeof d === 'function' ? (d as () => unknown)() : d) : this._parse(v, c)));
  }
  describe(): Schema { return this; }
}

/** A scalar schema: its type test, then its checks in order (an aborting one stops the rest). */
function scalar(type: string, coerce: ((v: unknown) => unknown) | null, test: (v: unknown, c: Ctx) => boolean, checks: Check[]): Schema {
  return new Schema({ type, ...(coerce ? { coerce: true } : {}) }, (v, c) => {
    if (coerce) v = coerce(v);
    if (!test(v, c)) return v;
    for (const check of checks) {
      const r = check(v, c);
      if (r && 'value' in r) v = r.value;
      if (r?.abort) break;
    }
    return v;
  }, checks);
}

function typeTest(expected: string, ok: (v: unknown) => boolean): (v: unknown, c: Ctx) => boolean {
  return (v, c) => {
    if (ok(v)) return true;
    issue(c, { expected, code: 'invalid_type' }, `Invalid input: expected ${expected}, received ${received(v)}`);
    return false;
  };
}

/** A length bound on a string ('characters') or an array ('items'). */
function sized(origin: 'string' | 'array', unit: string, bound: 'min' | 'max', n: number, m: Message, exact = false): Check {
  return (v, c) => {
    const len = (v as string | unknown[]).length;
    if (bound === 'max' ? len <= n : len >= n) return;
    const [code, key, op] = bound === 'max' ? ['too_big', 'maximum', '<='] : ['too_small', 'minimum', '>='];
    issue(c, { origin, code, [key]: n, inclusive: true, ...(exact ? { exact: true } : {}) }, `Too ${bound === 'max' ? 'big' : 'small'}: expected ${origin} to have ${op}${n} ${unit}`, custom(m));
  };
}

class StringSchema {
  constructor(private coerce: boolean, private checks: Check[] = []) {}
  private add(check: Check): StringSchema & Schema { return stringSchema(this.coerce, [...this.checks, check]); }
  min(n: number, m?: Message) { return this.add(sized('string', 'characters', 'min', n, m)); }
  max(n: number, m?: Message) { return this.add(sized('string', 'characters', 'max', n, m)); }
  length(n: number, m?: Message) {
    return this.add((v, c) => {
      const len = (v as string).length;
      if (len > n) sized('string', 'characters', 'max', n, m, true)(v, c);
      else if (len < n) sized('string', 'characters', 'min', n, m, true)(v, c);
    });
  }
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
  return (v, c) => { if (!ok(v as string)) issue(c, { origin: 'string', code: 'invalid_format', format: name, ...fields }, message, custom(m)); };
}

/** Builders as methods of the schema object itself (z.string().max(3) is a schema with .optional() too). */
function withBuilders<B extends object>(schema: Schema, builders: B): Schema & B {
  for (const k of Object.getOwnPropertyNames(Object.getPrototypeOf(builders))) {
    if (k !== 'constructor') Object.defineProperty(schema, k, { value: (builders as Record<string, (...a: unknown[]) => unknown>)[k].bind(builders) });
  }
  return schema as Schema & B;
}

function stringSchema(coerce: boolean, checks: Check[] = []): StringSchema & Schema {
  const s = scalar('string', coerce ? (v) => String(v) : null, typeTest('string', (v) => typeof v === 'string'), checks);
  return withBuilders(s, new StringSchema(coerce, checks));
}

class NumberSchema {
  constructor(private coerce: boolean, private checks: Check[] = []) {}
  private add(check: Check): NumberSchema & Schema { return numberSchema(this.coerce, [...this.checks, check]); }
  private bound(kind: 'min' | 'max', n: number, inclusive: boolean, m?: Message) {
    return this.add((v, c) => {
      const x = v as number;
      const ok = kind === 'min' ? (inclusive ? x >= n : x > n) : (inclusive ? x <= n : x < n);
      if (ok) return;
      const op = (kind === 'min' ? '>' : '<') + (inclusive ? '=' : '');
      issue(c, { origin: 'number', code: kind === 'min' ? 'too_small' : 'too_big', [kind === 'min' ? 'minimum' : 'maximum']: n, inclusive }, `Too ${kind === 'min' ? 'small' : 'big'}: expected number to be ${op}${n}`, custom(m));
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
      if (!Number.isInteger(x)) { issue(c, { expected: 'int', format: 'safeint', code: 'invalid_type' }, 'Invalid input: expected int, received number', custom(m)); return { abort: true }; }
      const limit = Number.MAX_SAFE_INTEGER;
      if (Math.abs(x) <= limit) return;
      const big = x > 0;
      issue(c, { code: big ? 'too_big' : 'too_small', [big ? 'maximum' : 'minimum']: big ? limit : -limit, note: 'Integers must be within the safe integer range.', origin: 'int', inclusive: true },
        `Too ${big ? 'big' : 'small'}: expected int to be ${big ? '<=' : '>='}${big ? limit : -limit}`, custom(m));
      return { abort: true };
    });
  }
}

function numberSchema(coerce: boolean, checks: Check[] = []): NumberSchema & Schema {
  const test = (v: unknown, c: Ctx): boolean => {
    if (typeof v === 'number' && Number.isFinite(v)) return true;
    const special = typeof v === 'number' ? (Number.isNaN(v) ? 'NaN' : 'Infinity') : null;
    issue(c, { expected: 'number', code: 'invalid_type', ...(special ? { received: special } : {}) }, `Invalid input: expected number, received ${received(v)}`);
    return false;
  };
  return withBuilders(scalar('number', coerce ? (v) => Number(v) : null, test, checks), new NumberSchema(coerce, checks));
}

function valueIssue(values: unknown[]): (v: unknown, c: Ctx) => boolean {
  return (v, c) => {
    if (values.includes(v)) return true;
    issue(c, { code: 'invalid_value', values }, values.length === 1 ? `Invalid input: expected ${shown(values[0])}` : `Invalid option: expected one of ${values.map(shown).join('|')}`);
    return false;
  };
}

class ArraySchema {
  constructor(private element: Schema, private checks: Check[] = []) {}
  private add(check: Check): ArraySchema & Schema { return arraySchema(this.element, [...this.checks, check]); }
  min(n: number, m?: Message) { return this.add(sized('array', 'items', 'min', n, m)); }
  max(n: number, m?: Message) { return this.add(sized('array', 'items', 'max', n, m)); }
  nonempty(m?: Message) { return this.min(1, m); }
  length(n: number, m?: Message) {
    return this.add((v, c) => {
      const len = (v as unknown[]).length;
      if (len > n) sized('array', 'items', 'max', n, m, true)(v, c);
      else if (len < n) sized('array', 'items', 'min', n, m, true)(v, c);
    });
  }
}

function arraySchema(element: Schema, checks: Check[] = []): ArraySchema & Schema {
  const s = new Schema({ type: 'array', element }, (v, c) => {
    if (!typeTest('array', Array.isArray)(v, c)) return v;
    const out = (v as unknown[]).map((x, i) => element._parse(x, { issues: c.issues, path: [...c.path, i] }));
    for (const check of checks) check(out, c);
    return out;
  }, checks);
  return withBuilders(s, new ArraySchema(element, checks));
}

function objectSchema(shape: Record<string, Schema>): Schema {
  return new Schema({ type: 'object', shape }, (v, c) => {
    if (!typeTest('object', (x) => typeof x === 'object' && x !== null && !Array.isArray(x))(v, c)) return v;
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
  string: () => stringSchema(coerce),
  number: () => numberSchema(coerce),
  boolean: () => scalar('boolean', coerce ? (v) => Boolean(v) : null, typeTest('boolean', (v) => typeof v === 'boolean'), []),
});

/** The `z` handed to a project's `schema: (z) => …` when it has no Zod of its own. */
export const z: Record<string, unknown> = new Proxy({
  ...zBase(false),
  coerce: zBase(true),
  enum: (values: readonly string[]) => new Schema({ type: 'enum', entries: Object.fromEntries(values.map((x) => [x, x])) }, (v, c) => (valueIssue([...values])(v, c), v)),
  literal: (value: unknown) => new Schema({ type: 'literal', values: [value] }, (v, c) => (valueIssue([value])(v, c), v)),
  array: (element: Schema) => arraySchema(element),
  object: (shape: Record<string, Schema>) => objectSchema(shape),
}, {
  get(target, prop, receiver) {
    if (typeof prop === 'symbol' || prop in target || UNSUPPORTED.has(prop) || prop === '__esModule' || prop === 'default') return Reflect.get(target, prop, receiver);
    throw new TypeError(`z.${prop} is not supported by this server's Zod subset: install zod in the project to use it`);
  },
});
