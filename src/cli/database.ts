// The database a command-line tool works on: DATABASE_URL, else the embedded PostgreSQL the server
// started (its URL file in DATA_DIR), else a new embedded one — the same the server would use.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sql } from 'postgres';
import type { Config } from '../../config.ts';
import { connect } from '../db/connect.ts';
import { startEmbedded, EMBEDDED_URL_FILE, type EmbeddedDb } from '../db/embedded.ts';

export interface CliDatabase { sql: Sql; close(): Promise<void> }

export async function openDatabase(config: Config): Promise<CliDatabase> {
  let url = config.databaseUrl;
  let embedded: EmbeddedDb | null = null;
  const urlFile = join(config.dataDir, EMBEDDED_URL_FILE);
  if (!url && existsSync(urlFile)) url = readFileSync(urlFile, 'utf8').trim();
  if (!url) { embedded = await startEmbedded(config.dataDir, config.db.embeddedPort); url = embedded.url; }
  const sql = connect(url, 1);
  return {
    sql,
    async close() {
      await sql.end({ timeout: 5 });
      if (embedded) await embedded.stop();
    },
  };
}
