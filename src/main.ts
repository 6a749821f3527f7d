// `npm start`: run one API node until SIGINT/SIGTERM, then shut down gracefully.
import { startServer } from './server.ts';
import { ConfigError } from '../config.ts';
import { ModelError } from './models.ts';
import { SchemaSyncError } from './db/schema-sync.ts';
import { PermissionConfigError } from './auth/permissions.ts';
import { log } from './log.ts';

try {
  const server = await startServer({ argv: process.argv.slice(2) });
  let signals = 0;
  const shutdown = (sig: string) => {
    if (++signals > 1) process.exit(1);
    log.info(`${sig} received: finishing in-flight requests`);
    server.stop().then(() => { log.info('stopped'); process.exit(0); }, (e) => { log.error(String(e)); process.exit(1); });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
} catch (e) {
  const known = e instanceof ConfigError || e instanceof ModelError || e instanceof SchemaSyncError || e instanceof PermissionConfigError;
  log.error(known ? (e as Error).message : `failed to start: ${String((e as Error)?.stack ?? e)}`);
  process.exit(1);
}
