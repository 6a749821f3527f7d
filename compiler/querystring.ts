// Query-string parser that reproduces what Strapi v5 does to `ctx.query`:
// `qs.parse(raw, { depth: 20, arrayLimit: 100, parameterLimit, strictDepth: true })`.
// The reference is qs 6.15.3, the exact version @strapi/core pins. Later qs
// releases changed a few corner cases (conflict merging, limits on sparse
// arrays); we follow what real Strapi servers answer, not the newest qs.
//
// qs's observable results for conflicting keys depend on its algorithm, so we
// keep its shape: group raw pairs by decoded key, then expand and merge each
// key in the order qs's Object.keys walk would. What we drop is the regex
// splitting, option normalisation, and building a throw-away object per key
// only to merge it into the result.
//
// Deliberate departures, with Strapi's own qs call as the yardstick:
// - more than `parameterLimit` parameters throws instead of silently dropping
//   the tail (qs does the same only with `throwOnLimitExceeded: true`);
// - depth is enforced with `strictDepth` (Strapi keeps the rest as a literal);
// - a key without `=` yields '' as in plain qs; Strapi passes
//   `strictNullHandling: true` and would give null.

export interface QueryStringLimits {
  depth: number;
  arrayLimit: number;
  parameterLimit: number;
  /**
   * A bracket segment naming an Object.prototype member: `drop` the parameter (qs's allowPrototypes:
   * false, the default) or `reject` it with a PrototypeKeyError (the API answers 400 rather than
   * silently ignoring a filter). A top-level name is always dropped.
   */
  prototypeKeys?: 'drop' | 'reject';
}

export const DEFAULT_QS_LIMITS: QueryStringLimits = { depth: 20, arrayLimit: 100, parameterLimit: 1000 };

export type QueryValue = string | QueryValue[] | { [key: string]: QueryValue };

type QueryObject = { [key: string]: QueryValue };

/**
 * Thrown, when asked (`prototypeKeys: 'reject'`), for a bracket segment naming an Object.prototype member:
 * `key` is that name, `path` the segments from the parameter's name to it (`filters.title.constructor`).
 */
export class PrototypeKeyError extends Error {
  constructor(readonly key: string, readonly path: string[]) {
    super(`Invalid key ${key}`);
    this.name = 'PrototypeKeyError';
  }
}

/** Thrown when the input exceeds one of the limits; callers should answer 400. */
export class QueryStringError extends Error {
  readonly limit: 'depth' | 'parameterLimit';

  constructor(message: string, limit: 'depth' | 'parameterLimit') {
    super(message);
    this.name = 'QueryStringError';
    this.limit = limit;
  }
}

const AMP = 0x26;
const EQ = 0x3d;
const PLUS = 0x2b;
const PERCENT = 0x25;
const OPEN = 0x5b;
const CLOSE = 0x5d;

// qs turns an array into an object once an index reaches arrayLimit, but keeps
// treating that object as array-like: later values are appended after the
// highest index seen so far. qs remembers that highest index in a side channel
// keyed by the object; a WeakMap does the same without touching the object's
// own keys (which are user data) and lets the entries die with the result.
const overflowMax = new WeakMap<object, number>();

// qs finally compacts every array of the result (`a[3]=x` gives ['x']). Only a
// few operations can leave holes, so they record the array here and we compact
// just those instead of walking the whole result. Module state is safe because
// parsing is synchronous and never re-entered; it is emptied after each parse.
const holeyArrays: QueryValue[][] = [];

