// `npm run seed`: fills the demo models (models/) with demo content — authors, categories, tags,
// articles with their components, dynamic zones, relations, French localizations and images, the about
// page and the global settings — so that a first run has something to show. It writes through the
// Content API of a server started here, in this process, on the same database (the embedded one of a
// running `npm start` included), with a token that exists only in this process: every write keeps
// Strapi's invariants as any other. A database that already has articles is left alone.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { startServer, type Server } from '../server.ts';
import { loadServerConfig } from '../project/config-files.ts';
import { EMBEDDED_URL_FILE } from '../db/embedded.ts';

const KEY = randomBytes(24).toString('hex');

interface Doc { documentId: string }

async function call<T>(server: Server, method: string, path: string, body?: unknown): Promise<T> {
  const isForm = body instanceof FormData;
  const res = await fetch(server.url + path, {
    method, body: isForm ? body : body === undefined ? undefined : JSON.stringify(body),
    headers: { authorization: `Bearer ${KEY}`, ...(isForm || body === undefined ? {} : { 'content-type': 'application/json' }) },
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}
const create = async (s: Server, path: string, data: Record<string, unknown>, query = '') => (await call<{ data: Doc }>(s, 'POST', `${path}${query}`, { data })).data;

/** A flat-colour PNG with a gradient band, small enough to keep the seed quick. */
async function image(r: number, g: number, b: number): Promise<Buffer> {
  const band = await sharp({ create: { width: 640, height: 80, channels: 3, background: { r: 255 - r, g: 255 - g, b: 255 - b } } }).png().toBuffer();
  return sharp({ create: { width: 640, height: 400, channels: 3, background: { r, g, b } } }).composite([{ input: band, top: 300, left: 0 }]).png().toBuffer();
}

async function upload(s: Server, name: string, rgb: [number, number, number], alt: string): Promise<number> {
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(await image(...rgb))], { type: 'image/png' }), name);
  form.append('fileInfo', JSON.stringify({ alternativeText: alt, caption: alt }));
  const [file] = await call<Array<{ id: number }>>(s, 'POST', '/api/upload', form);
  return file.id;
}

const AUTHORS = [
  { name: 'Ada Lovelace', email: 'ada@example.com', bio: 'Wrote the first program, for an engine that was never built.' },
  { name: 'Alan Turing', email: 'alan@example.com', bio: 'Asked whether machines can think, and how we would know.' },
  { name: 'Grace Hopper', email: 'grace@example.com', bio: 'Made computers speak something close to English.' },
];
const TAGS = ['databases', 'performance', 'api', 'tutorial', 'history', 'opinion'];
const TOPICS = [
  ['Why one SQL statement per request', 'How a populate becomes lateral joins that build JSON inside PostgreSQL.'],
  ['Reading Strapi\'s tables', 'Link tables, component tables, and the order columns that keep lists in place.'],
  ['Drafts and published versions', 'One row per version: what publishing really does.'],
  ['Caching rendered rows', 'A row\'s response text, valid as long as its updated_at.'],
  ['Localized content', 'Documents, locales and what falls back to what.'],
  ['The first compilers', 'From machine code to words, a short history.'],
  ['Pagination without surprises', 'Counts, limits and the cost of knowing the total.'],
  ['Relations in both directions', 'Owning sides, mapped sides and where the order lives.'],
] as const;

