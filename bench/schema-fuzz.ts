// Differential fuzz of REST reads for ANY models folder: the query strings are made from the models
// (every attribute type's filters and operators, relation and component paths, sort, fields, populate in its
// forms, pagination, locale, status), sent to a live Strapi and to this server on ONE database, and their
// status, `data`, `meta` and `error` compared. `--fill N` first writes N random documents per content-type
// through Strapi (values of every type within the model's rules, components, zones, relations, uploaded
// media), so the database is Strapi's own. Prints each difference; never fails on one.
//
//   npx tsx bench/schema-fuzz.ts --models DIR --strapi URL --fastrapi URL --token T [--fill 12] [--runs 300] [--seed 1]
//
// bench/diff-fuzz.ts is the blog models' fuzz, with values chosen for the blog's data; this one knows only
// what the models say, so it reaches attribute types and relation kinds the blog has none of.
import http from 'node:http';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

interface Attr {
  type: string; relation?: string; target?: string; component?: string; components?: string[]; repeatable?: boolean;
  multiple?: boolean; enum?: string[]; min?: number; max?: number; minLength?: number; maxLength?: number; regex?: string;
  required?: boolean; private?: boolean; unique?: boolean; mappedBy?: string; inversedBy?: string; targetField?: string;
  pluginOptions?: { i18n?: { localized?: boolean } };
}
interface Model { uid: string; kind: string; plural: string; singular: string; attributes: Record<string, Attr>; dp: boolean; i18n: boolean }

function args() {
  const argv = process.argv.slice(2);
  const flag = (n: string) => { const i = argv.indexOf(`--${n}`); return i >= 0 ? argv[i + 1] : undefined; };
  const models = flag('models'), strapi = flag('strapi')?.replace(/\/$/, ''), fastrapi = flag('fastrapi')?.replace(/\/$/, '');
  if (!models || !strapi || !fastrapi) {
    console.error('usage: npx tsx bench/schema-fuzz.ts --models DIR --strapi URL --fastrapi URL --token T [--fill N] [--runs N] [--seed N]');
    process.exit(2);
  }
  return { models, strapi, fastrapi, token: flag('token'), fill: Number(flag('fill') ?? 0), runs: Number(flag('runs') ?? 300), seed: Number(flag('seed') ?? 1) };
}
const opts = args();
let seed = opts.seed;
const rnd = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x7fffffff; };
const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];
const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));

function readModels(dir: string): { types: Model[]; components: Map<string, Record<string, Attr>> } {
  const types: Model[] = [];
  for (const f of readdirSync(join(dir, 'content-types')).filter((f) => f.endsWith('.json'))) {
    const m = JSON.parse(readFileSync(join(dir, 'content-types', f), 'utf8'));
    const s = m.info.singularName;
    types.push({ uid: `api::${s}.${s}`, kind: m.kind, plural: m.info.pluralName, singular: s, attributes: m.attributes,
      dp: m.options?.draftAndPublish !== false, i18n: !!m.pluginOptions?.i18n?.localized });
  }
  const components = new Map<string, Record<string, Attr>>();
  const cdir = join(dir, 'components');
  if (existsSync(cdir)) for (const cat of readdirSync(cdir)) for (const f of readdirSync(join(cdir, cat))) {
    components.set(`${cat}.${f.replace(/\.json$/, '')}`, JSON.parse(readFileSync(join(cdir, cat, f), 'utf8')).attributes);
  }
  return { types, components };
}
const { types, components } = readModels(opts.models);
const byUid = new Map(types.map((t) => [t.uid, t]));

interface Answer { status: number; body: { data?: unknown; meta?: unknown; error?: unknown } | null; text: string }
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
function send(base: string, method: string, path: string, body?: unknown, auth = true): Promise<Answer> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { 'cache-control': 'no-cache' };
    if (auth && opts.token) headers.authorization = `Bearer ${opts.token}`;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    if (payload) headers['content-type'] = 'application/json';
    const req = http.request(base + path, { method, agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => { let b = null; try { b = JSON.parse(text); } catch { /* compared by status */ } resolve({ status: res.statusCode ?? 0, body: b, text }); });
    });
    req.on('error', (e) => resolve({ status: 0, body: null, text: String(e) }));
    req.end(payload);
  });
}

