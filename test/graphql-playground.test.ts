// Issue 8: the GraphiQL playground in a real browser — Debian's Chromium driven by playwright-core
// loads the page from a test server (every asset from that server), sets a query, runs it, and reads
// the result in GraphiQL's response pane. Without Chromium this test fails (it is never skipped):
// `.ci/run` installs it; by hand: apt-get update && apt-get install -y --no-install-recommends chromium.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { loadConfig } from '../config.ts';
import { loadModels } from '../src/models.ts';
import { usersPlugin } from '../src/users/plugin.ts';
import { graphqlPlugin } from '../src/graphql/plugin.ts';
import type { RestContext } from '../src/rest/router.ts';
import type { Caller } from '../src/auth/permissions.ts';
import { startTestServer, DEMO_MODELS, TOKEN, type TestServer } from './helpers.ts';

describe('graphql playground and introspection by environment', () => {
  const PROD = { NODE_ENV: 'production', JWT_SECRET: 'production-secret-0123456789', API_TOKEN_SALT: 'production-salt', MODELS_DIR: DEMO_MODELS, DATABASE_EMBEDDED: 'true' };
  const caller: Caller = { kind: 'public', grant: { all: false, perms: new Set() } };
  const plugin = (env: Record<string, string>) => {
    const config = loadConfig(env, []);
    const schema = loadModels(config.modelsDir, config.i18n);
    return graphqlPlugin(config, schema, usersPlugin(config, schema));
  };
  // Neither answer below reaches the database: the page and a refused operation come first.
  const get = (p: ReturnType<typeof plugin>, path: string) => p.handle({} as RestContext, { method: 'GET', path, query: '', body: null, headers: { accept: 'text/html' } }, caller);
  const noDb = { auth: { access: () => ({ key: 'none', canRead: () => false }) } } as unknown as RestContext;
  const introspect = (p: ReturnType<typeof plugin>) => p.handle(noDb, {
    method: 'POST', path: '/graphql', query: '', contentType: 'application/json', body: new TextEncoder().encode('{"query":"{ __schema { queryType { name } } }"}'),
  }, caller);

  test('production: no playground, no assets, no introspection unless configured', async () => {
    const prod = plugin(PROD);
    const page = await get(prod, '/graphql');
    assert.notEqual(page.contentType, 'text/html; charset=utf-8');
    assert.equal(page.status, 400, 'a GET without a query is an ordinary (bad) GraphQL request');
    assert.equal(prod.claims('/graphql/assets/graphiql.min.js'), false);
    assert.equal((await introspect(prod)).status, 400);
    const open = plugin({ ...PROD, GRAPHQL_INTROSPECTION: 'true' });
    const r = await introspect(open);
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(String(r.body)), { data: { __schema: { queryType: { name: 'Query' } } } });
  });

  test('production with playgroundAlways, and development: the page and its assets', async () => {
    for (const env of [{ ...PROD, GRAPHQL_PLAYGROUND_ALWAYS: 'true' }, { MODELS_DIR: DEMO_MODELS, NODE_ENV: 'development' }]) {
      const p = plugin(env);
      const page = await get(p, '/graphql');
      assert.equal(page.status, 200);
      assert.equal(page.contentType, 'text/html; charset=utf-8');
      assert.match(String(page.body), /graphiql\.min\.js/);
      assert.equal(p.claims('/graphql/assets/graphiql.min.js'), true);
      assert.equal((await get(p, '/graphql/assets/graphiql.min.js')).status, 200);
      assert.equal((await get(p, '/graphql/assets/..%2Fpackage.json')).status, 404);
    }
  });
});

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

