// `npm run indexes` prints the indexes beyond Strapi's that make this server's reads cheap on large
// tables (compiler/indexes.ts), marking those that exist; `npm run indexes -- --apply` creates the
// missing ones (src/db/indexes.ts: concurrently, one at a time; an invalid one left by an interrupted
// build is built again) and analyzes their tables. Row counters (compiler/counts.ts) are advised and
// installed the same way: triggers on each collection type's table that keep its exact row count.
import { loadServerConfig } from '../project/config-files.ts';
import { loadModels } from '../models.ts';
import { setLogLevel } from '../log.ts';
import { advisedIndexes } from '../../compiler/indexes.ts';
import { concurrently, createIndexes, indexStates } from '../db/indexes.ts';
import { advisedCounters, COUNTS_DDL } from '../../compiler/counts.ts';
import { countedTables, installCounters } from '../db/counts.ts';
import { openDatabase } from './database.ts';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.some((a) => a !== '--apply')) {
    console.error('usage: npm run indexes [-- --apply]');
    process.exit(2);
  }
  const { config } = await loadServerConfig(process.env, []);
  setLogLevel('warn');
  const schema = loadModels(config.modelsDir, { ...config.i18n, customFields: config.customFields });
  const advice = advisedIndexes(schema);
  const counters = advisedCounters(schema);
  const db = await openDatabase(config);
  try {
    if (args.includes('--apply')) {
      const say = (line: string) => console.log(line);
      if ((await createIndexes(db.sql, advice, say)) + (await installCounters(db.sql, counters, say)) === 0) console.log('every advised index and counter exists');
      return;
    }
    const states = await indexStates(db.sql, advice);
    const missing = advice.filter((a) => states.get(a.name) !== 'valid');
    for (const a of advice) if (states.get(a.name) === 'valid') console.log(`-- exists: ${a.name} (${a.why})`);
    for (const r of new Set(missing.flatMap((a) => (a.requires ? [a.requires] : [])))) console.log(`${r};`);
    for (const a of missing) console.log(`${concurrently(a)}; -- ${a.why}`);
    const counted = await countedTables(db.sql, counters);
    if (counters.some((c) => !counted.has(c.table))) console.log(`-- the row counters' table and trigger function:\n${COUNTS_DDL.map((l) => `${l};`).join('\n')}`);
    for (const c of counters) {
      if (counted.has(c.table)) console.log(`-- exists: counters on ${c.table} (${c.why})`);
      else console.log(`-- counters on ${c.table} (${c.why}): triggers, in one transaction that holds off writes while it counts the rows:\nbegin;\n${c.install.map((l) => `${l};`).join('\n')}\ncommit;`);
    }
    const uncounted = counters.filter((c) => !counted.has(c.table)).length;
    if (missing.length || uncounted) console.log(`-- ${missing.length} indexes and ${uncounted} counters missing: npm run indexes -- --apply creates them`);
  } finally {
    await db.close();
  }
}

main().catch((e) => { console.error((e as Error).message); process.exit(1); });
