// Image handling as Strapi's upload plugin does it with sharp (default settings: sizeOptimization on,
// responsiveDimensions on, autoOrientation off): re-encode the original at quality 80, then derive a
// thumbnail (inside 245×156) and the breakpoints large/medium/small (inside 1000/750/500 squares) that
// are smaller than the original. Reproducing the same sharp calls gives byte-identical sizes.
import sharp from 'sharp';

// Formats as sharp's metadata names them (AVIF reports `heif`, which Strapi's lists do not contain,
// so Strapi stores AVIF as a plain file; so do we).
const PROCESS = new Set(['jpeg', 'png', 'webp', 'tiff', 'svg', 'gif']);
const OPTIMIZE = new Set(['jpeg', 'png', 'webp', 'tiff']);
const RESIZE = new Set(['jpeg', 'png', 'webp', 'tiff', 'gif']);

export const THUMBNAIL = { width: 245, height: 156 };
export const BREAKPOINTS: Record<string, number> = { large: 1000, medium: 750, small: 500 };

export class InvalidImageError extends Error {}

export interface Derived { key: string; data: Buffer; width: number; height: number }
export interface ImageResult { data: Buffer; width: number; height: number; formats: Derived[] }

/** The format sharp recognizes in the bytes, or null when they are not an image it reads. */
async function formatOf(data: Buffer): Promise<string | null> {
  try { return (await sharp(data).metadata()).format ?? null; } catch { return null; }
}

/**
 * Null for a file that is not an image Strapi processes (stored as it is). Throws InvalidImageError
 * when the header says image but the pixels do not decode (Strapi's isFaultyImage).
 */
export async function processImage(data: Buffer, breakpoints: Record<string, number> | null = null): Promise<ImageResult | null> {
  const format = await formatOf(data);
  if (!format || !PROCESS.has(format)) return null;
  try { await sharp(data).stats(); } catch { throw new InvalidImageError('File is not a valid image'); }
  let original = data;
  let { width, height } = await sharp(data).metadata();
  if (OPTIMIZE.has(format)) {
    // Every frame of an animation, as Strapi's `animated: true`.
    const out = await sharp(data, { animated: true }).toFormat(format as 'jpeg' | 'png' | 'webp' | 'tiff', { quality: 80 }).toBuffer({ resolveWithObject: true });
    // The re-encoded file is kept even when bigger: Strapi 5.54 means to keep the smaller one, but reads the
    // original's size from sharp's metadata of a file path, which has none (checked live: a 6,248-byte
    // WebP is stored as its 6,452-byte re-encoding).
    original = out.data; width = out.info.width; height = out.info.pageHeight ?? out.info.height;
  }
  if (!width || !height) return { data: original, width: width ?? 0, height: height ?? 0, formats: [] };
  const formats: Derived[] = [];
  if (RESIZE.has(format)) {
    if (width > THUMBNAIL.width || height > THUMBNAIL.height) formats.push(await resize(original, 'thumbnail', THUMBNAIL.width, THUMBNAIL.height));
    for (const [key, size] of Object.entries(breakpoints ?? BREAKPOINTS)) {
      if (size < width || size < height) formats.push(await resize(original, key, size, size));
    }
  }
  return { data: original, width, height, formats };
}

async function resize(data: Buffer, key: string, width: number, height: number): Promise<Derived> {
  const out = await sharp(data, { animated: true }).resize({ width, height, fit: 'inside' }).toBuffer({ resolveWithObject: true });
  return { key, data: out.data, width: out.info.width, height: out.info.pageHeight ?? out.info.height };
}
