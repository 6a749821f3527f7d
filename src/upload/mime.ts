// Extension ⇄ MIME type for the types people upload to a CMS; used to name files without an
// extension and to serve /uploads/* with a Content-Type (never the uploader's claim).
const TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif', apng: 'image/apng',
  svg: 'image/svg+xml', tif: 'image/tiff', tiff: 'image/tiff', ico: 'image/vnd.microsoft.icon', bmp: 'image/bmp', heic: 'image/heic',
  heif: 'image/heif', psd: 'image/vnd.adobe.photoshop', pdf: 'application/pdf', json: 'application/json', xml: 'application/xml',
  zip: 'application/zip', gz: 'application/gzip', tar: 'application/x-tar', rar: 'application/vnd.rar', '7z': 'application/x-7z-compressed',
  csv: 'text/csv', txt: 'text/plain', md: 'text/markdown', html: 'text/html', htm: 'text/html', css: 'text/css',
  js: 'application/javascript', mjs: 'application/javascript', yaml: 'text/yaml', yml: 'text/yaml', rtf: 'application/rtf',
  mp3: 'audio/mpeg', wav: 'audio/wave', ogg: 'audio/ogg', oga: 'audio/ogg', opus: 'audio/ogg', m4a: 'audio/mp4', aac: 'audio/x-aac',
  flac: 'audio/x-flac', mid: 'audio/midi', midi: 'audio/midi', mp4: 'video/mp4', m4v: 'video/x-m4v', webm: 'video/webm',
  mov: 'video/quicktime', mkv: 'video/x-matroska', avi: 'video/x-msvideo', mpeg: 'video/mpeg', mpg: 'video/mpeg', '3gp': 'video/3gpp',
  woff: 'font/woff', woff2: 'font/woff2', otf: 'font/otf', ttf: 'font/ttf', eot: 'application/vnd.ms-fontobject',
  doc: 'application/msword', docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint', pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text', ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation', epub: 'application/epub+zip', wasm: 'application/wasm',
};
// The extension of a type, as mime-types' extension() answers (the first of mime-db's list): the
// first in TYPES, but for these, and the types content detection names (src/upload/sniff.ts).
const EXTENSIONS = new Map<string, string>();
for (const [ext, type] of Object.entries(TYPES)) if (!EXTENSIONS.has(type)) EXTENSIONS.set(type, ext);
for (const [type, ext] of Object.entries({
  'image/jpeg': 'jpeg', 'audio/mpeg': 'mpga', 'video/quicktime': 'qt', 'text/markdown': 'markdown', 'image/x-icon': 'ico', 'audio/wav': 'wav',
  'audio/x-wav': 'wav', 'audio/x-m4a': 'm4a', 'application/x-rar-compressed': 'rar', 'video/3gpp2': '3g2', 'application/x-bzip2': 'bz2',
  'application/x-xz': 'xz', 'application/x-msdownload': 'exe', 'application/postscript': 'ai', 'image/jp2': 'jp2', 'video/x-flv': 'flv',
  'audio/amr': 'amr', 'text/vcard': 'vcard', 'text/calendar': 'ics', 'video/ogg': 'ogv', 'application/ogg': 'ogx', 'audio/x-aiff': 'aif',
  'image/heic-sequence': 'heics', 'image/heif-sequence': 'heifs',
})) EXTENSIONS.set(type, ext);

/** `.PNG` → image/png; null when unknown. */
export const mimeOf = (ext: string): string | null => TYPES[ext.replace(/^\./, '').toLowerCase()] ?? null;
export const extensionOf = (mime: string): string | null => EXTENSIONS.get(mime.split(';')[0].trim().toLowerCase()) ?? null;
