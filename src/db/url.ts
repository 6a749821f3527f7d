// PostgreSQL addresses: a host name or address, or a Unix-socket directory (`/var/run/postgresql`), as
// libpq and Strapi's `pg` client take it. A socket directory cannot be a URL's host, so it travels as
// libpq's `?host=` parameter, and postgres.js gets it as the socket's path (the parameter would otherwise
// reach PostgreSQL as a setting it does not know).

export interface PostgresAddress {
  host: string;
  port?: string | number | null;
  user: string;
  password?: string | null;
  database: string;
  sslmode?: string | null;
}

/** A `postgres://` URL for an address; a socket directory goes in `?host=`. */
export function postgresUrl(a: PostgresAddress): string {
  const u = new URL('postgres://localhost');
  const socket = a.host.startsWith('/');
  if (!socket) u.hostname = a.host;
  if (a.port !== undefined && a.port !== null && a.port !== '') u.port = String(a.port);
  u.username = encodeURIComponent(a.user);
  if (a.password) u.password = encodeURIComponent(a.password);
  u.pathname = `/${encodeURIComponent(a.database)}`;
  if (socket) u.searchParams.set('host', a.host);
  if (a.sslmode) u.searchParams.set('sslmode', a.sslmode);
  return u.toString();
}

/**
 * What postgres.js needs for a URL: the URL without libpq's `host` parameter, and the socket's path
 * (`<dir>/.s.PGSQL.<port>`, PostgreSQL's name for it) when that parameter names a directory; a host name
 * there replaces the URL's, as in libpq.
 */
export function connectionTarget(url: string): { url: string; path: string | null } {
  let u: URL;
  try { u = new URL(url); } catch { return { url, path: null }; }
  const host = u.searchParams.get('host');
  if (!host) return { url, path: null };
  u.searchParams.delete('host');
  if (!host.startsWith('/')) {
    u.hostname = host;
    return { url: u.toString(), path: null };
  }
  return { url: u.toString(), path: `${host.replace(/\/+$/, '')}/.s.PGSQL.${u.port || '5432'}` };
}
