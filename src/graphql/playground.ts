// A small self-contained GraphQL playground (no CDN, no external assets): an editor for the query and
// variables, a Run button and the JSON result. Served on GET with Accept: text/html.
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function playgroundPage(endpoint: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>GraphQL playground</title>
<style>
body{margin:0;font:14px system-ui,sans-serif;display:grid;grid-template-columns:1fr 1fr;grid-template-rows:auto 1fr 8em;height:100vh}
header{grid-column:1/3;padding:.5em 1em;background:#222;color:#eee;display:flex;gap:1em;align-items:center}
textarea,pre{margin:0;padding:.75em;border:0;border-right:1px solid #ccc;font:13px ui-monospace,monospace;overflow:auto;resize:none}
#result{grid-row:2/4;grid-column:2;background:#f7f7f7}
#variables{border-top:1px solid #ccc}
button{font:inherit;padding:.3em 1em}
</style></head>
<body>
<header><strong>GraphQL</strong><span>${esc(endpoint)}</span><button id="run" type="button">Run ▶</button>
<input id="token" placeholder="Bearer token (optional)" size="30"></header>
<textarea id="query" spellcheck="false" aria-label="query">{\n  __typename\n}</textarea>
<pre id="result" aria-label="result"></pre>
<textarea id="variables" spellcheck="false" aria-label="variables">{}</textarea>
<script>
const $ = (id) => document.getElementById(id);
async function run() {
  let variables = {};
  try { variables = JSON.parse($('variables').value || '{}'); } catch (e) { $('result').textContent = 'variables: ' + e.message; return; }
  const headers = { 'content-type': 'application/json' };
  if ($('token').value) headers.authorization = 'Bearer ' + $('token').value;
  const res = await fetch(${JSON.stringify(endpoint)}, { method: 'POST', headers, body: JSON.stringify({ query: $('query').value, variables }) });
  const text = await res.text();
  try { $('result').textContent = JSON.stringify(JSON.parse(text), null, 2); } catch { $('result').textContent = text; }
  $('result').dataset.status = String(res.status);
}
$('run').addEventListener('click', run);
document.addEventListener('keydown', (e) => { if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') run(); });
</script>
</body></html>`;
}
