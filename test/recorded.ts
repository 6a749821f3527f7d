// Recorded conformance suites: scripts of requests (steps) run in order against a server on an empty
// database, recorded once against a live Strapi 5.54 (record()) and replayed against this server
// (recordedSuite()). Documents are named by keys (`@@tag:t1@@`) that the runner maps to each server's
// documentIds; numeric ids and system timestamps are masked; SQL steps do what Strapi's REST API cannot.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';
import { catalogSnapshot } from '../src/db/verify.ts';

export interface Step {
  name: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path?: string;
  body?: unknown;
  /** GraphQL operation (POST /graphql). */
  graphql?: string;
  /** Variables of the GraphQL operation. */
  variables?: Record<string, unknown>;
  /** Anonymous caller instead of the full-access token. */
  public?: boolean;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** Name the created document: `data.documentId` of the answer becomes `@@<save>@@`. */
  save?: string;
  /** A statement run on the database instead of a request (placeholders resolved first). */
  sql?: string;
  /** A query run on the database instead of a request: its rows are the answer (status 0). */
  rows?: string;
  /** Strapi's answer is a defect (a 500, or data it loses): only an answer below 500 is expected here. */
  defect?: string;
  /** Only the status, error name and message must match (a detail this server leaves out, said here). */
  loose?: string;
  /** Everything must match but the order of keys in objects (Strapi's order is not deterministic there, said here). */
  anyKeyOrder?: string;
  /** Keep the answer's `jwt` (a users-permissions login or register) under this name. */
  saveJwt?: string;
  /** Send as the user whose JWT a previous step kept under this name (instead of the full-access token). */
  user?: string;
  /** Name other documentIds of the answer: key → dotted path in the body (`user.documentId` of a registration). */
  saveIds?: Record<string, string>;
}

export interface Answer { name: string; status: number; body: unknown; defect?: string; loose?: string; anyKeyOrder?: string }

export interface Target {
  /** Sends a request; returns the status and the parsed JSON body (null when empty). */
  send(method: string, path: string, body: unknown, token: string | null, headers?: Record<string, string>): Promise<{ status: number; body: unknown }>;
  /** Runs SQL on the server's database (returning its rows). */
  sql(text: string): Promise<unknown[] | void>;
  token: string;
}

const TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const TS_KEYS = new Set(['createdAt', 'updatedAt', 'publishedAt']);

export function normalize(v: unknown, names: Map<string, string>, key = ''): unknown {
  if (Array.isArray(v)) return v.map((x) => normalize(x, names, key));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalize(x, names, k)]));
  if (typeof v === 'number' && key === 'id') return '<id>';
  if (typeof v !== 'string') return v;
  if (TS_KEYS.has(key) && TS.test(v)) return '<ts>';
  if (key === 'id' && /^\d+$/.test(v)) return '<id>';
  if (key === 'jwt') return '<jwt>';
  let out = v;
  for (const [id, k] of names) if (out.includes(id)) out = out.split(id).join(k);
  return out;
}

function fill<T>(v: T, keys: Map<string, string>): T {
  return JSON.parse(JSON.stringify(v).replace(/@@([^@]+)@@/g, (m, k: string) => keys.get(k) ?? m)) as T;
}

export async function runSteps(t: Target, steps: Step[]): Promise<Answer[]> {
  const keys = new Map<string, string>();
  const jwts = new Map<string, string>();
  const out: Answer[] = [];
  for (const step of steps) {
    if (step.sql) { await t.sql(fill(step.sql, keys)); continue; }
    if (step.rows) {
      const rows = (await t.sql(fill(step.rows, keys))) ?? [];
      out.push({ name: step.name, status: 0, body: JSON.parse(JSON.stringify(rows)) });
      continue;
    }
    const token = step.public ? null : step.user ? jwts.get(step.user) ?? null : t.token;
    const r = step.graphql !== undefined
      ? await t.send('POST', '/graphql', { query: fill(step.graphql, keys), ...(step.variables ? { variables: fill(step.variables, keys) } : {}) }, token)
      : await t.send(step.method!, fill(step.path!, keys), step.body === undefined ? undefined : fill(step.body, keys), token, step.headers);
    const data = (r.body as { data?: { documentId?: string } } | null)?.data;
    if (step.save && r.status < 300 && typeof data?.documentId === 'string') keys.set(step.save, data.documentId);
    for (const [k, path] of Object.entries(step.saveIds ?? {})) {
      const v = path.split('.').reduce<unknown>((o, p) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[p] : undefined), r.body);
      if (r.status < 300 && typeof v === 'string') keys.set(k, v);
    }
    const jwt = (r.body as { jwt?: unknown } | null)?.jwt;
    if (step.saveJwt && typeof jwt === 'string') jwts.set(step.saveJwt, jwt);
    const names = new Map([...keys].map(([k, id]) => [id, `@@${k}@@`]));
    out.push({ name: step.name, status: r.status, body: normalize(r.body, names), ...(step.defect ? { defect: step.defect } : {}), ...(step.loose ? { loose: step.loose } : {}), ...(step.anyKeyOrder ? { anyKeyOrder: step.anyKeyOrder } : {}) });
  }
  return out;
}

