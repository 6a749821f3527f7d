// TEMPORARY STUB while the Strapi-layout schema creator is written (issue 12): a database Strapi made
// is used as it is; anything else is refused.
import type { Sql } from 'postgres';
import type { Schema } from '../../compiler/schema.ts';

export class SchemaSyncError extends Error {}

export interface SyncReport { created: string[]; added: string[]; dropped: string[] }

export async function syncSchema(sql: Sql, _schema: Schema, _allowDestructive: boolean): Promise<SyncReport> {
  const [{ ok }] = await sql<{ ok: boolean }[]>`select to_regclass('i18n_locale') is not null as ok`;
  if (!ok) throw new SchemaSyncError('creating a fresh database is not written yet (stub)');
  return { created: [], added: [], dropped: [] };
}

// Temporary: src/rest/write.ts still imports these until its rewrite for Strapi's layout.
export const componentSequence = (uid: string) => `fastrapi_cmp_${uid.replace(/[^A-Za-z0-9]/g, '_')}_seq`;
export function desiredTables(_schema: Schema): Array<{ name: string; columns: Array<[string, string]> }> { return []; }
