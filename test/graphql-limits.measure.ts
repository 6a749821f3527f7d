// Measures what refusing hostile GraphQL documents costs (issue 30): the time and memory of each step
// (parse, validate, cost, compile) offline against the server's schema, and the end-to-end request.
// Not a test (no assertions). One document per run, so the process's peak RSS is the document's:
//   DATABASE_URL=postgres://postgres@localhost:5499/postgres node --import tsx test/graphql-limits.measure.ts <name> [steps]
// `steps` runs each library step whatever the limits (a 40-level fragment bomb then never ends).
import { buildClientSchema, getIntrospectionQuery, parse, specifiedRules, validate, Kind, type IntrospectionQuery, type OperationDefinitionNode } from 'graphql';
import { compileQuery } from 'graphql-jit';
import { startTestServer, TOKEN } from './helpers.ts';
import { depthLimitRule } from '../src/graphql/engine.ts';
import { operationCost } from '../src/graphql/cost.ts';
import { documentSize, fragmentsOf } from '../src/graphql/size.ts';
import { HOSTILE } from './graphql-limits.docs.ts';

const name = process.argv[2];
const doc = HOSTILE[name];
if (!doc) { console.error(`documents: ${Object.keys(HOSTILE).join(', ')}`); process.exit(2); }
const mb = (n: number) => `${(n / 1048576).toFixed(0)} MB`;
const peakRss = () => process.resourceUsage().maxRSS * 1024;

async function timed<T>(label: string, f: () => T | Promise<T>): Promise<T> {
  const rss0 = peakRss();
  const heap0 = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const out = await f();
  const ms = performance.now() - t0;
  console.log(`${name.padEnd(12)} ${label.padEnd(9)} ${ms.toFixed(0).padStart(7)} ms  heap +${mb(process.memoryUsage().heapUsed - heap0)}  peak RSS +${mb(peakRss() - rss0)}`);
  return out;
}

// GRAPHQL_MAX_TOKENS from the environment: raised, the documents pass the parser and meet the other limits.
const s = await startTestServer({ env: { GRAPHQL_SHAPE: 'v5', LOG_LEVEL: 'error', GRAPHQL_MAX_TOKENS: process.env.GRAPHQL_MAX_TOKENS } });
try {
  const warm = await s.fetchJson('POST', '/graphql', { query: '{ articles { title } }' }, TOKEN);
  if (warm.status !== 200) throw new Error(warm.text);
  if (process.argv[3] === 'steps') {
    const intro = await s.fetchJson('POST', '/graphql', { query: getIntrospectionQuery() }, TOKEN);
    const schema = buildClientSchema(intro.body.data as IntrospectionQuery);
    const ast = await timed('parse', () => parse(doc.query));
    const size = await timed('size', () => documentSize(ast, 10_000));
    console.log(`${''.padEnd(12)} selections: ${size.selections}${size.cyclic ? ' (cyclic)' : ''}`);
    const op = ast.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
    const cost = await timed('cost', () => operationCost(schema, op, fragmentsOf(ast), {}, { defaultList: 25, maxList: 100 }));
    console.log(`${''.padEnd(12)} cost: ${cost}`);
    const errors = await timed('validate', () => validate(schema, ast, [...specifiedRules, depthLimitRule(10)]));
    console.log(`${''.padEnd(12)} validation errors: ${errors.length}`);
    await timed('compile', () => compileQuery(schema, ast, doc.operationName));
  } else {
    const r = await timed('request', () => s.fetchJson('POST', '/graphql', { query: doc.query, operationName: doc.operationName }, TOKEN));
    console.log(`${''.padEnd(12)} ${r.status} ${r.text.slice(0, 200)}`);
  }
} finally {
  await s.stop();
}