// Object.prototype's own names, such as __proto__, constructor, toString.
// qs checks the live prototype; a snapshot is enough because a name added
// later could at most be shadowed by an own property of a plain result object.
const PROTOTYPE_MEMBERS: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));
// (length, first letter) pairs of those names: almost every segment is
// rejected by one table read, without hashing the string for the Set.
const SHAPE_LETTERS = 128;
let longestPrototypeMember = 0;
for (const name of PROTOTYPE_MEMBERS) longestPrototypeMember = Math.max(longestPrototypeMember, name.length);
const PROTOTYPE_MEMBER_SHAPES = new Uint8Array((longestPrototypeMember + 1) * SHAPE_LETTERS);
for (const name of PROTOTYPE_MEMBERS) {
  PROTOTYPE_MEMBER_SHAPES[name.length * SHAPE_LETTERS + Math.min(name.charCodeAt(0), SHAPE_LETTERS - 1)] = 1;
}

/**
 * Parse the part of a URL after `?` the way qs does for Strapi clients.
 * Result objects are plain objects; any parameter whose key (or any bracket
 * segment of it) names an Object.prototype member such as `__proto__` or
 * `constructor` is dropped entirely, as qs does with allowPrototypes: false.
 * `prototype` is not such a member and stays an ordinary key, as in qs: it has
 * no special meaning on a plain object.
 */
export function parseQueryString(raw: string, limits: QueryStringLimits = DEFAULT_QS_LIMITS): { [key: string]: QueryValue } {
  const result: QueryObject = {};
  if (raw === '') return result;

  const grouped = groupPairs(raw, limits);
  const { depth, arrayLimit } = limits;
  if (holeyArrays.length !== 0) holeyArrays.length = 0;
  try {
    for (const [key, leaf] of grouped) {
      const segments = splitKey(key, depth, limits.prototypeKeys === 'reject');
      if (segments === undefined) continue;

      const firstIsParent = depth > 0 ? key.charCodeAt(0) !== OPEN : !isWrapped(key);
      // The result is a plain object, so merging into it always returns it.
      mergePath(result, segments, 0, firstIsParent, leaf, arrayLimit);
    }
    for (let i = 0; i < holeyArrays.length; i++) compactInPlace(holeyArrays[i]);
  } finally {
    if (holeyArrays.length !== 0) holeyArrays.length = 0;
  }
  return result;
}

// ---------------------------------------------------------------------------
// Phase 1: split on '&', decode, and group values by decoded key.

/**
 * Returns the decoded keys in the order qs merges them: qs groups into an
 * object and walks Object.keys, which puts array-index keys ('0', '7') first in
 * numeric order. That order decides how conflicting keys combine, so we keep
 * it, but with a Map (faster than a dictionary-mode object, and immune to
 * `__proto__` keys) and a reordering pass only when such a key occurred.
 */
