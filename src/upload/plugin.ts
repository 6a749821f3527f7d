// The upload plugin (Strapi's media library Content API): routes under /api/upload, each guarded by
// its Strapi action before the body is even parsed (a public upload is a 403, not a 400).
import type { Config } from '../../config.ts';
import type { Schema } from '../../compiler/schema.ts';
import { forbidden, notFound, unauthorized } from '../../compiler/errors.ts';
import type { Plugin } from '../plugins/types.ts';
import type { Caller } from '../auth/permissions.ts';
import type { RestContext } from '../rest/router.ts';
import { methodNotAllowed } from '../rest/reply.ts';
import { FileRecords } from './record.ts';
import { LocalStorage, type Storage } from './storage.ts';
import { S3Storage } from './s3.ts';
import { postUpload, type UploadDeps } from './upload-route.ts';
import { listFiles, getFile, deleteFile, fileId } from './files-route.ts';

type UploadAction = 'find' | 'findOne' | 'upload' | 'destroy';


/** Strapi's action names, plus `plugin::upload.read` that read-only API tokens carry. */
function guard(ctx: RestContext, caller: Caller | null, action: UploadAction): void {
  if (!caller) throw unauthorized();
  const read = (action === 'find' || action === 'findOne') && ctx.auth.allowsPlugin(caller, 'plugin::upload.read');
  if (!read && !ctx.auth.allowsPlugin(caller, `plugin::upload.content-api.${action}`)) throw forbidden();
}

/** The configured provider (Strapi's `plugin::upload` `provider`). */
export function createStorage(upload: Config['upload']): Storage {
  return upload.provider === 'aws-s3' ? new S3Storage(upload.providerOptions) : new LocalStorage(upload.folder);
}

export function uploadPlugin(config: Config, schema: Schema): Plugin {
  const deps: UploadDeps = { records: new FileRecords(), storage: createStorage(config.upload), maxFileSize: config.upload.maxFileSize };
  return {
    name: 'upload',
    claims: (path) => path === '/api/upload' || path.startsWith('/api/upload/'),
    async handle(ctx, task, caller) {
      const parts = task.path.split('/').slice(3); // after ['', 'api', 'upload']
      const m = task.method;
      if (parts.length === 0 || (parts.length === 1 && parts[0] === '')) {
        if (m !== 'POST') return methodNotAllowed();
        guard(ctx, caller, 'upload');
        return postUpload(ctx, deps, task);
      }
      if (parts[0] !== 'files' || parts.length > 2) throw notFound();
      if (parts.length === 1 || parts[1] === '') {
        if (m !== 'GET') return methodNotAllowed();
        guard(ctx, caller, 'find');
        return listFiles(ctx, deps, task);
      }
      if (m === 'GET') { guard(ctx, caller, 'findOne'); return getFile(ctx, deps, fileId(parts[1])); }
      if (m === 'DELETE') { guard(ctx, caller, 'destroy'); return deleteFile(ctx, deps, fileId(parts[1])); }
      return methodNotAllowed();
    },
  };
}
