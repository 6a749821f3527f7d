// PostgreSQL clusters of a test's own (the PostgreSQL 15 binaries Debian installs), run as the `postgres`
// OS user when the tests run as root: a primary, and streaming replicas made with pg_basebackup.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, chownSync, appendFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';

const BIN = '/usr/lib/postgresql/15/bin';

const asPostgres = (cmd: string, args: string[]) => {
  const line = [`${BIN}/${cmd}`, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return userInfo().uid === 0 ? execFileSync('su', ['postgres', '-s', '/bin/sh', '-c', line], { stdio: 'pipe' }) : execFileSync(`${BIN}/${cmd}`, args, { stdio: 'pipe' });
};

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); });
    s.on('error', reject);
  });
}

export interface Cluster {
  port: number;
  dir: string;
  url(db?: string): string;
  start(): void;
  stop(mode?: 'fast' | 'immediate'): void;
  remove(): void;
}

function cluster(dir: string, port: number): Cluster {
  const data = join(dir, 'data');
  return {
    port, dir,
    url: (db = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${db}`,
    start: () => { asPostgres('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '30', 'start']); },
    stop: (mode = 'fast') => { try { asPostgres('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']); } catch { /* already stopped */ } },
    remove: () => { rmSync(dir, { recursive: true, force: true }); },
  };
}

function ownedDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (userInfo().uid === 0) chownSync(dir, 101, 104);
  return dir;
}

/** A new primary cluster (trust auth on 127.0.0.1, replication allowed), started. */
export async function startPrimary(): Promise<Cluster> {
  const dir = ownedDir('fastrapi-pg-');
  const port = await freePort();
  asPostgres('initdb', ['-D', join(dir, 'data'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  const conf = `port = ${port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${dir}'\nwal_level = replica\nmax_wal_senders = 5\nfsync = off\n`;
  appendFileSync(join(dir, 'data', 'postgresql.conf'), conf);
  const c = cluster(dir, port);
  c.start();
  return c;
}

/** A streaming replica of `primary` (pg_basebackup -R), started. */
export async function startReplica(primary: Cluster): Promise<Cluster> {
  const dir = ownedDir('fastrapi-pg-replica-');
  const port = await freePort();
  asPostgres('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', join(dir, 'data'), '-R', '-X', 'stream', '-c', 'fast']);
  appendFileSync(join(dir, 'data', 'postgresql.conf'), `port = ${port}\nunix_socket_directories = '${dir}'\nhot_standby = on\n`);
  const c = cluster(dir, port);
  c.start();
  return c;
}
