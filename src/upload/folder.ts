// The media-library folder Content API uploads go to, as Strapi's upload plugin keeps it: the core
// store's `plugin_upload_api-folder` holds `{"id": n}`; when it is missing or names a deleted folder, a
// root folder "API Uploads" (or "API Uploads (1)", … when the name is taken) is created with the next
// path_id and path `/<path_id>`, and the store is pointed at it. Runs inside the upload's transaction;
// creation holds an advisory lock so concurrent first uploads share one folder.
import type { TransactionSql } from 'postgres';
import { newDocumentId } from '../db/document-id.ts';
import { CORE_STORE, UPLOAD_FOLDERS } from '../auth/tables.ts';

export interface Folder { id: number; path: string }

const F = UPLOAD_FOLDERS;
const BASE_NAME = 'API Uploads';
const LOCK_KEY = 'fastrapi.upload.api-folder';
const NOW = `date_trunc('milliseconds', now())`;

// The CASEs keep a value Strapi did not write (not an object, no numeric id) from failing the cast.
const FIND = `select f.id, f.path from ${CORE_STORE.table} s join ${F.table} f on f.id = (case when s.value ~ '^\\s*\\{'
    then (case when (s.value::jsonb->>'id') ~ '^\\d{1,9}$' then (s.value::jsonb->>'id')::integer end) end)
  where s.key = $1 order by s.id limit 1`;

async function find(tx: TransactionSql): Promise<Folder | null> {
  const rows = await tx.unsafe<Array<{ id: number; path: string }>>(FIND, [CORE_STORE.uploadApiFolder]);
  return rows[0] ? { id: Number(rows[0].id), path: rows[0].path } : null;
}

export async function apiUploadFolder(tx: TransactionSql): Promise<Folder> {
  const found = await find(tx);
  if (found) return found;
  await tx.unsafe('select pg_advisory_xact_lock(hashtext($1))', [LOCK_KEY]);
  // Another upload may have created it while this one waited for the lock.
  const again = await find(tx);
  if (again) return again;
  let name = BASE_NAME;
  for (let i = 1; ; i++) {
    const taken = await tx.unsafe(`select 1 from ${F.table} f where f.name = $1
      and not exists (select 1 from ${F.parent.table} p where p.${F.parent.folder} = f.id) limit 1`, [name]);
    if (!taken.length) break;
    name = `${BASE_NAME} (${i})`;
  }
  const [folder] = await tx.unsafe<Array<{ id: number; path: string }>>(
    `insert into ${F.table} (document_id, name, path_id, path, created_at, updated_at, published_at)
     select $1, $2, m.next, '/' || m.next, ${NOW}, ${NOW}, ${NOW} from (select coalesce(max(path_id), 0) + 1 as next from ${F.table}) m
     returning id, path`, [newDocumentId(), name]);
  const value = JSON.stringify({ id: Number(folder.id) });
  const updated = await tx.unsafe(`update ${CORE_STORE.table} set value = $2 where key = $1 returning id`, [CORE_STORE.uploadApiFolder, value]);
  if (!updated.length) {
    await tx.unsafe(`insert into ${CORE_STORE.table} (key, value, type, environment, tag) values ($1, $2, 'object', null, null)`, [CORE_STORE.uploadApiFolder, value]);
  }
  return { id: Number(folder.id), path: folder.path };
}
