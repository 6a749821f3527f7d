// Issue 32, custom fields from plugins. The fixture project test/fixtures/custom-fields/project uses the
// official color picker (not installed there: known without it), a third-party plugin installed in its
// node_modules (strapi-plugin-swatch: a bundle behind an exports map, whose register() also adds a
// document middleware), a local plugin config/plugins resolves (src/plugins/stars, a function of { env })
// and fields its src/index register() adds (one naming a plugin that is not loaded: global::, as Strapi).
// It starts, stores, validates, filters, sorts, searches and types each field in GraphQL as a live Strapi
// 5.54 with the same plugins did (steps.ts, recorded into cases.jsonl and strapi-catalog.json). Then what
// is refused: a field no plugin registers (start error naming the field, the plugin and CUSTOM_FIELDS),
// and the setting that says what such a field stores.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordedSuite } from './recorded.ts';
import { startTestServer, TOKEN } from './helpers.ts';
import { STEPS } from './fixtures/custom-fields/steps.ts';
import { loadModels, ModelError } from '../src/models.ts';
import { loadConfig, ConfigError } from '../config.ts';
import { loadServerConfig } from '../src/project/config-files.ts';
import type { ScalarAttr } from '../compiler/schema.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const PROJECT = here('./fixtures/custom-fields/project');
const I18N = { defaultLocale: 'en', locales: ['en'] };

recordedSuite('custom-fields', PROJECT, here('./fixtures/custom-fields'), STEPS);

const tmp: string[] = [];
after(() => { for (const d of tmp) rmSync(d, { recursive: true, force: true }); });

