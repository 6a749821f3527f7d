// The i18n plugin object a project's src/extensions/i18n/strapi-server receives, shaped as Strapi 5.54's
// (@strapi/i18n dist/server): `locales.listLocales` answers through this server's native GET /api/i18n/locales;
// the admin actions have no native handler here.
import { NO_HANDLER, pluginObject, type NativeCall, type Originals, type PluginObject, type PluginRouteSpec, type PluginSpec } from './plugin-object.ts';

export const I18N_NAME = 'i18n';

/** Strapi 5.54's content-api routes of i18n (server/routes/content-api.js), fresh copies each call. */
export function i18nRoutes(): PluginRouteSpec[] {
  return [{ method: 'GET', path: '/locales', handler: 'locales.listLocales' }];
}

const SPEC: PluginSpec = {
  name: I18N_NAME,
  actions: {
    locales: { listLocales: ['GET', '/api/i18n/locales'], createLocale: NO_HANDLER, updateLocale: NO_HANDLER, deleteLocale: NO_HANDLER },
    'iso-locales': { listIsoLocales: NO_HANDLER },
    'content-types': { getNonLocalizedAttributes: NO_HANDLER, getFillFromLocaleData: NO_HANDLER },
    settings: { updateSettings: NO_HANDLER, getSettings: NO_HANDLER },
    'ai-localization-jobs': { getJobForSingleType: NO_HANDLER, getJobForCollectionType: NO_HANDLER },
  },
  factories: ['ai-localization-jobs'],
  routes: i18nRoutes,
  services: ['permissions', 'metrics', 'localizations', 'locales', 'sanitize', 'iso-locales', 'content-types', 'ai-localizations', 'ai-localization-jobs', 'settings', 'fill-from-locale'],
};

/** Strapi 5.54's locale content-type (server/content-types/locale/schema.json), as its plugin object holds it. */
function localeType(): Record<string, { schema: Record<string, unknown> }> {
  return { locale: { schema: {
    info: { singularName: 'locale', pluralName: 'locales', collectionName: 'locales', displayName: 'Locale', description: '' },
    options: {}, pluginOptions: { 'content-manager': { visible: false }, 'content-type-builder': { visible: false } },
    attributes: { name: { type: 'string', min: 1, max: 50, configurable: false }, code: { type: 'string', unique: true, configurable: false } },
  } } };
}

export function i18nObject(native: NativeCall): { plugin: PluginObject; originals: Originals } {
  // i18n declares no config of its own: Strapi's loader gives it {}.
  return pluginObject(SPEC, native, { config: {}, contentTypes: localeType() });
}
