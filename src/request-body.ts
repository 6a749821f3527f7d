// ctx.request.body as Strapi's body parser (strapi::body: koa-body) leaves it, for every route that
// reads a body: JSON for JSON types, qs-parsed fields for a urlencoded form, the text of a text/* body,
// the fields of a multipart form (strings: `data` is then no object, Strapi's "Missing data"), `{}`
// for anything else or no body, and `{}` on methods koa-body does not parse (GET, DELETE…).
import { parseJsonText, type Task } from './task.ts';
import { parseQueryString, type QueryValue } from '../compiler/querystring.ts';
import { boundaryOf, parseMultipart, MultipartError } from './upload/multipart.ts';
import { ApiError } from '../compiler/errors.ts';

const PARSED_METHODS = new Set(['POST', 'PUT', 'PATCH']);
// koa-body's JSON types, matched as type-is does (the media type, parameters aside).
const JSON_TYPES = new Set(['application/json', 'application/json-patch+json', 'application/vnd.api+json', 'application/csp-report', 'application/reports+json']);
// co-body's form parsing: qs with its defaults.
const FORM_LIMITS = { depth: 5, arrayLimit: 20, parameterLimit: 1000 };
// koa-body's formLimit and textLimit ('56kb' each; JSON's 1mb is http.maxBodySize, checked as the body arrives).
const FORM_TEXT_LIMIT = 56 * 1024;
const tooLarge = () => new ApiError(413, 'PayloadTooLargeError', 'request entity too large', {});

const mediaType = (contentType: string | undefined): string => (contentType ?? '').split(';')[0].trim().toLowerCase();
const FORM_TYPE = 'application/x-www-form-urlencoded';

/** A body the parser makes data of (JSON, a urlencoded form): what a middleware changed of it can go on as JSON. */
export const parsedAsData = (contentType: string | undefined): boolean => {
  const type = mediaType(contentType);
  return JSON_TYPES.has(type) || type === FORM_TYPE;
};

// co-body's strict JSON: an object or an array, and no own `__proto__` key anywhere (@hapi/bourne).
const STRICT_JSON = /^[\x20\x09\x0a\x0d]*(\[|\{)/;
const SUSPECT_PROTO = /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;
const syntaxError = (message: string) => new ApiError(400, 'SyntaxError', message, null);

function strictJson(task: Task): unknown {
  const text = task.body?.length ? Buffer.from(task.body).toString('utf8') : '';
  if (!text) return {};
  if (!STRICT_JSON.test(text)) throw syntaxError('invalid JSON, only supports object and array');
  const parsed = parseJsonText(text);
  if (SUSPECT_PROTO.test(text)) {
    for (let level: unknown[] = [parsed]; level.length;) {
      const next: unknown[] = [];
      for (const node of level) {
        if (!node || typeof node !== 'object') continue;
        if (Object.prototype.hasOwnProperty.call(node, '__proto__')) throw syntaxError('Object contains forbidden prototype property');
        next.push(...Object.values(node));
      }
      level = next;
    }
  }
  return parsed;
}

export function requestBody(task: Task): unknown {
  if (!PARSED_METHODS.has(task.method)) return {};
  const type = mediaType(task.contentType);
  if (JSON_TYPES.has(type)) return strictJson(task);
  if (!task.body?.length) return {};
  const text = () => Buffer.from(task.body!).toString('utf8');
  const isText = type.startsWith('text/');
  if ((type === FORM_TYPE || isText) && task.body.length > FORM_TEXT_LIMIT) throw tooLarge();
  if (type === FORM_TYPE) return parseQueryString(text(), FORM_LIMITS);
  if (isText) return text();
  const boundary = type === 'multipart/form-data' ? boundaryOf(task.contentType) : null;
  if (boundary) {
    let parts;
    try { parts = parseMultipart(task.body, boundary); } catch (e) {
      if (e instanceof MultipartError) throw new ApiError(400, 'ValidationError', e.message, {});
      throw e;
    }
    // Fields only (files are the upload plugin's); a repeated name is a list, as koa-body collects them.
    const fields: Record<string, QueryValue> = {};
    for (const p of parts) {
      if (p.filename !== null) continue;
      const v = p.data.toString('utf8');
      const prev = fields[p.name];
      fields[p.name] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev as string, v];
    }
    return fields;
  }
  return {};
}
