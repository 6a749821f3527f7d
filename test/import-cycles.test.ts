// No import cycle among the server's modules: Tarjan's strongly connected components over the relative
// imports (type imports included) of src/, compiler/ and config.ts. A cycle makes module order matter
// (a value read before its module ran) and lets modules grow into each other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'"]*?\sfrom\s+)?['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/gm;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|mts|js|mjs)$/.test(f) && !f.endsWith('.d.ts') ? [resolve(p)] : [];
  });
}

/** Each module's relative imports that are modules of the set. */
function graph(list: string[]): Map<string, string[]> {
  const set = new Set(list);
  return new Map(list.map((f) => {
    const out = new Set<string>();
    for (const m of readFileSync(f, 'utf8').matchAll(IMPORT)) {
      const t = resolve(dirname(f), m[1] ?? m[2]);
      const hit = [t, `${t}.ts`, `${t}/index.ts`].find((c) => set.has(c));
      if (hit) out.add(hit);
    }
    return [f, [...out]];
  }));
}

/** Tarjan's algorithm: the components of more than one module (or a module importing itself). */
function cycles(edges: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>(), low = new Map<string, number>(), on = new Set<string>(), stack: string[] = [], out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next); low.set(v, next); next++; stack.push(v); on.add(v);
    for (const w of edges.get(v)!) {
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const c: string[] = [];
    let w: string;
    do { w = stack.pop()!; on.delete(w); c.push(w); } while (w !== v);
    if (c.length > 1 || edges.get(v)!.includes(v)) out.push(c);
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return out;
}

test('no import cycle in src/, compiler/ and config.ts', () => {
  const edges = graph([...files(join(root, 'src')), ...files(join(root, 'compiler')), resolve(root, 'config.ts')]);
  // The scan must see the imports at all (a broken pattern would find no cycle either).
  assert.ok([...edges.values()].reduce((n, e) => n + e.length, 0) > edges.size);
  assert.deepEqual(cycles(edges).map((c) => c.map((f) => relative(root, f)).sort()), []);
});

test('the scan finds a cycle when there is one', () => {
  assert.deepEqual(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]])).map((c) => c.sort()), [['a', 'b', 'c']]);
});
