// Hostile GraphQL documents (issue 30), shared by test/graphql-limits.test.ts and the measurement
// script beside it. Each is under the default body size limit (1 MB) and parses.

export interface HostileDoc { query: string; operationName?: string }

const times = (n: number, f: (i: number) => string, sep = ' ') => Array.from({ length: n }, (_, i) => f(i)).join(sep);

/** 10,000 aliases of a list: the issue's 2.7 s / 500 MB refusal. */
export const aliases = (n = 10_000): HostileDoc => ({ query: `{ ${times(n, (i) => `a${i}: articles { documentId title }`)} }` });

/** One fragment of 100 aliases spread 1,000 times. */
export const spreads = (n = 1000): HostileDoc => ({
  query: `{ articles { ${times(n, () => '...F')} } } fragment F on Article { ${times(100, (i) => `a${i}: title`)} }`,
});

/** `...L0`, where each fragment spreads the next twice: 2^levels fields once expanded. */
export const bomb = (levels = 40): HostileDoc => ({
  query: `{ articles { ...L0 } } ${times(levels, (i) => `fragment L${i} on Article { ...L${i + 1} ...L${i + 1} }`)} fragment L${levels} on Article { title }`,
});

/** 100,000 fields of one name under one list. */
export const fields = (n = 100_000): HostileDoc => ({ query: `{ articles { ${times(n, () => 'title')} } }` });

/** 80,000 __typename at the root (each costs nothing; 100,000 would pass the 1 MB body limit). */
export const typenames = (n = 80_000): HostileDoc => ({ query: `{ ${times(n, () => '__typename')} }` });

/** 20,000 operations; the first one is asked for. */
export const operations = (n = 20_000): HostileDoc => ({ query: times(n, (i) => `query Q${i} { __typename }`), operationName: 'Q0' });

/** 30,000 directives on one field. */
export const directives = (n = 30_000): HostileDoc => ({ query: `{ articles { title ${times(n, () => '@include(if: true)')} } }` });

/** 20,000 single-object fields: cheap by cost (each read once), heavy to compile. */
export const flat = (n = 20_000): HostileDoc => ({ query: `{ about { ${times(n, (i) => `a${i}: title`)} } }` });

export const HOSTILE: Record<string, HostileDoc> = {
  aliases: aliases(), spreads: spreads(), bomb20: bomb(20), bomb24: bomb(24), bomb: bomb(), fields: fields(), typenames: typenames(),
  operations: operations(), directives: directives(), flat: flat(),
};
