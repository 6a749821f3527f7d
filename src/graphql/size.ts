// How large a document is once its fragments are expanded: what validation's depth rule walks and
// graphql-jit generates code for, counted on the parsed AST before either runs. Each fragment is
// counted once (memoized), so a fragment spread a thousand times, or one spreading another twice forty
// levels deep (2^40 fields), costs no more to count than it cost to parse.
import { Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';

export interface DocumentSize {
  /** Selections (fields, fragment spreads, inline fragments) of every operation, fragments expanded; at most `cap` + 1. */
  selections: number;
  /** A fragment spreads itself, directly or not: invalid (NoFragmentCyclesRule), and its expansion never ends. */
  cyclic: boolean;
}

/** The fragments of a document by name; of two with one name the last, as graphql-js's validation context keeps. */
export function fragmentsOf(doc: DocumentNode): Map<string, FragmentDefinitionNode> {
  const out = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) out.set(d.name.value, d);
  return out;
}

/** The expanded size of every operation of `doc`, counted up to `cap` + 1 (past it the exact number is of no use). */
export function documentSize(doc: DocumentNode, cap: number): DocumentSize {
  const fragments = fragmentsOf(doc);
  const sizes = new Map<string, number>();
  const open = new Set<string>();
  let cyclic = false;
  // Saturating: 2^1000 selections would not even fit in a number.
  const add = (a: number, b: number) => Math.min(cap + 1, a + b);
  const fragmentSize = (name: string): number => {
    const known = sizes.get(name);
    if (known !== undefined) return known;
    const f = fragments.get(name);
    if (!f) return 0;
    if (open.has(name)) { cyclic = true; return 0; }
    open.add(name);
    const n = setSize(f.selectionSet);
    open.delete(name);
    sizes.set(name, n);
    return n;
  };
  const setSize = (set: SelectionSetNode): number => {
    let n = 0;
    for (const s of set.selections) {
      n = add(n, 1);
      if (s.kind === Kind.FRAGMENT_SPREAD) n = add(n, fragmentSize(s.name.value));
      else if (s.selectionSet) n = add(n, setSize(s.selectionSet));
      if (n > cap) break;
    }
    return n;
  };
  let selections = 0;
  for (const d of doc.definitions) {
    if (d.kind === Kind.OPERATION_DEFINITION) selections = add(selections, setSize(d.selectionSet));
    if (selections > cap) break;
  }
  return { selections, cyclic };
}

/**
 * The depth the engine's depth rule (graphql-depth-limit's) measures, on the bare AST: the longest chain
 * of nested fields that have selections, `__` fields not counted; each fragment's depth computed once.
 * The rule's own measure when no fragments form a cycle (a document with one is invalid anyway).
 */
export function deepestOperation(doc: DocumentNode): number {
  const fragments = fragmentsOf(doc);
  const depths = new Map<string, number>();
  const open = new Set<string>();
  const fragmentDepth = (name: string): number => {
    const known = depths.get(name);
    if (known !== undefined) return known;
    const f = fragments.get(name);
    if (!f || open.has(name)) return 0;
    open.add(name);
    const d = setDepth(f.selectionSet);
    open.delete(name);
    depths.set(name, d);
    return d;
  };
  const setDepth = (set: SelectionSetNode): number => {
    let max = 0;
    for (const s of set.selections) {
      const d = s.kind === Kind.FRAGMENT_SPREAD ? fragmentDepth(s.name.value)
        : s.kind === Kind.INLINE_FRAGMENT ? setDepth(s.selectionSet)
        : s.selectionSet && !s.name.value.startsWith('__') ? 1 + setDepth(s.selectionSet) : 0;
      if (d > max) max = d;
    }
    return max;
  };
  let max = 0;
  for (const d of doc.definitions) if (d.kind === Kind.OPERATION_DEFINITION) max = Math.max(max, setDepth(d.selectionSet));
  return max;
}
