// Issue 14: CORS as a browser sees it. A page served by a second local HTTP server (another origin) fetches
// the API with an Authorization header, so Chromium sends a preflight first; the default configuration
// (Strapi's: origin *, credentials on) lets it read the answer, an origin list without the page's origin
// does not. Debian's Chromium driven by playwright-core, as test/graphql-playground.test.ts (never skipped).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type BrowserContext } from 'playwright-core';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** A tiny server for the page: every path answers the same empty HTML page. */
function pageServer(): Promise<{ origin: string; close(): Promise<void> }> {
  const srv = http.createServer((_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<!doctype html><title>client</title>'); });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => {
    // `localhost` is another origin than the API's 127.0.0.1 even on the same port scheme.
    resolve({ origin: `http://localhost:${(srv.address() as AddressInfo).port}`, close: () => new Promise((r) => srv.close(() => r())) });
  }));
}

describe('CORS from a page on another origin (headless Chromium)', () => {
  let open: TestServer;
  let listed: TestServer;
  let page: { origin: string; close(): Promise<void> };
  let browser: BrowserContext;
  let profile: string;

  before(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y --no-install-recommends chromium, or set CHROMIUM_PATH`);
    page = await pageServer();
    open = await startTestServer();
    listed = await startTestServer({ env: { CORS_ORIGIN: 'https://only.example' } });
    for (const s of [open, listed]) assert.equal((await s.fetchJson('POST', '/api/tags', { data: { name: 'cross-origin' } }, TOKEN)).status, 201);
    profile = mkdtempSync(join(tmpdir(), 'fastrapi-chromium-'));
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 60_000 });
  });
  after(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await page?.close();
    await open?.stop();
    await listed?.stop();
  });

  /** Runs fetch in the page; returns what the page could read, or the error the browser raised. */
  const fetchFromPage = async (api: string) => {
    const tab = await browser.newPage();
    await tab.goto(`${page.origin}/`);
    const result = await tab.evaluate(async ({ url, token }) => {
      try {
        const res = await fetch(url, { headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, credentials: 'include' });
        const body = await res.json() as { data: Array<{ name: string }> };
        return { ok: true, status: res.status, names: body.data.map((t) => t.name), requestId: res.headers.get('x-request-id') };
      } catch (e) {
        return { ok: false, error: String(e) };
      }
    }, { url: `${api}/api/tags`, token: TOKEN });
    await tab.close();
    return { result };
  };

  /** Preflights the server answered so far (Chromium sends them from its network service, unseen by the page). */
  const preflightsAnswered = async (s: TestServer) => {
    const m = await s.fetchJson('GET', '/metrics');
    return Number(/^fastrapi_http_requests_total\{kind="rest",method="OPTIONS",status="204"\} (\d+)$/m.exec(m.text)?.[1] ?? 0);
  };

  test('Strapi\'s defaults: the preflight passes and the page reads the answer', async () => {
    const before = await preflightsAnswered(open);
    const { result } = await fetchFromPage(open.url);
    assert.deepEqual(result.ok && result.names, ['cross-origin'], JSON.stringify(result));
    assert.equal(result.ok && result.status, 200);
    // X-Request-Id is not exposed by default (CORS_EXPOSE): the page cannot read it.
    assert.equal(result.ok && result.requestId, null);
    assert.equal(await preflightsAnswered(open), before + 1, 'Chromium sent a preflight, answered 204');
  });

  test('an origin list without the page\'s origin: the browser blocks the read', async () => {
    const before = await preflightsAnswered(listed);
    const { result } = await fetchFromPage(listed.url);
    assert.equal(result.ok, false);
    assert.equal(await preflightsAnswered(listed), before + 1, 'the preflight was answered, without Allow-Origin');
    assert.match(String(!result.ok && result.error), /Failed to fetch/);
  });
});