async function seed(s: Server): Promise<string> {
  const images = [
    await upload(s, 'harbour.png', [30, 90, 160], 'A harbour at dawn'),
    await upload(s, 'forest.png', [40, 120, 60], 'A forest path'),
    await upload(s, 'desert.png', [200, 150, 70], 'Dunes at noon'),
    await upload(s, 'city.png', [90, 90, 110], 'A city at night'),
    await upload(s, 'logo.png', [220, 40, 90], 'The site logo'),
  ];
  const authors: Doc[] = [];
  for (const [i, a] of AUTHORS.entries()) authors.push(await create(s, '/api/authors', { ...a, avatar: images[i] }));
  const tech = await create(s, '/api/categories', { name: 'Technology', slug: 'technology', description: 'How things work.' });
  const categories = [tech,
    await create(s, '/api/categories', { name: 'Databases', slug: 'databases', description: 'Tables, indexes, plans.', parent: tech.documentId }),
    await create(s, '/api/categories', { name: 'History', slug: 'history', description: 'Where it all comes from.' }),
  ];
  const tags: Doc[] = [];
  for (const name of TAGS) tags.push(await create(s, '/api/tags', { name }));
  const kinds = ['news', 'tutorial', 'opinion'];
  for (const [i, [title, description]] of TOPICS.entries()) {
    const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
    const article = await create(s, '/api/articles', {
      title, slug, description, body: `## ${title}\n\n${description}\n\nThis article was written by \`npm run seed\`.`,
      content: [{ type: 'paragraph', children: [{ type: 'text', text: description }] }],
      featured: i < 2, views: 100 * (i + 1), rating: 3 + (i % 3) / 2, publishDate: `2024-0${1 + (i % 9)}-1${i % 10}`,
      kind: kinds[i % 3], metadata: { readingMinutes: 3 + i },
      cover: images[i % 4], gallery: [images[(i + 1) % 4], images[(i + 2) % 4]],
      author: authors[i % 3].documentId, category: categories[i % 3].documentId,
      tags: [tags[i % TAGS.length].documentId, tags[(i + 2) % TAGS.length].documentId],
      seo: { metaTitle: title, metaDescription: description, keywords: 'strapi,postgresql', shareImage: images[i % 4] },
      blocks: [
        { __component: 'shared.rich-text', body: `${description} More in the body.` },
        { __component: 'shared.quote', title: AUTHORS[i % 3].name, body: 'Simplicity is prerequisite for reliability.' },
        { __component: 'shared.media', file: images[(i + 3) % 4] },
        { __component: 'shared.slider', files: [images[0], images[1], images[2]] },
      ],
    }, i === TOPICS.length - 1 ? '?status=draft' : '');
    if (i < 3) {
      await call(s, 'PUT', `/api/articles/${article.documentId}?locale=fr`, { data: {
        title: `${title} (fr)`, slug: `${slug}-fr`, description: `Version française : ${description}`, author: authors[i % 3].documentId,
      } });
    }
  }
  await call(s, 'PUT', '/api/about', { data: { title: 'About this demo', blocks: [
    { __component: 'shared.rich-text', body: 'Content made by `npm run seed` for the demo models.' },
    { __component: 'shared.quote', title: 'Grace Hopper', body: 'The most dangerous phrase is "we\'ve always done it this way".' },
  ] } });
  await call(s, 'PUT', '/api/global', { data: { siteName: 'fastrapi demo', siteDescription: 'A Strapi v5 Content API, served fast.', favicon: images[4],
    defaultSeo: { metaTitle: 'fastrapi demo', metaDescription: 'Demo content', shareImage: images[4] } } });
  return `${AUTHORS.length} authors, ${categories.length} categories, ${TAGS.length} tags, ${TOPICS.length} articles (3 also in French, 1 draft), the about page, the global settings, ${images.length} images`;
}

async function main(): Promise<void> {
  const { config } = await loadServerConfig(process.env, []);
  // The embedded PostgreSQL of a running `npm start` allows one server process: use its URL.
  const urlFile = join(config.dataDir, EMBEDDED_URL_FILE);
  const url = config.databaseUrl ?? (existsSync(urlFile) ? readFileSync(urlFile, 'utf8').trim() : undefined);
  const server = await startServer({ env: {
    ...process.env, ...(url ? { DATABASE_URL: url } : {}), PORT: '0', HOST: '127.0.0.1', WORKERS: '0', LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    API_TOKENS: `seed:full-access:${KEY}`, RENDER_CACHE: 'false', RESPONSE_CACHE: 'false',
  } });
  try {
    const routes = ['articles', 'authors', 'categories', 'tags', 'about', 'global'];
    const missing: string[] = [];
    for (const r of routes) if ((await fetch(`${server.url}/api/${r}`, { headers: { authorization: `Bearer ${KEY}` } })).status === 404 && !['about', 'global'].includes(r)) missing.push(r);
    const probe = await fetch(`${server.url}/api/articles?pagination[pageSize]=1&status=draft`, { headers: { authorization: `Bearer ${KEY}` } });
    if (missing.length) {
      console.error(`npm run seed fills the demo models (models/); MODELS_DIR=${server.config.modelsDir} has no ${missing.join(', ')}`);
      process.exitCode = 2;
      return;
    }
    const total = ((await probe.json()) as { meta: { pagination: { total: number } } }).meta.pagination.total;
    if (total > 0) {
      console.log(`the database already has ${total} articles: nothing seeded`);
      return;
    }
    console.log(`seeded: ${await seed(server)}`);
    console.log("the API is private: `npm run token -- create --name dev --type read-only` prints a token, then\n  curl -H 'Authorization: Bearer <token>' 'http://localhost:1337/api/articles?populate=*'");
  } finally {
    await server.stop();
  }
}

main().catch((e: unknown) => { console.error(e instanceof Error ? e.message : e); process.exit(1); });
