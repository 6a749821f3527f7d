// `api.documents.strictParams` (Strapi 5.54): the document service refuses a status or locale it cannot use,
// after the query's own checks and the body's keys, before anything is read or written — on every type,
// against what a live Strapi 5.54 answered (test/fixtures/documents-strict); then the checks project code
// meets through `strapi.documents` (page and withCount too), in Strapi's words.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { recordedSuite } from './recorded.ts';
import { STEPS } from './fixtures/documents-strict/steps.ts';
import { checkStrictDocumentParams } from '../compiler/document-params.ts';
import { ApiError } from '../compiler/errors.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
describe('documents.strictParams over REST', () => {
  recordedSuite('documents strict params', here('./fixtures/models-details'), here('./fixtures/documents-strict'), STEPS, { DOCUMENTS_STRICT_PARAMS: 'true' });
});

describe('documents.strictParams for project code (Strapi 5.54 repository.js checkStatus, checkLocale, checkPagination)', () => {
  const message = (p: Record<string, unknown>) => {
    try { checkStrictDocumentParams(p); return null; } catch (e) { assert.ok(e instanceof ApiError && e.status === 400 && e.errorName === 'ValidationError'); return e.message; }
  };
  test('what passes', () => {
    for (const p of [{}, { status: 'draft' }, { status: '' }, { status: null }, { locale: '*' }, { locale: 'zh-Hans' }, { locale: ['en', '', 3, 'fr'] }, { locale: [] },
      { page: 1, pageSize: '10' }, { start: 0, limit: -1 }, { withCount: 'false' }, { withCount: true }]) assert.equal(message(p), null, JSON.stringify(p));
  });
  test('what is refused, in that order', () => {
    assert.equal(message({ status: 'foo', locale: 'x_y' }), "Invalid parameter at 'status'. Expected 'published' or 'draft', received: foo");
    assert.equal(message({ locale: 7 }), "Invalid parameter at 'locale'. Expected a string, received: number");
    assert.equal(message({ locale: ['en', 'x_y'], page: 0 }), "Invalid parameter at 'locale[1]'. Locale must be a valid BCP 47 format (e.g. en, en-US, zh-Hans).");
    assert.equal(message({ page: 1, limit: 5 }), 'Invalid pagination parameters. Cannot use both page-based (page, pageSize) and offset-based (start, limit) pagination in the same query.');
    assert.equal(message({ page: 0 }), "Invalid parameter at 'page'. Expected integer >= 1, received: 0");
    assert.equal(message({ pageSize: 'x' }), "Invalid parameter at 'pageSize'. Expected integer >= 1, received: x");
    assert.equal(message({ start: -1 }), "Invalid parameter at 'start'. Expected integer >= 0, received: -1");
    assert.equal(message({ limit: 0 }), "Invalid parameter at 'limit'. Expected integer >= 1 or -1, received: 0");
    assert.equal(message({ withCount: 'yes' }), "Invalid parameter at 'withCount'. Expected a boolean, received: string");
  });
});
