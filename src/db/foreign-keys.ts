// The link columns whose targets PostgreSQL keeps in place (compiler/foreign-keys.ts), read once at start
// after the schema is synchronized: reads then skip checking that a to-one link's target exists.
import type { Sql } from 'postgres';
import { KEYED_COLUMNS_SQL, type KeyedColumn } from '../../compiler/foreign-keys.ts';
import { log } from '../log.ts';

/** The keyed link columns of the connection's schema; none when the catalog cannot be read (reads check every target). */
export async function readKeyedColumns(sql: Sql): Promise<KeyedColumn[]> {
  try {
    return [...await sql.unsafe<KeyedColumn[]>(KEYED_COLUMNS_SQL)];
  } catch (e) {
    log.warn('could not read the foreign keys of the link tables: reads check each link\'s target row', { error: String(e) });
    return [];
  }
}
