// GET/HEAD /uploads/<file>: the front end serves the local provider's files itself (no worker, no
// database), streamed with uWS backpressure, with a Content-Type from the extension and never a path
// outside the upload folder.
import type uWS from 'uWebSockets.js';
import { open } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { mimeOf } from './mime.ts';
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

export function serveUpload(res: uWS.HttpResponse, req: uWS.HttpRequest, folder: string, head: boolean): void {
  const state = { aborted: false };
  res.onAborted(() => { state.aborted = true; });
  const path = uploadPath(folder, req.getUrl());
  const ext = path ? path.slice(path.lastIndexOf('.')) : '';
  const type = mimeOf(ext) ?? 'application/octet-stream';
  void send(res, state, path, TEXT.test(type) ? `${type}; charset=utf-8` : type, head);
}

function notFound(res: uWS.HttpResponse, state: { aborted: boolean }): void {
  if (state.aborted) return;
  res.cork(() => { res.writeStatus('404 Not Found').writeHeader('Content-Type', 'text/plain; charset=utf-8').end('Not Found'); });
}

async function send(res: uWS.HttpResponse, state: { aborted: boolean }, path: string | null, type: string, head: boolean): Promise<void> {
  if (!path) return notFound(res, state);
  let fh;
  try { fh = await open(path, 'r'); } catch { return notFound(res, state); }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return notFound(res, state);
    if (state.aborted) return;
    const size = st.size;
    res.cork(() => {
      res.writeStatus('200 OK').writeHeader('Content-Type', type).writeHeader('X-Content-Type-Options', 'nosniff')
        // An uploaded HTML or SVG file must not run scripts in this origin.
        .writeHeader('Content-Security-Policy', "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox")
        .writeHeader('Cache-Control', 'public, max-age=60').writeHeader('Last-Modified', st.mtime.toUTCString());
      if (head) res.endWithoutBody(size);
      else if (size === 0) res.end();
    });
    if (head || size === 0) return;
    await stream(res, state, fh, size);
  } catch {
    if (!state.aborted) res.close();
  } finally {
    await fh.close();
  }
}

/** Reads the file in chunks and writes each with tryEnd, waiting on onWritable when uWS is full. */
async function stream(res: uWS.HttpResponse, state: { aborted: boolean }, fh: import('node:fs/promises').FileHandle, size: number): Promise<void> {
  let position = 0;
  const buf = Buffer.allocUnsafe(Math.min(CHUNK, size));
  while (position < size && !state.aborted) {
    const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, size - position), position);
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
        res.onAborted(() => { state.aborted = true; resolveWritable(true); });
      });
    }
    if (done) return;
    position += bytesRead;
  }
}
