// Route paths as Strapi 5.54's router reads them: @koa/router 12 compiles each path with path-to-regexp 6.3.0
// (case-insensitive, not strict: one trailing delimiter is allowed, `end: true`). This is that version's
// parser and regexp builder, ported as they are (MIT, (c) Blake Embrey), so a project's custom routes match
// here exactly as there: `/:param`, `/:id(\\d+)`, `/:slug?`, `/:rest*`, `/:rest+`, `{/:a}?`, unnamed
// `(\\w+)` groups (params named 0, 1, …), `\\` escapes. A pattern path-to-regexp refuses (or a regexp
// JavaScript refuses) throws at load, as it stops Strapi's start. test/project-code-paths.test.ts checks
// this port against the real path-to-regexp 6.3.0 (a development dependency here).

interface LexToken { type: 'OPEN' | 'CLOSE' | 'PATTERN' | 'NAME' | 'CHAR' | 'ESCAPED_CHAR' | 'MODIFIER' | 'END'; index: number; value: string }

export interface Key { name: string | number; prefix: string; suffix: string; pattern: string; modifier: string }
export type Token = string | Key;

function lexer(str: string): LexToken[] {
  const tokens: LexToken[] = [];
  let i = 0;
  while (i < str.length) {
    const char = str[i];
    if (char === '*' || char === '+' || char === '?') { tokens.push({ type: 'MODIFIER', index: i, value: str[i++] }); continue; }
    if (char === '\\') { tokens.push({ type: 'ESCAPED_CHAR', index: i++, value: str[i++] }); continue; }
    if (char === '{') { tokens.push({ type: 'OPEN', index: i, value: str[i++] }); continue; }
    if (char === '}') { tokens.push({ type: 'CLOSE', index: i, value: str[i++] }); continue; }
    if (char === ':') {
      let name = '';
      let j = i + 1;
      while (j < str.length) {
        const code = str.charCodeAt(j);
        if ((code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95) { name += str[j++]; continue; }
        break;
      }
      if (!name) throw new TypeError(`Missing parameter name at ${i}`);
      tokens.push({ type: 'NAME', index: i, value: name });
      i = j;
      continue;
    }
    if (char === '(') {
      let count = 1;
      let pattern = '';
      let j = i + 1;
      if (str[j] === '?') throw new TypeError(`Pattern cannot start with "?" at ${j}`);
      while (j < str.length) {
        if (str[j] === '\\') { pattern += str[j++] + str[j++]; continue; }
        if (str[j] === ')') {
          count--;
          if (count === 0) { j++; break; }
        } else if (str[j] === '(') {
          count++;
          if (str[j + 1] !== '?') throw new TypeError(`Capturing groups are not allowed at ${j}`);
        }
        pattern += str[j++];
      }
      if (count) throw new TypeError(`Unbalanced pattern at ${i}`);
      if (!pattern) throw new TypeError(`Missing pattern at ${i}`);
      tokens.push({ type: 'PATTERN', index: i, value: pattern });
      i = j;
      continue;
    }
    tokens.push({ type: 'CHAR', index: i, value: str[i++] });
  }
  tokens.push({ type: 'END', index: i, value: '' });
  return tokens;
}

const PREFIXES = './';
const DELIMITER = '/#?';

export function parse(str: string): Token[] {
  const tokens = lexer(str);
  const result: Token[] = [];
  let key = 0;
  let i = 0;
  let path = '';
  const tryConsume = (type: LexToken['type']): string | undefined => (i < tokens.length && tokens[i].type === type ? tokens[i++].value : undefined);
  const mustConsume = (type: LexToken['type']): string => {
    const value = tryConsume(type);
    if (value !== undefined) return value;
    const { type: nextType, index } = tokens[i];
    throw new TypeError(`Unexpected ${nextType} at ${index}, expected ${type}`);
  };
  const consumeText = (): string => {
    let out = '';
    let value: string | undefined;
    while ((value = tryConsume('CHAR') || tryConsume('ESCAPED_CHAR'))) out += value;
    return out;
  };
  const isSafe = (value: string): boolean => [...DELIMITER].some((c) => value.indexOf(c) > -1);
  const safePattern = (prefix: string): string => {
    const prev = result[result.length - 1];
    const prevText = prefix || (prev && typeof prev === 'string' ? prev : '');
    if (prev && !prevText) throw new TypeError(`Must have text between two parameters, missing text after "${(prev as Key).name}"`);
    if (!prevText || isSafe(prevText)) return `[^${escapeString(DELIMITER)}]+?`;
    return `(?:(?!${escapeString(prevText)})[^${escapeString(DELIMITER)}])+?`;
  };
  while (i < tokens.length) {
    const char = tryConsume('CHAR');
    const name = tryConsume('NAME');
    const pattern = tryConsume('PATTERN');
    if (name || pattern) {
      let prefix = char || '';
      if (PREFIXES.indexOf(prefix) === -1) { path += prefix; prefix = ''; }
      if (path) { result.push(path); path = ''; }
      result.push({ name: name || key++, prefix, suffix: '', pattern: pattern || safePattern(prefix), modifier: tryConsume('MODIFIER') || '' });
      continue;
    }
    const value = char || tryConsume('ESCAPED_CHAR');
    if (value) { path += value; continue; }
    if (path) { result.push(path); path = ''; }
    const open = tryConsume('OPEN');
    if (open) {
      const prefix = consumeText();
      const name1 = tryConsume('NAME') || '';
      const pattern1 = tryConsume('PATTERN') || '';
      const suffix = consumeText();
      mustConsume('CLOSE');
      result.push({ name: name1 || (pattern1 ? key++ : ''), pattern: name1 && !pattern1 ? safePattern(prefix) : pattern1, prefix, suffix, modifier: tryConsume('MODIFIER') || '' });
      continue;
    }
    mustConsume('END');
  }
  return result;
}

function escapeString(str: string): string {
  return str.replace(/([.+*?=^!:${}()[\]|/\\])/g, '\\$1');
}

/** path-to-regexp's tokensToRegexp with @koa/router's options (strict: false, end: true, case-insensitive). */
export function tokensToRegexp(tokens: Token[], keys: Key[]): RegExp {
  const delimiterRe = `[${escapeString(DELIMITER)}]`;
  let route = '^';
  for (const token of tokens) {
    if (typeof token === 'string') { route += escapeString(token); continue; }
    const prefix = escapeString(token.prefix);
    const suffix = escapeString(token.suffix);
    if (token.pattern) {
      keys.push(token);
      if (prefix || suffix) {
        if (token.modifier === '+' || token.modifier === '*') {
          const mod = token.modifier === '*' ? '?' : '';
          route += `(?:${prefix}((?:${token.pattern})(?:${suffix}${prefix}(?:${token.pattern}))*)${suffix})${mod}`;
        } else {
          route += `(?:${prefix}(${token.pattern})${suffix})${token.modifier}`;
        }
      } else {
        if (token.modifier === '+' || token.modifier === '*') throw new TypeError(`Can not repeat "${token.name}" without a prefix and suffix`);
        route += `(${token.pattern})${token.modifier}`;
      }
    } else {
      route += `(?:${prefix}${suffix})${token.modifier}`;
    }
  }
  route += `${delimiterRe}?$`;
  return new RegExp(route, 'i');
}

export interface CompiledPath { regexp: RegExp; keys: Key[]; tokens: Token[] }

/** A route's full path (`/api` + prefix + path) compiled as @koa/router does; throws what Strapi's start throws. */
export function compilePath(path: string): CompiledPath {
  const tokens = parse(path);
  const keys: Key[] = [];
  return { regexp: tokensToRegexp(tokens, keys), keys, tokens };
}

/** @koa/router's safeDecodeURIComponent: a malformed escape leaves the text as it was. */
export function safeDecode(text: string): string {
  try { return decodeURIComponent(text); } catch { return text; }
}

/** The params @koa/router's Layer.params gives for a match: empty or missing captures are left out. */
export function matchPath(c: CompiledPath, path: string, params: Record<string, string> = {}): Record<string, string> | null {
  const m = c.regexp.exec(path);
  if (!m) return null;
  for (let i = 0; i < c.keys.length; i++) {
    const v = m[i + 1];
    if (v && v.length > 0) params[c.keys[i].name] = safeDecode(v);
  }
  return params;
}

/**
 * The first path segment after /api every match of this path starts with (lower-cased), or null when the
 * pattern decides it (a parameter there, or text running into one).
 */
export function firstSegment(c: CompiledPath): string | null {
  const [head, next] = c.tokens;
  if (typeof head !== 'string' || !head.toLowerCase().startsWith('/api/')) return null;
  const rest = head.slice(5);
  const slash = rest.indexOf('/');
  if (slash >= 0) return rest.slice(0, slash).toLowerCase() || null;
  if (!rest) return null;
  if (next === undefined || (typeof next === 'object' && next.prefix.startsWith('/'))) return rest.toLowerCase();
  return null;
}
