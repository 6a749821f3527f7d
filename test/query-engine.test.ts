// strapi.db.query, the Query Engine project code calls (test/fixtures/project-code's engine controller),
// against what a live Strapi 5.54 running the same files answered (test/fixtures/query-engine-cases), and
// what only this server can show: its refusals name what they refuse, and 50 clients on two nodes (one with
// worker threads) writing one row at once leave it whole.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { recordedSuite } from './recorded.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './helpers.ts';
import { STEPS } from './fixtures/query-engine-cases/steps.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const models = here('./fixtures/project-code');
const env = { AUTHENTICATED_PERMISSIONS: '*:find,findOne;tag:create,update,delete' };
const server = recordedSuite('query-engine', models, here('./fixtures/query-engine-cases'), STEPS, env);

// The second node is a process of its own: project code reads the global `strapi`, one per process.
const others: ChildProcess[] = [];
after(() => { for (const c of others) c.kill('SIGTERM'); });

// One second node for the tests that need one (each start loads the project in three threads).
let second: Promise<string> | null = null;
const secondNode = (databaseUrl: string) => (second ??= startSecondNode(databaseUrl));

async function startSecondNode(databaseUrl: string): Promise<string> {
  const port = await freePort();
  let out = '';
  const other = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    env: { ...process.env, DATABASE_URL: databaseUrl, MODELS_DIR: models, PORT: String(port), HOST: '127.0.0.1', WORKERS: '2', LOCALES: 'en,fr', GRAPHQL_SHAPE: 'v5', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  others.push(other);
  other.stdout!.on('data', (d) => { out += d; });
  other.stderr!.on('data', (d) => { out += d; });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<never>((_, reject) => other.once('exit', (code) => reject(new Error(`the second node exited (${code}): ${out}`))));
  const up = (async () => {
    for (let i = 0; i < 300; i++) {
      try { if ((await fetch(`${url}/_health`)).status < 500) return url; } catch { /* not up yet */ }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`the second node did not answer: ${out}`);
  })();
  return Promise.race([up, exited]);
}

test('what the Query Engine is not run for here is refused naming it; the plugins\' types no model relates to are read', async () => {
  const sql = server().sql();
  await sql`insert into files (document_id, name, hash, ext, mime, size, url, provider, created_at, updated_at, published_at)
    values ('qefile00000000000000000a', 'pic.png', 'pic_1', '.png', 'image/png', 1.5, '/uploads/pic_1.png', 'local', now(), now(), now()),
           ('qefile00000000000000000b', 'doc.pdf', 'doc_1', '.pdf', 'application/pdf', 2.5, '/uploads/doc_1.pdf', 'local', now(), now(), now())`;
  await sql`insert into admin_users (document_id, firstname, email, password, is_active, blocked, created_at, updated_at, published_at)
    values ('qeadmin00000000000000000', 'Ada', 'admin@example.com', 'x', true, false, now(), now(), now())`;
  const r = await server().fetchJson('GET', '/api/articles-engine-refusals', undefined, null);
  assert.equal(r.status, 200);
  const b = r.body as Record<string, { name: string; message: string } | null>;
  assert.equal(b.unknownWhere?.name, 'ValidationError');
  assert.match(b.unknownWhere!.message, /nope/);
  assert.match(b.componentData!.message, /strapi\.db\.query\('api::article\.article'\)\.update: data\.seo \(a component\) is not written by this server's Query Engine/);
  assert.match(b.unknownMethod!.message, /strapi\.db\.query\('api::article\.article'\)\.clone is not supported by this server/);
  assert.match(b.unknownModel!.message, /no model api::nope\.nope/);
  assert.match(b.groupBy!.message, /the parameter "groupBy" is not supported by this server/);
  assert.deepEqual([b.starPopulate, b.namePopulate], [{ name: 'Error', message: 'Populate must be an object' }, { name: 'Error', message: 'Populate must be an object' }]);
  assert.match(b.undefinedWhere!.message, /Undefined binding\(s\) detected: where\.resetPasswordToken is undefined/);
  assert.match(b.undefinedUpdate!.message, /Undefined binding\(s\) detected: where\.slug is undefined/);
  assert.ok((r.body as { unlocalized: number }).unlocalized > 0);
  assert.deepEqual((r.body as { privateSort: string[] }).privateSort, ['ada']);
  assert.deepEqual((r.body as { files: unknown[] }).files, [{ name: 'pic.png', url: '/uploads/pic_1.png' }]);
  assert.equal((r.body as { admins: number }).admins, 1);
  const [views] = await server().sql()`select count(*)::int as n from articles where views = 0`;
  assert.equal(views.n, 0, 'the refused updateMany wrote nothing');
  // The refused update wrote nothing, not even its scalar.
  const [row] = await server().sql()`select count(*)::int as n from articles where title = 'Refused'`;
  assert.equal(row.n, 0);
});

test('50 clients setting one row at once, on two nodes (one with two threads): the row holds one client\'s values, whole', { timeout: 120_000 }, async () => {
  const a = server();
  const b = await secondNode(a.server.databaseUrl);
  const post = async (i: number) => {
    if (i % 2 === 0) return a.fetchJson('POST', `/api/articles-engine-set/${i + 100}`, undefined, null);
    const r = await fetch(`${b}/api/articles-engine-set/${i + 100}`, { method: 'POST' });
    const text = await r.text();
    return { status: r.status, text, body: JSON.parse(text) as unknown };
  };
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => post(i)));
  for (const r of answers) {
    assert.equal(r.status, 200, r.text);
    const got = r.body as { title: string; views: number };
    // Each answer is the row as one write left it: its title and views from the same client.
    assert.equal(got.title, `Set by ${got.views}`);
  }
  const rows = await a.sql()`select title, views from articles where slug = 'third-article'`;
  assert.equal(rows.length, 1, 'one row still');
  assert.equal(rows[0].title, `Set by ${rows[0].views}`);
  assert.ok(rows[0].views >= 100 && rows[0].views < 150);
  // Both nodes read what the last write left.
  const reads = [await a.fetchJson('GET', '/api/articles-engine', undefined, null), await fetch(`${b}/api/articles-engine`).then(async (r) => ({ status: r.status, body: await r.json() as unknown }))];
  for (const r of reads) {
    assert.equal(r.status, 200);
    assert.ok((r.body as { all: Array<{ title: string }> }).all.some((x) => x.title === rows[0].title), `reads ${rows[0].title}`);
  }
});

