// The differential fuzzers' command line (bench/diff-fuzz.ts, bench/graphql-diff-fuzz.ts): both servers,
// how many requests, the seed that repeats a run, an optional token.
export interface FuzzArgs { strapi: string; fastrapi: string; runs: number; seed: number; token: string | undefined }

export function fuzzArgs(script: string): FuzzArgs {
  const argv = process.argv.slice(2);
  const flag = (name: string) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : undefined; };
  const strapi = flag('strapi')?.replace(/\/$/, '');
  const fastrapi = flag('fastrapi')?.replace(/\/$/, '');
  const runs = Number(flag('runs') ?? 300);
  const seed = Number(flag('seed') ?? 1);
  if (!strapi || !fastrapi || !(runs > 0) || !Number.isInteger(seed)) {
    console.error(`usage: npx tsx ${script} --strapi URL --fastrapi URL [--runs N] [--seed N] [--token T]`);
    process.exit(2);
  }
  return { strapi, fastrapi, runs, seed, token: flag('token') };
}
