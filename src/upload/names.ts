// How Strapi names an uploaded file: `hash` = slugified base name + `_` + 10 random hex characters
// (upload plugin's generateFileName, @sindresorhus/slugify with separator `_`, case kept).
import { randomBytes } from 'node:crypto';
import { extname, basename } from 'node:path';
import { extensionOf } from './mime.ts';

// @sindresorhus/transliterate's replacements that NFD decomposition alone would get wrong.
const TRANSLIT: Record<string, string> = {
  ä: 'ae', ö: 'oe', ü: 'ue', Ä: 'Ae', Ö: 'Oe', Ü: 'Ue', ß: 'ss', æ: 'ae', Æ: 'AE', ø: 'o', Ø: 'O', œ: 'oe', Œ: 'OE',
  đ: 'd', Đ: 'D', ł: 'l', Ł: 'L', þ: 'th', Þ: 'TH', ð: 'd', Ð: 'D', '&': ' and ', '♥': ' love ', '🦄': ' unicorn ',
};

function decamelize(s: string): string {
  return s
    .replace(/([A-Z]{2,})(\d+)/g, '$1 $2')
    .replace(/([a-z\d]+)([A-Z]{2,})/g, '$1 $2')
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z\d]+)/g, '$1 $2');
}

/** slugify(name, { separator: '_', lowercase: false }) as Strapi calls it. */
export function slugify(name: string): string {
  let s = [...name].map((c) => TRANSLIT[c] ?? c).join('');
  s = s.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  s = decamelize(s);
  return s.replace(/[^a-zA-Z\d]+/g, '_').replace(/_{2,}/g, '_').replace(/^_|_$/g, '');
}

export const randomSuffix = (): string => randomBytes(5).toString('hex');

export const fileHash = (baseName: string): string => `${slugify(baseName)}_${randomSuffix()}`;

/** Names Strapi refuses (formatFileInfo): path separators and characters no file system takes. */
export function isValidFilename(name: string): boolean {
  // eslint-disable-next-line no-control-regex
  return name.length > 0 && name.length <= 255 && !/[/\\\u0000-\u001f]/.test(name);
}

export interface Naming { name: string; hash: string; ext: string }

/**
 * The record's name, hash and ext from the uploaded filename, the type chosen for it and `fileInfo.name`:
 * ext comes from the uploaded filename (or the type), the hash from the shown name.
 */
export function nameFile(filename: string, mime: string, infoName: string | null | undefined): Naming {
  let ext = extname(filename);
  // The extension ends up in a URL and a file name: anything but a plain one is replaced by the type's.
  if (!/^\.[A-Za-z0-9_-]{1,16}$/.test(ext)) ext = '';
  // application/octet-stream's extension is `bin` (Strapi 5.54 via mime-types, checked live).
  if (!ext) { const e = mime === 'application/octet-stream' ? 'bin' : extensionOf(mime); ext = e ? `.${e}` : ''; }
  const name = (infoName || filename).normalize();
  return { name, hash: fileHash(basename(name, ext)), ext };
}
