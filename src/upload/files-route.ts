// GET /api/upload/files (a bare array, no envelope), GET /api/upload/files/page (findPage: the REST
// envelope with its pagination), GET and DELETE /api/upload/files/:id (the record; DELETE answers the deleted one). Unknown ids answer Strapi's `file.notFound`. With a private provider
// (aws-s3 with the `private` ACL) the records read here carry signed URLs, as Strapi's upload service's
// findOne/findMany sign them (signFileUrls).
import type { RestContext } from '../rest/router.ts';
import type { Reply } from '../rest/reply.ts';
import type { Task } from '../task.ts';
import { ApiError } from '../../compiler/errors.ts';
import { storedFileNames } from './record.ts';
import type { Caller } from '../auth/permissions.ts';
import type { Pagination } from '../../compiler/ast.ts';
import type { Storage } from './storage.ts';
import type { UploadDeps } from './upload-route.ts';

export const fileNotFound = () => new ApiError(404, 'NotFoundError', 'file.notFound', {});

/** A path segment as a record id; anything else cannot name a file. */
export function fileId(segment: string): number {
  // Record ids are PostgreSQL integers: anything longer names no file.
  if (!/^\d{1,9}$/.test(segment)) throw fileNotFound();
  return Number(segment);
}

interface SignableFormat { hash: string; ext: string; url: string; isUrlSigned?: boolean }
interface SignableRecord extends SignableFormat { provider: string; formats: Record<string, SignableFormat> | null; isUrlSigned: boolean }

/** Strapi's signFileUrls on rendered records: this provider's files (and each format) get a signed URL and isUrlSigned. */
export async function signRecords(storage: Storage, json: string): Promise<string> {
  if (!storage.isPrivate()) return json;
  const parsed = JSON.parse(json) as SignableRecord | SignableRecord[];
  const records = Array.isArray(parsed) ? parsed : [parsed];
  const sign = async (f: SignableFormat) => { f.url = await storage.signedUrl(f); f.isUrlSigned = true; };
  await Promise.all(records.filter((r) => r.provider === storage.provider)
    .flatMap((r) => [sign(r), ...Object.values(r.formats ?? {}).map(sign)]));
  return JSON.stringify(parsed);
}

export async function listFiles(ctx: RestContext, deps: UploadDeps, task: Task, caller: Caller): Promise<Reply> {
  return { status: 200, body: await signRecords(deps.storage, await deps.reads.list(ctx, caller, task.query)) };
}

/** GET /api/upload/files/page: `{ data, meta: { pagination } }`; total and pageCount only when counted. */
export async function pageFiles(ctx: RestContext, deps: UploadDeps, task: Task, caller: Caller): Promise<Reply> {
  const { data, plan, total } = await deps.reads.page(ctx, caller, task.query);
  return { status: 200, body: `{"data":${await signRecords(deps.storage, data)},"meta":{"pagination":${JSON.stringify(pageMeta(plan.pagination, total))}}}` };
}

/** Strapi's pagination info (transformPagedPaginationInfo / transformOffsetPaginationInfo), without the count when not counted. */
function pageMeta(p: Pagination, total: number | null): Record<string, number> {
  const counted = (m: Record<string, number>, extra: Record<string, number>) => (total === null ? m : { ...m, ...extra });
  return p.mode === 'page'
    ? counted({ page: p.page, pageSize: p.pageSize }, { pageCount: Math.ceil((total ?? 0) / p.pageSize), total: total ?? 0 })
    : counted({ start: p.start, limit: p.limit }, { total: total ?? 0 });
}

/** One record: Strapi validates `fields` here but reads the whole record (its findOne takes the populate only). */
export async function getFile(ctx: RestContext, deps: UploadDeps, id: number, task: Task, caller: Caller): Promise<Reply> {
  const json = await deps.reads.one(ctx, caller, id, task.query);
  if (!json) throw fileNotFound();
  return { status: 200, body: await signRecords(deps.storage, json) };
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
  // Files go once the record is gone: a failure here leaves an orphan file, never a broken record. Only
  // the current provider's (Strapi leaves another provider's files alone).
  if (result.stored.provider === deps.storage.provider) await deps.storage.removeAll(storedFileNames(result.stored));
  // Strapi answers the record it read (findOne, signed) before removing it.
  return { status: 200, body: await signRecords(deps.storage, result.json) };
}