function groupPairs(raw: string, limits: QueryStringLimits): Map<string, QueryValue> {
  const grouped = new Map<string, QueryValue>();
  const parameterLimit = limits.parameterLimit;
  const arrayLimit = limits.arrayLimit;
  const length = raw.length;
  let sawIndexKey = false;

  let parts = 0;
  let start = 0;
  while (start <= length) {
    parts++;
    // qs counts empty parts too ('a&&b' is three parameters).
    if (parts > parameterLimit) {
      throw new QueryStringError(
        `Parameter limit exceeded. Only ${parameterLimit} parameter${parameterLimit === 1 ? '' : 's'} allowed.`,
        'parameterLimit',
      );
    }

    // qs splits key and value at the first ']=' (after turning %5D into ']')
    // and only otherwise at the first '=', so `a[b=c]=d` has key `a[b=c]`.
    let end = start;
    let firstEq = -1;
    let bracketEq = -1;
    // Where '%' and '+' occur decides, per side of the split, whether decoding
    // is needed at all; one pass finds them along with the split point.
    let firstPercent = -1;
    let lastPercent = -1;
    let firstPlus = -1;
    let lastPlus = -1;
    for (; end < length; end++) {
      const c = raw.charCodeAt(end);
      if (c === AMP) break;
      if (c === EQ) {
        if (bracketEq < 0) {
          if (firstEq < 0) firstEq = end;
          if (end > start && endsWithCloseBracket(raw, start, end)) bracketEq = end;
        }
      } else if (c === PERCENT) {
        if (firstPercent < 0) firstPercent = end;
        lastPercent = end;
      } else if (c === PLUS) {
        if (firstPlus < 0) firstPlus = end;
        lastPlus = end;
      }
    }

    const eq = bracketEq >= 0 ? bracketEq : firstEq;
    const keyEnd = eq >= 0 ? eq : end;
    // An empty key can never produce output (qs drops it in phase 2).
    if (keyEnd > start) {
      const key = decode(raw, start, keyEnd, firstPercent >= 0 && firstPercent < keyEnd, firstPlus >= 0 && firstPlus < keyEnd);
      const value = eq >= 0 ? decode(raw, eq + 1, end, lastPercent > eq, lastPlus > eq) : '';
      const existing = grouped.get(key);
      if (existing === undefined) {
        grouped.set(key, value);
        if (!sawIndexKey && isArrayIndexKey(key)) sawIndexKey = true;
      } else {
        grouped.set(key, appendDuplicate(existing, value, arrayLimit));
      }
    }
    start = end + 1;
  }

  if (!sawIndexKey) return grouped;
  const indexKeys: string[] = [];
  for (const key of grouped.keys()) if (isArrayIndexKey(key)) indexKeys.push(key);
  indexKeys.sort((a, b) => Number(a) - Number(b));
  const ordered = new Map<string, QueryValue>();
  for (const key of indexKeys) ordered.set(key, grouped.get(key) as QueryValue);
  for (const [key, value] of grouped) if (!ordered.has(key)) ordered.set(key, value);
  return ordered;
}

/** Whether a property key is an array index, which objects enumerate first. */
function isArrayIndexKey(key: string): boolean {
  const length = key.length;
  if (length === 0 || length > 10) return false;
  const first = key.charCodeAt(0);
  if (first < 0x30 || first > 0x39 || (first === 0x30 && length > 1)) return false;
  for (let i = 1; i < length; i++) {
    const c = key.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return Number(key) < 4294967295;
}

/** Whether raw[start, end) ends in ']' or its escape '%5D' / '%5d'. */
function endsWithCloseBracket(raw: string, start: number, end: number): boolean {
  if (raw.charCodeAt(end - 1) === CLOSE) return true;
  return (
    end - start >= 3 &&
    raw.charCodeAt(end - 3) === PERCENT &&
    raw.charCodeAt(end - 2) === 0x35 &&
    (raw.charCodeAt(end - 1) | 0x20) === 0x64
  );
}

const ASCII: readonly string[] = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code));

/**
 * Percent-decode raw[start, end) with '+' as space. Malformed escapes keep the
 * whole string literal (qs's behaviour, never a URIError).
 */
function decode(raw: string, start: number, end: number, hasPercent: boolean, hasPlus: boolean): string {
  if (!hasPercent) {
    const s = raw.slice(start, end);
    return hasPlus ? s.replaceAll('+', ' ') : s;
  }
  // Keys are mostly ASCII escapes (%5B, %24, %3A); decoding those by hand is
  // about twice as fast as decodeURIComponent, which we keep for UTF-8.
  let out = '';
  let copied = start;
  for (let i = start; i < end; i++) {
    const c = raw.charCodeAt(i);
    if (c === PERCENT) {
      const high = i + 2 < end ? hexValue(raw.charCodeAt(i + 1)) : -1;
      const low = high >= 0 ? hexValue(raw.charCodeAt(i + 2)) : -1;
      if (low < 0 || high >= 8) return decodeSlow(raw.slice(start, end), hasPlus);
      if (i > copied) out += raw.slice(copied, i);
      out += ASCII[high * 16 + low];
      copied = i + 3;
      i += 2;
    } else if (c === PLUS) {
      if (i > copied) out += raw.slice(copied, i);
      out += ' ';
      copied = i + 1;
    }
  }
  return copied < end ? out + raw.slice(copied, end) : out;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}