/** A copy of the fixture project with files replaced (path → text) and its article's attributes extended. */
function variant(files: Record<string, string>, attributes: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'fastrapi-cf-'));
  tmp.push(dir);
  cpSync(PROJECT, dir, { recursive: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
  const schemaFile = join(dir, 'src/api/article/content-types/article/schema.json');
  const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as { attributes: Record<string, unknown> };
  Object.assign(schema.attributes, attributes);
  writeFileSync(schemaFile, JSON.stringify(schema));
  return dir;
}

const refused = (dir: string, pattern: RegExp, customFields: Record<string, string> = {}) =>
  assert.throws(() => loadModels(dir, { ...I18N, customFields }), (e: unknown) => {
    assert.ok(e instanceof ModelError, String(e));
    assert.match(e.message, pattern);
    return true;
  });

test('each custom field is an attribute of the type its plugin or the project registers, its uid kept', () => {
  const schema = loadModels(PROJECT, I18N);
  const types = (uid: string) => Object.fromEntries(schema.contentTypes.get(uid)?.attributes.filter((a): a is ScalarAttr => a.kind === 'scalar').map((a) => [a.name, `${a.type} ${a.customField ?? ''}`.trim()]) ?? []);
  assert.deepEqual(types('api::article.article'), {
    title: 'string', color: 'string plugin::color-picker.color', body: 'richtext plugin::swatch.editor', tags: 'json plugin::swatch.tags',
    stars: 'integer plugin::stars.stars', slug: 'string global::slug-text', score: 'float global::score',
  });
  const badge = schema.components.get('shared.badge')!.attributes.map((a) => [a.name, a.kind === 'scalar' ? a.type : a.kind]);
  assert.deepEqual(badge, [['label', 'string'], ['tint', 'string'], ['note', 'richtext']]);
});

test('a field of a plugin that is not installed stops the start, naming the field, the plugin and CUSTOM_FIELDS', async () => {
  const dir = variant({}, { content: { type: 'customField', customField: 'plugin::tiptap-editor.RichText' } });
  await assert.rejects(startTestServer({ modelsDir: dir }), (e: Error) => {
    assert.ok(e instanceof ModelError, String(e));
    assert.match(e.message, /^src\/api\/article\/content-types\/article\/schema\.json: attribute "content": custom field "plugin::tiptap-editor\.RichText" has no known underlying type: the plugin "tiptap-editor" is not installed/);
    assert.match(e.message, /CUSTOM_FIELDS=plugin::tiptap-editor\.RichText:<type>/);
    return true;
  });
});

test('a plugin listed in package.json but not installed: the error says which dependencies are missing', () => {
  const pkg = JSON.parse(readFileSync(join(PROJECT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  pkg.dependencies['strapi-plugin-tiptap-editor'] = '1.0.0';
  refused(variant({ 'package.json': JSON.stringify(pkg) }, { content: { type: 'customField', customField: 'plugin::tiptap-editor.RichText' } }),
    /the plugin "tiptap-editor" is not installed: no installed dependency of package\.json is a Strapi plugin named "tiptap-editor" \(of package\.json's dependencies, strapi-plugin-tiptap-editor is not installed in the project's node_modules: one may be it\)/);
});

test('CUSTOM_FIELDS says what such a field stores: the server starts and serves it as that type', async () => {
  const dir = variant({}, { content: { type: 'customField', customField: 'plugin::tiptap-editor.RichText' }, rating: { type: 'customField', customField: 'global::rating', max: 10 } });
  const s = await startTestServer({ modelsDir: dir, env: { CUSTOM_FIELDS: 'plugin::tiptap-editor.RichText:richtext, global::rating:integer' } });
  try {
    const made = await s.fetchJson('POST', '/api/articles', { data: { title: 'T', slug: 't', content: '<p>Tiptap text</p>', rating: 7 } }, TOKEN);
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.data.content, '<p>Tiptap text</p>');
    const bad = await s.fetchJson('POST', '/api/articles', { data: { title: 'U', slug: 'u', rating: 11 } }, TOKEN);
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.error.message, 'rating must be less than or equal to 10');
    const found = await s.fetchJson('GET', '/api/articles?filters[content][$containsi]=TIPTAP&filters[rating][$gt]=5&fields[0]=title', undefined, TOKEN);
    assert.deepEqual(found.body.data.map((a: { title: string }) => a.title), ['T']);
    const cols = await s.sql()`select column_name, data_type from information_schema.columns where table_name = 'articles' and column_name in ('content', 'rating') order by column_name`;
    assert.deepEqual(cols.map((c) => `${c.column_name} ${c.data_type}`), ['content text', 'rating integer']);
  } finally { await s.stop(); }
});

test('an installed plugin that registers no such field is named with what it registers', () => {
  refused(variant({}, { x: { type: 'customField', customField: 'plugin::swatch.nope' } }),
    /attribute "x": custom field "plugin::swatch\.nope" has no known underlying type: the plugin "swatch" \(the dependency strapi-plugin-swatch, node_modules\/strapi-plugin-swatch\/dist\/server\/index\.js\) registers no field "nope" while the models load: it registers plugin::swatch\.editor, plugin::swatch\.tags\. .*CUSTOM_FIELDS=plugin::swatch\.nope:<type>/);
});

test("a plugin's register() that throws before registering: the error says so", () => {
  const dir = variant({ 'src/plugins/stars/strapi-server.js': "module.exports = { register({ strapi }) { throw new Error('stars needs its licence key'); } };" });
  refused(dir, /custom field "plugin::stars\.stars" has no known underlying type: the plugin "stars" \(config\/plugins, src\/plugins\/stars\/strapi-server\.js\) registers no field "stars" while the models load: it registers none \(its register\(\) threw: stars needs its licence key\)/);
});

test('a plugin config/plugins disables is not loaded (as Strapi)', () => {
  const plugins = readFileSync(join(PROJECT, 'config/plugins.js'), 'utf8').replace("stars: { enabled: true, resolve: './src/plugins/stars' }", "stars: { enabled: false, resolve: './src/plugins/stars' }");
  refused(variant({ 'config/plugins.js': plugins }), /custom field "plugin::stars\.stars" has no known underlying type: the plugin "stars" is disabled in config\/plugins/);
});

test('config/env/<NODE_ENV>/plugins over config/plugins (as Strapi): a plugin disabled for production only', () => {
  const dir = variant({});
  mkdirSync(join(dir, 'config/env/production'), { recursive: true });
  writeFileSync(join(dir, 'config/env/production/plugins.js'), "module.exports = { stars: { enabled: false } };");
  const before = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    refused(dir, /custom field "plugin::stars\.stars" has no known underlying type: the plugin "stars" is disabled in config\/plugins/);
  } finally { if (before === undefined) delete process.env.NODE_ENV; else process.env.NODE_ENV = before; }
  assert.equal((loadModels(variant({}), I18N).contentTypes.get('api::article.article')!.byName.get('stars') as ScalarAttr).type, 'integer');
});

test('src/index without the registration: a global field is unknown, naming src/index', () => {
  refused(variant({ 'src/index.js': "module.exports = { register() {} };" }),
    /custom field "global::slug-text" has no known underlying type: neither src\/index\.js's register\(\) nor a plugin registers "slug-text" without an enabled plugin/);
});

test("register() may use Strapi's global strapi and do more than register (TypeScript src/index)", () => {
  const dir = variant({
    'src/index.ts': `import type { Core } from '@strapi/strapi';
export default {
  register() {
    strapi.server.routes([]);
    const cfg = strapi.config.get('plugin::x.y', {});
    strapi.customFields.register([{ name: 'slug-text', type: 'string' }, { name: 'score', plugin: 'not-a-plugin', type: 'float' }]);
    void cfg;
  },
};
`,
  });
  rmSync(join(dir, 'src/index.js'));
  const schema = loadModels(dir, I18N);
  const a = schema.contentTypes.get('api::article.article')!.byName;
  assert.equal((a.get('slug') as ScalarAttr).type, 'string');
  assert.equal((a.get('score') as ScalarAttr).type, 'float');
});

test('CUSTOM_FIELDS that contradicts what the installed plugin registers stops the start', () => {
  refused(PROJECT, /custom field "plugin::swatch\.editor" is registered by the plugin swatch \(node_modules\/strapi-plugin-swatch\/dist\/server\/index\.js\) as "richtext", but CUSTOM_FIELDS says "string": remove it from CUSTOM_FIELDS/, { 'plugin::swatch.editor': 'string' });
});

test('models outside a Strapi project know only the official fields and the setting', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fastrapi-cf-flat-'));
  tmp.push(dir);
  cpSync(join(PROJECT, 'src/components'), join(dir, 'components'), { recursive: true });
  cpSync(join(PROJECT, 'src/api/article/content-types/article/schema.json'), join(dir, 'content-types/article.json'));
  refused(dir, /custom field "plugin::swatch\.editor" has no known underlying type: the models are not a Strapi project, so no plugin is read \(known without a plugin: plugin::color-picker\.color\)/);
  const schema = loadModels(dir, { ...I18N, customFields: { 'plugin::swatch.editor': 'richtext', 'plugin::swatch.tags': 'json', 'plugin::stars.stars': 'integer', 'global::slug-text': 'string', 'global::score': 'float' } });
  assert.equal((schema.contentTypes.get('api::article.article')!.byName.get('body') as ScalarAttr).type, 'richtext');
});

test('CUSTOM_FIELDS is checked at start: a uid and one of the types a custom field may have', () => {
  assert.deepEqual(loadConfig({ CUSTOM_FIELDS: 'plugin::ckeditor.CKEditor:richtext,global::x:json' }, []).customFields, { 'plugin::ckeditor.CKEditor': 'richtext', 'global::x': 'json' });
  assert.throws(() => loadConfig({ CUSTOM_FIELDS: 'plugin::ckeditor.CKEditor:media' }, []), (e: unknown) => e instanceof ConfigError && /CUSTOM_FIELDS entry "plugin::ckeditor\.CKEditor:media" must be <custom field uid>:<type>/.test(e.message));
  assert.throws(() => loadConfig({ CUSTOM_FIELDS: 'ckeditor:richtext' }, []), ConfigError);
});

test("CUSTOM_FIELDS may be in the project's .env, read at start as Strapi reads it", async () => {
  const dir = variant({ '.env': 'CUSTOM_FIELDS=plugin::tiptap-editor.RichText:richtext\n' }, { content: { type: 'customField', customField: 'plugin::tiptap-editor.RichText' } });
  const env: Record<string, string | undefined> = { MODELS_DIR: dir };
  const { config } = await loadServerConfig(env, []);
  assert.deepEqual(config.customFields, { 'plugin::tiptap-editor.RichText': 'richtext' });
  const schema = loadModels(config.modelsDir, { ...config.i18n, customFields: config.customFields });
  assert.equal((schema.contentTypes.get('api::article.article')!.byName.get('content') as ScalarAttr).type, 'richtext');
});
