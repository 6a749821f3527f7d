// Extension ⇄ MIME type for the types people upload to a CMS; used to name files without an
// extension and to serve /uploads/* with a Content-Type (never the uploader's claim).
const TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif',
  svg: 'image/svg+xml', tif: 'image/tiff', tiff: 'image/tiff', ico: 'image/x-icon', bmp: 'image/bmp', heic: 'image/heic',
  pdf: 'application/pdf', json: 'application/json', xml: 'application/xml', zip: 'application/zip',
  gz: 'application/gzip', csv: 'text/csv', txt: 'text/plain', md: 'text/markdown', html: 'text/html', htm: 'text/html',
  css: 'text/css', js: 'text/javascript', mp3: 'audio/mpeg', wav: 'audio/wav', ogg: 'audio/ogg', m4a: 'audio/mp4',
  mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime', woff: 'font/woff', woff2: 'font/woff2',
  doc: 'application/msword', docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};
// The preferred extension of a type (first in TYPES wins: jpg before jpeg, as mime-types answers).
const EXTENSIONS = new Map<string, string>();
for (const [ext, type] of Object.entries(TYPES)) if (!EXTENSIONS.has(type)) EXTENSIONS.set(type, ext);
EXTENSIONS.set('image/jpeg', 'jpeg');

/** `.PNG` → image/png; null when unknown. */
export const mimeOf = (ext: string): string | null => TYPES[ext.replace(/^\./, '').toLowerCase()] ?? null;
export const extensionOf = (mime: string): string | null => EXTENSIONS.get(mime) ?? null;