test('50 clients linking rows at once, on two nodes: every link made once, the other side\'s order whole', { timeout: 120_000 }, async () => {
  const a = server();
  const b = await secondNode(a.server.databaseUrl);
  const answers = await Promise.all(Array.from({ length: 50 }, async (_, i) => {
    if (i % 2 === 0) return a.fetchJson('POST', `/api/articles-engine-link/${i}`, undefined, null);
    const r = await fetch(`${b}/api/articles-engine-link/${i}`, { method: 'POST' });
    return { status: r.status, text: await r.text() };
  }));
  for (const r of answers) assert.equal(r.status, 200, r.text);
  const sql = a.sql();
  // Each new row links Grace once (her list's positions may tie under concurrent appends, as Strapi's
  // max + 1 does; ties are read in link order).
  const made = await sql`select l.article_id from articles_author_lnk l join articles ar on ar.id = l.article_id join authors au on au.id = l.author_id where ar.slug like 'linked-%' and au.name = 'Grace Hopper'`;
  assert.equal(made.length, 50);
  assert.equal(new Set(made.map((r) => Number(r.article_id))).size, 50);
  // The draft connected to the same few tags by 50 writers: each tag once, in positions 1…n.
  const links = await sql`select l.tag_id, l.tag_ord from articles_tags_lnk l join articles ar on ar.id = l.article_id where ar.slug = 'second-article' and ar.published_at is null order by l.tag_ord`;
  const tags = links.map((r) => Number(r.tag_id));
  assert.equal(new Set(tags).size, tags.length, 'no tag linked twice');
  assert.deepEqual(links.map((r) => Number(r.tag_ord)), links.map((_, i) => i + 1));
});

test('a write by strapi.db.connection.raw (its rows keep their updatedAt) is seen by the next reads: the renders are dropped', async () => {
  const s = server();
  const sql = s.sql();
  await sql`update categories set description = 'Before raw', updated_at = now() where slug = 'databases'`;
  await s.server.renderCacheReady();
  // Until the background refresh has rendered the row again: reads then copy its render.
  for (let i = 0; ; i++) {
    const [r] = await sql`select count(*)::int as n from fastrapi.categories x join categories t on t.id = x.id where t.slug = 'databases' and x.updated_at = t.updated_at`;
    if (r.n > 0) break;
    assert.ok(i < 400, 'the render cache never rendered the row');
    await new Promise((res) => setTimeout(res, 50));
  }
  const read = async () => ((await s.fetchJson('GET', '/api/categories?filters[slug][$eq]=databases', undefined, null)).body as { data: Array<{ description: string }> }).data[0].description;
  assert.equal(await read(), 'Before raw');
  const r = await s.fetchJson('POST', '/api/articles-engine-raw', undefined, null);
  assert.equal(r.status, 200, r.text);
  assert.equal(await read(), 'Set by raw SQL');
});

test('project code\'s reads take a nested * the content API refuses (its sanitizer alone expands it)', async () => {
  const r = await server().fetchJson('GET', '/api/articles-engine-code-populate', undefined, null);
  assert.equal(r.status, 200, r.text);
  const b = r.body as { viaService: Array<{ title: string; seo: unknown }>; viaDocuments: { title: string; seo: unknown } };
  assert.ok(b.viaService[0] && 'seo' in b.viaService[0], r.text);
  assert.ok('seo' in b.viaDocuments, r.text);
  const rest = await server().fetchJson('GET', '/api/articles?fields[0]=title&populate[seo]=*', undefined, null);
  assert.equal(rest.status, 400, 'the content API refuses it');
  assert.equal((rest.body as { error: { message: string } }).error.message, 'Invalid key shareImage at seo.shareImage');
});
