// Response compression by Accept-Encoding: brotli or gzip (node:zlib, synchronous: the bodies are
// already in memory, and a worker thread — or the main thread with WORKERS=0 — is the right place to
// spend the CPU), only for textual types and bodies above a threshold. Identical body objects (the
// GraphiQL assets, which are kept in memory) are compressed once.
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';

export type Encoding = 'br' | 'gzip';
export interface CompressOptions { threshold: number; gzipLevel: number; brotliQuality: number }

const COMPRESSIBLE = /^(application\/(json|graphql-response\+json|javascript|xml)|text\/)/;

export const compressible = (contentType: string): boolean => COMPRESSIBLE.test(contentType);

/**
 * The encoding to use for an Accept-Encoding header, or null for identity. Brotli first (smaller at the
 * same CPU cost once its quality is moderate), then gzip; `q=0` refuses an encoding, `*` accepts any.
 */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding | null {
  if (!acceptEncoding) return null;
  let br = false, gzip = false, star = false;
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean);
    if (q && !(Number(q[1]) > 0)) continue;
    if (name === 'br') br = true;
    else if (name === 'gzip' || name === 'x-gzip') gzip = true;
    else if (name === '*') star = true;
  }
  return br || star ? 'br' : gzip ? 'gzip' : null;
}

const cache = new WeakMap<Uint8Array, Partial<Record<Encoding, Buffer>>>();

export function compress(body: string | Uint8Array, encoding: Encoding, opts: CompressOptions): Buffer {
  const cached = typeof body === 'string' ? undefined : cache.get(body)?.[encoding];
  if (cached) return cached;
  const input = typeof body === 'string' ? Buffer.from(body) : body;
  const out = encoding === 'br'
    ? brotliCompressSync(input, { params: { [constants.BROTLI_PARAM_QUALITY]: opts.brotliQuality, [constants.BROTLI_PARAM_SIZE_HINT]: input.byteLength, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } })
    : gzipSync(input, { level: opts.gzipLevel });
  if (typeof body !== 'string') {
    const entry = cache.get(body) ?? {};
    entry[encoding] = out;
    cache.set(body, entry);
  }
  return out;
}
