// Clients that go away mid-request (a browser navigating off, a load balancer's timeout) must not disturb
// anyone else. With more concurrent reads than pool connections postgres.js pipelines statements on a
// connection; cancelling a gone client's statement there (a PostgreSQL cancel request is per backend)
// once made other requests get wrong rows and 503s. Here half the clients hang up at random moments
// while the other half check every answer they get is theirs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startTestServer, TOKEN, prng, type TestServer } from './helpers.ts';

let s: TestServer;
const tags: Array<{ documentId: string; name: string }> = [];

before(async () => {
  s = await startTestServer({ env: { DB_POOL_SIZE: '2', WORKERS: '1' } });
  for (let i = 0; i < 12; i++) {
    const r = await s.fetchJson('POST', '/api/tags', { data: { name: `tag ${i}` } }, TOKEN);
    assert.equal(r.status, 201, r.text);
    tags.push({ documentId: r.body.data.documentId, name: r.body.data.name });
  }
});
after(async () => { await s?.stop(); });

/** A GET whose client hangs up after `ms` (the request may or may not have been answered by then). */
function hangUp(path: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const req = http.get(`${s.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` }, agent: false }, (res) => { res.resume(); res.on('end', resolve); res.on('error', () => resolve()); });
    req.on('error', () => resolve());
    setTimeout(() => { req.destroy(); resolve(); }, ms);
  });
}

test('clients hanging up never change what the others get', { timeout: 120_000 }, async () => {
  const r = prng(7);
  const wrong: string[] = [];
  let answered = 0;
  const deadlineAt = Date.now() + 4000;
  const checker = async () => {
    while (Date.now() < deadlineAt) {
      const t = tags[Math.floor(r() * tags.length)];
      // populate and a filter make the statement slow enough to be pipelined behind others
      const res = await s.fetchJson('GET', `/api/tags/${t.documentId}?fields[0]=name&populate[articles][fields][0]=title`, undefined, TOKEN);
      answered++;
      if (res.status !== 200 || res.body?.data?.name !== t.name) wrong.push(`${res.status} ${t.name}: ${res.text.slice(0, 160)}`);
    }
  };
  const leaver = async () => {
    while (Date.now() < deadlineAt) await hangUp(`/api/tags?populate=*&pagination[pageSize]=100&x=${Math.floor(r() * 1e9)}`, Math.floor(r() * 6));
  };
  await Promise.all([...Array.from({ length: 8 }, checker), ...Array.from({ length: 16 }, leaver)]);
  assert.ok(answered > 100, `answered ${answered}`);
  assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} wrong answers of ${answered}`);
  // The node still answers normally.
  const list = await s.fetchJson('GET', '/api/tags?pagination[pageSize]=100', undefined, TOKEN);
  assert.equal(list.body.data.length, tags.length);
});
