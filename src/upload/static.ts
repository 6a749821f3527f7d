// GET/HEAD /uploads/<file>: the front end serves the local provider's files itself (no worker, no
// database), streamed with uWS backpressure, with a Content-Type from the extension and never a path
// outside the upload folder; with validators (ETag, Last-Modified → 304) and single byte ranges (206/416)
// so browsers and media players can resume and seek.
import type uWS from 'uWebSockets.js';
import { open } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { mimeOf } from './mime.ts';
import type { Exchange } from '../http/exchange.ts';
import { statusLine } from '../http/status.ts';
import { fileEtag, noneMatch } from '../http/etag.ts';
import { envelope, ApiError } from '../../compiler/errors.ts';
// sharp must be loaded by the main thread before worker threads load it (its docs, "worker threads");
// the front end runs on the main thread and imports this module, so it happens here.
import 'sharp';

/** Multipart framing and fileInfo on top of the largest file: what one upload request may weigh. */
export const uploadBodyLimit = (maxFileSize: number): number => maxFileSize + 1024 * 1024;

const CHUNK = 256 * 1024;
const TEXT = /^(text\/|application\/(json|xml))/;

/** The file a request path names inside the folder, or null (bad encoding, separators, dot names). */
export function uploadPath(folder: string, url: string): string | null {
  let name: string;
  try { name = decodeURIComponent(url.slice('/uploads/'.length)); } catch { return null; }
  if (!name || name.startsWith('.') || /[/\\\0]/.test(name)) return null;
  const root = resolve(folder);
  const path = resolve(join(root, name));
  return path.startsWith(root + sep) ? path : null;
}

export function serveUpload(ex: Exchange, req: uWS.HttpRequest, folder: string, head: boolean, etag = true): void {
  const path = uploadPath(folder, req.getUrl());
  const ext = path ? path.slice(path.lastIndexOf('.')) : '';
  const type = mimeOf(ext) ?? 'application/octet-stream';
  const conditions: Conditions = {
    ifNoneMatch: req.getHeader('if-none-match'), ifModifiedSince: req.getHeader('if-modified-since'),
    range: req.getHeader('range'), ifRange: req.getHeader('if-range'),
  };
  void send(ex, path, TEXT.test(type) ? `${type}; charset=utf-8` : type, head, etag, conditions);
}

interface Conditions { ifNoneMatch: string; ifModifiedSince: string; range: string; ifRange: string }

/** Answers in Strapi's error envelope (its 404 for a missing file under /uploads is the router's). */
function error(ex: Exchange, status: number, name: string, message: string, headers: Array<[string, string]> = []): void {
  if (ex.aborted) return;
  const body = envelope(new ApiError(status, name, message, {}));
  ex.res.cork(() => {
    ex.res.writeStatus(statusLine(status)).writeHeader('Content-Type', 'application/json; charset=utf-8');
    ex.writeCommon();
    for (const [k, v] of headers) ex.res.writeHeader(k, v);
    ex.res.end(body);
  });
  ex.done(status, Buffer.byteLength(body));
}
const notFound = (ex: Exchange) => error(ex, 404, 'NotFoundError', 'Not Found');

/**
 * A `Range: bytes=…` header against a file size: one satisfiable range, 'unsatisfiable' (→ 416), or
 * null to send the whole file (no header, another unit, or several ranges, which RFC 9110 lets a server
 * answer in full rather than as multipart).
 */
export function parseRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^\s*bytes\s*=\s*(.*)$/i.exec(header);
  if (!m) return null;
  const specs = m[1].split(',').map((x) => x.trim()).filter(Boolean);
  if (specs.length !== 1) return specs.length ? null : 'unsatisfiable';
  const r = /^(\d*)-(\d*)$/.exec(specs[0]);
  if (!r || (r[1] === '' && r[2] === '')) return 'unsatisfiable';
  let start: number, end: number;
  if (r[1] === '') {
    // A suffix: the last N bytes.
    const n = Number(r[2]);
    if (n === 0 || size === 0) return 'unsatisfiable';
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(r[1]);
    end = r[2] === '' ? size - 1 : Math.min(Number(r[2]), size - 1);
    if (start >= size || start > end) return 'unsatisfiable';
  }
  return { start, end };
}

