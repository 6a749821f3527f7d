// What the schema-driven fuzzers (bench/schema-fuzz.ts, bench/schema-write-fuzz.ts) know of a project: its
// models folder read as Strapi lays it out, a seeded random source, values of every attribute type within the
// model's rules, an HTTP client for either server, and the comparison of two answers.
import http from 'node:http';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

export interface Attr {
  type: string; relation?: string; target?: string; component?: string; components?: string[]; repeatable?: boolean;
  multiple?: boolean; enum?: string[]; min?: number; max?: number; minLength?: number; maxLength?: number; regex?: string;
  required?: boolean; private?: boolean; unique?: boolean; mappedBy?: string; inversedBy?: string; targetField?: string;
}
export interface Model { uid: string; kind: string; plural: string; singular: string; attributes: Record<string, Attr>; dp: boolean; i18n: boolean }
export interface Project { types: Model[]; byUid: Map<string, Model>; components: Map<string, Record<string, Attr>> }

export function readProject(dir: string): Project {
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
  return { types, byUid: new Map(types.map((t) => [t.uid, t])), components };
}

/** A seeded generator: a run is repeated by its seed. */
export function random(seed: number) {
  let s = seed;
  const rnd = () => { s = (s * 1103515245 + 12345) & 0x7fffffff; return s / 0x7fffffff; };
  return { rnd, pick: <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)], int: (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1)) };
}
export type Random = ReturnType<typeof random>;

// A small vocabulary, so filters built from it match some documents and miss others.
export const WORDS = ['Alpha', 'alpha', 'Beta', 'gamma', 'Delta x', 'épée', 'Lisbon', 'Porto', '100%', 'a_b', 'Zeta'];
const fromRegex: Record<string, (r: Random) => string> = {
  '^[A-Z]{3}-[0-9]+$': (r) => `${r.pick(['ABC', 'XYZ', 'QRS'])}-${r.int(1, 999)}`,
  '^[0-9]{4}-[0-9]{3}$': (r) => `${r.int(1000, 9999)}-${r.int(100, 999)}`,
};

/**
 * Values within each attribute's rules. `ref(uid)` answers documents a relation may name (none: left out);
 * `files` the media ids to link.
 */
export function values(p: Project, r: Random, ref: (uid: string) => string[], files: () => number[]) {
  const { rnd, pick, int } = r;
  let serial = 0;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const date = () => `20${pad(int(20, 25))}-${pad(int(1, 12))}-${pad(int(1, 28))}`;
  const time = () => `${pad(int(0, 23))}:${pad(int(0, 59))}:${pad(int(0, 59))}.${pad(int(0, 999), 3)}`;
  const scalar = (a: Attr): unknown => {
    switch (a.type) {
      case 'string': case 'text': {
        if (a.regex) return fromRegex[a.regex]?.(r);
        if (a.unique) return `${pick(WORDS)}-${++serial}-${int(0, 1e6)}`;
        let s = `${pick(WORDS)}${rnd() < 0.5 ? ` ${pick(WORDS)}` : ''}`;
        if (a.minLength && s.length < a.minLength) s = s.padEnd(a.minLength, 'x');
        return a.maxLength ? s.slice(0, a.maxLength) : s;
      }
      case 'richtext': return `# ${pick(WORDS)}\n\n${pick(WORDS)} **${pick(WORDS)}**`;
      case 'blocks': return [{ type: 'paragraph', children: [{ type: 'text', text: pick(WORDS) }] }];
      case 'email': return `${pick(['ann', 'bob', 'Cid'])}${int(1, 99)}@example.${pick(['com', 'org'])}`;
      case 'password': return `pw-${int(100000, 999999)}`;
      case 'uid': return `${pick(['alpha', 'beta', 'gamma'])}-${++serial}-${int(0, 1e6)}`;
      case 'enumeration': return pick(a.enum!);
      case 'boolean': return rnd() < 0.5;
      case 'integer': return int(a.min ?? -50, a.max ?? 500);
      case 'biginteger': return pick(['1', '9007199254740993', '42', '-7']);
      case 'float': return Math.round((int(a.min ?? -100, (a.max ?? 100) - 1) + rnd()) * 1000) / 1000;
      case 'decimal': return Math.round(int(a.min ?? -100, a.max ?? 1000) * 100 + int(0, 99)) / 100;
      case 'date': return date();
      case 'time': return time();
      case 'datetime': case 'timestamp': return `${date()}T${time()}Z`;
      // Not a bare string: Strapi hands one to PostgreSQL as JSON text (a 500 when it is none).
      case 'json': return pick([{ a: int(1, 3), tags: [pick(WORDS)] }, [1, 'two', null], int(1, 9), { nested: { ok: rnd() < 0.5 } }]);
      default: return undefined;
    }
  };
  const media = (a: Attr) => { const f = files(); return f.length ? (a.multiple ? f.filter(() => rnd() < 0.4) : pick(f)) : undefined; };
  const component = (uid: string, depth: number): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [k, a] of Object.entries(p.components.get(uid) ?? {})) {
      if (!a.required && rnd() < 0.2) continue;
      const v = a.type === 'component' ? (depth < 3 ? (a.repeatable ? Array.from({ length: int(0, 2) }, () => component(a.component!, depth + 1)) : component(a.component!, depth + 1)) : undefined)
        : a.type === 'media' ? media(a) : a.type === 'relation' ? undefined : scalar(a);
      if (v !== undefined) out[k] = v;
    }
    return out;
  };
  const attribute = (a: Attr): unknown => {
    if (a.type === 'component') return a.repeatable ? Array.from({ length: int(0, Math.min(a.max ?? 3, 3)) }, () => component(a.component!, 1)) : component(a.component!, 1);
    if (a.type === 'dynamiczone') return Array.from({ length: int(0, 3) }, () => { const c = pick(a.components!); return { __component: c, ...component(c, 1) }; });
    if (a.type === 'media') return media(a);
    if (a.type === 'relation') {
      // Polymorphic links are written with __type (a plain documentId is a 500 on Strapi): left out.
      if (a.relation?.startsWith('morph') || !a.target) return undefined;
      const pool = ref(a.target);
      if (!pool.length) return undefined;
      const many = a.relation === 'manyToMany' || a.relation === 'oneToMany';
      return many ? pick([{ connect: pool.filter(() => rnd() < 0.3).slice(0, 4) }, { set: pool.filter(() => rnd() < 0.3).slice(0, 3) }, pool.filter(() => rnd() < 0.3).slice(0, 2)])
        : pick([pick(pool), { connect: [pick(pool)] }, null]);
    }
    return scalar(a);
  };
  /** A document's attributes; `partial`: each left out more often (an update). */
  const document = (m: Model, partial = false): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [k, a] of Object.entries(m.attributes)) {
      if ((!a.required || partial) && rnd() < (partial ? 0.7 : 0.2)) continue;
      const v = attribute(a);
      if (v !== undefined) out[k] = v;
    }
    return out;
  };
  return { scalar, component, attribute, document };
}

