// A small multipart/form-data parser (RFC 7578) over a body that is already in memory: the front end
// buffers every request body, so a streaming parser would buy nothing here.

export interface Part {
  name: string;
  /** Set for file parts (even when empty); null for plain fields. */
  filename: string | null;
  contentType: string | null;
  data: Buffer;
}

export class MultipartError extends Error {}

export interface MultipartLimits { maxParts: number; maxHeaderBytes: number }
const DEFAULT_LIMITS: MultipartLimits = { maxParts: 1000, maxHeaderBytes: 16 * 1024 };

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

/** The boundary of a multipart/form-data Content-Type, or null when the request is not multipart. */
export function boundaryOf(contentType: string | undefined): string | null {
  if (!contentType || !/^\s*multipart\/form-data\s*(;|$)/i.test(contentType)) return null;
  const params = parseParams(contentType.slice(contentType.indexOf(';') + 1));
  const b = params.get('boundary');
  // RFC 2046: 1 to 70 characters.
  return b && b.length <= 70 ? b : null;
}

export function parseMultipart(body: Uint8Array, boundary: string, limits: MultipartLimits = DEFAULT_LIMITS): Part[] {
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const dash = Buffer.from(`--${boundary}`);
  // Every delimiter after the first is preceded by CRLF, which belongs to it, not to the data.
  const delim = Buffer.from(`\r\n--${boundary}`);
  let pos: number;
  if (buf.subarray(0, dash.length).equals(dash)) pos = 0;
  else {
    const i = buf.indexOf(delim);
    if (i < 0) throw new MultipartError('Malformed multipart body: no boundary');
    pos = i + 2;
  }
  const parts: Part[] = [];
  for (;;) {
    let p = pos + dash.length;
    if (buf[p] === 0x2d && buf[p + 1] === 0x2d) return parts; // closing `--boundary--`
    while (buf[p] === 0x20 || buf[p] === 0x09) p++; // transport padding
    if (buf[p] !== 0x0d || buf[p + 1] !== 0x0a) throw new MultipartError('Malformed multipart body: bad boundary line');
    p += 2;
    let headerEnd: number, dataStart: number;
    if (buf[p] === 0x0d && buf[p + 1] === 0x0a) { headerEnd = p; dataStart = p + 2; } // a part without headers
    else {
      headerEnd = buf.indexOf(HEADER_END, p);
      if (headerEnd < 0 || headerEnd - p > limits.maxHeaderBytes) throw new MultipartError('Malformed multipart body: part headers');
      dataStart = headerEnd + 4;
    }
    const next = buf.indexOf(delim, dataStart);
    if (next < 0) throw new MultipartError('Malformed multipart body: unterminated part');
    if (parts.length >= limits.maxParts) throw new MultipartError(`Too many parts (more than ${limits.maxParts})`);
    parts.push(partOf(buf.toString('utf8', p, headerEnd), buf.subarray(dataStart, next)));
    pos = next + 2;
  }
}

function partOf(headerText: string, data: Buffer): Part {
  let disposition: string | null = null;
  let contentType: string | null = null;
  for (const line of headerText.split(CRLF.toString())) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'content-disposition') disposition = value;
    else if (key === 'content-type') contentType = value || null;
  }
  if (!disposition || !/^form-data\s*(;|$)/i.test(disposition)) throw new MultipartError('Malformed multipart body: part without form-data disposition');
  const params = parseParams(disposition.slice(disposition.indexOf(';') + 1));
  const name = params.get('name');
  if (name === undefined) throw new MultipartError('Malformed multipart body: part without name');
  const filename = params.get('filename*') ?? params.get('filename') ?? null;
  return { name, filename, contentType, data };
}

/** `; a=1; b="x \"y\""; c*=UTF-8''%E2%82%AC` → Map (keys lowercased; RFC 5987 values decoded). */
function parseParams(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /[\s;]/.test(text[i])) i++;
    const eq = text.indexOf('=', i);
    if (eq < 0) break;
    const key = text.slice(i, eq).trim().toLowerCase();
    i = eq + 1;
    let value = '';
    if (text[i] === '"') {
      i++;
      while (i < text.length && text[i] !== '"') {
        // Browsers do not escape backslashes in filenames, so only `\"` and `\\` are escapes.
        if (text[i] === '\\' && (text[i + 1] === '"' || text[i + 1] === '\\')) i++;
        value += text[i++];
      }
      i++;
    } else {
      const end = text.indexOf(';', i);
      value = text.slice(i, end < 0 ? text.length : end).trim();
      i = end < 0 ? text.length : end;
    }
    if (key.endsWith('*')) {
      const m = /^([\w-]*)'[\w-]*'(.*)$/.exec(value);
      if (m) { try { value = decodeURIComponent(m[2]); } catch { continue; } }
    }
    if (!out.has(key)) out.set(key, value);
  }
  return out;
}
