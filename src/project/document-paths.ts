// What a project's document service middlewares close: the paths on which Strapi runs them and this
// server cannot (GraphQL's Shadow CRUD, compiled to SQL; users-permissions' user writes, which Strapi's
// plugin makes through strapi.documents('plugin::users-permissions.user')). They answer 501 naming the
// file that registers the middlewares, never served without them.
import { ApiError } from '../../compiler/errors.ts';

export function documentsClosed(file: string, why: string): ApiError {
  return new ApiError(501, 'NotImplementedError', `This route's project code cannot run on this server (${file}: strapi.documents.use registers document service middlewares; ${why})`, {});
}

/**
 * users-permissions routes whose Strapi controller creates or edits a user through the document service:
 * registration, POST/PUT /users, the password and confirmation flows (they store tokens on the user),
 * providers' callbacks. Login, reads, deletes (strapi.db.query in Strapi) and roles stay open.
 */
export function writesUsers(method: string, path: string): boolean {
  const p = path.toLowerCase().replace(/\/+$/, '');
  if (p.startsWith('/api/connect/')) return true;
  if (p.startsWith('/api/auth/')) return !(method === 'POST' && p === '/api/auth/local');
  if (p === '/api/users' || p.startsWith('/api/users/')) return method === 'POST' || method === 'PUT';
  return false;
}
