// `api.documents.strictRelations` (Strapi 5.54): a required relation or media must hold something in an entry
// written as published — a type without draft & publish on its body (create: given; update: not emptied), a
// draft & publish type on the draft as its publish copies it (links to targets never published do not count)
// — against what a live Strapi 5.54 answered (test/fixtures/strict-relations); without the setting nothing of
// the kind is required.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { recordedSuite } from './recorded.ts';
import { STEPS } from './fixtures/strict-relations/steps.ts';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const MODELS = here('./fixtures/models-required-links');

describe('documents.strictRelations on', () => {
  recordedSuite('strict relations', MODELS, here('./fixtures/strict-relations'), STEPS, { REST_STRICT_PARAMS: 'true', DOCUMENTS_STRICT_PARAMS: 'true', DOCUMENTS_STRICT_RELATIONS: 'true' });
});

describe('documents.strictRelations off (Strapi\'s default)', () => {
  let s: TestServer;
  before(async () => { s = await startTestServer({ modelsDir: MODELS }); });
  after(async () => { await s?.stop(); });
  test('required relations and media are not required, on a body or a publish', async () => {
    const note = await s.fetchJson('POST', '/api/notes', { data: { title: 'n', author: null, readers: [], box: { label: 'b' } } }, TOKEN);
    assert.equal(note.status, 201, note.text);
    const doc = await s.fetchJson('POST', '/api/docs', { data: { title: 'd' } }, TOKEN);
    assert.equal(doc.status, 201, doc.text);
    assert.ok(doc.body.data.publishedAt);
  });
});
