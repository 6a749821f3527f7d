// `npm run indexes` prints the indexes beyond Strapi's that make this server's reads cheap on large
// tables (compiler/indexes.ts), marking those that exist; `npm run indexes -- --apply` creates the
// missing ones, one at a time with CREATE INDEX CONCURRENTLY (reads and writes go on meanwhile), and
// analyzes their tables. An invalid index left by an interrupted build is dropped and built again.
import { loadConfig } from '../../config.ts';
import { loadModels } from '../models.ts';
import { setLogLevel } from '../log.ts';
import { advisedIndexes } from '../../compiler/indexes.ts';
import { openDatabase } from './database.ts';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.some((a) => a !== '--apply')) {
    console.error('usage: npm run indexes [-- --apply]');
    process.exit(2);
  }
  const apply = args.includes('--apply');
  const config = loadConfig(process.env, []);
  setLogLevel('warn');
  const advice = advisedIndexes(loadModels(config.modelsDir, config.i18n));
  const db = await openDatabase(config);
  const { sql } = db;
  try {
    const found = new Map((await sql.unsafe<Array<{ name: string; valid: boolean }>>(
      `select c.relname as name, i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
        where c.relnamespace = current_schema()::regnamespace and c.relname = any($1::text[])`, [advice.map((a) => a.name)])).map((r) => [r.name, r.valid]));
    const missing = advice.filter((a) => found.get(a.name) !== true);
    for (const a of advice) if (found.get(a.name) === true) console.log(`-- exists: ${a.name} (${a.why})`);
    if (!apply) {
      const required = new Set(missing.flatMap((a) => (a.requires ? [a.requires] : [])));
      for (const r of required) console.log(`${r};`);
      for (const a of missing) console.log(`${a.create.replace(/^create index/, 'create index concurrently')}; -- ${a.why}`);
      if (missing.length) console.log(`-- ${missing.length} missing: npm run indexes -- --apply creates them`);
      return;
    }
    const analyzed = new Set<string>();
    for (const a of missing) {
      if (a.requires) await sql.unsafe(a.requires);
      if (found.get(a.name) === false) await sql.unsafe(`drop index concurrently if exists "${a.name}"`);
      const started = Date.now();
      await sql.unsafe(a.create.replace(/^create index/, 'create index concurrently'));
      console.log(`created ${a.name} in ${((Date.now() - started) / 1000).toFixed(1)} s (${a.why})`);
      analyzed.add(a.table);
    }
    for (const t of analyzed) await sql.unsafe(`analyze "${t.replace(/"/g, '""')}"`);
    if (!missing.length) console.log('every advised index exists');
  } finally {
    await db.close();
  }
}

main().catch((e) => { console.error((e as Error).message); process.exit(1); });
