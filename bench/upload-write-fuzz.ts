// Differential fuzz of media-library writes: random `POST /api/upload` (images of random sizes and formats,
// text files, several at once, fileInfo as an object, a list, broken JSON; `ref`/`refId`/`field` linking an
// article's cover or gallery; `?id=` replacing a file or editing its info) and `DELETE /api/upload/files/:id`,
// sent in the same order to a live Strapi and to this server, each on its OWN copy of one database (and its
// own uploads folder), then each written file read back. Statuses and bodies are compared with hashes, URLs,
// timestamps and documentIds masked. Prints each difference; never fails on one.
//
//   createdb … -T blog wfs; createdb … -T blog wff (as bench/write-diff-fuzz.ts), then
//   npx tsx bench/upload-write-fuzz.ts --strapi http://127.0.0.1:1361 --fastrapi http://127.0.0.1:1362 --token T [--runs 100] [--seed 1]
import sharp from 'sharp';
import { fuzzArgs } from './fuzz-args.ts';
import { reportDifference, type FuzzAnswer } from './fuzz-http.ts';

const { strapi, fastrapi, runs, token, seed: firstSeed } = fuzzArgs('bench/upload-write-fuzz.ts');
let seed = firstSeed;
const rnd = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x7fffffff; };
const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];
const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));

type Side = 's' | 'f';
type Answer = FuzzAnswer;
async function send(side: Side, method: string, path: string, body?: FormData): Promise<Answer> {
  const r = await fetch(`${side === 's' ? strapi : fastrapi}${path}`, { method, body, headers: { authorization: `Bearer ${token}`, 'cache-control': 'no-cache' } });
  const text = await r.text();
  let b: unknown = null;
  try { b = JSON.parse(text); } catch { /* compared as text */ }
  return { status: r.status, body: b, text };
}

/** Masks what differs by nature: hashes and URLs (random per upload), timestamps, documentIds. */
function mask(x: unknown, key = ''): unknown {
  if (Array.isArray(x)) return x.map((v) => mask(v));
  if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, mask(v, k)]));
  if (typeof x !== 'string') return x;
  if (key === 'hash' || key === 'url' || key === 'documentId' || key === 'createdAt' || key === 'updatedAt' || key === 'publishedAt') return `<${key}>`;
  return x.replace(/_[0-9a-f]{10}(?=\.|$)/g, '_<hash>');
}

let differ = 0;
function compare(label: string, a: Answer, b: Answer): void {
  if (reportDifference(label, a, b, (x) => mask(x))) differ++;
}

async function image(): Promise<{ data: Buffer; name: string; type: string }> {
  const format = pick(['png', 'jpeg', 'webp', 'gif'] as const);
  const width = pick([16, 200, 640, 1200, 2400]);
  const height = pick([16, 150, 480, 900]);
  const data = await sharp({ create: { width, height, channels: 3, background: { r: int(0, 255), g: int(0, 255), b: int(0, 255) } } }).toFormat(format).toBuffer();
  return { data, name: pick([`pic-${width}x${height}.${format === 'jpeg' ? 'jpg' : format}`, 'Ünïcode é.png', 'no-extension', 'a b c.PNG']), type: `image/${format}` };
}
const text = () => ({ data: Buffer.from(pick(['hello', '', 'x'.repeat(5000)])), name: pick(['notes.txt', 'data.json', 'page.html']), type: pick(['text/plain', 'application/json', 'text/html']) });

/** Ids of the files on Strapi's side (the copies hand out the same ids). */
const fileIds: number[] = [];
const articles: string[] = [];

for (const r of [await send('s', 'GET', '/api/upload/files')]) for (const f of (r.body as Array<{ id: number }>) ?? []) fileIds.push(f.id);
{
  const r = await send('s', 'GET', '/api/articles?fields[0]=id&pagination[pageSize]=100&status=draft');
  for (const a of ((r.body as { data?: Array<{ id: number }> })?.data ?? [])) articles.push(String(a.id));
}
console.log(`files ${fileIds.join(',')}; articles ${articles.length}`);

for (let i = 0; i < runs; i++) {
  const op = rnd();
  const form = new FormData();
  let path = '/api/upload';
  let method = 'POST';
  let desc: string[] = [];
  if (op < 0.12 && fileIds.length) {
    const id = pick([...fileIds, 99999]);
    path = `/api/upload/files/${id}`;
    method = 'DELETE';
  } else {
    const replace = op < 0.3 && fileIds.length;
    if (replace) path += `?id=${pick([...fileIds, 99999])}`;
    // One file at a time: Strapi stores several in the order its multipart parser finishes writing them
    // (formidable's temporary files), which no request fixes.
    const count = replace ? (rnd() < 0.5 ? 0 : 1) : pick([0, 1, 1, 1]);
    for (let k = 0; k < count; k++) {
      const f = rnd() < 0.75 ? await image() : text();
      form.append('files', new Blob([new Uint8Array(f.data)], { type: f.type }), f.name);
      desc.push(`${f.name} ${f.type} ${f.data.length}B`);
    }
    if (rnd() < 0.6) {
      const info = () => ({ ...(rnd() < 0.7 ? { name: pick(['renamed.png', '', 'x'.repeat(300), 'Ünïcode']) } : {}), ...(rnd() < 0.5 ? { alternativeText: pick(['alt', '', null]) } : {}), ...(rnd() < 0.5 ? { caption: pick(['cap', null]) } : {}), ...(rnd() < 0.05 ? { folder: pick([1, 99]) } : {}) });
      const value = rnd() < 0.1 ? pick(['{not json', '"text"', '5']) : JSON.stringify(count > 1 && rnd() < 0.6 ? Array.from({ length: count }, info) : info());
      form.append('fileInfo', value);
      desc.push(`fileInfo=${value.slice(0, 120)}`);
    }
    if (!replace && rnd() < 0.3 && articles.length) {
      form.append('ref', pick(['api::article.article', 'api::article.article', 'api::nope.nope']));
      form.append('refId', pick([...articles, '99999', 'x']));
      form.append('field', pick(['cover', 'gallery', 'title', 'nope']));
      desc.push('ref');
    }
  }
  const label = `#${i} ${method} ${path} ${desc.join('; ')}`;
  const [a, b] = await Promise.all([send('s', method, path, method === 'POST' ? form : undefined), send('f', method, path, method === 'POST' ? form : undefined)]);
  compare(label, a, b);
  const made = (x: Answer) => (Array.isArray(x.body) ? x.body : x.body && typeof x.body === 'object' && 'id' in x.body ? [x.body] : []) as Array<{ id?: number }>;
  for (const f of made(a)) if (typeof f.id === 'number' && !fileIds.includes(f.id) && method === 'POST') fileIds.push(f.id);
  for (const f of made(a).slice(0, 2)) {
    if (typeof f.id !== 'number') continue;
    const [ra, rb] = await Promise.all([send('s', 'GET', `/api/upload/files/${f.id}?populate=related`), send('f', 'GET', `/api/upload/files/${f.id}?populate=related`)]);
    compare(`${label}\n  then GET file ${f.id}`, ra, rb);
  }
}
console.log(`\n${runs} writes, ${differ} differences (seed ${firstSeed})`);
