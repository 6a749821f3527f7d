// Differential fuzz of the media library's Content API reads: random `GET /api/upload/files` queries (filters
// with every operator on the file's attributes, logical groups, sort, both pagination forms, fields, populate)
// and `GET /api/upload/files/:id`, sent to a live Strapi and to this server on ONE database, their status and
// body compared. Prints each difference; never fails on one.
//
//   npx tsx bench/upload-diff-fuzz.ts --strapi http://127.0.0.1:1361 --fastrapi http://127.0.0.1:1362 --token T [--runs 300] [--seed 1]
import { fuzzArgs } from './fuzz-args.ts';
import { closeFuzzAgent, reportDifference, request, type FuzzAnswer } from './fuzz-http.ts';

const { strapi, fastrapi, runs, token, seed: firstSeed } = fuzzArgs('bench/upload-diff-fuzz.ts');
let seed = firstSeed;
const rnd = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x7fffffff; };
const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];
const some = <T>(a: readonly T[], p = 0.3): T[] => a.filter(() => rnd() < p);

const get = (base: string, path: string, auth: boolean): Promise<FuzzAnswer> => request(base, 'GET', path, { token: auth ? token : null });

const FIELDS = ['name', 'alternativeText', 'caption', 'width', 'height', 'hash', 'ext', 'mime', 'size', 'url', 'previewUrl', 'provider', 'createdAt', 'updatedAt', 'documentId', 'id', 'focalPoint', 'formats', 'folderPath'];
const VALUES: Record<string, unknown[]> = {
  name: ['cover-red.png', 'favicon', '.png', '%', ''], alternativeText: ['A red cover', null, 'x'], caption: ['Red cover caption', ''],
  width: [32, '800', 0, -1, 'abc', 1.5], height: [32, 600, '600'], hash: ['favicon', 'cover_red'], ext: ['.png', '.PNG', '.jpg'],
  mime: ['image/png', 'image', 'text/plain'], size: [0.17, '5.26', 100, 'x'], url: ['/uploads/', 'http'], previewUrl: [null, 'x'], provider: ['local', 'aws-s3'],
  createdAt: ['2024-01-01', '2099-01-01T00:00:00.000Z', 'nope'], updatedAt: ['2020-01-01'], documentId: ['x', 'l1k0c6hi809x71od2xl50f5u'], id: [1, '2', 'x', 99],
  focalPoint: [null], formats: [null], folderPath: ['/', '/1'],
};
const OPS = ['$eq', '$eqi', '$ne', '$nei', '$lt', '$lte', '$gt', '$gte', '$in', '$notIn', '$contains', '$notContains', '$containsi', '$notContainsi', '$startsWith', '$endsWith', '$null', '$notNull', '$between', 'nope'];

type Param = [string, unknown];
function filter(prefix: string, depth = 0): Param[] {
  const r = rnd();
  if (r < 0.15 && depth < 2) {
    const op = pick(['$or', '$and']);
    return [0, 1].flatMap((i) => filter(`${prefix}[${op}][${i}]`, depth + 1));
  }
  if (r < 0.2 && depth < 2) return filter(`${prefix}[$not]`, depth + 1);
  const f = pick(FIELDS);
  const op = pick(OPS);
  const v = pick(VALUES[f]);
  if (op === '$in' || op === '$notIn' || op === '$between') return [[`${prefix}[${f}][${op}][0]`, v], [`${prefix}[${f}][${op}][1]`, pick(VALUES[f])]];
  if (op === '$null' || op === '$notNull') return [[`${prefix}[${f}][${op}]`, pick(['true', 'false', 'x'])]];
  return [[`${prefix}[${f}][${op}]`, v === null ? 'null' : v]];
}

function query(): string {
  const params: Param[] = [];
  if (rnd() < 0.6) params.push(...filter('filters'));
  if (rnd() < 0.4) some(['name', 'size:desc', 'createdAt:asc', 'width', 'nope', 'id:desc', 'mime:asc'], 0.4).forEach((s, i) => params.push([`sort[${i}]`, s]));
  if (rnd() < 0.3) params.push(...(rnd() < 0.5 ? [['pagination[page]', pick([1, 2, '0', 'x'])], ['pagination[pageSize]', pick([1, 2, 100, '0'])]] as Param[] : [['pagination[start]', pick([0, 1, 3])], ['pagination[limit]', pick([1, 2, -1])]] as Param[]));
  if (rnd() < 0.2) params.push(...(pick([[['start', 1], ['limit', 2]], [['limit', pick([1, -1, 'x'])]], [['start', pick([2, -1])]]]) as Param[]));
  if (rnd() < 0.3) some(FIELDS, 0.2).forEach((f, i) => params.push([`fields[${i}]`, f]));
  if (rnd() < 0.2) params.push([pick(['populate', 'populate[0]', 'populate[related]', 'populate[folder]']), pick(['*', 'related', 'folder', 'true', 'nope'])]);
  if (rnd() < 0.05) params.push(['_q', pick(['red', 'png', ''])]);
  return params.map(([k, v]) => `${encodeURIComponent(k).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${encodeURIComponent(String(v))}`).join('&');
}

let differ = 0;
for (let i = 0; i < runs; i++) {
  const one = rnd() < 0.2;
  const path = one ? `/api/upload/files/${pick(['1', '2', '5', '99', 'x', '-1', '1.5'])}${rnd() < 0.3 ? `?${query()}` : ''}` : `/api/upload/files?${query()}`;
  const auth = rnd() < 0.85;
  const [a, b] = await Promise.all([get(strapi, path, auth), get(fastrapi, path, auth)]);
  if (reportDifference(`#${i} ${auth ? '' : '(public) '}GET ${decodeURIComponent(path)}`, a, b, (x) => x)) differ++;
}
console.log(`\n${runs} reads, ${differ} differences (seed ${firstSeed})`);
closeFuzzAgent();
