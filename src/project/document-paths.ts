// What a project's document service middlewares close: the paths on which Strapi runs them and this
// server cannot. Only GraphQL's Shadow CRUD in the v4 shape (Strapi 4's entity shape, which no Strapi 5
// serves: there is no reference for what it would pass) is left; it answers 501 naming the file that
// registers the middlewares, never served without them. users-permissions' user writes run them
// (src/users/user-documents.ts), as do core REST routes and Strapi 5's GraphQL shape.
import { ApiError } from '../../compiler/errors.ts';

export function documentsClosed(file: string, why: string): ApiError {
  return new ApiError(501, 'NotImplementedError', `This route's project code cannot run on this server (${file}: strapi.documents.use registers document service middlewares; ${why})`, {});
}
