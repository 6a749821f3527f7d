// Issue 30: a GraphQL document over a limit is refused right after parsing — before validation, alias and
// fragment expansion, graphql-jit compilation — with Apollo's (Strapi 5.54's) error envelope, and the
// memory spent refusing it stays bounded whatever the document. The work is counted (engineWork: how
// many documents were validated and compiled) rather than timed. The servers run in this process
// (WORKERS=0), so the counters and the heap read here are the server's.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, TOKEN, type TestServer, type JsonResponse } from './helpers.ts';
import { engineWork } from '../src/graphql/engine.ts';
import { WeightedLru } from '../src/graphql/weighted-lru.ts';
import { aliases, bomb, directives, fields, flat, operations, spreads, typenames, type HostileDoc } from './graphql-limits.docs.ts';

const MB = 1024 * 1024;
const TOKENS = /^Syntax Error: Document contains more tha[nt] 15000 tokens\. Parsing aborted\.$/;
const COST = (cost: string, limit = '1000000') => new RegExp(`^Query cost ${cost} exceeds the limit of ${limit} \\(graphql\\.maxCost\\): ask for smaller pages or fewer fields$`);
const SELECTIONS = /^Query has more than 10000 selections once its fragments are expanded \(graphql\.maxSelections\): ask for fewer fields or spread fragments fewer times$/;

const send = (s: TestServer, doc: HostileDoc, variables?: Record<string, unknown>) =>
  s.fetchJson('POST', '/graphql', { query: doc.query, operationName: doc.operationName, variables }, TOKEN);

/** Apollo's envelope for a request error: one error, its message, `extensions.code`, and locations for a parse error only. */
function assertRefused(r: JsonResponse, code: string, message: RegExp): void {
  assert.equal(r.status, 400, r.text.slice(0, 300));
  assert.deepEqual(Object.keys(r.body), ['errors'], r.text.slice(0, 300));
  assert.equal(r.body.errors.length, 1, r.text.slice(0, 300));
  const [e] = r.body.errors;
  assert.match(e.message, message);
  assert.deepEqual(e.extensions, { code });
  if (code === 'GRAPHQL_PARSE_FAILED') {
    assert.deepEqual(Object.keys(e), ['message', 'locations', 'extensions']);
    assert.equal(e.locations.length, 1);
  } else {
    assert.deepEqual(Object.keys(e), ['message', 'extensions']);
  }
}

/**
 * Sends `doc` and checks it was refused without validating or compiling anything, and that the heap grew
 * by less than `maxMb` over the request (before the fix, 10,000 aliases grew it by ~340 MB).
 */
async function refusedCheaply(s: TestServer, doc: HostileDoc, maxMb: number, variables?: Record<string, unknown>): Promise<JsonResponse> {
  const work = { ...engineWork };
  const heap = process.memoryUsage().heapUsed;
  const r = await send(s, doc, variables);
  const grew = process.memoryUsage().heapUsed - heap;
  assert.deepEqual(engineWork, work, `neither validated nor compiled: ${r.text.slice(0, 200)}`);
  assert.ok(grew < maxMb * MB, `heap grew by ${(grew / MB).toFixed(0)} MB refusing it`);
  return r;
}

async function normalQueryWorks(s: TestServer): Promise<void> {
  const r = await s.fetchJson('POST', '/graphql', { query: '{ articles(sort: "slug") { slug tags { name } } }' }, TOKEN);
  assert.equal(r.status, 200, r.text.slice(0, 300));
  assert.deepEqual(r.body.data.articles.map((a: { slug: string }) => a.slug), ['limits-a', 'limits-b']);
}

async function seed(s: TestServer): Promise<void> {
  const tag = (await s.fetchJson('POST', '/api/tags', { data: { name: 'limits' } }, TOKEN)).body.data.documentId;
  for (const slug of ['limits-a', 'limits-b']) {
    const r = await s.fetchJson('POST', '/api/articles', { data: { title: slug, slug, tags: [tag] } }, TOKEN);
    assert.equal(r.status, 201, r.text);
  }
}

/**
 * A server on a fresh database holding two articles; `env` overrides the defaults. Lists are priced by their
 * page sizes alone (the prices below), unless `env` turns the cost's statistics on.
 */
function server(env: Record<string, string> = {}): () => TestServer {
  let s: TestServer | undefined;
  before(async () => {
    s = await startTestServer({ env: { GRAPHQL_SHAPE: 'v5', GRAPHQL_COST_STATS_INTERVAL: '0', ...env } });
    await seed(s);
  });
  after(() => s?.stop());
  return () => s!;
}

