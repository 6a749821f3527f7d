// One version row of a document (its status and locale) read as REST answers it, by one compiled 'one'
// read: what webhooks send as an event's entry (own fields, or populated as Strapi's events) and what
// lifecycle hooks get as `result`. `run` says where (a write's transaction, or a read pool).
import type { Compiler } from '../../compiler/index.ts';
import type { ContentType } from '../../compiler/schema.ts';

/** Runs a statement and gives its rows (prepared when `prepare`). */
export type RunStatement = (text: string, params: unknown[], prepare: boolean) => Promise<Array<Record<string, unknown>>>;

export interface VersionRef { documentId: string; locale: string | null; published: boolean }

/** The row's JSON (`populate`: a query-string part, '' for its own fields only), or null when it is not there. */
export async function readVersion(compiler: Compiler, run: RunStatement, ct: ContentType, v: VersionRef, populate = ''): Promise<Record<string, unknown> | null> {
  const parts: string[] = [];
  if (ct.draftAndPublish) parts.push(`status=${v.published ? 'published' : 'draft'}`);
  if (ct.localized && v.locale !== null) parts.push(`locale=${encodeURIComponent(v.locale)}`);
  if (populate) parts.push(populate);
  const plan = compiler.readRow(ct, parts.join('&'), ct.kind === 'singleType' ? undefined : v.documentId);
  const [row] = await run(plan.sql.text, plan.params, plan.sql.prepare);
  const data = row ? Object.values(row)[0] : null;
  if (data == null) return null;
  return JSON.parse(Buffer.isBuffer(data) ? data.toString() : String(data)) as Record<string, unknown>;
}