function decodeSlow(s: string, hasPlus: boolean): string {
  const plain = hasPlus ? s.replaceAll('+', ' ') : s;
  try {
    return decodeURIComponent(plain);
  } catch {
    // qs replaced %5B/%5D with brackets before decoding, and keeps that
    // replacement when decoding fails. Doing it only here is equivalent: ASCII
    // escapes never complete or break a UTF-8 sequence, so decoding succeeds
    // or fails the same way with or without the replacement.
    return plain.replace(/%5B/gi, '[').replace(/%5D/gi, ']');
  }
}

function appendDuplicate(existing: QueryValue, value: string, arrayLimit: number): QueryValue {
  if (typeof existing === 'object' && !Array.isArray(existing)) {
    const max = overflowMax.get(existing);
    if (max !== undefined) {
      existing[max + 1] = value;
      overflowMax.set(existing, max + 1);
      return existing;
    }
  }
  let list: QueryValue[];
  if (Array.isArray(existing)) {
    existing.push(value);
    list = existing;
  } else {
    list = [existing, value];
  }
  return list.length > arrayLimit ? toOverflowObject(list, list.length - 1) : list;
}

// ---------------------------------------------------------------------------
// Phase 2a: split a decoded key into segments.

function isPrototypeMember(name: string): boolean {
  const length = name.length;
  if (length > longestPrototypeMember) return false;
  const shape = length * SHAPE_LETTERS + Math.min(name.charCodeAt(0), SHAPE_LETTERS - 1);
  return PROTOTYPE_MEMBER_SHAPES[shape] === 1 && PROTOTYPE_MEMBERS.has(name);
}

function isWrapped(key: string): boolean {
  return key.length >= 2 && key.charCodeAt(0) === OPEN && key.charCodeAt(key.length - 1) === CLOSE;
}

/**
 * Split `a[b][c]` into ['a', 'b', 'c'] (bracket contents, '' for `[]`; only a
 * leading part before the first '[' is unbracketed) with qs's rules:
 * `a[b[c]]` has segment `b[c]`, text between groups is ignored, and an
 * unterminated group keeps the rest of the key, including its '[', as one
 * literal segment. Returns undefined when qs would drop the parameter.
 */
function splitKey(key: string, depth: number, reject = false): string[] | undefined {
  if (depth <= 0) {
    if (isPrototypeMember(key)) return undefined;
    return [isWrapped(key) ? key.slice(1, -1) : key];
  }

  const first = key.indexOf('[');
  const segments: string[] = [];
  if (first !== 0) {
    const parent = first < 0 ? key : key.slice(0, first);
    if (isPrototypeMember(parent)) return undefined;
    segments.push(parent);
    if (first < 0) return segments;
  }

  const length = key.length;
  let open = first;
  let collected = 0;
  while (open >= 0 && collected < depth) {
    let level = 1;
    let close = -1;
    for (let i = open + 1; i < length; i++) {
      const c = key.charCodeAt(i);
      if (c === OPEN) {
        level++;
      } else if (c === CLOSE && --level === 0) {
        close = i;
        break;
      }
    }
    if (close < 0) {
      // qs stores '[' + rest + ']' and strips the outer pair again later.
      segments.push(key.slice(open));
      return segments;
    }
    const content = key.slice(open + 1, close);
    if (isPrototypeMember(content)) {
      if (reject && segments.length) throw new PrototypeKeyError(content, [...segments, content]);
      return undefined;
    }
    segments.push(content);
    collected++;
    open = key.indexOf('[', close + 1);
  }

  if (open >= 0) {
    throw new QueryStringError(`Input depth exceeded depth option of ${depth} and strictDepth is true`, 'depth');
  }
  return segments;
}

/** The array index a bracketed segment denotes, or -1 (qs accepts only canonical decimals). */
function arrayIndex(segment: string): number {
  const c = segment.charCodeAt(0);
  if (!(c >= 0x30 && c <= 0x39)) return -1;
  const index = parseInt(segment, 10);
  return String(index) === segment ? index : -1;
}

