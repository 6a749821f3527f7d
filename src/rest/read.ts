// REST reads: one compiled statement per request, whose `data` column is already the JSON text.
import type { ContentType } from '../../compiler/schema.ts';
import { listMeta, responseTooLarge, type Compiler, type QueryRewrite, type ReadPlan } from '../../compiler/index.ts';
import type { CompiledRead, SplitRead } from '../../compiler/sql.ts';
import { notFound } from '../../compiler/errors.ts';
import { standingError } from '../../compiler/deferred.ts';
import { readStatement, readsInFlight, type Db } from '../db/connect.ts';
import { splice } from './split-read.ts';
import { isTextOverflow } from '../db/errors.ts';
import type { ClientSignal } from '../task.ts';
import type { Reply } from './reply.ts';
import { contentApi, type CoreAction, type RouteParamsContext } from './route-params.ts';

export interface ReadContext extends RouteParamsContext {
  db: Db;
  compiler: Compiler;
  count: (n: number) => void;
  /** What the caller may populate (set once the caller is known). */
  access?: { key: string; canRead: (uid: string) => boolean };
  /** Tables the request's reads depended on (the response cache invalidates by them); undefined = not collected. */
  reads?: Set<string>;
  /** Where reads go (a read replica that has replayed every known write, else `primaryReads`), asked at each read. */
  reader: () => Db;
  /** The primary's pool for reads (only content reads run there, so a gone client's read can be cancelled: readStatement()). */
  primaryReads: Db;
  /** The primary's pool whose connections plan each execution with its values (`readerFor`); none when unset. */
  customReads?: Db;
  /** Set when the client went away: its running statement is cancelled and no further one issued (nobody reads the answer). */
  signal?: ClientSignal;
}

const DATA = Buffer.from('{"data":');
const LIST = Buffer.from('{"data":[');
const NONE = Buffer.alloc(0);
const ONE_END = Buffer.from(',"meta":{}}');

/**
 * Runs a read plan: its one row, raw (Buffers, postgres.js `.raw()`: the JSON PostgreSQL built is never
 * decoded into a JS string; the envelope is put around the bytes with one copy). On `db` when given
 * (reads that must see the primary), else where `ctx.reader` sends reads. A read whose data passed
 * http.maxResponseSize comes back without it, flagged in its last column: refused here.
 */
/** Where a statement runs: a custom-planned one on the primary goes to its custom-plan pool (replicas plan as they do). */
export function readerFor(ctx: ReadContext, sql: CompiledRead, db: Db = ctx.reader()): Db {
  return sql.customPlan && ctx.customReads && db === ctx.primaryReads ? ctx.customReads : db;
}

/**
 * Runs one compiled read (REST's and GraphQL's): its one row, raw; counted and its tables recorded. An answer
 * past http.maxResponseSize is refused as too large, and so is one PostgreSQL could not even build (past its
 * 1 GB text limit).
 */
export async function statementRow(ctx: ReadContext, sql: CompiledRead, params: unknown[], via?: Db): Promise<Array<Buffer | null> | undefined> {
  const rows = await readStatement(readerFor(ctx, sql, via), sql.text, params, ctx.signal, true, sql.prepare, sql).catch((e: unknown) => {
    throw sql.maxBytes && isTextOverflow(e) ? responseTooLarge(sql.maxBytes) : e;
  }) as Array<Array<Buffer | null>>;
  ctx.count(1);
  if (ctx.reads) for (const t of sql.tables) ctx.reads.add(t);
  const row = rows[0];
  if (sql.sizeChecked && row && String(row[row.length - 1]) === 't') throw responseTooLarge(sql.maxBytes!);
  return row;
}

export async function planRow(ctx: ReadContext, plan: ReadPlan, via?: Db): Promise<Array<Buffer | null> | undefined> {
  const row = await statementRow(ctx, plan.sql, plan.params, via);
  if (plan.deferred) {
    const standing = standingError(plan.deferred, plan.shape, row?.[0] ? String(row[0]) : null);
    if (standing) throw standing;
  }
  return row;
}

export async function findMany(ctx: ReadContext, ct: ContentType, rawQuery: string): Promise<Reply> {
  const plan = ctx.compiler.read(ct, 'list', rawQuery, undefined, ctx.access, undefined, contentApi(ctx, ct, 'find'));
  // (An unprepared page has no halves: compiler/cache.ts.)
  const halves = plan.sql.split;
  if (halves && !plan.deferred && readsInFlight() === 0) {
    const reply = await splitList(ctx, plan, halves);
    if (reply) return reply;
  }
  const row = (await planRow(ctx, plan))!;
  return listReply(plan, [row[0] ?? NONE], row[1]);
}

/**
 * A list's answer from its rows' bytes: the list SQL is bare (rows joined by commas, null when none), so the
 * brackets are written here, then `meta` with the count the statement read beside the rows (`total`).
 */
function listReply(plan: ReadPlan, rows: Buffer[], total: unknown): Reply {
  const meta = Buffer.from(`],"meta":${listMeta(plan.pagination, plan.sql.withTotal ? Number(String(total)) : null)}}`);
  return { status: 200, body: Buffer.concat([LIST, ...rows, meta]) };
}

let splitRuns = 0;
let splitRerunWhole = 0;
/** Reads this thread ran split (src/rest/split-read.ts), and of them those run again whole (AppStats, for /metrics). */
export const splitReadStats = (): { splitReads: number; splitReadsAgain: number } => ({ splitReads: splitRuns, splitReadsAgain: splitRerunWhole });

/** A list read as its two halves at once (src/rest/split-read.ts); null when they did not read the same page. */
async function splitList(ctx: ReadContext, plan: ReadPlan, halves: SplitRead): Promise<Reply | null> {
  const db = readerFor(ctx, plan.sql);
  // The half priced higher first: on an idle machine sending a statement costs ≈ 0.3 ms of waking its
  // backend, which the second one waits for (the deep populate at 100k articles: the side, 2.9 against 2.2 ms).
  const read = (sql: CompiledRead) => statementRow(ctx, sql, plan.params, db);
  const [side, main] = halves.sideFirst ? await Promise.all([read(halves.side), read(halves.main)])
    : (await Promise.all([read(halves.main), read(halves.side)])).reverse();
  const data = main![0];
  const pieces = data ? splice(data, side?.[0] ?? null, halves.parts) : side?.[0] ? null : [];
  splitRuns++;
  if (!pieces) { splitRerunWhole++; return null; }
  const max = plan.sql.maxBytes;
  if (max && pieces.reduce((n, b) => n + b.length, 0) > max) throw responseTooLarge(max);
  return listReply(plan, pieces, main![1]);
}

/**
 * findOne by documentId, or the single type's document when documentId is undefined. `action`: the route
 * whose params the query is checked with (a write's answer is read with the write's).
 */
export async function findOne(ctx: ReadContext, ct: ContentType, rawQuery: string, documentId?: string, status = 200, action: CoreAction = ct.kind === 'singleType' ? 'find' : 'findOne', rewrite?: QueryRewrite): Promise<Reply> {
  const plan = ctx.compiler.read(ct, 'one', rawQuery, documentId, ctx.access, rewrite, contentApi(ctx, ct, action));
  const row = await planRow(ctx, plan);
  const data = row?.[0];
  if (!data) throw notFound();
  return { status, body: Buffer.concat([DATA, data, ONE_END]) };
}
