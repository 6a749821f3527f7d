// Waits until the server has no statement running in PostgreSQL. autocannon closes its sockets when a
// run ends, but the server finishes what it had started (nothing cancels the SQL of a request whose
// client left), so a slow scenario would otherwise leave work that runs during the next measurement.
import type { Sql } from 'postgres';

/** Seconds spent waiting, or null when the server was still busy after `maxSeconds`. */
export async function waitForIdle(sql: Sql, maxSeconds: number): Promise<number | null> {
  const start = Date.now();
  for (;;) {
    // The server's pools (src/db/connect.ts) name themselves 'fastrapi'; this connection does too.
    const [{ n }] = await sql<Array<{ n: number }>>`
      select count(*)::int as n from pg_stat_activity
      where application_name = 'fastrapi' and state = 'active' and pid <> pg_backend_pid()`;
    const waited = (Date.now() - start) / 1000;
    if (n === 0) return waited;
    if (waited > maxSeconds) return null;
    await new Promise((r) => setTimeout(r, 200));
  }
}
