// Differential fuzz of REST writes for ANY models folder: creates, updates and deletes made from the models
// (values of every attribute type within their rules, and now and then one broken: a wrong type, a value out
// of range, against its regex or enum, a duplicate unique value, a missing required one, an unknown key, a
// component or zone entry gone wrong, a relation to nothing), sent in the same order to a live Strapi and to
// this server, each on its OWN copy of one database, then each written document read back with `populate=*`.
// Answers are compared once documentIds are named and timestamps and ids masked (bench/schema-model.ts).
//
//   createdb -T strapi wsa; createdb -T strapi wsb   (a database bench/schema-fuzz.ts --fill made; Strapi on wsa, this server on wsb)
//   npx tsx bench/schema-write-fuzz.ts --models DIR --strapi URL --fastrapi URL --token T [--runs 200] [--seed 1] [--verbose]
import { isDeepStrictEqual } from 'node:util';
import { readProject, random, values, send, closeAgent, normalize, firstDifference, schemaFuzzArgs, type Answer, type Attr, type Model } from './schema-model.ts';

const { models, strapi, fastrapi, token, flag, has } = schemaFuzzArgs('npx tsx bench/schema-write-fuzz.ts --models DIR --strapi URL --fastrapi URL --token T [--runs N] [--seed N] [--verbose]');
const runs = Number(flag('runs') ?? 200), firstSeed = Number(flag('seed') ?? 1), verbose = has('verbose');
const project = readProject(models);
const r = random(firstSeed);
const { rnd, pick, int } = r;

/** A document on both sides: its documentId on each (equal for the copies' own) and a name for reports. */
interface Doc { s: string; f: string; name: string }
const docs = new Map<string, Doc[]>(project.types.map((t) => [t.uid, []]));
let files: number[] = [];
// Values name documents by a placeholder, made each side's documentId when sent.
const gen = values(project, r, (uid) => (docs.get(uid) ?? []).map((d) => `@@${d.name}@@`), () => files);
const forSide = (v: unknown, side: 's' | 'f'): unknown => JSON.parse(JSON.stringify(v ?? null).replace(/@@([^@]+)@@/g, (_, n: string) => {
  for (const list of docs.values()) { const d = list.find((x) => x.name === n); if (d) return d[side]; }
  return n;
}));

/** One attribute's value broken in a way a client gets wrong. */
function broken(a: Attr): unknown {
  switch (a.type) {
    case 'string': case 'text': case 'richtext': case 'email': case 'uid':
      return pick([int(1, 9), { x: 1 }, [pick(['a', 'b'])], true, a.maxLength ? 'x'.repeat(a.maxLength + 1) : 'Not an email', a.minLength ? 'x' : 'bad value!', '']);
    case 'enumeration': return pick(['nope', 1, '']);
    case 'boolean': return pick(['yes', 2, 'true', 'false', 0, '1']);
    case 'integer': case 'biginteger': case 'float': case 'decimal':
      return pick(['12', 'abc', 1.5, (a.max ?? 1e9) + 1, (a.min ?? -1e9) - 1, '9007199254740993', 1e20, '', true]);
    case 'date': return pick(['2024-13-01', 'tomorrow', '2024-02-30', 20240101, '2024-01-01T10:00:00Z']);
    case 'time': return pick(['25:00', '12:00', '12:00:00', 'noon', 1200, '12:00:00.5']);
    case 'datetime': case 'timestamp': return pick(['2024-01-01', 'yesterday', 1700000000000, '2024-01-01 10:00', '2024-01-01T25:00:00Z']);
    case 'json': return pick(['{"a":1}', 'not json', 5]);
    case 'blocks': return pick(['text', [{ type: 'nope' }], { type: 'paragraph' }]);
    case 'media': return pick([999999, 'x', [999999], { id: 1 }]);
    case 'component': return a.repeatable ? pick([{ nope: 1 }, [{ nope: 1 }], Array.from({ length: (a.max ?? 3) + 1 }, () => gen.component(a.component!, 1))]) : pick([[gen.component(a.component!, 1)], { nope: 1 }, 'x']);
    case 'dynamiczone': return pick([[{ __component: 'nope.nope' }], [{ x: 1 }], { __component: a.components![0] }]);
    case 'relation': return pick(['nosuchdocument00000000000', { connect: ['nosuchdocument00000000000'] }, 5, { set: 'x' }]);
    default: return null;
  }
}

