// The upload plugin (Strapi's media library Content API): routes under /api/upload, each guarded by
// its Strapi action before the body is even parsed (a public upload is a 403, not a 400).
import type { Config } from '../../config.ts';
import type { Schema } from '../../compiler/schema.ts';
import { forbidden, notFound, unauthorized } from '../../compiler/errors.ts';
import type { Plugin } from '../plugins/types.ts';
import type { Caller } from '../auth/permissions.ts';
import type { RestContext } from '../rest/router.ts';
import { bodyText, methodNotAllowed, type Reply } from '../rest/reply.ts';
import { FileRecords } from './record.ts';
import { FilesQuery } from './files-query.ts';
import { LocalStorage, type Storage } from './storage.ts';
import { S3Storage } from './s3.ts';
import { postUpload, type UploadDeps } from './upload-route.ts';
import type { MediaEventName } from '../webhooks/index.ts';
import { listFiles, pageFiles, getFile, deleteFile, fileId } from './files-route.ts';

type UploadAction = 'find' | 'findPage' | 'findOne' | 'upload' | 'destroy';


/** Strapi's action names, plus `plugin::upload.read` that read-only API tokens carry (not for findPage: its scope ends with neither find nor findOne). */
function guard(ctx: RestContext, caller: Caller | null, action: UploadAction): asserts caller is Caller {
  if (!caller) throw unauthorized();
  const read = (action === 'find' || action === 'findOne') && ctx.auth.allowsPlugin(caller, 'plugin::upload.read');
  if (!read && !ctx.auth.allowsPlugin(caller, `plugin::upload.content-api.${action}`)) throw forbidden();
}

/** The configured provider (Strapi's `plugin::upload` `provider`). */
export function createStorage(upload: Config['upload']): Storage {
  return upload.provider === 'aws-s3' ? new S3Storage(upload.providerOptions) : new LocalStorage(upload.folder);
}

export function uploadPlugin(config: Config, schema: Schema): Plugin {
  const deps: UploadDeps = { records: new FileRecords(schema), reads: new FilesQuery(schema, config), storage: createStorage(config.upload),
    rules: { maxFileSize: config.upload.maxFileSize, breakpoints: config.upload.breakpoints }, security: config.upload.security };
  return {
    name: 'upload',
    claims: (path) => path === '/api/upload' || path.startsWith('/api/upload/'),
    async handle(ctx, task, caller) {
      const parts = task.path.split('/').slice(3); // after ['', 'api', 'upload']
      const m = task.method;
      if (parts.length === 0 || (parts.length === 1 && parts[0] === '')) {
        // Strapi 5.54 answers a GET here as an unknown route (checked live), other methods 405.
        if (m === 'GET') throw notFound();
        if (m !== 'POST') return methodNotAllowed();
        guard(ctx, caller, 'upload');
        // Strapi's upload service: media.create per uploaded file, media.update for `?id=` (replace, fileInfo).
        return announced(ctx, await postUpload(ctx, deps, task), 'media.create', 'media.update');
      }
      if (parts[0] !== 'files' || parts.length > 2) throw notFound();
      if (parts.length === 1 || parts[1] === '') {
        if (m !== 'GET') return methodNotAllowed();
        guard(ctx, caller, 'find');
        return listFiles(ctx, deps, task, caller);
      }
      // Before :id, as @koa/router matches Strapi's routes in their order (content-api.js lists /files/page first).
      if (parts[1] === 'page' && m === 'GET') {
        guard(ctx, caller, 'findPage');
        return pageFiles(ctx, deps, task, caller);
      }
      if (m === 'GET') {
        guard(ctx, caller, 'findOne');
        // The query is validated before the id is looked at (checked live: `/files/x?sort=nope` is the sort's 400).
        deps.reads.check(ctx, caller, task.query);
        return getFile(ctx, deps, fileId(parts[1]), task, caller);
      }
      if (m === 'DELETE') { guard(ctx, caller, 'destroy'); return announced(ctx, await deleteFile(ctx, deps, fileId(parts[1])), 'media.delete', 'media.delete'); }
      return methodNotAllowed();
    },
  };
}

/** A successful answer's files (an array: `many`; one object: `one`) told to the webhooks. */
function announced(ctx: RestContext, reply: Reply, many: MediaEventName, one: MediaEventName): Reply {
  if (!ctx.webhooks || reply.status >= 300) return reply;
  try {
    // The stored file, as Strapi's event gives it: not the answer's `isUrlSigned` (signing is the controller's).
    const files = JSON.parse(bodyText(reply), (k, v) => (k === 'isUrlSigned' ? undefined : v)) as unknown;
    if (Array.isArray(files)) ctx.webhooks.media(many, files);
    else if (files && typeof files === 'object') ctx.webhooks.media(one, [files]);
  } catch { /* not JSON: nothing to announce */ }
  return reply;
}
