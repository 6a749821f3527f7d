// This server's Zod subset (src/project/zod-subset.ts), the `z` of a project's Content API params when the
// project has no Zod installed: every schema and value of test/fixtures/zod answers as Zod 4 did (its data,
// or its exact error message, which Strapi 5.54 sends as a 400's message).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { CASES } from './fixtures/zod/cases.ts';
import { z } from '../src/project/zod-subset.ts';

const recorded = JSON.parse(readFileSync(new URL('./fixtures/zod/answers.json', import.meta.url), 'utf8')) as Array<{ schema: string; answers: Array<{ data?: unknown; message?: string }> }>;
const special = (v: unknown): unknown => (v && typeof v === 'object' && '$' in v ? ({ undefined, NaN, Infinity } as Record<string, unknown>)[(v as { $: string }).$] : v);

test('every recorded schema answers as Zod 4 did', () => {
  assert.equal(recorded.length, CASES.length);
  CASES.forEach(([schema, values], i) => {
    const s = new Function('z', `return ${schema}`)(z) as { safeParse(v: unknown): { success: boolean; data?: unknown; error?: { message: string } } };
    values.forEach((v, j) => {
      const r = s.safeParse(special(v));
      const want = recorded[i].answers[j];
      if (r.success) assert.deepEqual({ data: r.data === undefined ? { $: 'undefined' } : r.data }, want, `${schema} on ${JSON.stringify(v)}`);
      else assert.deepEqual({ message: r.error!.message }, want, `${schema} on ${JSON.stringify(v)}`);
    });
  });
});

test('a builder the subset lacks names itself', () => {
  assert.throws(() => (z as { union: () => void }).union(), /z\.union is not supported by this server's Zod subset/);
  assert.throws(() => (z.string as () => { url(): void })().url(), /z\.string\(\)\.url\(\) is not supported/);
});

test('schemas carry Zod 4\'s definition (Strapi checks a query param\'s type by it)', () => {
  const def = (s: unknown) => (s as { _zod: { def: { type: string; innerType?: unknown; element?: unknown } } })._zod.def;
  const opt = (z.string as () => { optional(): unknown })().optional();
  assert.equal(def(opt).type, 'optional');
  assert.equal(def(def(opt).innerType).type, 'string');
  assert.equal(def((z.array as (e: unknown) => unknown)((z.boolean as () => unknown)())).type, 'array');
  assert.equal(def((z.object as (s: object) => unknown)({})).type, 'object');
});