/** Unique values written so far, by type and attribute (a body may repeat one). */
const uniques = new Map<string, unknown[]>();

function body(m: Model, update: boolean): Record<string, unknown> {
  const data = gen.document(m, update);
  // Polymorphic links are left out (written from the inverse side, Strapi stores links this server refuses).
  const breakable = Object.entries(m.attributes).filter(([, a]) => !a.relation?.startsWith('morph'));
  if (rnd() < 0.35 && breakable.length) {
    const [k, a] = pick(breakable);
    data[k] = broken(a);
  }
  if (rnd() < 0.05) { const req = Object.entries(m.attributes).find(([, a]) => a.required); if (req) data[req[0]] = pick([null, undefined]); }
  if (rnd() < 0.04) data.unknownField = 1;
  if (rnd() < 0.05) {
    // A duplicate of a unique value some document holds.
    const u = Object.entries(m.attributes).find(([, a]) => a.unique);
    if (u && uniques.get(`${m.uid}.${u[0]}`)?.length) data[u[0]] = pick(uniques.get(`${m.uid}.${u[0]}`)!);
  }
  return data;
}
function remember(m: Model, data: Record<string, unknown>) {
  for (const [k, a] of Object.entries(m.attributes)) if (a.unique && typeof data[k] === 'string') uniques.set(`${m.uid}.${k}`, [...(uniques.get(`${m.uid}.${k}`) ?? []), data[k]]);
}

let differ = 0;
const namesOf = (side: 's' | 'f') => new Map([...docs.values()].flat().map((d) => [d[side], d.name]));
const tally = new Map<string, number>();
function compare(label: string, a: Answer, b: Answer): void {
  if (!label.includes('then GET')) tally.set(String(a.status), (tally.get(String(a.status)) ?? 0) + 1);
  if (verbose && !label.includes('then GET')) console.log(`${label.slice(0, 600)} -> ${a.status} / ${b.status} ${a.status < 300 ? JSON.stringify(normalize((a.body?.data as { documentId?: string } | undefined)?.documentId, namesOf('s'))) : a.text.slice(0, 150)}`);
  if (a.status >= 500) return; // Strapi's own defects: answered 4xx here by design
  const na = { status: a.status, body: normalize(a.body, namesOf('s')) };
  const nb = { status: b.status, body: normalize(b.body, namesOf('f')) };
  if (isDeepStrictEqual(na, nb)) return;
  differ++;
  const at = firstDifference(na, nb, '');
  console.log(`\n[${label}]\n  first difference at ${at.path}: strapi ${JSON.stringify(at.a)?.slice(0, 300)} / fastrapi ${JSON.stringify(at.b)?.slice(0, 300)}\n  strapi   ${a.status} ${JSON.stringify(na.body).slice(0, 500)}\n  fastrapi ${b.status} ${JSON.stringify(nb.body).slice(0, 500)}`);
}

for (const m of project.types) {
  if (m.kind === 'singleType') continue;
  const got = await send(strapi, 'GET', `/api/${m.plural}?fields[0]=id&pagination[pageSize]=200${m.dp ? '&status=draft' : ''}${m.i18n ? '&locale=*' : ''}`, token);
  const seen = new Set<string>();
  for (const d of (got.body?.data ?? []) as Array<{ documentId: string }>) if (!seen.has(d.documentId)) { seen.add(d.documentId); docs.get(m.uid)!.push({ s: d.documentId, f: d.documentId, name: d.documentId }); }
}
{
  const got = await send(strapi, 'GET', '/api/upload/files', token);
  files = (Array.isArray(got.body) ? got.body as Array<{ id: number }> : []).map((f) => f.id).slice(0, 6);
}
console.log(`documents: ${[...docs].map(([t, d]) => `${t} ${d.length}`).join(', ')}; files ${files.join(',')}`);