describe('default limits', () => {
  const s = server();

  test('10,000 aliases: refused while parsing (graphql.maxTokens), nothing validated or compiled', async () => {
    assertRefused(await refusedCheaply(s(), aliases(), 64), 'GRAPHQL_PARSE_FAILED', TOKENS);
    await normalQueryWorks(s());
  });

  test('a document of 100,000 fields, 20,000 operations, 30,000 directives: refused while parsing', async () => {
    for (const doc of [fields(), operations(), directives()]) assertRefused(await refusedCheaply(s(), doc, 64), 'GRAPHQL_PARSE_FAILED', TOKENS);
    await normalQueryWorks(s());
  });

  test('a fragment bomb (each of 40 fragments spreads the next twice: 2^40 fields) is counted, not expanded', async () => {
    assertRefused(await refusedCheaply(s(), bomb(40), 16), 'GRAPHQL_VALIDATION_FAILED', SELECTIONS);
    assertRefused(await refusedCheaply(s(), bomb(1000), 16), 'GRAPHQL_VALIDATION_FAILED', SELECTIONS);
    // Under an empty page it would cost nothing: its size refuses it all the same.
    const empty: HostileDoc = { query: bomb(40).query.replace('articles {', 'articles(pagination: { limit: 0 }) {') };
    assertRefused(await refusedCheaply(s(), empty, 16), 'GRAPHQL_VALIDATION_FAILED', SELECTIONS);
    await normalQueryWorks(s());
  });

  test('a fragment of 100 aliases spread 1,000 times is refused by its size', async () => {
    assertRefused(await refusedCheaply(s(), spreads(), 32), 'GRAPHQL_VALIDATION_FAILED', SELECTIONS);
    await normalQueryWorks(s());
  });

  test('a costly document within the other limits is refused by its cost before validation', async () => {
    // 100 aliases of a nested list (600 selections): 1,692,600, as the README says.
    const nested: HostileDoc = { query: `{ ${Array.from({ length: 100 }, (_, i) => `a${i}: articles { title tags { name articles { title } } }`).join(' ')} }` };
    assertRefused(await refusedCheaply(s(), nested, 16), 'GRAPHQL_VALIDATION_FAILED', COST('1692600'));
    // Nine nested lists of 100: past what a double counts exactly (small: validated, then priced).
    let deep = 'title';
    for (let i = 0; i < 9; i++) deep = `${i % 2 ? 'tags' : 'articles'}(pagination: { limit: 100 }) { ${i % 2 ? 'name' : 'title'} ${deep} }`;
    assertRefused(await send(s(), { query: `{ ${deep} }` }), 'GRAPHQL_VALIDATION_FAILED', COST('over 9007199254740991'));
    await normalQueryWorks(s());
  });

  test('a small document over the cost limit: validated first (an invalid one gets Strapi\'s errors), priced before it runs', async () => {
    // Four lists under each other (at most 100 each here): 101,010,101, in a few selections.
    const lists = (leaf: string) => `{ tags(pagination: { limit: 200 }) { articles(pagination: { limit: 200 }) { tags(pagination: { limit: 200 }) { articles(pagination: { limit: 200 }) { ${leaf} } } } } }`;
    const invalid = await send(s(), { query: lists('nope') });
    assert.equal(invalid.status, 400, invalid.text.slice(0, 300));
    assert.deepEqual(invalid.body.errors.map((e: { message: string; extensions: { code: string } }) => [e.message, e.extensions.code]),
      [['Cannot query field "nope" on type "Article".', 'GRAPHQL_VALIDATION_FAILED']]);
    const valid = await send(s(), { query: lists('title') });
    assertRefused(valid, 'GRAPHQL_VALIDATION_FAILED', COST('101010101'));
    await normalQueryWorks(s());
  });

  test('a document both too deep and too costly gets the depth rule\'s error, as in Strapi', async () => {
    const r = await send(s(), { query: '{ articles { author { articles { author { articles { author { articles { author { articles { author { articles { title } } } } } } } } } } } }' });
    assert.equal(r.status, 400, r.text.slice(0, 300));
    assert.deepEqual(r.body.errors, [{ message: "'' exceeds maximum operation depth of 10", locations: [{ line: 1, column: 114 }], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }]);
  });

  test('fragments spreading one another in a cycle: the spec\'s error, or the size limit, never every path walked', async () => {
    const cycle: HostileDoc = { query: '{ articles { ...A } } fragment A on Article { title ...B } fragment B on Article { slug ...A }' };
    const compiled = engineWork.compiled;
    const r = await send(s(), cycle);
    assert.equal(r.status, 400, r.text.slice(0, 300));
    assert.deepEqual(r.body.errors.map((e: { message: string }) => e.message), ['Cannot spread fragment "A" within itself via "B".']);
    assert.equal(engineWork.compiled, compiled);
    // n fragments each spreading the n - 1 others: the depth rule would walk (n - 1)! paths around them.
    const clique = (n: number): HostileDoc => {
      const names = Array.from({ length: n }, (_, i) => `F${i}`);
      const defs = names.map((f) => `fragment ${f} on Article { title ${names.filter((m) => m !== f).map((m) => `...${m}`).join(' ')} }`);
      return { query: `{ articles(pagination: { limit: 0 }) { ...F0 } } ${defs.join(' ')}` };
    };
    // 10: 5,122 selections counted (each cycle cut once), so validated — by the spec's rules alone.
    const ten = await send(s(), clique(10));
    assert.equal(ten.status, 400, ten.text.slice(0, 300));
    assert.match(ten.body.errors[0].message, /^Cannot spread fragment "F\d" within itself/);
    assert.equal(engineWork.compiled, compiled);
    // 16: over the size limit before validation.
    assertRefused(await refusedCheaply(s(), clique(16), 16), 'GRAPHQL_VALIDATION_FAILED', SELECTIONS);
    await normalQueryWorks(s());
  });

  test('nesting the parser cannot take is a parse error, not a crash', async () => {
    for (const n of [900, 2000, 4000]) {
      const r = await send(s(), { query: `{${'articles{'.repeat(n)}title${'}'.repeat(n)}}` });
      assert.equal(r.status, 400, `${n}: ${r.text.slice(0, 300)}`);
      assert.ok(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED'].includes(r.body.errors[0].extensions.code), r.text.slice(0, 300));
    }
    await normalQueryWorks(s());
  });

  test('a prepared operation is costed again with each request\'s variables', async () => {
    const doc: HostileDoc = { query: 'query($n: Int) { articles(pagination: { limit: $n }) { title tags(pagination: { limit: $n }) { name articles(pagination: { limit: $n }) { title } } } }' };
    const ok = await send(s(), doc, { n: 2 });
    assert.equal(ok.status, 200, ok.text.slice(0, 300));
    // Kept since: this refusal comes from the run, with the same envelope.
    assertRefused(await refusedCheaply(s(), doc, 16, { n: 100 }), 'GRAPHQL_VALIDATION_FAILED', COST('1020201'));
    assert.equal((await send(s(), doc, { n: 1 })).status, 200);
  });
});

describe('parser limit raised (GRAPHQL_MAX_TOKENS=1000000): the size limit refuses', () => {
  const s = server({ GRAPHQL_MAX_TOKENS: '1000000' });

  test('10,000 aliases, 100,000 fields, 80,000 __typename, 20,000 operations, 20,000 fields of one object', async () => {
    // Costs: 510,000; 2,500,001; 0; 0 for the operation run; 20,001 — the size refuses each all the same.
    for (const doc of [aliases(), fields(), typenames(), operations(), flat()]) assertRefused(await refusedCheaply(s(), doc, 128), 'GRAPHQL_VALIDATION_FAILED', SELECTIONS);
    await normalQueryWorks(s());
  });

  test('just under the limits, an operation is validated, compiled and run', async () => {
    const compiled = engineWork.compiled;
    const r = await send(s(), flat(9_000));
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.equal(engineWork.compiled, compiled + 1);
  });
});

describe('parser and size limits raised, cost limit lowered: the cost refuses, priced without expanding anything', () => {
  const s = server({ GRAPHQL_MAX_TOKENS: '1000000', GRAPHQL_MAX_SELECTIONS: '1000000', GRAPHQL_MAX_COST: '50000' });

  test('10,000 aliases (the issue\'s case), 100,000 fields, a fragment of 100 aliases spread 1,000 times', async () => {
    assertRefused(await refusedCheaply(s(), aliases(), 128), 'GRAPHQL_VALIDATION_FAILED', COST('510000', '50000'));
    assertRefused(await refusedCheaply(s(), fields(), 128), 'GRAPHQL_VALIDATION_FAILED', COST('2500001', '50000'));
    assertRefused(await refusedCheaply(s(), spreads(), 32), 'GRAPHQL_VALIDATION_FAILED', COST('2500001', '50000'));
    await normalQueryWorks(s());
  });
});

test('the prepared-operation cache is bounded by weight as well as by count', () => {
  const lru = new WeightedLru<string>(10, 100);
  for (let i = 0; i < 5; i++) lru.set(`k${i}`, 'v', 30);
  assert.equal(lru.size, 3);
  assert.ok(lru.weight <= 100);
  assert.equal(lru.get('k0'), undefined);
  assert.equal(lru.get('k4'), 'v');
  lru.set('huge', 'v', 101);
  assert.equal(lru.get('huge'), undefined, 'an entry outweighing the whole budget is not kept');
  assert.equal(lru.get('k4'), 'v', 'and evicts nothing');
  for (let i = 0; i < 20; i++) lru.set(`s${i}`, 'v', 1);
  assert.equal(lru.size, 10);
});

test('GRAPHQL_MAX_LIMIT=-1 is the plugin\'s default, no limit of its own (amountLimit still bounds pages)', async () => {
  const { loadConfig } = await import('../config.ts');
  const c = loadConfig({ GRAPHQL_MAX_LIMIT: '-1', GRAPHQL_AMOUNT_LIMIT: '500' }, []);
  assert.equal(c.graphql.maxLimit, null);
  assert.equal(c.graphql.amountLimit, 500);
  assert.throws(() => loadConfig({ GRAPHQL_MAX_LIMIT: '-2' }, []), /GRAPHQL_MAX_LIMIT/);
});

describe('lists priced by what the tables hold (graphql.costStatsInterval)', () => {
  const s = server({ GRAPHQL_COST_STATS_INTERVAL: '1', GRAPHQL_MAX_COST: '2000' });
  // Four lists of 100 under each other: 101,010,101 by page sizes, the same with 100 rows behind each.
  const lists: HostileDoc = { query: '{ tags(pagination: { limit: 100 }) { articles(pagination: { limit: 100 }) { tags(pagination: { limit: 100 }) { articles(pagination: { limit: 100 }) { title } } } } }' };

  /** Sends `doc` until `done` holds of the answer (the figures are read again every second), at most 10 s. */
  async function until(doc: HostileDoc, done: (r: JsonResponse) => boolean): Promise<JsonResponse> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const r = await send(s(), doc);
      if (done(r) || Date.now() > deadline) return r;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  test('a deep query over little data runs; the same once the data fans out is refused at its real size', async () => {
    // One tag, two articles (a draft and a published row each, both linked): each list holds 1 or 4 here.
    const small = await until(lists, (r) => r.status === 200);
    assert.equal(small.status, 200, small.text.slice(0, 300));
    assert.deepEqual(small.body.data.tags.map((t: { articles: unknown[] }) => t.articles.length), [2]);
    // 60 more tags, each on both articles: 61 tags, 61 per article row, still 4 article rows per tag.
    const more: string[] = [];
    for (let i = 0; i < 60; i++) more.push((await s().fetchJson('POST', '/api/tags', { data: { name: `fan-${i}` } }, TOKEN)).body.data.documentId);
    const all = [(await s().fetchJson('GET', '/api/tags?filters[name]=limits', undefined, TOKEN)).body.data[0].documentId, ...more];
    for (const a of (await s().fetchJson('GET', '/api/articles', undefined, TOKEN)).body.data) {
      const r = await s().fetchJson('PUT', `/api/articles/${a.documentId}`, { data: { tags: all } }, TOKEN);
      assert.equal(r.status, 200, r.text);
    }
    // 1 + 61 + 61 × 4 + 61 × 4 × 61 + 61 × 4 × 61 × 4.
    assertRefused(await until(lists, (r) => r.status === 400), 'GRAPHQL_VALIDATION_FAILED', COST('74726', '2000'));
    // A list with no rows behind it still counts one entry, so what is selected under it counts too: 40
    // aliases of an article's gallery (no file linked) with 50 fields, 40 × (1 + 1 + 50).
    const wide: HostileDoc = { query: `{ ${Array.from({ length: 40 }, (_, i) => `a${i}: articles(pagination: { limit: 1 }) { gallery { ${Array.from({ length: 50 }, () => 'name').join(' ')} } }`).join(' ')} }` };
    assertRefused(await send(s(), wide), 'GRAPHQL_VALIDATION_FAILED', COST('2080', '2000'));
  });
});