/** An answer: its status, its body as JSON (null when it is none) and as text. `B`: a REST answer's body unless said. */
export interface Answer<B = { data?: unknown; meta?: unknown; error?: unknown }> { status: number; body: B | null; text: string }

/** Why two answers to one read differ (status, then `data` and `meta` of a 200, `error` otherwise), or null. */
export function readDifference(a: Pick<Answer, 'status' | 'body'>, b: Pick<Answer, 'status' | 'body'>): string | null {
  return a.status !== b.status ? `status ${a.status} vs ${b.status}`
    : a.status === 200 && !isDeepStrictEqual(a.body?.data, b.body?.data) ? 'data'
      : a.status === 200 && !isDeepStrictEqual(a.body?.meta, b.body?.meta) ? 'meta'
        : a.status !== 200 && !isDeepStrictEqual(a.body?.error, b.body?.error) ? 'error' : null;
}

/** The schema fuzzers' command line: the models, both servers, the token, runs and seed; `usage` when one is missing. */
export function schemaFuzzArgs(usage: string) {
  const argv = process.argv.slice(2);
  const flag = (n: string) => { const i = argv.indexOf(`--${n}`); return i >= 0 ? argv[i + 1] : undefined; };
  const models = flag('models'), strapi = flag('strapi')?.replace(/\/$/, ''), fastrapi = flag('fastrapi')?.replace(/\/$/, '');
  if (!models || !strapi || !fastrapi) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  return { models, strapi, fastrapi, token: flag('token'), flag, has: (n: string) => argv.includes(`--${n}`), seed: Number(flag('seed') ?? 1) };
}
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
export function send<B = NonNullable<Answer['body']>>(base: string, method: string, path: string, token: string | undefined, body?: unknown): Promise<Answer<B>> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { 'cache-control': 'no-cache' };
    if (token) headers.authorization = `Bearer ${token}`;
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
export const closeAgent = () => agent.destroy();

/** Three small PNGs uploaded to a server (media attributes link them): their ids. */
export async function upload(base: string, token: string | undefined): Promise<number[]> {
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  const ids: number[] = [];
  for (const name of ['one.png', 'two.png', 'three.png']) {
    const form = new FormData();
    form.append('files', new Blob([png], { type: 'image/png' }), name);
    const r = await fetch(`${base}/api/upload`, { method: 'POST', body: form, headers: token ? { authorization: `Bearer ${token}` } : {} });
    const body = await r.json() as Array<{ id: number }>;
    if (r.ok) ids.push(body[0].id); else console.log('upload failed', r.status, JSON.stringify(body).slice(0, 200));
  }
  return ids;
}

/** An answer with documentIds named (`names`: documentId → name), timestamps and ids masked. */
export function normalize(x: unknown, names: Map<string, string>): unknown {
  if (Array.isArray(x)) return x.map((v) => normalize(v, names));
  if (x && typeof x === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x)) {
      if ((k === 'createdAt' || k === 'updatedAt' || k === 'publishedAt') && typeof v === 'string') out[k] = '<ts>';
      else if (k === 'documentId' && typeof v === 'string') out[k] = names.get(v) ?? v;
      else if (k === 'id' && typeof v === 'number') out[k] = '<id>';
      else out[k] = normalize(v, names);
    }
    return out;
  }
  if (typeof x === 'string') return names.get(x) ?? x.replace(/\b[a-z0-9]{24}\b/g, (m) => names.get(m) ?? m);
  return x;
}

/** Where two answers first part (depth first): the path and both values there. */
export function firstDifference(a: unknown, b: unknown, path: string): { path: string; a: unknown; b: unknown } {
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (!Array.isArray(a) && ka.join() !== kb.join() && ka.length === kb.length && ka.every((k) => kb.includes(k))) {
      for (const k of ka) if (!isDeepStrictEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
      return { path: `${path} (key order)`, a: ka, b: kb };
    }
    for (const k of new Set([...ka, ...kb])) {
      const va = (a as Record<string, unknown>)[k];
      const vb = (b as Record<string, unknown>)[k];
      if (!isDeepStrictEqual(va, vb)) return firstDifference(va, vb, `${path}.${k}`);
    }
  }
  return { path: path || '.', a, b };
}