let created = 0;
for (let i = 0; i < runs; i++) {
  const m = pick(project.types);
  const params: string[] = [];
  if (m.dp && rnd() < 0.4) params.push(`status=${pick(['draft', 'published'])}`);
  if (m.i18n && rnd() < 0.4) params.push(`locale=${pick(['en', 'fr', 'de'])}`);
  if (rnd() < 0.2) params.push(pick(['populate=*', 'fields[0]=id']));
  const qs = params.length ? `?${params.join('&')}` : '';
  const list = docs.get(m.uid) ?? [];
  const op = rnd();
  let label: string, a: Answer, b: Answer, target: Doc | undefined;
  if (m.kind === 'singleType') {
    const data = body(m, rnd() < 0.5);
    label = `#${i} PUT /api/${m.singular}${qs} ${JSON.stringify({ data }).slice(0, 3000)}`;
    [a, b] = await Promise.all([send(strapi, 'PUT', `/api/${m.singular}${qs}`, token, { data: forSide(data, 's') }), send(fastrapi, 'PUT', `/api/${m.singular}${qs}`, token, { data: forSide(data, 'f') })]);
    compare(label, a, b);
    const [ra, rb] = await Promise.all([send(strapi, 'GET', `/api/${m.singular}?populate=*`, token), send(fastrapi, 'GET', `/api/${m.singular}?populate=*`, token)]);
    compare(`${label}\n  then GET`, ra, rb);
    continue;
  }
  if (op < 0.45 || !list.length) {
    const data = body(m, false);
    label = `#${i} POST /api/${m.plural}${qs} ${JSON.stringify({ data }).slice(0, 3000)}`;
    [a, b] = await Promise.all([send(strapi, 'POST', `/api/${m.plural}${qs}`, token, { data: forSide(data, 's') }), send(fastrapi, 'POST', `/api/${m.plural}${qs}`, token, { data: forSide(data, 'f') })]);
    const sa = (a.body?.data as { documentId?: string } | undefined)?.documentId;
    const sb = (b.body?.data as { documentId?: string } | undefined)?.documentId;
    if (sa && sb) { target = { s: sa, f: sb, name: `new-${m.singular}-${++created}` }; list.push(target); remember(m, data); }
  } else if (op < 0.9) {
    target = pick(list);
    const data = body(m, true);
    label = `#${i} PUT /api/${m.plural}/${target.name}${qs} ${JSON.stringify({ data }).slice(0, 3000)}`;
    [a, b] = await Promise.all([send(strapi, 'PUT', `/api/${m.plural}/${target.s}${qs}`, token, { data: forSide(data, 's') }), send(fastrapi, 'PUT', `/api/${m.plural}/${target.f}${qs}`, token, { data: forSide(data, 'f') })]);
    if (a.status === 200) remember(m, data);
  } else {
    target = pick(list);
    label = `#${i} DELETE /api/${m.plural}/${target.name}${qs}`;
    [a, b] = await Promise.all([send(strapi, 'DELETE', `/api/${m.plural}/${target.s}${qs}`, token), send(fastrapi, 'DELETE', `/api/${m.plural}/${target.f}${qs}`, token)]);
  }
  compare(label, a, b);
  if (target) {
    for (const rq of [m.dp ? 'status=draft' : '', m.dp ? 'status=published' : ''].filter((x, k) => k === 0 || x)) {
      const p = `populate=*&pagination[pageSize]=100${m.i18n ? '&locale=*' : ''}&filters[documentId][$eq]=`;
      const [ra, rb] = await Promise.all([send(strapi, 'GET', `/api/${m.plural}?${p}${target.s}${rq ? `&${rq}` : ''}`, token), send(fastrapi, 'GET', `/api/${m.plural}?${p}${target.f}${rq ? `&${rq}` : ''}`, token)]);
      compare(`${label}\n  then GET ${target.name} ${rq}`, ra, rb);
    }
  }
}
console.log(`\n${runs} writes (Strapi answered ${[...tally].map(([k, n]) => `${k}: ${n}`).join(', ')}), ${differ} differences (seed ${firstSeed})`);
closeAgent();
