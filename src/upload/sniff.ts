// An uploaded file's type from its first bytes, as Strapi 5.54's upload plugin detects it (the `file-type`
// package on the first 4,100 bytes: mime-validation's detectMimeType). Only binary signatures: a text file
// (plain text, SVG, CSV, JSON…) has none, and its type comes from its name (src/upload/file-type.ts).
// The formats a CMS receives; a signature file-type knows and this does not is left to the name too.

/** Bytes Strapi reads to detect a type. */
export const SNIFF_BYTES = 4100;

const ascii = (b: Uint8Array, at: number, s: string): boolean => {
  if (at + s.length > b.length) return false;
  for (let i = 0; i < s.length; i++) if (b[at + i] !== s.charCodeAt(i)) return false;
  return true;
};
const bytes = (b: Uint8Array, at: number, sig: number[]): boolean => {
  if (at + sig.length > b.length) return false;
  for (let i = 0; i < sig.length; i++) if (b[at + i] !== sig[i]) return false;
  return true;
};
const u32be = (b: Uint8Array, at: number): number => ((b[at] << 24) >>> 0) + (b[at + 1] << 16) + (b[at + 2] << 8) + b[at + 3];

/** ISO base media (`ftyp` box): the major brand names the format. */
function isoBrand(b: Uint8Array): string | undefined {
  if (!ascii(b, 4, 'ftyp') || b.length < 12 || (b[8] & 0x60) === 0) return undefined;
  const brand = String.fromCharCode(b[8], b[9], b[10], b[11]).replace('\0', ' ').trim();
  switch (brand) {
    case 'avif': case 'avis': return 'image/avif';
    case 'mif1': return 'image/heif';
    case 'msf1': return 'image/heif-sequence';
    case 'heic': case 'heix': return 'image/heic';
    case 'hevc': case 'hevx': return 'image/heic-sequence';
    case 'qt': return 'video/quicktime';
    case 'M4V': case 'M4VH': case 'M4VP': return 'video/x-m4v';
    case 'M4P': case 'F4V': case 'F4P': return 'video/mp4';
    case 'M4A': return 'audio/x-m4a';
    case 'M4B': case 'F4A': case 'F4B': return 'audio/mp4';
    default:
      if (brand.startsWith('3g2')) return 'video/3gpp2';
      if (brand.startsWith('3g')) return 'video/3gpp';
      return 'video/mp4';
  }
}

/** A PNG with an animation control chunk before its first image data is an APNG. */
function png(b: Uint8Array): string {
  for (let at = 8; at + 8 <= b.length;) {
    const length = u32be(b, at);
    if (ascii(b, at + 4, 'acTL')) return 'image/apng';
    if (ascii(b, at + 4, 'IDAT')) break;
    at += 12 + length;
  }
  return 'image/png';
}

/** Matroska or WebM: the EBML header's DocType (element 0x4282). */
function ebml(b: Uint8Array): string | undefined {
  for (let at = 4; at + 3 < Math.min(b.length, 64); at++) {
    if (b[at] !== 0x42 || b[at + 1] !== 0x82) continue;
    const size = b[at + 2] & 0x7f;
    const docType = String.fromCharCode(...b.subarray(at + 3, at + 3 + size)).replace(/\0/g, '');
    if (docType === 'webm') return 'video/webm';
    if (docType === 'matroska') return 'video/matroska';
    return undefined;
  }
  return undefined;
}

function ogg(b: Uint8Array): string {
  if (ascii(b, 28, 'OpusHead')) return 'audio/ogg; codecs=opus';
  if (bytes(b, 28, [0x80]) && ascii(b, 29, 'theora')) return 'video/ogg';
  if (bytes(b, 28, [0x01]) && ascii(b, 29, 'video')) return 'video/ogg';
  if (bytes(b, 28, [0x7f]) && ascii(b, 29, 'FLAC')) return 'audio/ogg';
  if (ascii(b, 28, 'Speex  ')) return 'audio/ogg';
  if (bytes(b, 28, [0x01]) && ascii(b, 29, 'vorbis')) return 'audio/ogg';
  return 'application/ogg';
}

