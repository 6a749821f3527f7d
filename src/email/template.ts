// Strapi's email templates (users-permissions `template()`): lodash templates restricted to
// `<%= NAME %>` interpolation of the leaf paths of the data given (`URL`, `TOKEN`, `USER.username`, …);
// nothing is evaluated, nothing escaped, and any other `<% … %>` stays as written.
type Data = Record<string, unknown>;

function leafPaths(value: unknown, path: string[], out: string[]): void {
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) leafPaths(v, [...path, k], out);
  } else out.push(path.join('.'));
}

function get(data: Data, path: string): unknown {
  let v: unknown = data;
  for (const k of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Data)[k] : undefined;
  return v;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function renderTemplate(layout: string, data: Data): string {
  const names: string[] = [];
  leafPaths(data, [], names);
  if (!names.length) return layout;
  // Longest first: `USER.username` must not be shadowed by a shorter alternative.
  const alternatives = names.sort((a, b) => b.length - a.length).map(escapeRe).join('|');
  return layout.replace(new RegExp(`<%=\\s*(${alternatives})\\s*%>`, 'g'), (_m, name: string) => {
    const v = get(data, name);
    return v === null || v === undefined ? '' : String(v);
  });
}
