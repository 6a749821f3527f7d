// `npm run indexes` prints the indexes beyond Strapi's that make this server's reads cheap on large
// tables (compiler/indexes.ts), marking those that exist; `npm run indexes -- --apply` creates the
// missing ones (src/db/indexes.ts: concurrently, one at a time; an invalid one left by an interrupted
// build is built again) and analyzes their tables.
import { loadConfig } from '../../config.ts';
import { loadModels } from '../models.ts';
import { setLogLevel } from '../log.ts';
import { advisedIndexes } from '../../compiler/indexes.ts';
import { concurrently, createIndexes, indexStates } from '../db/indexes.ts';
import { openDatabase } from './database.ts';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.some((a) => a !== '--apply')) {
    console.error('usage: npm run indexes [-- --apply]');
    process.exit(2);
  }
  const config = loadConfig(process.env, []);
  setLogLevel('warn');
  const advice = advisedIndexes(loadModels(config.modelsDir, config.i18n));
  const db = await openDatabase(config);
  try {
    if (args.includes('--apply')) {
      if (!(await createIndexes(db.sql, advice, (line) => console.log(line)))) console.log('every advised index exists');
      return;
    }
    const states = await indexStates(db.sql, advice);
    const missing = advice.filter((a) => states.get(a.name) !== 'valid');
    for (const a of advice) if (states.get(a.name) === 'valid') console.log(`-- exists: ${a.name} (${a.why})`);
    for (const r of new Set(missing.flatMap((a) => (a.requires ? [a.requires] : [])))) console.log(`${r};`);
    for (const a of missing) console.log(`${concurrently(a)}; -- ${a.why}`);
    if (missing.length) console.log(`-- ${missing.length} missing: npm run indexes -- --apply creates them`);
  } finally {
    await db.close();
  }
}

main().catch((e) => { console.error((e as Error).message); process.exit(1); });
