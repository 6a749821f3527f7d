// Strapi's `ref`/`refId`/`field` upload: the new files become the value of a media attribute of one
// entry row (refId is the row id, as in Strapi), through `files_related_mph`. Runs in the upload's transaction.
import type { TransactionSql } from 'postgres';
import type { Schema } from '../../compiler/schema.ts';
import { validation } from '../../compiler/errors.ts';
import { deleteMediaField, documentLockKey, linkFirst, lockKey, rowsById } from '../../compiler/write-sql.ts';
import type { Target } from './form.ts';

/**
 * Returns the number of statements run. As Strapi 5.54's upload stores them (checked live): each new link
 * with \`order\` 1, a single media attribute's earlier link replaced; a field that is no media attribute, and
 * a row id that names no entry, linked all the same (Strapi answers 201 and keeps the link; a file's
 * \`related\` shows it). An unknown \`ref\` or a \`refId\` that is no id: here a 400, where Strapi fails with a 500.
 */
export async function attachFiles(tx: TransactionSql, schema: Schema, target: Target, fileIds: number[]): Promise<number> {
  const ct = [...schema.contentTypes.values()].find((c) => c.uid === target.ref);
  if (!ct) throw validation(`ref ${target.ref} is not a content-type`, { errors: [] });
  const a = ct.byName.get(target.field);
  if (!/^\d{1,9}$/.test(target.refId)) throw validation('refId must be an entry id', { errors: [] });
  const single = a?.kind === 'media' && !a.multiple;
  if (single && fileIds.length > 1) throw validation(`${a.name} must be a single file`, { errors: [] });
  const [row] = await tx.unsafe(rowsById(ct.table), [[Number(target.refId)]]) as unknown as Array<{ document_id: string }>;
  // The entry's document lock, as every write of the document takes: a publish running meanwhile
  // replaces its published row, and a link to a row deleted after this check would stay behind.
  if (row) await tx.unsafe(lockKey, [documentLockKey(ct, row.document_id)]);
  const params = [Number(target.refId), ct.uid, target.field];
  // A single media attribute holds one file: the new one replaces it.
  if (single) await tx.unsafe(deleteMediaField, params);
  await tx.unsafe(linkFirst, [...params, fileIds]);
  return single ? 4 : 3;
}
