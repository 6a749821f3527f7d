// Runs compiler/indexes.ts's advice: which advised indexes exist (valid), and creating the missing ones
// with CREATE INDEX CONCURRENTLY, one at a time, so reads and writes go on meanwhile.
import type { Sql } from 'postgres';
import type { IndexAdvice } from '../../compiler/indexes.ts';

/** Each advised index's state: valid, invalid (an interrupted concurrent build), or missing. */
export async function indexStates(sql: Sql, advice: IndexAdvice[]): Promise<Map<string, 'valid' | 'invalid' | 'missing'>> {
  const found = new Map((await sql.unsafe<Array<{ name: string; valid: boolean }>>(
    `select c.relname as name, i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
      where c.relnamespace = current_schema()::regnamespace and c.relname = any($1::text[])`, [advice.map((a) => a.name)])).map((r) => [r.name, r.valid]));
  return new Map(advice.map((a) => [a.name, found.get(a.name) === undefined ? 'missing' : found.get(a.name) ? 'valid' : 'invalid']));
}

export const concurrently = (a: IndexAdvice) => a.create.replace(/^create index/, 'create index concurrently');

/** Creates the advised indexes that are not valid (an invalid one is dropped first), then vacuums and analyzes their tables. */
export async function createIndexes(sql: Sql, advice: IndexAdvice[], say: (line: string) => void): Promise<number> {
  const states = await indexStates(sql, advice);
  const todo = advice.filter((a) => states.get(a.name) !== 'valid');
  const tables = new Set<string>();
  for (const a of todo) {
    if (a.requires) await sql.unsafe(a.requires);
    if (states.get(a.name) === 'invalid') await sql.unsafe(`drop index concurrently if exists "${a.name}"`);
    const started = Date.now();
    await sql.unsafe(concurrently(a));
    say(`created ${a.name} in ${((Date.now() - started) / 1000).toFixed(1)} s (${a.why})`);
    tables.add(a.table);
  }
  // VACUUM sets the visibility map too: an index-only scan then skips the table for every settled row.
  for (const t of tables) await sql.unsafe(`vacuum (analyze) "${t.replace(/"/g, '""')}"`);
  return todo.length;
}