describe('graphql playground (GraphiQL in headless Chromium)', () => {
  let s: TestServer;
  let browser: BrowserContext;
  let profile: string;

  before(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium not found at ${CHROMIUM}: install it (apt-get update && apt-get install -y --no-install-recommends chromium) or set CHROMIUM_PATH`);
    }
    s = await startTestServer({ env: { GRAPHQL_SHAPE: 'v5', NODE_ENV: 'development' } });
    for (const name of ['GraphQL', 'SQL']) assert.equal((await s.fetchJson('POST', '/api/tags', { data: { name } }, TOKEN)).status, 201);
    profile = mkdtempSync(join(tmpdir(), 'fastrapi-chromium-'));
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 60_000 });
  });
  after(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await s?.stop();
  });

  /** The text of a GraphiQL editor (CodeMirror 5 keeps its instance on the element). */
  const editorText = (page: Page, selector: string) => page.evaluate((sel) => {
    const el = document.querySelector(sel) as (Element & { CodeMirror?: { getValue(): string } }) | null;
    return el?.CodeMirror?.getValue() ?? null;
  }, selector);

  test('loads the page with assets from the server only, runs a query and shows the result', async () => {
    const page = await browser.newPage();
    const requests: string[] = [];
    const failures: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('pageerror', (e) => failures.push(String(e)));
    page.on('requestfailed', (r) => failures.push(`${r.url()} ${r.failure()?.errorText ?? ''}`));

    const res = await page.goto(`${s.url}/graphql`, { waitUntil: 'load', timeout: 60_000 });
    assert.equal(res?.status(), 200);
    await page.waitForSelector('.graphiql-query-editor .CodeMirror', { timeout: 60_000 });
    // Set the query in the editor as a person would edit it, then press the run button.
    const query = '{ tags(sort: "name:asc") { name } }';
    await page.evaluate((q) => {
      const el = document.querySelector('.graphiql-query-editor .CodeMirror') as Element & { CodeMirror: { setValue(v: string): void } };
      el.CodeMirror.setValue(q);
    }, query);
    assert.equal(await editorText(page, '.graphiql-query-editor .CodeMirror'), query);
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(() => {
      const el = document.querySelector('.graphiql-response .CodeMirror') as (Element & { CodeMirror?: { getValue(): string } }) | null;
      return !!el?.CodeMirror && el.CodeMirror.getValue().includes('"tags"');
    }, undefined, { timeout: 30_000 });
    const result = JSON.parse((await editorText(page, '.graphiql-response .CodeMirror')) ?? 'null') as unknown;
    assert.deepEqual(result, { data: { tags: [{ name: 'GraphQL' }, { name: 'SQL' }] } });
    // Typed with the keyboard (CodeMirror closes brackets and quotes, and types over them), run with Ctrl-Enter.
    const typed = '{ tags(sort: "name:desc") { name } }';
    await page.click('.graphiql-query-editor .CodeMirror');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type(typed, { delay: 5 });
    await page.keyboard.press('Escape');
    assert.equal(await editorText(page, '.graphiql-query-editor .CodeMirror'), typed);
    await page.keyboard.press('Control+Enter');
    await page.waitForFunction(() => {
      const el = document.querySelector('.graphiql-response .CodeMirror') as (Element & { CodeMirror?: { getValue(): string } }) | null;
      const text = el?.CodeMirror?.getValue() ?? '';
      return text.indexOf('"SQL"') >= 0 && text.indexOf('"SQL"') < text.indexOf('"GraphQL"');
    }, undefined, { timeout: 30_000 });
    assert.deepEqual(JSON.parse((await editorText(page, '.graphiql-response .CodeMirror')) ?? 'null'), { data: { tags: [{ name: 'SQL' }, { name: 'GraphQL' }] } });
    if (process.env.PLAYGROUND_SCREENSHOT) await page.screenshot({ path: process.env.PLAYGROUND_SCREENSHOT });

    assert.deepEqual(failures, []);
    const origin = new URL(s.url).origin;
    const elsewhere = requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'));
    assert.deepEqual(elsewhere, [], 'every request goes to the server itself (no CDN)');
    for (const asset of ['graphiql.min.js', 'graphiql.min.css', 'react.production.min.js', 'react-dom.production.min.js']) {
      assert.ok(requests.includes(`${origin}/graphql/assets/${asset}`), asset);
    }
    await page.close();
  });
});
