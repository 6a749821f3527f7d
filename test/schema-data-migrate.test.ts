// A content-type's draft & publish or i18n switched on this server's own database: the rows are migrated
// as Strapi 5.54's core migrates them. Each test writes content with the demo models (writeLocalizedContent:
// drafts, published rows, fr localizations, components, relations), switches the models
// (test/schema-edits.ts, `data: true`), restarts on the same data and compares the rows, links and
// component entries, and the REST answers, with what a live Strapi 5.54 made of the same content for the
// same switch (test/fixtures/data-migrations/<edit>.json, made by make.sh there).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyModels, DEMO_MODELS, startTestServer, TOKEN, type TestServer } from './helpers.ts';
import { EDITS, writeLocalizedContent } from './schema-edits.ts';
import { contentSnapshot, restAnswers, type ContentSnapshot } from './content-snapshot.ts';

interface Fixture { content: ContentSnapshot; rest: Record<string, { status: number; body: unknown }> }
const fixture = (name: string): Fixture => JSON.parse(readFileSync(new URL(`./fixtures/data-migrations/${name}.json`, import.meta.url), 'utf8')) as Fixture;

interface Run { s: TestServer; dir: string }

async function switchWith(edit: string, env: Record<string, string | undefined> = {}): Promise<Run> {
  const first = await startTestServer();
  let dir = '';
  try {
    await writeLocalizedContent(first);
    await first.server.renderCacheReady();
    await first.stop({ keepData: true });
    dir = copyModels(DEMO_MODELS);
    EDITS[edit].apply(dir);
    return { s: await startTestServer({ db: first.db, modelsDir: dir, env }), dir };
  } catch (e) {
    await first.db.drop().catch(() => {});
    if (dir) rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

async function assertAsStrapi(s: TestServer, edit: string): Promise<void> {
  const f = fixture(edit);
  const mine = await contentSnapshot(s.sql());
  for (const part of ['rows', 'links', 'components', 'componentRows'] as const) {
    assert.deepEqual(mine[part], f.content[part], `${edit}: ${part} as a live Strapi 5.54 left them`);
  }
  const answers = await restAnswers(s, TOKEN);
  for (const [path, want] of Object.entries(f.rest)) {
    // After `enable-i18n`, fr articles still link to tags that became `en` rows: Strapi answers those links.
    assert.deepEqual(answers[path], want, `${edit}: GET ${path} as Strapi answered`);
  }
}

describe('a draft & publish or i18n switch migrates the rows as Strapi does', () => {
  test('the content written before the switch is what Strapi holds for the same writes', async () => {
    const s = await startTestServer();
    try {
      await writeLocalizedContent(s);
      await assertAsStrapi(s, 'before');
    } finally { await s.stop(); }
  });

  for (const [name, e] of Object.entries(EDITS)) {
    if (!e.data) continue;
    test(`${name}: ${e.title}`, async () => {
      const r = await switchWith(name);
      try {
        await assertAsStrapi(r.s, name);
        // Strapi's record of the content-types, had Strapi run here, would not switch them again.
        const [state] = await r.s.sql()<Array<{ flags: Record<string, { draftAndPublish: boolean; localized: boolean }> }>>`select content_types as flags from fastrapi.schema_state`;
        assert.equal(state.flags['api::article.article'].draftAndPublish, name !== 'disable-draft-and-publish');
        // A second start changes nothing more.
        await r.s.stop({ keepData: true });
        r.s = await startTestServer({ db: r.s.db, modelsDir: r.dir });
        await assertAsStrapi(r.s, name);
      } finally {
        await r.s.stop();
        rmSync(r.dir, { recursive: true, force: true });
      }
    });
  }

  test('switched on a database that holds Strapi\'s record of its content-types: the record follows', async () => {
    const first = await startTestServer();
    const dir = copyModels(DEMO_MODELS);
    try {
      await writeLocalizedContent(first);
      const old = { 'api::tag.tag': { options: { draftAndPublish: false }, pluginOptions: {} }, 'api::article.article': { options: { draftAndPublish: true }, pluginOptions: { i18n: { localized: true } } } };
      await first.sql()`insert into strapi_core_store_settings (key, value, type) values ('strapi_content_types_schema', ${JSON.stringify(old)}, 'object')`;
      await first.stop({ keepData: true });
      EDITS['enable-draft-and-publish'].apply(dir);
      EDITS['disable-i18n'].apply(dir);
      const s = await startTestServer({ db: first.db, modelsDir: dir });
      try {
        const [{ value }] = await s.sql()<Array<{ value: string }>>`select value from strapi_core_store_settings where key = 'strapi_content_types_schema'`;
        const rec = JSON.parse(value);
        assert.equal(rec['api::tag.tag'].options.draftAndPublish, true);
        assert.equal(rec['api::article.article'].pluginOptions.i18n.localized, false);
        assert.equal(rec['api::category.category'], undefined, 'types Strapi did not record are not added');
      } finally { await s.stop(); }
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

  test('a migration that fails after the data migrations leaves the rows as they were', async () => {
    const first = await startTestServer();
    const dir = copyModels(DEMO_MODELS);
    try {
      await writeLocalizedContent(first);
      const before = await contentSnapshot(first.sql());
      await first.stop({ keepData: true });
      EDITS['disable-draft-and-publish'].apply(dir);
      EDITS['enable-draft-and-publish'].apply(dir);
      // A text that does not cast to an integer: the schema statement fails after the drafts were deleted.
      const author = JSON.parse(readFileSync(join(dir, 'content-types/author.json'), 'utf8'));
      author.attributes.bio = { type: 'integer' };
      writeFileSync(join(dir, 'content-types/author.json'), JSON.stringify(author));
      await assert.rejects(startTestServer({ db: first.db, modelsDir: dir, env: { ALLOW_DESTRUCTIVE_SCHEMA: 'true' } }), /schema migration failed .*left as it was/s);
      const again = await startTestServer({ db: first.db });
      try { assert.deepEqual(await contentSnapshot(again.sql()), before); } finally { await again.stop(); }
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });
});
