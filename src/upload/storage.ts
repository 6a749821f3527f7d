// Upload providers (Strapi's `plugin::upload` provider): where a file's bytes go and the URL its record
// gets. The local provider keeps files flat in the upload folder as `<hash><ext>`, served at
// `/uploads/<hash><ext>`; s3.ts is `aws-s3`. Writes are all-or-nothing per request so a failed upload
// leaves no file.
import { mkdir, writeFile, unlink, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { log } from '../log.ts';

export interface StoredBlob { fileName: string; data: Buffer; mime: string }

/** A record's file (or one of its formats) as a provider finds it: `<hash><ext>` and its stored URL. */
export interface StoredFile { hash: string; ext: string; url: string }

export interface Storage {
  /** The `provider` column of the records it writes (Strapi's provider name). */
  readonly provider: string;
  /** The URL a record gets for a stored `<hash><ext>`. */
  urlOf(fileName: string): string;
  /** Writes every blob or, on the first failure, removes those already written and rethrows. */
  writeAll(blobs: StoredBlob[], opts?: { replace?: boolean }): Promise<void>;
  /** Removes files; one already gone is not an error (the record is what counts). */
  removeAll(fileNames: string[]): Promise<void>;
  /** Strapi's `provider.isPrivate()`: reads through the upload API answer signed URLs. */
  isPrivate(): boolean;
  /** Strapi's `provider.getSignedUrl(file)`: a URL readable for a while, or the stored one when not this provider's. */
  signedUrl(file: StoredFile): Promise<string>;
}

export class LocalStorage implements Storage {
  readonly provider = 'local';
  private ready: Promise<unknown> | null = null;
  constructor(readonly folder: string) {}

  urlOf(fileName: string): string { return `/uploads/${fileName}`; }
  isPrivate(): boolean { return false; }
  signedUrl(file: StoredFile): Promise<string> { return Promise.resolve(file.url); }

  private ensureFolder(): Promise<unknown> {
    return (this.ready ??= mkdir(this.folder, { recursive: true }).catch((e) => { this.ready = null; throw e; }));
  }

  async writeAll(blobs: StoredBlob[], opts: { replace?: boolean } = {}): Promise<void> {
    await this.ensureFolder();
    const done: string[] = [];
    try {
      for (const b of blobs) {
        const path = join(this.folder, b.fileName);
        if (opts.replace) {
          // Readers of the old file never see a half-written one.
          const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
          await writeFile(tmp, b.data, { flag: 'wx' });
          await rename(tmp, path);
        } else {
          // `wx`: a hash collision must never overwrite another record's file.
          await writeFile(path, b.data, { flag: 'wx' });
        }
        done.push(b.fileName);
      }
    } catch (e) {
      if (!opts.replace) await this.removeAll(done);
      throw e;
    }
  }

  async removeAll(fileNames: string[]): Promise<void> {
    for (const f of fileNames) {
      try { await unlink(join(this.folder, f)); } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') log.warn('could not remove upload', { file: f, error: String(e) });
      }
    }
  }
}