// ---------------------------------------------------------------------------
// Phase 2b: build the value one key describes (qs's parseObject).

function expand(segments: string[], from: number, firstIsParent: boolean, leaf: QueryValue, arrayLimit: number): QueryValue {
  let value = leaf;
  for (let i = segments.length - 1; i >= from; i--) {
    const segment = segments[i];
    const bracketed = i > 0 || !firstIsParent;

    if (bracketed && segment === '') {
      // `[]` appends; a leaf that already overflowed into an object stays one.
      if (Array.isArray(value)) {
        if (value.length > arrayLimit) value = toOverflowObject(value, value.length - 1);
      } else if (typeof value !== 'object' || !overflowMax.has(value)) {
        value = 1 > arrayLimit ? toOverflowObject([value], 0) : [value];
      }
      continue;
    }

    const index = bracketed ? arrayIndex(segment) : -1;
    if (index >= 0 && index < arrayLimit) {
      const array: QueryValue[] = [];
      array[index] = value;
      if (index > 0) holeyArrays.push(array);
      value = array;
    } else {
      const object: QueryObject = {};
      if (segment !== '__proto__') object[segment] = value;
      if (index >= 0) overflowMax.set(object, index);
      value = object;
    }
  }
  return value;
}

// ---------------------------------------------------------------------------
// Phase 2c: merge into the result.

/**
 * Same result as `merge(target, expand(segments, i, ...))`, but walks down the
 * parts of the path that already exist instead of building a throw-away copy of
 * them first; typical Strapi queries (`filters[$or][1][title][$eq]`) then only
 * allocate what ends up in the result. Anything unusual goes the generic way.
 */
function mergePath(
  target: QueryValue,
  segments: string[],
  i: number,
  firstIsParent: boolean,
  leaf: QueryValue,
  arrayLimit: number,
): QueryValue {
  const n = segments.length;
  if (i === n) return merge(target, leaf, arrayLimit);

  if (typeof target === 'object') {
    const segment = segments[i];
    const bracketed = i > 0 || !firstIsParent;
    const index = bracketed ? arrayIndex(segment) : -1;
    if (!Array.isArray(target)) {
      if (index < 0 && !(bracketed && segment === '') && segment !== '__proto__') {
        target[segment] = Object.hasOwn(target, segment)
          ? mergePath(target[segment], segments, i + 1, firstIsParent, leaf, arrayLimit)
          : expand(segments, i + 1, firstIsParent, leaf, arrayLimit);
        noteOverflowKey(target, segment);
        return target;
      }
    } else if (index >= 0 && index < arrayLimit) {
      if (index in target) {
        const existing = target[index];
        // What follows this segment is a container unless it is a plain leaf.
        if (typeof existing === 'object' && (i + 1 < n || typeof leaf === 'object')) {
          target[index] = mergePath(existing, segments, i + 1, firstIsParent, leaf, arrayLimit);
        } else {
          target[target.length] = expand(segments, i + 1, firstIsParent, leaf, arrayLimit);
        }
      } else {
        if (index > target.length) holeyArrays.push(target);
        target[index] = expand(segments, i + 1, firstIsParent, leaf, arrayLimit);
      }
      return target.length > arrayLimit ? toOverflowObject(target, target.length - 1) : target;
    }
  }
  return merge(target, expand(segments, i, firstIsParent, leaf, arrayLimit), arrayLimit);
}

