// Model edits a user makes on the demo models (models/), each applied to a copy of them: the schema
// migration tests (test/schema-migrate.test.ts) start on the demo models, write content, edit, restart.
// The same edits made a live Strapi 5.54 migrate its own database (test/fixtures/schema-edits/make.sh),
// whose resulting schema is kept in test/fixtures/schema-edits/<edit>.json.
import { readFileSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import assert from 'node:assert/strict';
import { TOKEN, type TestServer } from './helpers.ts';

type Json = Record<string, unknown>;
interface ModelFile { attributes: Record<string, Json>; [k: string]: unknown }

function edit(dir: string, file: string, fn: (m: ModelFile) => void): void {
  const path = join(dir, file);
  const m = JSON.parse(readFileSync(path, 'utf8')) as ModelFile;
  fn(m);
  writeFileSync(path, `${JSON.stringify(m, null, 2)}\n`);
}
function add(dir: string, file: string, m: Json): void {
  mkdirSync(dirname(join(dir, file)), { recursive: true });
  writeFileSync(join(dir, file), `${JSON.stringify(m, null, 2)}\n`);
}
const ct = (file: string) => `content-types/${file}.json`;
const cmp = (name: string) => `components/shared/${name}.json`;

export interface SchemaEdit {
  /** What a user did, in words. */
  title: string;
  apply(dir: string): void;
  /** Removes data: Strapi drops it; this server only with ALLOW_DESTRUCTIVE_SCHEMA=true. */
  destructive?: boolean;
  /**
   * Switches draft & publish or i18n: Strapi migrates the rows (test/fixtures/data-migrations/, recorded from
   * a live Strapi with writeLocalizedContent's content), not only the schema.
   */
  data?: boolean;
}

export const EDITS: Record<string, SchemaEdit> = {
  'add-attribute': {
    title: 'a string on articles, an integer on authors, a string on a component, a media field on tags',
    apply(dir) {
      edit(dir, ct('tag'), (m) => { m.attributes.icon = { type: 'media', multiple: false, allowedTypes: ['images'] }; });
      edit(dir, ct('article'), (m) => { m.attributes.subtitle = { type: 'string', pluginOptions: { i18n: { localized: true } } }; });
      edit(dir, ct('author'), (m) => { m.attributes.age = { type: 'integer' }; });
      edit(dir, cmp('seo'), (m) => { m.attributes.canonicalUrl = { type: 'string' }; });
    },
  },
  'add-relations': {
    title: 'one-way oneToOne, oneToMany, manyToOne and manyToMany; a bidirectional manyToOne/oneToMany and oneToOne; a self manyToMany',
    apply(dir) {
      edit(dir, ct('tag'), (m) => { m.attributes.featured = { type: 'relation', relation: 'oneToOne', target: 'api::article.article' }; });
      edit(dir, ct('category'), (m) => { m.attributes.highlights = { type: 'relation', relation: 'oneToMany', target: 'api::article.article' }; });
      edit(dir, ct('author'), (m) => {
        m.attributes.favoriteTags = { type: 'relation', relation: 'manyToMany', target: 'api::tag.tag' };
        m.attributes.homeCategory = { type: 'relation', relation: 'manyToOne', target: 'api::category.category' };
        m.attributes.edited = { type: 'relation', relation: 'oneToMany', target: 'api::article.article', mappedBy: 'editor' };
        m.attributes.profile = { type: 'relation', relation: 'oneToOne', target: 'api::tag.tag', inversedBy: 'owner' };
        m.attributes.friends = { type: 'relation', relation: 'manyToMany', target: 'api::author.author' };
      });
      edit(dir, ct('article'), (m) => {
        m.attributes.editor = { type: 'relation', relation: 'manyToOne', target: 'api::author.author', inversedBy: 'edited', pluginOptions: { i18n: { localized: true } } };
      });
      edit(dir, ct('tag'), (m) => { m.attributes.owner = { type: 'relation', relation: 'oneToOne', target: 'api::author.author', mappedBy: 'profile' }; });
    },
  },
  'add-component-relation': {
    title: 'a relation inside a component, inside a dynamic-zone component, and inside a new component nested in a component',
    apply(dir) {
      edit(dir, cmp('seo'), (m) => {
        m.attributes.author = { type: 'relation', relation: 'manyToOne', target: 'api::author.author' };
        m.attributes.links = { type: 'component', repeatable: true, component: 'shared.link' };
      });
      edit(dir, cmp('quote'), (m) => { m.attributes.tags = { type: 'relation', relation: 'manyToMany', target: 'api::tag.tag' }; });
      add(dir, cmp('link'), {
        collectionName: 'components_shared_links', info: { displayName: 'Link', icon: 'link' }, options: {},
        attributes: { label: { type: 'string' }, article: { type: 'relation', relation: 'oneToOne', target: 'api::article.article' } },
      });
    },
  },
  'add-content-type': {
    title: 'a localized draft & publish collection type with a relation, a component, media and a dynamic zone',
    apply(dir) {
      add(dir, ct('page'), {
        kind: 'collectionType', collectionName: 'pages',
        info: { singularName: 'page', pluralName: 'pages', displayName: 'Page' },
        options: { draftAndPublish: true }, pluginOptions: { i18n: { localized: true } },
        attributes: {
          title: { type: 'string', required: true, pluginOptions: { i18n: { localized: true } } },
          slug: { type: 'uid', targetField: 'title', pluginOptions: { i18n: { localized: true } } },
          body: { type: 'richtext', pluginOptions: { i18n: { localized: true } } },
          cover: { type: 'media', multiple: false, allowedTypes: ['images'], pluginOptions: { i18n: { localized: true } } },
          author: { type: 'relation', relation: 'manyToOne', target: 'api::author.author' },
          seo: { type: 'component', repeatable: false, component: 'shared.seo', pluginOptions: { i18n: { localized: true } } },
          sections: { type: 'dynamiczone', components: ['shared.rich-text', 'shared.quote'], pluginOptions: { i18n: { localized: true } } },
        },
      });
    },
  },
  'add-component': {
    title: 'a new component used as a single component on articles and in the about dynamic zone',
    apply(dir) {
      add(dir, cmp('cta'), {
        collectionName: 'components_shared_ctas', info: { displayName: 'Call to action', icon: 'cursor' }, options: {},
        attributes: { label: { type: 'string' }, url: { type: 'string' }, primary: { type: 'boolean' } },
      });
      edit(dir, ct('article'), (m) => { m.attributes.cta = { type: 'component', repeatable: false, component: 'shared.cta', pluginOptions: { i18n: { localized: true } } }; });
      edit(dir, ct('about'), (m) => { (m.attributes.blocks as { components: string[] }).components.push('shared.cta'); });
      edit(dir, ct('tag'), (m) => { m.attributes.links = { type: 'component', repeatable: true, component: 'shared.cta' }; });
    },
  },
  'change-type': {
    title: 'integer → string, string → text, integer → biginteger (no value is lost)',
    apply(dir) {
      edit(dir, ct('article'), (m) => { m.attributes.views = { type: 'string', pluginOptions: { i18n: { localized: true } } }; });
      edit(dir, ct('tag'), (m) => { m.attributes.name = { type: 'text' }; });
      edit(dir, cmp('quote'), (m) => { m.attributes.title = { type: 'richtext' }; });
    },
  },
  'change-relation': {
    title: 'a manyToOne made manyToMany (both sides): its link table gains the order column of the new list',
    apply(dir) {
      edit(dir, ct('article'), (m) => { m.attributes.category = { ...m.attributes.category, relation: 'manyToMany' }; });
      edit(dir, ct('category'), (m) => { m.attributes.articles = { ...m.attributes.articles, relation: 'manyToMany' }; });
    },
  },
  'rename-collection': {
    title: "the global single type's collectionName changed: new tables, the old ones removed",
    destructive: true,
    apply(dir) {
      edit(dir, ct('global'), (m) => { m.collectionName = 'site_globals'; });
    },
  },
  'add-morph': {
    title: 'a morphToMany on tags, a morphToOne on authors, a media field in a component (a new related_type of files_related_mph)',
    apply(dir) {
      edit(dir, ct('tag'), (m) => { m.attributes.related = { type: 'relation', relation: 'morphToMany' }; });
      edit(dir, ct('author'), (m) => { m.attributes.pinned = { type: 'relation', relation: 'morphToOne' }; });
      edit(dir, cmp('quote'), (m) => { m.attributes.image = { type: 'media', multiple: false, allowedTypes: ['images'] }; });
    },
  },
  'disable-draft-and-publish': {
    title: 'draftAndPublish switched off on articles (localized, with relations, components, a dynamic zone) and on the about single type',
    data: true,
    apply(dir) {
      edit(dir, ct('article'), (m) => { m.options = { ...(m.options as Json), draftAndPublish: false }; });
      edit(dir, ct('about'), (m) => { m.options = { ...(m.options as Json), draftAndPublish: false }; });
    },
  },
  'enable-draft-and-publish': {
    title: 'draftAndPublish switched on for tags and categories (targets of articles\' relations) and the global single type (a component)',
    data: true,
    apply(dir) {
      for (const f of ['tag', 'category', 'global']) edit(dir, ct(f), (m) => { m.options = { ...(m.options as Json), draftAndPublish: true }; });
    },
  },
  'disable-i18n': {
    title: 'i18n switched off on articles (documents with a fr localization, published and draft)',
    data: true,
    apply(dir) {
      edit(dir, ct('article'), (m) => {
        m.pluginOptions = {};
        for (const a of Object.values(m.attributes)) delete a.pluginOptions;
      });
    },
  },
  'enable-i18n': {
    title: 'i18n switched on for authors and tags (attributes localized)',
    data: true,
    apply(dir) {
      for (const f of ['author', 'tag']) {
        edit(dir, ct(f), (m) => {
          m.pluginOptions = { i18n: { localized: true } };
          for (const a of Object.values(m.attributes)) if (a.type !== 'relation') a.pluginOptions = { i18n: { localized: true } };
        });
      }
    },
  },
  'attribute-localized': {
    title: "one attribute of articles made non-localized (views), on documents whose locales hold different values",
    data: true,
    apply(dir) {
      edit(dir, ct('article'), (m) => { m.attributes.views = { ...m.attributes.views, pluginOptions: { i18n: { localized: false } } }; });
    },
  },
  'remove': {
    title: 'an attribute, a relation (both sides), a component attribute, a dynamic zone and a content-type removed; a text narrowed to a string',
    destructive: true,
    apply(dir) {
      edit(dir, ct('article'), (m) => { delete m.attributes.views; delete m.attributes.tags; });
      edit(dir, ct('tag'), (m) => { delete m.attributes.articles; });
      edit(dir, cmp('quote'), (m) => { delete m.attributes.title; });
      edit(dir, ct('author'), (m) => { m.attributes.bio = { type: 'string' }; });
      rmSync(join(dir, ct('about')));
    },
  },
};

/** Where content is written: this server under test, or a live Strapi (whose token the poster adds). */
export interface Poster { fetchJson: TestServer['fetchJson'] }

async function poster(s: Poster, path: string, data: unknown, method = 'POST'): Promise<{ documentId: string }> {
  const r = await s.fetchJson(method, path, { data }, TOKEN);
  assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
  return r.body.data as { documentId: string };
}

/** Content written with the demo models: every type, components, a dynamic zone, relations, a draft. Returns the articles' documentIds. */
export async function writeContent(s: Poster): Promise<string[]> {
  const post = (path: string, data: unknown, method = 'POST') => poster(s, path, data, method);
  const ada = await post('/api/authors', { name: 'Ada', email: 'ada@example.com', bio: 'x'.repeat(300) });
  const tag = await post('/api/tags', { name: 'news' });
  const tag2 = await post('/api/tags', { name: 'tips' });
  const cat = await post('/api/categories', { name: 'Tech', slug: 'tech' });
  const articles: string[] = [];
  for (let i = 1; i <= 3; i++) {
    articles.push((await post(`/api/articles${i === 3 ? '?status=draft' : ''}`, {
      title: `Article ${i}`, slug: `article-${i}`, views: 10 * i, author: ada.documentId, category: cat.documentId,
      tags: [tag.documentId, tag2.documentId], seo: { metaTitle: `Meta ${i}` },
      blocks: [{ __component: 'shared.quote', title: `Quote ${i}`, body: 'b' }, { __component: 'shared.rich-text', body: `Rich ${i}` }],
    })).documentId);
  }
  await post('/api/about', { title: 'About us', blocks: [{ __component: 'shared.quote', title: 'Hi', body: 'there' }] }, 'PUT');
  await post('/api/global', { siteName: 'Site', defaultSeo: { metaTitle: 'Global' } }, 'PUT');
  return articles;
}

/**
 * writeContent's content, then a published `fr` localization of Article 1 (its own relations, component
 * and zone) and a draft-only `fr` one of Article 2: what the i18n and draft & publish switches act on.
 */
export async function writeLocalizedContent(s: Poster): Promise<void> {
  const [a1, a2] = await writeContent(s);
  const tags = (await s.fetchJson('GET', '/api/tags?sort=name', undefined, TOKEN)).body.data as Array<{ documentId: string }>;
  await poster(s, `/api/articles/${a1}?locale=fr`, {
    title: 'Article 1 fr', slug: 'article-1-fr', views: 11, tags: [tags[1].documentId], seo: { metaTitle: 'Meta 1 fr' },
    blocks: [{ __component: 'shared.rich-text', body: 'Rich 1 fr' }],
  }, 'PUT');
  await poster(s, `/api/articles/${a2}?locale=fr&status=draft`, { title: 'Article 2 fr', slug: 'article-2-fr', views: 21, seo: { metaTitle: 'Meta 2 fr' } }, 'PUT');
}
