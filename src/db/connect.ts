// The postgres.js pool of one worker. Statements are prepared once per connection (postgres.js keys
// them by SQL text), which is why compiled plans share text across values.
import postgres, { type Sql } from 'postgres';
import { log, logEnabled } from '../log.ts';

export type Db = Sql;

export function connect(url: string, max: number, logQueries: boolean, statementTimeout = 0): Db {
  return postgres(url, {
    max,
    prepare: true,
    idle_timeout: 0,
    onnotice: () => {},
    debug: logQueries && logEnabled('debug') ? (_conn, query, params) => log.debug('sql', { query: query.slice(0, 500), params: params.length }) : undefined,
    connection: { application_name: 'fastrapi', statement_timeout: statementTimeout },
  });
}
