// The local provider: files live flat in the upload folder as `<hash><ext>` and are served at
// `/uploads/<hash><ext>`. Writes are all-or-nothing per request so a failed upload leaves no file.
import { mkdir, writeFile, unlink, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { log } from '../log.ts';

export const PROVIDER = 'local';
export const urlOf = (fileName: string): string => `/uploads/${fileName}`;

export interface StoredBlob { fileName: string; data: Buffer }

export class LocalStorage {
  private ready: Promise<unknown> | null = null;
  constructor(readonly folder: string) {}

  private ensureFolder(): Promise<unknown> {
    return (this.ready ??= mkdir(this.folder, { recursive: true }).catch((e) => { this.ready = null; throw e; }));
  }

  /** Writes every blob or, on the first failure, removes those already written and rethrows. */
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

  /** Removes files; one already gone is not an error (the record is what counts). */
  async removeAll(fileNames: string[]): Promise<void> {
    for (const f of fileNames) {
      try { await unlink(join(this.folder, f)); } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') log.warn('could not remove upload', { file: f, error: String(e) });
      }
    }
  }
}
