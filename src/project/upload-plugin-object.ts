// The upload plugin object a project's src/extensions/upload/strapi-server receives, shaped as Strapi 5.54's
// (@strapi/upload dist/server: its controllers, content-api routes, services, content-types and resolved
// config): the `content-api` controller is a factory ({ strapi }) => controller whose actions answer through
// this server's native upload handlers; the admin controllers have no native handler here, nor folders a
// content-type (this server keeps no folders).
import type { Config } from '../../config.ts';
import type { Schema } from '../../compiler/schema.ts';
import { filesType } from '../plugin-types.ts';
import { NO_HANDLER, pluginContentTypes, pluginObject, type NativeCall, type Originals, type PluginObject, type PluginRouteSpec, type PluginSpec } from './plugin-object.ts';

export const UPLOAD_NAME = 'upload';

const none = (...names: string[]): Record<string, [string, string]> => Object.fromEntries(names.map((n) => [n, NO_HANDLER]));

/** Strapi 5.54's content-api routes of upload (server/routes/content-api.js), fresh copies each call. */
export function uploadRoutes(): PluginRouteSpec[] {
  return [
    { method: 'POST', path: '/', handler: 'content-api.upload' },
    { method: 'GET', path: '/files', handler: 'content-api.find' },
    { method: 'GET', path: '/files/page', handler: 'content-api.findPage' },
    { method: 'GET', path: '/files/:id', handler: 'content-api.findOne' },
    { method: 'DELETE', path: '/files/:id', handler: 'content-api.destroy' },
  ];
}

const SPEC: PluginSpec = {
  name: UPLOAD_NAME,
  actions: {
    'admin-file': none('find', 'findOne', 'destroy'),
    'admin-folder': none('findOne', 'find', 'create', 'update', 'getStructure'),
    'admin-folder-file': none('deleteMany', 'moveMany'),
    'admin-settings': none('updateSettings', 'getSettings'),
    'admin-upload': none('bulkUpdateFileInfo', 'uploadFiles', 'upload'),
    // POST /api/upload answers uploads and `?id=` file info updates alike, as Strapi's upload action does.
    'content-api': {
      find: ['GET', '/api/upload/files'], findPage: ['GET', '/api/upload/files/page'], findOne: ['GET', '/api/upload/files/:id'], destroy: ['DELETE', '/api/upload/files/:id'],
      updateFileInfo: ['POST', '/api/upload'], replaceFile: ['POST', '/api/upload'], uploadFiles: ['POST', '/api/upload'], upload: ['POST', '/api/upload'],
    },
    'view-configuration': none('updateViewConfiguration', 'findViewConfiguration'),
  },
  factories: ['content-api'],
  routes: uploadRoutes,
  services: ['provider', 'upload', 'folder', 'file', 'weeklyMetrics', 'metrics', 'image-manipulation', 'api-upload-folder', 'extensions', 'aiMetadata', 'aiMetadataJobs'],
};

/** Strapi's resolved upload config (its defaults with this server's provider and size limit; provider credentials left out). */
function uploadConfig(config: Config): Record<string, unknown> {
  return {
    enabled: true, provider: config.upload.provider, sizeLimit: config.upload.maxFileSize, actionOptions: {},
    sharp: { cache: false, concurrency: 1 }, concurrentUploadSize: 1, concurrentUploadRequests: 1,
  };
}

export function uploadObject(schema: Schema, config: Config, native: NativeCall): { plugin: PluginObject; originals: Originals } {
  return pluginObject(SPEC, native, { config: uploadConfig(config), contentTypes: pluginContentTypes(schema, UPLOAD_NAME, ['file', 'folder'], [filesType(schema)]) });
}
