// Strapi's example app (test/fixtures/models-getstarted: the models of strapi/strapi examples/getstarted —
// localized single types, non-D&P localized types, required components and dynamic zones with min,
// relations inside components and dynamic zones, relations to users, three levels of single components)
// against what a live Strapi 5.54 answered to the same requests (test/fixtures/getstarted: steps.ts,
// recorded by record.ts into cases.jsonl), and the schema this server creates for it against the one
// Strapi made.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';
import { firstDiff, runSteps, type Answer } from './fixtures/kitchensink/run.ts';
import { STEPS } from './fixtures/getstarted/steps.ts';
import { catalogSnapshot } from '../src/db/verify.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const MODELS = here('./fixtures/models-getstarted');
const recorded: Answer[] = readFileSync(here('./fixtures/getstarted/cases.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Answer);

let s: TestServer;
let answers: Answer[];

before(async () => {
  s = await startTestServer({ modelsDir: MODELS, env: { GRAPHQL_SHAPE: 'v5', LOCALES: 'en,fr' } });
  answers = await runSteps({
    token: TOKEN,
    sql: async (text) => { await s.sql().unsafe(text); },
    send: async (method, path, body, token, headers) => {
      const r = await s.fetchJson(method, path, body, token, headers);
      return { status: r.status, body: r.text === '' ? null : r.body };
    },
  }, STEPS);
});
after(async () => { await s?.stop(); });

test('the schema created for the getstarted models is the one Strapi 5.54 made', async () => {
  const strapi = JSON.parse(readFileSync(here('./fixtures/getstarted/strapi-catalog.json'), 'utf8')) as Record<string, unknown[]>;
  const mine = await catalogSnapshot(s.sql());
  const failures: string[] = [];
  for (const [k, rows] of Object.entries(mine)) {
    const d = firstDiff(rows, strapi[k]);
    if (d) failures.push(`catalog ${k}: ${d}`);
  }
  assert.deepEqual(failures, []);
});

test('every getstarted step answers as Strapi 5.54 did', () => {
  assert.equal(answers.length, recorded.length, 'the steps are the recorded ones');
  const failures: string[] = [];
  recorded.forEach((want, i) => {
    const got = answers[i];
    assert.equal(got.name, want.name);
    if (want.defect) {
      if (got.status >= 500) failures.push(`${want.name}: ${got.status} (Strapi's answer is a defect: ${want.defect}; anything below 500 will do)`);
      return;
    }
    if (want.loose) {
      const e = (b: unknown) => { const x = (b as { error?: { name?: string; message?: string } } | null)?.error; return [x?.name, x?.message]; };
      if (got.status !== want.status || e(got.body).join() !== e(want.body).join()) failures.push(`${want.name}: ${got.status} ${e(got.body).join(': ')}, want ${want.status} ${e(want.body).join(': ')}`);
      return;
    }
    if (got.status !== want.status) failures.push(`${want.name}: status ${got.status}, want ${want.status}: ${JSON.stringify(got.body).slice(0, 300)}`);
    else {
      const d = firstDiff(got.body, want.body);
      if (d) failures.push(`${want.name}: ${d}`);
    }
  });
  if (failures.length) console.log(failures.join('\n'));
  assert.deepEqual(failures, []);
});
