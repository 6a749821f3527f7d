// Strapi's `ref`/`refId`/`field` upload: the new files become the value of a media attribute of one
// entry row (refId is the row id, as in Strapi). Runs in the upload's transaction.
import type { TransactionSql } from 'postgres';
import type { Schema } from '../../compiler/schema.ts';
import { validation } from '../../compiler/errors.ts';
import type { Target } from './form.ts';

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;

export async function attachFiles(tx: TransactionSql, schema: Schema, target: Target, fileIds: number[]): Promise<number> {
  const ct = [...schema.contentTypes.values()].find((c) => c.uid === target.ref);
  if (!ct) throw validation(`ref ${target.ref} is not a content-type`, { errors: [] });
  const a = ct.byName.get(target.field);
  if (!a || a.kind !== 'media') throw validation(`field ${target.field} is not a media attribute of ${ct.uid}`, { errors: [] });
  if (!/^\d+$/.test(target.refId)) throw validation('refId must be an entry id', { errors: [] });
  if (!a.multiple && fileIds.length > 1) throw validation(`${a.name} must be a single file`, { errors: [] });
  if (!a.multiple) {
    const rows = await tx.unsafe(`update ${q(ct.table)} set ${q(a.column)} = $2::bigint where id = $1::bigint returning id`, [target.refId, fileIds[0]]);
    if (!rows.length) throw validation(`No ${ct.singularName} with id ${target.refId}`, { errors: [] });
    return 1;
  }
  const exists = await tx.unsafe(`select 1 from ${q(ct.table)} where id = $1::bigint`, [target.refId]);
  if (!exists.length) throw validation(`No ${ct.singularName} with id ${target.refId}`, { errors: [] });
  // Appended after the files the entry already has.
  await tx.unsafe(`insert into ${q(a.linkTable)} (source_id, file_id, position)
    select $1::bigint, f.id, coalesce((select max(position) from ${q(a.linkTable)} where source_id = $1::bigint), 0) + f.n
    from unnest($2::bigint[]) with ordinality f(id, n)`, [target.refId, fileIds]);
  return 2;
}
