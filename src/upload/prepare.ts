// One uploaded file → the record row and the blobs to store, all computed in memory before anything
// is written, so a bad file (too big, bad name, broken image) stops the request with nothing stored.
import { ApiError } from '../../compiler/errors.ts';
import { processImage, InvalidImageError } from './image.ts';
import { isValidFilename, nameFile } from './names.ts';
import type { Storage, StoredBlob } from './storage.ts';
import type { FileRow, FormatEntry } from './record.ts';
import type { FileInfo, Incoming } from './form.ts';

export interface Prepared { row: FileRow; blobs: StoredBlob[] }

/** Strapi's bytesToKbytes: KB (1000 bytes) with two decimals. */
export const kb = (bytes: number): number => Math.round((bytes / 1000) * 100) / 100;

/** Strapi's bytesToHumanReadable, used in its size-limit message. */
export function humanSize(bytes: number): string {
  const units = ['Bytes', 'KB', 'MB', 'GB', 'TB', 'PB'];
  if (bytes === 0) return '0 Bytes';
  const i = Math.floor(Math.log(bytes) / Math.log(1000));
  return `${Math.round(bytes / 1000 ** i)} ${units[i]}`;
}

export const tooLarge = (filename: string, limit: number) =>
  new ApiError(413, 'PayloadTooLargeError', `${filename} exceeds size limit of ${humanSize(limit)}.`, {});
const invalid = (message: string) => new ApiError(400, 'ApplicationError', message, {});

/** What the project's upload configuration decides for each file. */
export interface UploadRules { maxFileSize: number; breakpoints: Record<string, number> | null }

/**
 * `mime`: the type chosen for it (src/upload/file-type.ts). `keep` pins hash and ext (replacing a file
 * keeps its URL); URLs and the provider name are `storage`'s.
 */
export async function prepareFile(file: Incoming, mime: string, info: FileInfo, rules: UploadRules, storage: Storage, keep?: { hash: string; ext: string }): Promise<Prepared> {
  if (file.data.length > rules.maxFileSize) throw tooLarge(file.filename, rules.maxFileSize);
  // Strapi checks the uploaded file's name only: fileInfo.name is a label (its hash is slugified).
  if (!isValidFilename(file.filename)) throw invalid('File name contains invalid characters');
  const naming = nameFile(file.filename, mime, info.name);
  const hash = keep?.hash ?? naming.hash;
  const ext = keep?.ext ?? naming.ext;
  let image;
  // Whatever the type says: an image is what sharp reads as one (Strapi's isImage), and one whose
  // pixels do not decode is refused (isFaultyImage); other bytes are stored as they are.
  try { image = await processImage(file.data, rules.breakpoints); } catch (e) {
    if (e instanceof InvalidImageError) throw invalid(e.message);
    throw e;
  }
  const data = image?.data ?? file.data;
  const blobs: StoredBlob[] = [{ fileName: `${hash}${ext}`, data, mime: mime }];
  let formats: Record<string, FormatEntry> | null = null;
  for (const f of image?.formats ?? []) {
    const fHash = `${f.key}_${hash}`;
    blobs.push({ fileName: `${fHash}${ext}`, data: f.data, mime: mime });
    (formats ??= {})[f.key] = {
      ext, url: storage.urlOf(`${fHash}${ext}`), hash: fHash, mime: mime, name: `${f.key}_${naming.name}`, path: null,
      size: kb(f.data.length), width: f.width, height: f.height, sizeInBytes: f.data.length,
    };
  }
  return {
    blobs,
    row: {
      name: naming.name, alternativeText: info.alternativeText ?? null, caption: info.caption ?? null,
      width: image ? image.width : null, height: image ? image.height : null, focalPoint: info.focalPoint ?? null, formats, hash, ext, mime: mime,
      size: kb(data.length), url: storage.urlOf(`${hash}${ext}`), provider: storage.provider,
    },
  };
}
