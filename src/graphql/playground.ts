// The GraphiQL playground, served on GET with Accept: text/html. Its scripts and stylesheet are the
// UMD builds shipped in the npm packages `graphiql` (3.x) and `react`/`react-dom` (18.x), served by this
// server under `<endpoint>/assets/<name>` — no CDN, so it works offline. Only the names listed below
// are served (no path is ever built from the request).
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Reply } from '../rest/reply.ts';

const require = createRequire(import.meta.url);

interface Asset { pkg: string; file: string; type: string }

export const ASSETS: Readonly<Record<string, Asset>> = {
  'graphiql.min.css': { pkg: 'graphiql', file: 'graphiql.min.css', type: 'text/css; charset=utf-8' },
  'graphiql.min.js': { pkg: 'graphiql', file: 'graphiql.min.js', type: 'text/javascript; charset=utf-8' },
  'react.production.min.js': { pkg: 'react', file: 'umd/react.production.min.js', type: 'text/javascript; charset=utf-8' },
  'react-dom.production.min.js': { pkg: 'react-dom', file: 'umd/react-dom.production.min.js', type: 'text/javascript; charset=utf-8' },
};

const ASSET_NAME = /^[a-z0-9][a-z0-9.-]*$/;

/** `<endpoint>/assets/<name>` → the asset name, or null for any other path. */
export function assetName(endpoint: string, path: string): string | null {
  const prefix = `${endpoint.replace(/\/$/, '')}/assets/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : null;
}

function packageDir(pkg: string): string {
  return dirname(require.resolve(`${pkg}/package.json`));
}

const cache = new Map<string, Uint8Array>();

/** One of the listed assets (read once per worker), or null: unknown names, `..` and slashes never match. */
export function assetReply(name: string): Reply | null {
  if (!ASSET_NAME.test(name) || name.includes('..') || !Object.hasOwn(ASSETS, name)) return null;
  const a = ASSETS[name];
  let body = cache.get(name);
  if (!body) {
    body = new Uint8Array(readFileSync(join(packageDir(a.pkg), a.file)));
    cache.set(name, body);
  }
  return { status: 200, body, contentType: a.type, headers: [['cache-control', 'public, max-age=86400']] };
}

const DEFAULT_QUERY = `# Welcome to GraphiQL: type a query, then press the run button (or Ctrl-Enter).
# An API token goes in the Headers tab: { "Authorization": "Bearer <token>" }
`;

/** The page's one inline script (kept apart so its hash can go in the page's Content-Security-Policy). */
function inlineScript(endpoint: string): string {
  return `
(function () {
  var fetcher = GraphiQL.createFetcher({ url: ${JSON.stringify(endpoint)} });
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(React.createElement(GraphiQL, { fetcher: fetcher, defaultQuery: ${JSON.stringify(DEFAULT_QUERY)}, defaultEditorToolsVisibility: true }));
})();
`;
}

/**
 * The page's Content-Security-Policy: Strapi's (helmet's) default forbids inline scripts, so the page's
 * own script is allowed by its hash; everything else comes from this server.
 */
export function playgroundCsp(endpoint: string): string {
  const sha = createHash('sha256').update(inlineScript(endpoint)).digest('base64');
  return [
    "default-src 'self'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'self'", "object-src 'none'",
    `script-src 'self' 'sha256-${sha}'`, "script-src-attr 'none'", "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:", "font-src 'self' data:", "connect-src 'self'", "worker-src 'self' blob:",
  ].join(';');
}

export function playgroundPage(endpoint: string): string {
  const base = `${endpoint.replace(/\/$/, '')}/assets`;
  // endpoint matches ^/[A-Za-z0-9/_-]*$ (config): safe in an attribute and as a JSON string in a script.
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphiQL</title>
<link rel="stylesheet" href="${base}/graphiql.min.css">
<style>html,body{margin:0;height:100%;overflow:hidden}#graphiql{height:100vh}</style>
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
<script src="${base}/react.production.min.js"></script>
<script src="${base}/react-dom.production.min.js"></script>
<script src="${base}/graphiql.min.js"></script>
<script>${inlineScript(endpoint)}</script>
</body>
</html>
`;
}
