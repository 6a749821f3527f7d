// What the differential fuzzers that talk to both servers share: a JSON request over one keep-alive agent
// (no response cache: `cache-control: no-cache`), and the report of an answer pair that differs.
import http from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import { firstDifference } from './schema-model.ts';

export interface FuzzAnswer<B = unknown> { status: number; body: B; text: string }

const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
export const closeFuzzAgent = () => agent.destroy();

/** `body`: sent as JSON; `token`: a Bearer credential; `headers`: more request headers. */
export function request<B = unknown>(base: string, method: string, path: string, opts: { body?: unknown; token?: string | null; headers?: Record<string, string> } = {}): Promise<FuzzAnswer<B>> {
  const u = new URL(base);
  const payload = opts.body === undefined ? null : Buffer.from(typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body));
  const headers: Record<string, string> = { 'cache-control': 'no-cache', accept: 'application/json', ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (payload) { headers['content-type'] = 'application/json'; headers['content-length'] = String(payload.length); }
  return new Promise((resolve) => {
    const req = http.request({ agent, host: u.hostname, port: u.port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => { let b: unknown = null; try { b = JSON.parse(text); } catch { /* compared as text */ } resolve({ status: res.statusCode ?? 0, body: b as B, text }); });
    });
    req.on('error', (e) => resolve({ status: 0, body: null as B, text: String(e) }));
    if (payload) req.write(payload);
    req.end();
  });
}

/**
 * Prints an answer pair whose normalized forms differ (FULL=1 prints them whole); true when they differ.
 * Strapi's 500s are its own defects (answered 4xx here by design) and never count.
 */
export function reportDifference<B>(label: string, a: FuzzAnswer<B>, b: FuzzAnswer<B>, norm: (x: unknown, side: 's' | 'f') => unknown): boolean {
  if (a.status >= 500) return false;
  const na = { status: a.status, body: norm(a.body ?? a.text, 's') };
  const nb = { status: b.status, body: norm(b.body ?? b.text, 'f') };
  if (isDeepStrictEqual(na, nb)) return false;
  const at = firstDifference(na, nb, '');
  const cut = process.env.FULL ? Infinity : 700;
  console.log(`\n[${label}]\n  first difference at ${at.path}: strapi ${JSON.stringify(at.a)?.slice(0, 300)} / fastrapi ${JSON.stringify(at.b)?.slice(0, 300)}\n  strapi   ${a.status} ${JSON.stringify(na.body).slice(0, cut)}\n  fastrapi ${b.status} ${JSON.stringify(nb.body).slice(0, cut)}`);
  return true;
}
