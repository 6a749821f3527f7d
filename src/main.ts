// `npm start`: run one API node until SIGINT/SIGTERM, then shut down gracefully: stop accepting, let
// in-flight requests finish (up to SHUTDOWN_TIMEOUT), close the pools and the database, exit 0. A second
// signal exits at once.
import { startServer } from './server.ts';
import { ConfigError } from '../config.ts';
import { ModelError } from './models.ts';
import { SchemaSyncError } from './db/schema-sync.ts';
import { ProjectLoadError } from './project/load.ts';
import { PermissionConfigError } from './auth/permissions.ts';
import { loadEnvFile } from './env-file.ts';
import { log } from './log.ts';
import { installCrashHandlers } from './crash.ts';

// Uncaught exceptions and unhandled rejections are JSON log lines, and the node keeps serving (src/crash.ts).
installCrashHandlers('main');

// As Strapi: a .env in the working directory fills in what the environment does not set.
const fromFile = loadEnvFile(process.cwd());

// Handlers first: a signal during the (possibly long) start must not kill the process mid-initialisation.
let server: Awaited<ReturnType<typeof startServer>> | null = null;
let signals = 0;
const shutdown = (sig: string) => {
  if (++signals > 1) { log.warn(`${sig} received again: exiting now`); process.exit(1); }
  log.info(`${sig} received: finishing in-flight requests`);
  if (!server) { process.exitCode = 0; return; }
  server.stop().then(() => { log.info('stopped'); process.exit(0); }, (e) => { log.error(String(e)); process.exit(1); });
};
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));

try {
  if (fromFile.length) log.info('read .env', { variables: fromFile });
  server = await startServer({ argv: process.argv.slice(2) });
  // A V8 flag NODE_OPTIONS refuses, so only the command line can set it (README "Node's heap").
  if (!process.execArgv.some((a) => a.startsWith('--initial-old-space-size'))) {
    log.info('node started without --initial-old-space-size=128 (as `npm start` runs it): under load its old generation is collected about three times as often');
  }
  if (signals > 0) {
    await server.stop();
    process.exit(0);
  }
} catch (e) {
  const known = e instanceof ConfigError || e instanceof ModelError || e instanceof SchemaSyncError || e instanceof PermissionConfigError || e instanceof ProjectLoadError;
  log.error(known ? (e as Error).message : `failed to start: ${String((e as Error)?.stack ?? e)}`);
  process.exit(1);
}