/** The type the bytes show, undefined when they show none (text, or a format not listed here). */
export function sniffMime(data: Uint8Array): string | undefined {
  const b = data.length > SNIFF_BYTES ? data.subarray(0, SNIFF_BYTES) : data;
  if (b.length < 2) return undefined;
  if (bytes(b, 0, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (bytes(b, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return png(b);
  if (ascii(b, 0, 'GIF8')) return 'image/gif';
  if (ascii(b, 0, 'RIFF')) {
    if (ascii(b, 8, 'WEBP')) return 'image/webp';
    if (ascii(b, 8, 'AVI')) return 'video/vnd.avi';
    if (ascii(b, 8, 'WAVE')) return 'audio/wav';
  }
  const brand = isoBrand(b);
  if (brand) return brand;
  if (['free', 'mdat', 'moov', 'wide'].some((box) => ascii(b, 4, box))) return 'video/quicktime';
  if (bytes(b, 0, [0x1a, 0x45, 0xdf, 0xa3])) return ebml(b);
  if (ascii(b, 0, '%PDF')) return 'application/pdf';
  if (bytes(b, 0, [0x50, 0x4b, 0x03, 0x04])) return 'application/zip';
  if (bytes(b, 0, [0x1f, 0x8b, 0x08])) return 'application/gzip';
  if (ascii(b, 0, 'BZh')) return 'application/x-bzip2';
  if (bytes(b, 0, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])) return 'application/x-xz';
  if (bytes(b, 0, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return 'application/x-7z-compressed';
  if (ascii(b, 0, 'Rar!') && bytes(b, 4, [0x1a, 0x07]) && (b[6] === 0 || b[6] === 1)) return 'application/x-rar-compressed';
  if (bytes(b, 0, [0x28, 0xb5, 0x2f, 0xfd])) return 'application/zstd';
  if (ascii(b, 257, 'ustar')) return 'application/x-tar';
  if (ascii(b, 0, 'II*\0') || ascii(b, 0, 'MM\0*') || ascii(b, 0, 'II+\0')) return ascii(b, 8, 'CR') && b[0] === 0x49 ? 'image/x-canon-cr2' : 'image/tiff';
  if (ascii(b, 0, '8BPS')) return 'image/vnd.adobe.photoshop';
  if (bytes(b, 0, [0xff, 0x0a]) || bytes(b, 0, [0x00, 0x00, 0x00, 0x0c, 0x4a, 0x58, 0x4c, 0x20, 0x0d, 0x0a, 0x87, 0x0a])) return 'image/jxl';
  if (bytes(b, 0, [0x00, 0x00, 0x00, 0x0c, 0x6a, 0x50, 0x20, 0x20, 0x0d, 0x0a, 0x87, 0x0a])) return 'image/jp2';
  if (bytes(b, 0, [0x00, 0x00, 0x01, 0x00]) || bytes(b, 0, [0x00, 0x00, 0x02, 0x00])) return 'image/x-icon';
  if (ascii(b, 0, 'ID3') && b.length >= 10) {
    // An ID3 tag (its size in 7-bit bytes) is skipped and what follows is read; a tag past the bytes read is an MP3.
    const next = 10 + (((b[6] & 0x7f) << 21) | ((b[7] & 0x7f) << 14) | ((b[8] & 0x7f) << 7) | (b[9] & 0x7f));
    return next + 2 > b.length ? 'audio/mpeg' : sniffMime(b.subarray(next));
  }
  if (ascii(b, 0, 'fLaC')) return 'audio/flac';
  if (ascii(b, 0, 'OggS')) return ogg(b);
  if (ascii(b, 0, 'FORM') && (ascii(b, 8, 'AIFF') || ascii(b, 8, 'AIFC'))) return 'audio/aiff';
  if (ascii(b, 0, 'MThd')) return 'audio/midi';
  if (ascii(b, 0, '#!AMR')) return 'audio/amr';
  if (ascii(b, 0, 'FLV\x01')) return 'video/x-flv';
  if (ascii(b, 0, 'wOFF') && (bytes(b, 4, [0x00, 0x01, 0x00, 0x00]) || ascii(b, 4, 'OTTO'))) return 'font/woff';
  if (ascii(b, 0, 'wOF2') && (bytes(b, 4, [0x00, 0x01, 0x00, 0x00]) || ascii(b, 4, 'OTTO'))) return 'font/woff2';
  if (ascii(b, 0, 'OTTO')) return 'font/otf';
  if (bytes(b, 0, [0x00, 0x01, 0x00, 0x00, 0x00])) return 'font/ttf';
  if (bytes(b, 0, [0x00, 0x61, 0x73, 0x6d])) return 'application/wasm';
  if (ascii(b, 0, 'SQLite format 3\0')) return 'application/x-sqlite3';
  if (ascii(b, 0, '%!PS')) return ascii(b, 14, ' EPSF-') ? 'application/eps' : 'application/postscript';
  if (ascii(b, 0, '<?xml ') || (bytes(b, 0, [0xef, 0xbb, 0xbf]) && ascii(b, 3, '<?xml '))) return 'application/xml';
  if (ascii(b, 0, 'BEGIN:')) {
    if (ascii(b, 6, 'VCARD')) return 'text/vcard';
    if (ascii(b, 6, 'VCALENDAR')) return 'text/calendar';
  }
  if (ascii(b, 0, 'BM')) return 'image/bmp';
  if (ascii(b, 0, 'MZ')) return 'application/x-msdownload';
  // MPEG audio frames (no ID3 tag): a frame sync, then the layer.
  if (b[0] === 0xff && (b[1] & 0xe0) === 0xe0) {
    if ((b[1] & 0x16) === 0x10) return (b[1] & 0x08) ? 'audio/mpeg' : 'audio/aac';
    if ((b[1] & 0x06) !== 0) return 'audio/mpeg';
  }
  return undefined;
}