// Values: a small vocabulary, so filters built from it match some documents and miss others.
const WORDS = ['Alpha', 'alpha', 'Beta', 'gamma', 'Delta x', 'épée', 'Lisbon', 'Porto', '100%', 'a_b', 'Zeta'];
const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const date = () => `20${pad(int(20, 25))}-${pad(int(1, 12))}-${pad(int(1, 28))}`;
const time = () => `${pad(int(0, 23))}:${pad(int(0, 59))}:${pad(int(0, 59))}.${pad(int(0, 999), 3)}`;
const datetime = () => `${date()}T${time()}Z`;
const fromRegex: Record<string, () => string> = {
  '^[A-Z]{3}-[0-9]+$': () => `${pick(['ABC', 'XYZ', 'QRS'])}-${int(1, 999)}`,
  '^[0-9]{4}-[0-9]{3}$': () => `${int(1000, 9999)}-${int(100, 999)}`,
};
let serial = 0;

function scalar(a: Attr): unknown {
  switch (a.type) {
    case 'string': case 'text': {
      if (a.regex) return (fromRegex[a.regex] ?? (() => undefined))();
      if (a.unique) return `${pick(WORDS)}-${++serial}`;
      let s = `${pick(WORDS)}${rnd() < 0.5 ? ` ${pick(WORDS)}` : ''}`;
      if (a.minLength && s.length < a.minLength) s = s.padEnd(a.minLength, 'x');
      return a.maxLength ? s.slice(0, a.maxLength) : s;
    }
    case 'richtext': return `# ${pick(WORDS)}\n\n${pick(WORDS)} **${pick(WORDS)}**`;
    case 'blocks': return [{ type: 'paragraph', children: [{ type: 'text', text: pick(WORDS) }] }];
    case 'email': return `${pick(['ann', 'bob', 'Cid'])}${int(1, 99)}@example.${pick(['com', 'org'])}`;
    case 'password': return `pw-${int(100000, 999999)}`;
    case 'uid': return `${pick(['alpha', 'beta', 'gamma'])}-${++serial}`;
    case 'enumeration': return pick(a.enum!);
    case 'boolean': return rnd() < 0.5;
    case 'integer': return int(a.min ?? -50, a.max ?? 500);
    case 'biginteger': return String(pick([1, 9007199254740993n, 42n, -7n]));
    case 'float': return Math.round((int(a.min ?? -100, a.max ?? 100) + rnd()) * 1000) / 1000;
    case 'decimal': return Math.round(int(a.min ?? -100, a.max ?? 1000) * 100 + int(0, 99)) / 100;
    case 'date': return date();
    case 'time': return time();
    case 'datetime': case 'timestamp': return datetime();
    case 'json': return pick([{ a: int(1, 3), tags: [pick(WORDS)] }, [1, 'two', null], pick(WORDS), int(1, 9), { nested: { ok: rnd() < 0.5 } }]);
    default: return undefined;
  }
}