/** Where two answers first differ (a JSON path with both values), or null when they are equal. */
export function firstDiff(a: unknown, b: unknown, path = '$', anyKeyOrder = false): string | null {
  if (Object.is(a, b)) return null;
  const show = (v: unknown) => JSON.stringify(v)?.slice(0, 300);
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i >= a.length || i >= b.length) return `${path}: length ${a.length}, want ${b.length}`;
      const d = firstDiff(a[i], b[i], `${path}[${i}]`, anyKeyOrder);
      if (d) return d;
    }
    return null;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const [ka, kb] = [Object.keys(a), Object.keys(b)];
    for (const k of kb) if (!ka.includes(k)) return `${path}.${k}: missing, want ${show((b as Record<string, unknown>)[k])}`;
    for (const k of ka) if (!kb.includes(k)) return `${path}.${k}: unexpected ${show((a as Record<string, unknown>)[k])}`;
    for (const k of kb) {
      const d = firstDiff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`, anyKeyOrder);
      if (d) return d;
    }
    if (!anyKeyOrder && ka.join() !== kb.join()) return `${path}: key order ${ka.join(',')}, want ${kb.join(',')}`;
    return null;
  }
  return `${path}: ${show(a)}, want ${show(b)}`;
}

/** One line per recorded answer this server's answer departs from. */
export function compareAnswers(recorded: Answer[], answers: Answer[]): string[] {
  assert.equal(answers.length, recorded.length, 'the steps are the recorded ones');
  const failures: string[] = [];
  const errorOf = (b: unknown) => { const x = (b as { error?: { name?: string; message?: string } } | null)?.error; return [x?.name, x?.message].join(': '); };
  recorded.forEach((want, i) => {
    const got = answers[i];
    assert.equal(got.name, want.name);
    if (want.defect) {
      if (got.status >= 500) failures.push(`${want.name}: ${got.status} (Strapi's answer is a defect: ${want.defect}; anything below 500 will do)`);
    } else if (want.loose) {
      if (got.status !== want.status || errorOf(got.body) !== errorOf(want.body)) failures.push(`${want.name}: ${got.status} ${errorOf(got.body)}, want ${want.status} ${errorOf(want.body)}`);
    } else if (got.status !== want.status) {
      failures.push(`${want.name}: status ${got.status}, want ${want.status}: ${JSON.stringify(got.body).slice(0, 300)}`);
    } else {
      // The step's own flag (recordings made before it existed do not hold it).
      const d = firstDiff(got.body, want.body, '$', !!(got.anyKeyOrder ?? want.anyKeyOrder));
      if (d) failures.push(`${want.name}: ${d}`);
    }
  });
  return failures;
}

/**
 * Registers a recorded suite: this server on `models`, the steps run once before the tests, then the
 * schema it created against Strapi's (`<dir>/strapi-catalog.json`) and every answer against
 * `<dir>/cases.jsonl`. Returns the running server, for tests of the suite's own.
 */
/** `skip`: recorded steps left out of this replay (step name → why; replayed elsewhere, said there). */
export function recordedSuite(label: string, models: string, dir: string, steps: Step[], env: Record<string, string> = {}, skip: Record<string, string> = {}): () => TestServer {
  const recorded = readFileSync(join(dir, 'cases.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Answer)
    .filter((a) => !Object.hasOwn(skip, a.name));
  steps = steps.filter((st) => !Object.hasOwn(skip, st.name));
  let s: TestServer;
  let answers: Answer[];
  before(async () => {
    s = await startTestServer({ modelsDir: models, env: { GRAPHQL_SHAPE: 'v5', LOCALES: 'en,fr', ...env } });
    answers = await runSteps({
      token: TOKEN,
      sql: async (text) => [...await s.sql().unsafe(text)],
      send: async (method, path, body, token, headers) => {
        const r = await s.fetchJson(method, path, body, token, headers);
        // An empty body (a 204) reads as null, as the recorder's fetch gives it.
        return { status: r.status, body: r.text === '' ? null : r.body };
      },
    }, steps);
  });
  after(async () => { await s?.stop(); });
  test(`the schema created for the ${label} models is the one Strapi 5.54 made`, async () => {
    const strapi = JSON.parse(readFileSync(join(dir, 'strapi-catalog.json'), 'utf8')) as Record<string, unknown[]>;
    const mine = await catalogSnapshot(s.sql());
    const failures = Object.entries(mine).flatMap(([k, rows]) => { const d = firstDiff(rows, strapi[k]); return d ? [`catalog ${k}: ${d}`] : []; });
    assert.deepEqual(failures, []);
  });
  test(`every ${label} step answers as Strapi 5.54 did`, () => {
    const failures = compareAnswers(recorded, answers);
    // Each in full: the assertion's diff cuts long lists short.
    if (failures.length) console.error(failures.join('\n'));
    assert.deepEqual(failures, []);
  });
  return () => s;
}

/**
 * Records `steps` against a live Strapi 5.54 (../shared/strapi-reference; its bootstrap makes the
 * full-access token below) into `<dir>/cases.jsonl`, and the schema it made into `<dir>/strapi-catalog.json`.
 */
export async function record(steps: Step[], dir: string, base: string, databaseUrl: string): Promise<void> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const catalog = await catalogSnapshot(sql);
    const answers = await runSteps({
      token: 'oracle-full-access-token-0123456789abcdef0123456789abcdef',
      sql: async (text) => [...await sql.unsafe(text)],
      send: async (method, path, body, tok, headers) => {
        const r = await fetch(base + path, {
          method, headers: { 'content-type': 'application/json', ...(tok ? { authorization: `Bearer ${tok}` } : {}), ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await r.text();
        let parsed: unknown = text;
        try { parsed = text ? JSON.parse(text) : null; } catch { /* keep the text */ }
        return { status: r.status, body: parsed };
      },
    }, steps);
    writeFileSync(join(dir, 'cases.jsonl'), answers.map((a) => JSON.stringify(a)).join('\n') + '\n');
    writeFileSync(join(dir, 'strapi-catalog.json'), JSON.stringify(catalog, null, 1) + '\n');
    console.log(`recorded ${answers.length} answers`);
    for (const a of answers) if (a.status >= 500 && !a.defect) console.log(`500 (mark as defect?): ${a.name}`);
  } finally {
    await sql.end();
  }
}
