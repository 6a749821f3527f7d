// POST /api/upload: new files (201, array of records); with `?id=` either replace that file's content
// (files given) or edit its fileInfo (no files), both answering the one record, as Strapi does.
import type { RestContext } from '../rest/router.ts';
import type { Reply } from '../rest/reply.ts';
import type { Task } from '../task.ts';
import { ApiError, validation } from '../../compiler/errors.ts';
import { newDocumentId } from '../db/document-id.ts';
import { editInfo, readForm, uploadInfos, type FileInfo, type Incoming, type Target } from './form.ts';
import { prepareFile, type Prepared, type UploadRules } from './prepare.ts';
import { chooseMime, type UploadSecurity } from './file-type.ts';
import { attachFiles } from './attach.ts';
import { storedFileNames, type FileRecords } from './record.ts';
import { apiUploadFolder } from './folder.ts';
import type { Storage } from './storage.ts';
import type { FilesQuery } from './files-query.ts';

/** `reads`: the content-API file reads (files-query.ts); `records`: the statements of writes and of the records they answer. */
export interface UploadDeps { records: FileRecords; reads: FilesQuery; storage: Storage; rules: UploadRules; security: UploadSecurity }

/** A file let in, with the type it is stored with and its fileInfo. */
interface Admitted { file: Incoming; mime: string; info: FileInfo }

/**
 * The files the project's upload security lets in, each with its type (Strapi 5.54's mime validation):
 * a refused one is left out with its fileInfo; none let in is the first refusal, nothing stored.
 */
function admit(files: Incoming[], info: unknown, security: UploadSecurity): Admitted[] {
  const choices = files.map((file) => chooseMime(file.filename, file.contentType, file.data, security));
  const refused = new Set(choices.flatMap((c, i) => ('error' in c ? [i] : [])));
  if (refused.size === files.length) throw validation(choices.map((c) => ('error' in c ? c.error : '')).find(Boolean) ?? 'Files are empty', {});
  // Checked after the files' types, as Strapi's controller validates the body once they are known.
  const infos = uploadInfos(info, refused, files.length - refused.size);
  const out: Admitted[] = [];
  choices.forEach((c, i) => { if ('mime' in c) out.push({ file: files[i], mime: c.mime, info: infos[out.length] ?? {} }); });
  return out;
}

const notFoundEntity = () => new ApiError(404, 'NotFoundError', 'Entity not found', {});

/** `?id=` of the query string: null when absent, a 404 when not a record id. */
function idParam(ctx: RestContext, task: Task): number | null {
  const id = ctx.compiler.parse(task.query).id;
  if (id === undefined) return null;
  if (typeof id !== 'string' || !/^\d{1,9}$/.test(id)) throw notFoundEntity();
  return Number(id);
}

export async function postUpload(ctx: RestContext, deps: UploadDeps, task: Task): Promise<Reply> {
  const id = idParam(ctx, task);
  const form = readForm(task);
  if (form.files.length === 0) {
    if (id !== null) return updateInfo(ctx, deps, id, editInfo(form.fileInfoGiven, form.fileInfo));
    throw validation('Files are empty');
  }
  // Strapi's body parser keeps no empty file (checked live: a 0-byte upload is "Files are empty").
  if (form.files.every((f) => f.data.length === 0)) throw validation('Files are empty');
  if (id !== null) {
    if (form.files.length > 1) throw new ApiError(400, 'ApplicationError', 'Cannot replace a file with multiple ones', {});
    return replace(ctx, deps, id, admit(form.files, form.fileInfo, deps.security)[0]);
  }
  return create(ctx, deps, admit(form.files, form.fileInfo, deps.security), form.target);
}

async function create(ctx: RestContext, deps: UploadDeps, files: Admitted[], target: Target | null): Promise<Reply> {
  // Every file is checked and transformed before the first byte is stored.
  const prepared: Prepared[] = [];
  for (const f of files) prepared.push(await prepareFile(f.file, f.mime, f.info, deps.rules, deps.storage));
  const names = prepared.flatMap((p) => p.blobs.map((b) => b.fileName));
  await deps.storage.writeAll(prepared.flatMap((p) => p.blobs));
  try {
    const records = await ctx.db.begin(async (tx) => {
      const out: string[] = [];
      const folder = await apiUploadFolder(tx);
      ctx.count(1);
      for (const p of prepared) {
        const json = await deps.records.insert(tx, newDocumentId(), p.row, folder);
        if (!json) throw new Error('insert returned no row');
        out.push(json);
      }
      ctx.count(out.length);
      if (target) ctx.count(await attachFiles(tx, ctx.schema, target, out.map((j) => (JSON.parse(j) as { id: number }).id)));
      return out;
    });
    return { status: 201, body: `[${records.join(',')}]` };
  } catch (e) {
    await deps.storage.removeAll(names);
    throw e;
  }
}

async function updateInfo(ctx: RestContext, deps: UploadDeps, id: number, info: FileInfo): Promise<Reply> {
  const json = await deps.records.updateInfo(ctx.db, id, info);
  ctx.count(1);
  if (!json) throw notFoundEntity();
  return { status: 200, body: json };
}

/**
 * New content under the same hash and extension, so the URL stays; stale formats are removed. A file
 * another provider stored (the provider was changed since) is uploaded anew to this one, its record
 * taking the new URLs and provider, and its old files are left where they are, as Strapi does.
 */
async function replace(ctx: RestContext, deps: UploadDeps, id: number, f: Admitted): Promise<Reply> {
  const current = await deps.records.stored(ctx.db, id, false);
  ctx.count(1);
  if (!current) throw notFoundEntity();
  const p = await prepareFile(f.file, f.mime, f.info, deps.rules, deps.storage, { hash: current.hash, ext: current.ext });
  const result = await ctx.db.begin(async (tx) => {
    // Locked again inside the transaction: a concurrent delete or replace waits or wins cleanly.
    const locked = await deps.records.stored(tx, id, true);
    if (!locked) return null;
    const same = locked.provider === deps.storage.provider;
    await deps.storage.writeAll(p.blobs, { replace: same });
    const json = await deps.records.replace(tx, id, p.row);
    ctx.count(2);
    return { json, old: same ? storedFileNames(locked) : [] };
  });
  if (!result?.json) throw notFoundEntity();
  const kept = new Set(p.blobs.map((b) => b.fileName));
  await deps.storage.removeAll(result.old.filter((n) => !kept.has(n)));
  return { status: 200, body: result.json };
}
