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
import { readProject, random, values, send as sendTo, upload, closeAgent, readDifference, schemaFuzzArgs, type Attr, type Model } from './schema-model.ts';

const cli = schemaFuzzArgs('npx tsx bench/schema-fuzz.ts --models DIR --strapi URL --fastrapi URL --token T [--fill N] [--runs N] [--seed N]');
const opts = { ...cli, fill: Number(cli.flag('fill') ?? 0), runs: Number(cli.flag('runs') ?? 300) };
const project = readProject(opts.models);
const { types, components, byUid } = project;
const r = random(opts.seed);
const { rnd, pick, int } = r;
/** Documents made so far, by content-type uid (what relations connect to). */
const made = new Map<string, string[]>();
let files: number[] = [];
const gen = values(project, r, (uid) => made.get(uid) ?? [], () => files);
const scalar = gen.scalar;
const send = (base: string, method: string, path: string, body?: unknown, auth = true) => sendTo(base, method, path, auth ? opts.token : undefined, body);

async function fill(n: number): Promise<void> {
  files = await upload(opts.strapi, opts.token);
  // Types with fewer relations first: what others point to exists when they are written.
  const order = [...types].sort((a, b) => Object.values(a.attributes).filter((x) => x.type === 'relation').length - Object.values(b.attributes).filter((x) => x.type === 'relation').length);
  let failed = 0;
  for (const pass of [0, 1]) for (const m of order) {
    if (m.kind === 'singleType') {
      if (pass) continue;
      const w = await send(opts.strapi, 'PUT', `/api/${m.singular}`, { data: gen.document(m) });
      if (w.status !== 200) { failed++; console.log(`PUT /api/${m.singular}: ${w.status} ${w.text.slice(0, 300)}`); }
      continue;
    }
    for (let i = 0; i < Math.ceil(n / 2); i++) {
      const status = m.dp && rnd() < 0.6 ? '?status=published' : '';
      const w = await send(opts.strapi, 'POST', `/api/${m.plural}${status}`, { data: gen.document(m) });
      if (w.status !== 201 && w.status !== 200) { failed++; console.log(`POST /api/${m.plural}: ${w.status} ${w.text.slice(0, 300)}`); continue; }
      const doc = (w.body?.data as { documentId: string }).documentId;
      made.set(m.uid, [...(made.get(m.uid) ?? []), doc]);
      if (m.i18n && rnd() < 0.5) {
        const t = await send(opts.strapi, 'PUT', `/api/${m.plural}/${doc}?locale=fr`, { data: gen.document(m) });
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
  // A fifth without the token: the public role's permissions and what it may populate.
  const auth = rnd() < 0.8;
  const [a, b] = await Promise.all([send(opts.strapi, 'GET', path, undefined, auth), send(opts.fastrapi, 'GET', path, undefined, auth)]);
  const why = readDifference(a, b);
  if (!why) continue;
  differ++;
  console.log(`\n#${i} ${why}${auth ? '' : ' (public)'} ${path}\n  strapi:   ${a.text.slice(0, 500)}\n  fastrapi: ${b.text.slice(0, 500)}`);
}
console.log(`\n${differ} of ${opts.runs} differ (seed ${opts.seed})`);
closeAgent();
