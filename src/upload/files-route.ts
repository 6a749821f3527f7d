// GET /api/upload/files (a bare array, no envelope), GET and DELETE /api/upload/files/:id (the record;
// DELETE answers the deleted one). Unknown ids answer Strapi's `file.notFound`.
import type { RestContext } from '../rest/router.ts';
import type { Reply } from '../rest/reply.ts';
import type { Task } from '../task.ts';
import { ApiError } from '../../compiler/errors.ts';
import { FILES } from '../../compiler/layout.ts';
import { listSql } from './list-query.ts';
import { recordColumns, storedFileNames } from './record.ts';
import { PROVIDER } from './storage.ts';
import type { UploadDeps } from './upload-route.ts';

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;
export const fileNotFound = () => new ApiError(404, 'NotFoundError', 'file.notFound', {});

/** A path segment as a record id; anything else cannot name a file. */
export function fileId(segment: string): number {
  // Record ids are PostgreSQL integers: anything longer names no file.
  if (!/^\d{1,9}$/.test(segment)) throw fileNotFound();
  return Number(segment);
}

export async function listFiles(ctx: RestContext, task: Task): Promise<Reply> {
  const { where, orderBy, limit, params } = listSql(ctx.schema, ctx.compiler.parse(task.query), ctx.config.api.rest);
  const text = `select coalesce(json_agg(x), '[]')::text as data from (select ${recordColumns('f')} from ${q(FILES.table)} f ${where} ${orderBy}${limit}) x`;
  const rows = await ctx.db.unsafe<Array<{ data: string }>>(text, params as never[]);
  ctx.count(1);
  return { status: 200, body: rows[0].data };
}

export async function getFile(ctx: RestContext, deps: UploadDeps, id: number): Promise<Reply> {
  const json = await deps.records.findOne(ctx.db, id);
  ctx.count(1);
  if (!json) throw fileNotFound();
  return { status: 200, body: json };
}

export async function deleteFile(ctx: RestContext, deps: UploadDeps, id: number): Promise<Reply> {
  const result = await ctx.db.begin(async (tx) => {
    const stored = await deps.records.stored(tx, id, true);
    if (!stored) return null;
    const json = await deps.records.delete(tx, id);
    return { stored, json };
  });
  ctx.count(3);
  if (!result?.json) throw fileNotFound();
  // Files go once the record is gone: a failure here leaves an orphan file, never a broken record.
  if (result.stored.provider === PROVIDER) await deps.storage.removeAll(storedFileNames(result.stored));
  return { status: 200, body: result.json };
}
