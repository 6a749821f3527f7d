// Maps a request to a content-type action: /api/:plural[/:documentId] for collection types and
// /api/:singular for single types. Permission is checked here, before any SQL runs.
import type { Schema, ContentType } from '../../compiler/schema.ts';
import { forbidden, notFound, unauthorized, type ApiError } from '../../compiler/errors.ts';
import type { Task } from '../task.ts';
import type { Authorizer, Action, Caller } from '../auth/permissions.ts';
import { findMany, findOne, type ReadContext } from './read.ts';
import { createDocument, updateDocument, deleteDocument, putSingle } from './write.ts';
import { methodNotAllowed, type Reply } from './reply.ts';
import type { WriteContext } from './write.ts';
import { toV4, wantsV4 } from './v4-format.ts';

export interface RestContext extends ReadContext, WriteContext {
  schema: Schema; auth: Authorizer;
  /** Set when the project's document service middlewares close GraphQL's Shadow CRUD (src/project/document-paths.ts). */
  shadowCrudClosed?: ApiError | null;
  /**
   * The project's `strapi.documents(uid)`, its document service middlewares included, when it registered
   * some: GraphQL's Shadow CRUD (Strapi 5's shape) then calls it as Strapi's (src/graphql/shadow-documents.ts).
   */
  shadowDocuments?: ((uid: string) => DocumentCalls) | null;
  /**
   * The project's document service middlewares around `strapi.documents('plugin::users-permissions.user')`'s
   * `create`/`update`, when it registered some: users-permissions' user writes run their native write as
   * the chain's last step (src/users/user-documents.ts). Null without middlewares: the native path alone.
   */
  userDocuments?: UserDocumentChain | null;
}

export type UserDocumentChain = (action: 'create' | 'update', params: Record<string, unknown>, write: DocumentCall) => Promise<unknown>;

export type DocumentCall = (params: Record<string, unknown>) => Promise<unknown>;
/** The document service actions GraphQL's Shadow CRUD calls. */
export interface DocumentCalls { findMany: DocumentCall; findFirst: DocumentCall; findOne: DocumentCall; count: DocumentCall; create: DocumentCall; update: DocumentCall; delete: DocumentCall }


function guard(ctx: RestContext, caller: Caller, ct: ContentType, action: Action): void {
  if (!ctx.auth.allows(caller, ct.uid, action)) throw forbidden();
}

export async function routeRest(ctx: RestContext, task: Task, caller: Caller | null): Promise<Reply> {
  const parts = task.path.split('/');
  // ['', 'api', seg, id?]
  if (parts.length < 3 || parts.length > 4 || parts[1] !== 'api' || !parts[2]) throw notFound();
  const ct = ctx.schema.routes.get(parts[2]);
  if (!ct) throw notFound();
  if (!caller) throw unauthorized();
  const reply = await dispatch(ctx, task, caller, ct, parts);
  const out = wantsV4(task.headers) ? toV4(ctx.schema, ct, reply) : reply;
  if (task.method === 'GET') out.cacheable = true;
  return out;
}

async function dispatch(ctx: RestContext, task: Task, caller: Caller, ct: ContentType, parts: string[]): Promise<Reply> {
  ctx.access = ctx.auth.access(caller);
  const id = parts.length === 4 ? decodeURIComponent(parts[3]) : undefined;
  const m = task.method;
  if (ct.kind === 'singleType') {
    if (id !== undefined) throw notFound();
    switch (m) {
      case 'GET': guard(ctx, caller, ct, 'find'); return findOne(ctx, ct, task.query);
      case 'PUT': guard(ctx, caller, ct, 'update'); return putSingle(ctx, ct, task);
      case 'DELETE': guard(ctx, caller, ct, 'delete'); return deleteDocument(ctx, ct, task, undefined);
      default: return methodNotAllowed();
    }
  }
  if (id === undefined || id === '') {
    switch (m) {
      case 'GET': guard(ctx, caller, ct, 'find'); return findMany(ctx, ct, task.query);
      case 'POST': guard(ctx, caller, ct, 'create'); return createDocument(ctx, ct, task);
      default: return methodNotAllowed();
    }
  }
  switch (m) {
    case 'GET': guard(ctx, caller, ct, 'findOne'); return findOne(ctx, ct, task.query, id);
    case 'PUT': guard(ctx, caller, ct, 'update'); return updateDocument(ctx, ct, task, id);
    case 'DELETE': guard(ctx, caller, ct, 'delete'); return deleteDocument(ctx, ct, task, id);
    default: return methodNotAllowed();
  }
}
