// REST reads: one compiled statement per request, whose `data` column is already the JSON text.
import type { ContentType } from '../../compiler/schema.ts';
import { listMeta, type Compiler } from '../../compiler/index.ts';
import { notFound } from '../../compiler/errors.ts';
import type { Db } from '../db/connect.ts';
import type { Reply } from './reply.ts';

export interface ReadContext {
  db: Db;
  compiler: Compiler;
  count: (n: number) => void;
  /** What the caller may populate (set once the caller is known). */
  access?: { key: string; canRead: (uid: string) => boolean };
}

export async function findMany(ctx: ReadContext, ct: ContentType, rawQuery: string): Promise<Reply> {
  const plan = ctx.compiler.read(ct, 'list', rawQuery, undefined, ctx.access);
  const rows = await ctx.db.unsafe<Array<{ data: string; total?: string }>>(plan.sql.text, plan.params as never[], { prepare: true });
  ctx.count(1);
  const row = rows[0];
  const total = plan.sql.withTotal ? Number(row.total) : null;
  return { status: 200, body: `{"data":${row.data},"meta":${listMeta(plan.pagination, total)}}` };
}

/** findOne by documentId, or the single type's document when documentId is undefined. */
export async function findOne(ctx: ReadContext, ct: ContentType, rawQuery: string, documentId?: string, status = 200): Promise<Reply> {
  const plan = ctx.compiler.read(ct, 'one', rawQuery, documentId, ctx.access);
  const rows = await ctx.db.unsafe<Array<{ data: string | null }>>(plan.sql.text, plan.params as never[], { prepare: true });
  ctx.count(1);
  const data = rows[0]?.data;
  if (!data) throw notFound();
  return { status, body: `{"data":${data},"meta":{}}` };
}