function componentValue(uid: string, depth: number, files: number[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, a] of Object.entries(components.get(uid) ?? {})) {
    if (!a.required && rnd() < 0.2) continue;
    const v = a.type === 'component' ? (depth < 3 ? (a.repeatable ? Array.from({ length: int(0, 2) }, () => componentValue(a.component!, depth + 1, files)) : componentValue(a.component!, depth + 1, files)) : undefined)
      : a.type === 'media' ? (files.length ? (a.multiple ? files.filter(() => rnd() < 0.5) : pick(files)) : undefined)
        : a.type === 'relation' ? undefined : scalar(a);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** Documents made so far, by content-type uid (what relations connect to). */
const made = new Map<string, string[]>();

function documentValue(m: Model, files: number[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, a] of Object.entries(m.attributes)) {
    if (!a.required && rnd() < 0.2) continue;
    let v: unknown;
    if (a.type === 'component') v = a.repeatable ? Array.from({ length: int(0, Math.min(a.max ?? 3, 3)) }, () => componentValue(a.component!, 1, files)) : componentValue(a.component!, 1, files);
    else if (a.type === 'dynamiczone') v = Array.from({ length: int(0, 3) }, () => { const c = pick(a.components!); return { __component: c, ...componentValue(c, 1, files) }; });
    else if (a.type === 'media') v = files.length ? (a.multiple ? files.filter(() => rnd() < 0.4) : pick(files)) : undefined;
    else if (a.type === 'relation') {
      const pool = made.get(a.target!) ?? [];
      if (!pool.length) continue;
      const many = a.relation === 'manyToMany' || a.relation === 'oneToMany';
      v = many ? { connect: pool.filter(() => rnd() < 0.3).slice(0, 4) } : pick(pool);
    } else v = scalar(a);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** Three small PNGs uploaded through Strapi (media attributes link them). */
async function upload(): Promise<number[]> {
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  const ids: number[] = [];
  for (const name of ['one.png', 'two.png', 'three.png']) {
    const form = new FormData();
    form.append('files', new Blob([png], { type: 'image/png' }), name);
    const r = await fetch(`${opts.strapi}/api/upload`, { method: 'POST', body: form, headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {} });
    const body = await r.json() as Array<{ id: number }>;
    if (r.ok) ids.push(body[0].id); else console.log('upload failed', r.status, JSON.stringify(body).slice(0, 200));
  }
  return ids;
}

async function fill(n: number): Promise<void> {
  const files = await upload();
  // Targets of relations first where the models allow it: types nobody points to last.
  const order = [...types].sort((a, b) => Object.values(a.attributes).filter((x) => x.type === 'relation').length - Object.values(b.attributes).filter((x) => x.type === 'relation').length);
  let failed = 0;
  for (const pass of [0, 1]) for (const m of order) {
    if (m.kind === 'singleType') {
      if (pass) continue;
      const r = await send(opts.strapi, 'PUT', `/api/${m.singular}`, { data: documentValue(m, files) });
      if (r.status !== 200) { failed++; console.log(`PUT /api/${m.singular}: ${r.status} ${r.text.slice(0, 300)}`); }
      continue;
    }
    for (let i = 0; i < Math.ceil(n / 2); i++) {
      const status = m.dp && rnd() < 0.6 ? '?status=published' : '';
      const r = await send(opts.strapi, 'POST', `/api/${m.plural}${status}`, { data: documentValue(m, files) });
      if (r.status !== 201 && r.status !== 200) { failed++; console.log(`POST /api/${m.plural}: ${r.status} ${r.text.slice(0, 300)}`); continue; }
      const doc = (r.body?.data as { documentId: string }).documentId;
      made.set(m.uid, [...(made.get(m.uid) ?? []), doc]);
      if (m.i18n && rnd() < 0.5) {
        const t = await send(opts.strapi, 'PUT', `/api/${m.plural}/${doc}?locale=fr`, { data: documentValue(m, files) });
        if (t.status !== 200) { failed++; console.log(`PUT fr: ${t.status} ${t.text.slice(0, 300)}`); }
      }
    }
  }
  console.log(`filled: ${[...made].map(([k, v]) => `${k} ${v.length}`).join(', ')}; ${failed} writes refused`);
}

// ---- queries ----
type Pair = [string, string];
const TEXT_OPS = ['$eq', '$ne', '$contains', '$notContains', '$containsi', '$notContainsi', '$startsWith', '$startsWithi', '$endsWith', '$endsWithi', '$eqi', '$nei', '$null', '$notNull', '$in', '$notIn', '$lt', '$gt', '$between'];
const ORDER_OPS = ['$eq', '$ne', '$lt', '$lte', '$gt', '$gte', '$in', '$notIn', '$between', '$null', '$notNull', '$contains', '$startsWith'];
const scalarTypes = (attrs: Record<string, Attr>) => Object.entries(attrs).filter(([, a]) => !['relation', 'component', 'dynamiczone', 'media', 'password', 'blocks'].includes(a.type) && !a.private);
const SYSTEM: Array<[string, Attr]> = [['id', { type: 'integer' }], ['documentId', { type: 'string' }], ['createdAt', { type: 'datetime' }], ['updatedAt', { type: 'datetime' }]];

/** A value to compare an attribute with: often one the data holds, sometimes an edge. */
function probe(a: Attr): string {
  if (rnd() < 0.15) return pick(['', 'x', '0', '-1', 'null', 'true', '2024-01-01', '1e3', '9007199254740993', '12:00']);
  const v = scalar(a.type === 'uid' || a.unique || a.regex ? { type: 'string' } : a);
  if (a.type === 'json') return 'Alpha';
  if (typeof v === 'string' && rnd() < 0.4) return v.slice(0, int(1, Math.max(1, v.length)));
  return String(v ?? 'x');
}

function condition(attrs: Record<string, Attr>, prefix: string, depth: number): Pair[] {
  const r = rnd();
  if (r < 0.1 && depth < 2) { const op = pick(['$or', '$and']); return [...condition(attrs, `${prefix}[${op}][0]`, depth + 1), ...condition(attrs, `${prefix}[${op}][1]`, depth + 1)]; }
  if (r < 0.14 && depth < 2) return condition(attrs, `${prefix}[$not]`, depth + 1);
  const nested = Object.entries(attrs).filter(([, a]) => (a.type === 'relation' && byUid.has(a.target!)) || a.type === 'component' || a.type === 'media');
  if (r < 0.32 && depth < 2 && nested.length) {
    const [k, a] = pick(nested);
    const inner = a.type === 'relation' ? byUid.get(a.target!)!.attributes : a.type === 'component' ? components.get(a.component!) ?? {} : { name: { type: 'string' }, mime: { type: 'string' }, size: { type: 'decimal' } } as Record<string, Attr>;
    return condition(inner, `${prefix}[${k}]`, depth + 1);
  }
  const fields = [...scalarTypes(attrs), ...(depth === 0 ? SYSTEM : [])];
  if (!fields.length) return [[`${prefix}[id][$notNull]`, 'true']];
  const [field, a] = pick(fields);
  const op = pick(['string', 'text', 'richtext', 'email', 'uid', 'enumeration'].includes(a.type) ? TEXT_OPS : a.type === 'boolean' ? ['$eq', '$ne', '$null', '$in'] : ORDER_OPS);
  if (op === '$in' || op === '$notIn' || op === '$between') return [[`${prefix}[${field}][${op}][0]`, probe(a)], [`${prefix}[${field}][${op}][1]`, probe(a)]];
  if (op === '$null' || op === '$notNull') return [[`${prefix}[${field}][${op}]`, pick(['true', 'false'])]];
  return [[`${prefix}[${field}][${op}]`, probe(a)]];
}

function populate(attrs: Record<string, Attr>, prefix: string, depth: number): Pair[] {
  const all = Object.entries(attrs).filter(([, a]) => ['relation', 'component', 'dynamiczone', 'media'].includes(a.type));
  if (!all.length) return [];
  const r = rnd();
  if (r < 0.15) return [[prefix, '*']];
  if (r < 0.3) return all.filter(() => rnd() < 0.5).map(([k], i): Pair => [`${prefix}[${i}]`, k]);
  const out: Pair[] = [];
  for (const [k, a] of all) {
    if (rnd() > 0.4) continue;
    const p = `${prefix}[${k}]`;
    const inner = a.type === 'relation' ? byUid.get(a.target!)?.attributes : a.type === 'component' ? components.get(a.component!) : undefined;
    if (a.type === 'dynamiczone') {
      out.push(...pick<Pair[]>([[[`${p}[populate]`, '*']], [[p, 'true']], a.components!.filter(() => rnd() < 0.6).map((c): Pair => [`${p}[on][${c}]`, pick(['true', '*'])])]));
      continue;
    }
    if (a.type === 'media') { out.push(pick<Pair>([[`${p}[fields][0]`, pick(['url', 'name', 'mime'])], [p, 'true']])); continue; }
    if (!inner) { out.push([p, 'true']); continue; }
    const before = out.length;
    const scal = scalarTypes(inner);
    if (scal.length && rnd() < 0.4) out.push([`${p}[fields][0]`, pick(scal)[0]]);
    if (a.type === 'relation' && scal.length && rnd() < 0.3) out.push([`${p}[sort]`, `${pick(scal)[0]}:${pick(['asc', 'desc'])}`]);
    if (a.type === 'relation' && rnd() < 0.25) out.push(...condition(inner, `${p}[filters]`, 1));
    if (rnd() < 0.3 && depth < 2) out.push(...populate(inner, `${p}[populate]`, depth + 1));
    if (out.length === before) out.push([p, 'true']);
  }
  return out;
}

function query(m: Model, one: boolean): Pair[] {
  const q: Pair[] = [];
  const scal = [...scalarTypes(m.attributes), ...SYSTEM].filter(([, a]) => a.type !== 'json');
  if (!one && rnd() < 0.6) q.push(...condition(m.attributes, 'filters', 0));
  // Ties sorted by id so both servers' pages are one answer (Strapi gives no order to ties).
  if (!one && rnd() < 0.5) { q.push(['sort[0]', `${pick(scal)[0]}:${pick(['asc', 'desc'])}`]); q.push(['sort[1]', 'id']); }
  if (!one && rnd() < 0.4) q.push(...(rnd() < 0.6 ? [['pagination[page]', pick(['1', '2'])], ['pagination[pageSize]', pick(['2', '5', '100'])]] as Pair[] : [['pagination[start]', pick(['0', '3'])], ['pagination[limit]', pick(['1', '-1', '4'])]] as Pair[]));
  if (rnd() < 0.4) scal.filter(() => rnd() < 0.35).forEach(([f], i) => q.push([`fields[${i}]`, f]));
  if (rnd() < 0.6) q.push(...populate(m.attributes, 'populate', 0));
  if (m.i18n && rnd() < 0.4) q.push(['locale', pick(['en', 'fr', '*'])]);
  if (m.dp && rnd() < 0.4) q.push(['status', pick(['draft', 'published'])]);
  return q;
}

const encode = (q: Pair[]) => q.map(([k, v]) => `${encodeURIComponent(k).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${encodeURIComponent(v)}`).join('&');

if (opts.fill > 0) await fill(opts.fill);
const documents = new Map<string, string[]>();
for (const m of types) {
  if (m.kind === 'singleType') continue;
  const r = await send(opts.strapi, 'GET', `/api/${m.plural}?fields[0]=id&pagination[pageSize]=100${m.dp ? '&status=draft' : ''}${m.i18n ? '&locale=*' : ''}`);
  documents.set(m.uid, ((r.body?.data ?? []) as Array<{ documentId: string }>).map((d) => d.documentId));
}

let differ = 0;
for (let i = 0; i < opts.runs; i++) {
  const m = pick(types);
  const docs = documents.get(m.uid) ?? [];
  const one = m.kind === 'singleType' || (rnd() < 0.3 && docs.length > 0);
  const path = `/api/${m.kind === 'singleType' ? m.singular : m.plural}${one && m.kind !== 'singleType' ? `/${pick(docs)}` : ''}?${encode(query(m, one))}`;
  const [a, b] = await Promise.all([send(opts.strapi, 'GET', path), send(opts.fastrapi, 'GET', path)]);
  const why = a.status !== b.status ? `status ${a.status} vs ${b.status}`
    : a.status === 200 && !isDeepStrictEqual(a.body?.data, b.body?.data) ? 'data'
      : a.status === 200 && !isDeepStrictEqual(a.body?.meta, b.body?.meta) ? 'meta'
        : a.status !== 200 && !isDeepStrictEqual(a.body?.error, b.body?.error) ? 'error' : null;
  if (!why) continue;
  differ++;
  console.log(`\n#${i} ${why} ${path}\n  strapi:   ${a.text.slice(0, 500)}\n  fastrapi: ${b.text.slice(0, 500)}`);
}
console.log(`\n${differ} of ${opts.runs} differ (seed ${opts.seed})`);
agent.destroy();