// qs's utils.merge with strictMerge (its default since 6.15), which makes a
// scalar that meets a structure into a pair instead of an `x: true` key.
// Targets are mutated; the return value replaces them in their parent.
function merge(target: QueryValue, source: QueryValue, arrayLimit: number): QueryValue {
  if (source === '') return target;

  if (typeof source === 'string') {
    if (Array.isArray(target)) {
      const next = target.length;
      if (next >= arrayLimit) {
        const object = arrayToObject(target);
        object[next] = source;
        overflowMax.set(object, next);
        return object;
      }
      target[next] = source;
      return target;
    }
    if (typeof target === 'object') {
      const max = overflowMax.get(target);
      if (max !== undefined) {
        target[max + 1] = source;
        overflowMax.set(target, max + 1);
        return target;
      }
    }
    // Conflicting scalar and structure (or two scalars) become a pair.
    return [target, source];
  }

  if (typeof target === 'string') {
    if (!Array.isArray(source)) {
      const max = overflowMax.get(source);
      if (max !== undefined) {
        // Overflow objects are array-like: prepend by shifting indices.
        const shifted: QueryObject = { 0: target };
        const keys = Object.keys(source);
        for (let i = 0; i < keys.length; i++) shifted[parseInt(keys[i], 10) + 1] = source[keys[i]];
        overflowMax.set(shifted, max + 1);
        return shifted;
      }
    }
    // [target].concat(source): arrays are spliced in, holes and all.
    let combined: QueryValue[];
    if (Array.isArray(source)) {
      combined = new Array<QueryValue>(source.length + 1);
      combined[0] = target;
      let holes = false;
      for (let i = 0; i < source.length; i++) {
        if (i in source) combined[i + 1] = source[i];
        else holes = true;
      }
      if (holes) holeyArrays.push(combined);
    } else {
      combined = [target, source];
    }
    return combined.length > arrayLimit ? toOverflowObject(combined, combined.length - 1) : combined;
  }

  if (Array.isArray(target)) {
    if (Array.isArray(source)) {
      for (let i = 0, n = source.length; i < n; i++) {
        if (!(i in source)) continue;
        const item = source[i];
        if (i in target) {
          const existing = target[i];
          if (typeof existing === 'object' && typeof item === 'object') {
            target[i] = merge(existing, item, arrayLimit);
          } else {
            target[target.length] = item;
          }
        } else {
          if (i > target.length) holeyArrays.push(target);
          target[i] = item;
        }
      }
      return target.length > arrayLimit ? toOverflowObject(target, target.length - 1) : target;
    }
    return mergeKeys(arrayToObject(target), source, arrayLimit);
  }

  return mergeKeys(target, source, arrayLimit);
}

function mergeKeys(target: QueryObject, source: QueryObject | QueryValue[], arrayLimit: number): QueryObject {
  const sourceMax = Array.isArray(source) ? undefined : overflowMax.get(source);
  const keys = Object.keys(source);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const value = (source as QueryObject)[key];
    target[key] = Object.hasOwn(target, key) ? merge(target[key], value, arrayLimit) : value;
    if (sourceMax !== undefined && !overflowMax.has(target)) overflowMax.set(target, sourceMax);
    noteOverflowKey(target, key);
  }
  return target;
}

/** Keep an overflow object's append position past any index stored into it. */
function noteOverflowKey(target: QueryObject, key: string): void {
  const max = overflowMax.get(target);
  if (max === undefined) return;
  const index = parseInt(key, 10);
  if (index > max && String(index) === key) overflowMax.set(target, index);
}

function arrayToObject(array: QueryValue[]): QueryObject {
  const object: QueryObject = {};
  for (let i = 0; i < array.length; i++) {
    if (i in array) object[i] = array[i];
  }
  return object;
}

function toOverflowObject(array: QueryValue[], max: number): QueryObject {
  const object = arrayToObject(array);
  overflowMax.set(object, max);
  return object;
}

/** Remove the holes from one array, in place (qs's utils.compact does it for all). */
function compactInPlace(array: QueryValue[]): void {
  let write = 0;
  for (let read = 0; read < array.length; read++) {
    if (read in array) {
      if (write !== read) array[write] = array[read];
      write++;
    }
  }
  if (write !== array.length) array.length = write;
}