async function send(ex: Exchange, path: string | null, type: string, head: boolean, useEtag: boolean, c: Conditions): Promise<void> {
  if (!path) return notFound(ex);
  let fh;
  try { fh = await open(path, 'r'); } catch { return notFound(ex); }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return notFound(ex);
    if (ex.aborted) return;
    const size = st.size;
    const tag = useEtag ? fileEtag(st) : null;
    const modified = st.mtime.toUTCString();
    const res = ex.res;
    const validators = (r: typeof res) => {
      r.writeHeader('Cache-Control', 'public, max-age=60').writeHeader('Last-Modified', modified).writeHeader('Accept-Ranges', 'bytes');
      if (tag) r.writeHeader('ETag', tag);
    };
    // If-None-Match wins over If-Modified-Since (RFC 9110 §13.1.3).
    const fresh = c.ifNoneMatch ? !!tag && noneMatch(c.ifNoneMatch, tag)
      : !!c.ifModifiedSince && Date.parse(c.ifModifiedSince) >= Math.floor(st.mtimeMs / 1000) * 1000;
    if (fresh) {
      res.cork(() => { res.writeStatus('304 Not Modified'); ex.writeCommon(); validators(res); res.endWithoutBody(); });
      ex.done(304, 0);
      return;
    }
    // If-Range: the range only applies to the version the client holds.
    const rangeApplies = !c.ifRange || c.ifRange === tag || c.ifRange === modified;
    const range = rangeApplies ? parseRange(c.range, size) : null;
    if (range === 'unsatisfiable') {
      return error(ex, 416, 'RangeNotSatisfiableError', `Range not satisfiable: the file has ${size} bytes`, [['Content-Range', `bytes */${size}`]]);
    }
    const start = range ? range.start : 0;
    const length = range ? range.end - range.start + 1 : size;
    res.cork(() => {
      res.writeStatus(range ? '206 Partial Content' : '200 OK').writeHeader('Content-Type', type);
      ex.writeCommon(true);
      // An uploaded HTML or SVG file must not run scripts in this origin.
      res.writeHeader('Content-Security-Policy', "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox");
      validators(res);
      if (range) res.writeHeader('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
      if (head) res.endWithoutBody(length);
      else if (length === 0) res.end();
    });
    if (head || length === 0) { ex.done(range ? 206 : 200, 0); return; }
    await stream(ex, fh, start, length);
    if (!ex.aborted) ex.done(range ? 206 : 200, length);
  } catch {
    if (!ex.aborted) { ex.res.close(); ex.aborted = true; ex.done(500, 0); }
  } finally {
    await fh.close();
  }
}

/** Reads the file in chunks and writes each with tryEnd, waiting on onWritable when uWS is full. */
async function stream(ex: Exchange, fh: import('node:fs/promises').FileHandle, offset: number, size: number): Promise<void> {
  const res = ex.res;
  const state = ex;
  let position = 0;
  const buf = Buffer.allocUnsafe(Math.min(CHUNK, size));
  while (position < size && !state.aborted) {
    const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, size - position), offset + position);
    if (state.aborted) return;
    // The file shrank under us: the promised length can no longer be kept.
    if (bytesRead === 0) { res.close(); return; }
    const chunk = buf.buffer.slice(buf.byteOffset, buf.byteOffset + bytesRead);
    let ok = false, done = false;
    const start = res.getWriteOffset();
    res.cork(() => { [ok, done] = res.tryEnd(chunk, size); });
    if (!ok && !done) {
      // tryEnd does not buffer the unsent rest: resend it from the offset uWS reports when writable.
      done = await new Promise<boolean>((resolveWritable) => {
        res.onWritable((offset) => {
          const [ok2, done2] = res.tryEnd(chunk.slice(offset - start), size);
          if (ok2 || done2) resolveWritable(done2);
          return ok2;
        });
        res.onAborted(() => { state.aborted = true; ex.done(499, 0); resolveWritable(true); });
      });
    }
    if (done) return;
    position += bytesRead;
  }
}
