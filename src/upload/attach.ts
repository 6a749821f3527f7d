// Strapi's `ref`/`refId`/`field` upload: the new files become the value of a media attribute of one
// entry row (refId is the row id, as in Strapi), through `files_related_mph`. Runs in the upload's transaction.
import type { TransactionSql } from 'postgres';
import type { Schema } from '../../compiler/schema.ts';
import { validation } from '../../compiler/errors.ts';
import { appendMedia, deleteMediaField, documentLockKey, insertMedia, lockKey, rowExists, rowsById } from '../../compiler/write-sql.ts';
import type { Target } from './form.ts';

/** Returns the number of statements run. */
export async function attachFiles(tx: TransactionSql, schema: Schema, target: Target, fileIds: number[]): Promise<number> {
  const ct = [...schema.contentTypes.values()].find((c) => c.uid === target.ref);
  if (!ct) throw validation(`ref ${target.ref} is not a content-type`, { errors: [] });
  const a = ct.byName.get(target.field);
  if (!a || a.kind !== 'media') throw validation(`field ${target.field} is not a media attribute of ${ct.uid}`, { errors: [] });
  if (!/^\d{1,9}$/.test(target.refId)) throw validation('refId must be an entry id', { errors: [] });
  if (!a.multiple && fileIds.length > 1) throw validation(`${a.name} must be a single file`, { errors: [] });
  const noEntry = () => validation(`No ${ct.singularName} with id ${target.refId}`, { errors: [] });
  const [row] = await tx.unsafe(rowsById(ct.table), [[Number(target.refId)]]) as unknown as Array<{ document_id: string }>;
  if (!row) throw noEntry();
  // The entry's document lock, as every write of the document takes: a publish running meanwhile
  // replaces its published row, and a link to a row deleted after this check would stay behind.
  await tx.unsafe(lockKey, [documentLockKey(ct, row.document_id)]);
  const exists = await tx.unsafe(rowExists(ct.table), [target.refId]);
  if (!exists.length) throw noEntry();
  const params = [Number(target.refId), ct.uid, a.name];
  if (!a.multiple) {
    // A single media attribute holds one file: the new one replaces it.
    await tx.unsafe(deleteMediaField, params);
    await tx.unsafe(insertMedia, [...params, fileIds]);
    return 5;
  }
  await tx.unsafe(appendMedia, [...params, fileIds]);
  return 4;
}
