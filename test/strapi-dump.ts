// A database that real Strapi 5.54 made and filled (the blog of ../shared/conformance, pg_dump plain
// format, copied into test/fixtures/strapi), loaded without psql so the suite runs where only the
// embedded PostgreSQL exists.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { startEmbedded } from '../src/db/embedded.ts';
import { createTestDatabase, type TestDatabase } from './helpers.ts';

export const STRAPI_DUMP = fileURLToPath(new URL('./fixtures/strapi/blog-strapi-5.54.sql', import.meta.url));
/** The salt and full-access token key the dump's Strapi used (see ../shared/strapi-reference/README.md). */
export const DUMP_TOKEN_SALT = 'oracle-api-token-salt';
export const DUMP_TOKEN = 'oracle-full-access-token-0123456789abcdef0123456789abcdef';

/** Runs a plain pg_dump file: statements end with `;` at a line end, COPY data runs up to `\.`. */
export async function loadDump(url: string, file = STRAPI_DUMP): Promise<void> {
  // One connection: the dump's session settings (search_path) must hold for every statement.
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const lines = readFileSync(file, 'utf8').split('\n');
    let stmt: string[] = [];
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      if (stmt.length === 0 && (line === '' || line.startsWith('--'))) continue;
      // psql meta-commands (\restrict) and settings newer servers' pg_dump writes that an older server rejects.
      if (stmt.length === 0 && (line.startsWith('\\') || /^SET transaction_timeout/.test(line))) continue;
      stmt.push(line);
      if (!line.endsWith(';')) continue;
      const text = stmt.join('\n');
      stmt = [];
      if (/^COPY .* FROM stdin;$/.test(text)) {
        const rows: string[] = [];
        while (lines[++i] !== '\\.') rows.push(lines[i]);
        const stream = await sql.unsafe(text).writable();
        await new Promise<void>((resolve, reject) => {
          stream.on('error', reject);
          stream.on('finish', resolve);
          stream.end(rows.length ? `${rows.join('\n')}\n` : '');
        });
      } else {
        await sql.unsafe(text);
      }
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * A test database holding the dump: on DATABASE_URL's server, or in an embedded cluster that is started
 * here, loaded, and stopped again so that the server under test starts it from the same DATA_DIR.
 * `inspect` sees the loaded database before any server has started on it.
 */
export async function createDumpDatabase(inspect?: (url: string) => Promise<void>): Promise<TestDatabase> {
  const db = await createTestDatabase();
  const load = async (url: string) => { await loadDump(url); await inspect?.(url); };
  try {
    if (db.url) await load(db.url);
    else {
      const embedded = await startEmbedded(db.dataDir, 0);
      try { await load(embedded.url); } finally { await embedded.stop(); }
    }
  } catch (e) {
    await db.drop().catch(() => {});
    throw e;
  }
  return db;
}
