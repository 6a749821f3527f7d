// `npm run indexes` prints the indexes beyond Strapi's that make this server's reads cheap on large
// tables (compiler/indexes.ts), marking those that exist; `npm run indexes -- --apply` creates the
// missing ones (src/db/indexes.ts: concurrently, one at a time; an invalid one left by an interrupted
// build is built again) and analyzes their tables. Row counters (compiler/counts.ts) are advised and
// installed the same way: triggers on each collection type's table that keep its exact row count.
// `--for PATH` (repeatable) advises instead the indexes that serve those GET requests' filters and sorts
// (compiler/indexes.ts `queryIndexes`) and the link counters for their totals (compiler/counts.ts
// `queryCounters`), skipping tables too small for either to matter (`--min-rows`, by PostgreSQL's
// estimate: 10,000 unless given).
import { loadServerConfig } from '../project/config-files.ts';
import { loadModels } from '../models.ts';
import { setLogLevel } from '../log.ts';
import { advisedIndexes, queryIndexes, type IndexAdvice } from '../../compiler/indexes.ts';
import { Compiler } from '../../compiler/index.ts';
import type { Schema } from '../../compiler/schema.ts';
import { concurrently, createIndexes, indexStates } from '../db/indexes.ts';
import { TableSizes } from '../db/table-sizes.ts';
import { advisedCounters, distinctCounters, queryCounters, COUNTS_DDL, type CounterAdvice } from '../../compiler/counts.ts';
import { countedTables, installCounters } from '../db/counts.ts';
import { openDatabase } from './database.ts';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const valued = new Set(['--for', '--min-rows']);
  const paths = args.flatMap((a, i) => (args[i - 1] === '--for' ? [a] : []));
  const minRows = args.includes('--min-rows') ? Number(args[args.indexOf('--min-rows') + 1]) : SMALL_TABLE;
  if (args.some((a, i) => a !== '--apply' && !valued.has(a) && !valued.has(args[i - 1])) || valued.has(args.at(-1)!) || !(minRows >= 0)) {
    console.error('usage: npm run indexes [-- [--for /api/…?query]… [--min-rows N] --apply]');
    process.exit(2);
  }
  const { config } = await loadServerConfig(process.env, []);
  setLogLevel('warn');
  const schema = loadModels(config.modelsDir, { ...config.i18n, customFields: config.customFields });
  const db = await openDatabase(config);
  try {
    const say = (line: string) => console.log(line);
    let advice: IndexAdvice[], counters: CounterAdvice[];
    if (paths.length) {
      const compiler = new Compiler(schema, { ...config.api.rest, maxResponseSize: config.http.maxResponseSize });
      const queries = paths.map((p) => readQueryOf(schema, compiler, '/api', p));
      const sizes = new TableSizes(db.sql, minRows);
      await sizes.refresh();
      const large = (t: string) => minRows <= 0 || sizes.isLarge(t);
      advice = dedupe(queries.flatMap((query) => queryIndexes(schema, query))).filter((a) => large(a.table));
      counters = distinctCounters(queries.flatMap(queryCounters).filter((c) => large(c.table)));
    } else {
      advice = advisedIndexes(schema);
      counters = advisedCounters(schema);
    }
    if (args.includes('--apply')) {
      if ((await createIndexes(db.sql, advice, say)) + (await installCounters(db.sql, counters, say)) === 0) console.log('every advised index and counter exists');
      return;
    }
    const states = await indexStates(db.sql, advice);
    const missing = advice.filter((a) => states.get(a.name) !== 'valid');
    for (const a of advice) if (states.get(a.name) === 'valid') console.log(`-- exists: ${a.name} (${a.why})`);
    for (const r of new Set(missing.flatMap((a) => (a.requires ? [a.requires] : [])))) console.log(`${r};`);
    for (const a of missing) console.log(`${concurrently(a)}; -- ${a.why}`);
    const counted = await countedTables(db.sql, counters);
    if (counters.some((c) => !counted.has(c.table))) console.log(`-- the row counters' table and trigger functions:\n${COUNTS_DDL.map((l) => `${l};`).join('\n')}`);
    for (const c of counters) {
      if (counted.has(c.table)) console.log(`-- exists: counters on ${c.table} (${c.why})`);
      else console.log(`-- counters on ${c.table} (${c.why}): triggers, in one transaction that holds off writes while it counts the rows:\nbegin;\n${c.install.map((l) => `${l};`).join('\n')}\ncommit;`);
    }
    const uncounted = counters.filter((c) => !counted.has(c.table)).length;
    // With --for, --apply installs only what these requests need: the hint repeats them.
    const again = paths.map((p) => `--for '${p.replace(/'/g, `'\\''`)}' `).join('') + (args.includes('--min-rows') ? `--min-rows ${minRows} ` : '');
    if (missing.length || uncounted) console.log(`-- ${missing.length} indexes and ${uncounted} counters missing: npm run indexes -- ${again}--apply creates them`);
    else if (paths.length && !advice.length && !counters.length) console.log('-- no index advised: the tables these requests filter and sort are small, or nothing in them is indexable');
  } finally {
    await db.close();
  }
}

/** The read a GET path makes: `/api/<plural>` (a list), `/api/<plural>/<documentId>`, `/api/<singular>` (a single type). */
function readQueryOf(schema: Schema, compiler: Compiler, prefix: string, path: string) {
  const [pathname, raw = ''] = path.split(/\?(.*)/s, 2);
  const rest = pathname.startsWith(`${prefix}/`) ? pathname.slice(prefix.length + 1).split('/').filter(Boolean) : [];
  const ct = rest.length ? schema.routes.get(rest[0]) : undefined;
  if (ct?.kind === 'collectionType' && rest.length <= 2) return compiler.query(ct, rest.length === 1 ? 'list' : 'one', raw, rest[1]);
  if (ct?.kind === 'singleType' && rest.length === 1) return compiler.query(ct, 'one', raw);
  throw new Error(`--for ${path}: not a content-type's GET route under ${prefix} (${prefix}/<pluralName>[/<documentId>] or ${prefix}/<singularName>)`);
}

/** Below this many rows (PostgreSQL's estimate) a table is read whole faster than an index finds its rows. */
const SMALL_TABLE = 10_000;

/** The same index advised for two paths is one. */
const dedupe = (advice: IndexAdvice[]) => [...new Map(advice.map((a) => [a.name, a])).values()];

main().catch((e) => { console.error((e as Error).message); process.exit(1); });
