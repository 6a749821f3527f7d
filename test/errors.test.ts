// Error answers: status, envelope `{data: null, error: {status, name, message, details}}` and the exact
// messages Strapi v5 gives (the recorded cases in shared/conformance/cases/rest.jsonl for the demo models).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startTestServer, ALL_TYPES_MODELS, TOKEN, type TestServer } from './helpers.ts';

let demo: TestServer; // the blog models, as recorded against Strapi
let all: TestServer; // every attribute type and constraint
let tag: string;

const envelope = (status: number, name: string, message: string, details?: unknown) =>
  ({ data: null, error: details === undefined ? { status, name, message } : { status, name, message, details } });

const fieldError = (path: string[], message: string, value?: unknown) =>
  (value === undefined ? { path, message, name: 'ValidationError' } : { path, message, name: 'ValidationError', value });

/** The envelope of a validation error listing one field error. */
const oneFieldError = (path: string[], message: string, value?: unknown) =>
  envelope(400, 'ValidationError', message, { errors: [fieldError(path, message, value)] });

before(async () => {
  demo = await startTestServer({ env: { MAX_BODY_SIZE: '1024' } });
  all = await startTestServer({ modelsDir: ALL_TYPES_MODELS });
  const t = await demo.fetchJson('POST', '/api/tags', { data: { name: 'REST' } }, TOKEN);
  assert.equal(t.status, 201);
  tag = t.body.data.documentId;
  const a = await demo.fetchJson('POST', '/api/articles', { data: { title: 'Article one', slug: 'article-1' } }, TOKEN);
  assert.equal(a.status, 201);
});

after(async () => {
  await demo?.stop();
  await all?.stop();
});

/** Sends a body in chunks without a content-length (chunked transfer encoding). */
function sendChunked(base: string, path: string, chunks: Buffer[]): Promise<{ status: number; body: any }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method: 'POST', path, agent: false, headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c) => parts.push(c));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString();
        let body: unknown = text;
        try { body = JSON.parse(text); } catch { /* keep text */ }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('error', reject);
    (async () => {
      for (const c of chunks) { req.write(c); await new Promise((r) => setTimeout(r, 5)); }
      req.end();
    })().catch(reject);
  });
}

describe('request body', () => {
  const TOO_LARGE = envelope(413, 'PayloadTooLargeError', 'request entity too large', {});

  test('a body larger than MAX_BODY_SIZE is refused with 413 (content-length)', async () => {
    const r = await demo.fetchJson('POST', '/api/tags', { data: { name: 'x'.repeat(2000) } }, TOKEN);
    assert.equal(r.status, 413);
    assert.deepEqual(r.body, TOO_LARGE);
    const p = await demo.fetchJson('PUT', `/api/tags/${tag}`, { data: { name: 'y'.repeat(2000) } }, TOKEN);
    assert.equal(p.status, 413);
    assert.deepEqual(p.body, TOO_LARGE);
  });

  test('a chunked body that grows past MAX_BODY_SIZE is refused with 413', async () => {
    const r = await sendChunked(demo.url, '/api/tags', [Buffer.from('{"data":{"name":"'), Buffer.alloc(700, 'a'), Buffer.alloc(700, 'b'), Buffer.from('"}}')]);
    assert.equal(r.status, 413);
    assert.deepEqual(r.body, TOO_LARGE);
  });

  test('a chunked body under the limit is accepted', async () => {
    const r = await sendChunked(demo.url, '/api/tags', [Buffer.from('{"data":{"na'), Buffer.from('me":"chunked"}}')]);
    assert.equal(r.status, 201);
    assert.equal(r.body.data.name, 'chunked');
    await demo.fetchJson('DELETE', `/api/tags/${r.body.data.documentId}`, undefined, TOKEN);
  });

  test('the server keeps answering after refusing a body', async () => {
    const r = await demo.fetchJson('GET', '/api/tags');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.data.map((t: any) => t.name), ['REST']);
  });

  test('malformed JSON: 400 SyntaxError with the parser message and no details', async () => {
    const r = await demo.fetchJson('POST', '/api/tags', '{"data": {"name": ', TOKEN);
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, envelope(400, 'SyntaxError', 'Unexpected end of JSON input'));
    const p = await demo.fetchJson('PUT', `/api/tags/${tag}`, '{data: 1}', TOKEN);
    assert.equal(p.status, 400);
    assert.equal(p.body.error.name, 'SyntaxError');
    assert.equal(typeof p.body.error.message, 'string');
  });

  test('missing data: 400 ValidationError', async () => {
    const missing = envelope(400, 'ValidationError', 'Missing "data" payload in the request body', {});
    for (const body of [{ name: 'Zig' }, {}, { data: null }, { data: 'text' }, '']) {
      const r = await demo.fetchJson('POST', '/api/tags', body, TOKEN);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.deepEqual(r.body, missing, JSON.stringify(body));
    }
    const p = await demo.fetchJson('PUT', `/api/tags/${tag}`, {}, TOKEN);
    assert.equal(p.status, 400);
    assert.deepEqual(p.body, missing);
    const single = await demo.fetchJson('PUT', '/api/global', { siteName: 'x' }, TOKEN);
    assert.equal(single.status, 400);
    assert.deepEqual(single.body, missing);
  });

  test('a refused write changes nothing', async () => {
    const before = await demo.fetchJson('GET', '/api/tags?pagination[withCount]=true');
    await demo.fetchJson('POST', '/api/tags', { data: { name: 'Zig', color: 'orange' } }, TOKEN);
    await demo.fetchJson('POST', '/api/articles', { data: { title: 'Dup slug', slug: 'article-1' } }, TOKEN);
    const after = await demo.fetchJson('GET', '/api/tags?pagination[withCount]=true');
    assert.deepEqual(after.body, before.body);
    const n = await demo.sql()`select count(*)::int as n from articles where slug = 'article-1'`;
    assert.equal(n[0].n, 2, 'the draft and the published version of the one article');
  });
});

describe('routing', () => {
  const NOT_FOUND = envelope(404, 'NotFoundError', 'Not Found', {});

  test('unknown routes: 404 envelope', async () => {
    for (const path of ['/api/nothing', '/api/nothing/abc', '/api/articles/a/b', '/api', '/api/', '/api/article']) {
      const r = await demo.fetchJson('GET', path);
      assert.equal(r.status, 404, path);
      assert.deepEqual(r.body, NOT_FOUND, path);
      assert.match(r.headers['content-type'], /^application\/json/);
    }
    const p = await demo.fetchJson('POST', '/api/nothing', { data: {} }, TOKEN);
    assert.equal(p.status, 404);
    assert.deepEqual(p.body, NOT_FOUND);
  });

  test('POST on a document and PATCH: 405 Method Not Allowed', async () => {
    const one = await demo.fetchJson('POST', `/api/tags/${tag}`, { data: { name: 'x' } }, TOKEN);
    assert.equal(one.status, 405);
    assert.equal(one.text, 'Method Not Allowed');
    const patch = await demo.fetchJson('PATCH', `/api/tags/${tag}`, { data: { name: 'x' } }, TOKEN);
    assert.equal(patch.status, 405);
    assert.equal(patch.text, 'Method Not Allowed');
    assert.equal((await demo.fetchJson('PATCH', '/api/tags', { data: {} }, TOKEN)).status, 405);
    assert.equal((await demo.fetchJson('POST', '/api/global', { data: { siteName: 'x' } }, TOKEN)).status, 405);
    assert.equal((await demo.fetchJson('PUT', '/api/tags', { data: { name: 'x' } }, TOKEN)).status, 405);
    assert.equal((await demo.fetchJson('DELETE', '/api/tags', undefined, TOKEN)).status, 405);
    // nothing was written
    assert.equal((await demo.fetchJson('GET', `/api/tags/${tag}`)).body.data.name, 'REST');
  });

  test('a query string longer than the limit: 414 in the envelope (Koa has no limit; Node answers 431 past 16 KiB of headers)', async () => {
    const r = await demo.fetchJson('GET', `/api/tags?filters[name][$eq]=${'x'.repeat(17000)}`);
    assert.equal(r.status, 414);
    assert.equal(r.body.data, null);
    assert.equal(r.body.error.name, 'URITooLongError');
  });
});

describe('authentication and permissions', () => {
  test('an invalid bearer token: 401 even where the public may read', async () => {
    const expected = envelope(401, 'UnauthorizedError', 'Missing or invalid credentials', {});
    for (const auth of ['Bearer wrong', 'Bearer ', 'Basic VDpU', 'T', `Bearer ${TOKEN}x`]) {
      const r = await demo.fetchJson('GET', '/api/articles', undefined, null, { authorization: auth });
      assert.equal(r.status, 401, auth);
      assert.deepEqual(r.body, expected, auth);
    }
    const w = await demo.fetchJson('POST', '/api/tags', { data: { name: 'x' } }, 'wrong');
    assert.equal(w.status, 401);
  });

  test('the configured token is accepted, whatever the case of "Bearer"', async () => {
    assert.equal((await demo.fetchJson('GET', '/api/articles', undefined, TOKEN)).status, 200);
    assert.equal((await demo.fetchJson('GET', '/api/articles', undefined, null, { authorization: `bearer ${TOKEN}` })).status, 200);
  });

  test('the public may find and findOne but not create, update or delete: 403', async () => {
    const forbidden = envelope(403, 'ForbiddenError', 'Forbidden', {});
    assert.equal((await demo.fetchJson('GET', '/api/tags')).status, 200);
    assert.equal((await demo.fetchJson('GET', `/api/tags/${tag}`)).status, 200);
    const c = await demo.fetchJson('POST', '/api/tags', { data: { name: 'nope' } });
    assert.equal(c.status, 403);
    assert.deepEqual(c.body, forbidden);
    const u = await demo.fetchJson('PUT', `/api/tags/${tag}`, { data: { name: 'nope' } });
    assert.equal(u.status, 403);
    assert.deepEqual(u.body, forbidden);
    const d = await demo.fetchJson('DELETE', `/api/tags/${tag}`);
    assert.equal(d.status, 403);
    assert.deepEqual(d.body, forbidden);
    const s = await demo.fetchJson('PUT', '/api/global', { data: { siteName: 'nope' } });
    assert.equal(s.status, 403);
    // permission is checked before the body: a malformed body from the public is still 403
    const m = await demo.fetchJson('POST', '/api/tags', '{"data": ');
    assert.equal(m.status, 403);
    assert.equal((await demo.fetchJson('GET', `/api/tags/${tag}`)).body.data.name, 'REST');
  });
});

describe('validation errors (recorded Strapi answers, demo models)', () => {
  test('unknown body key', async () => {
    const r = await demo.fetchJson('POST', '/api/tags', { data: { name: 'Zig', color: 'orange' } }, TOKEN);
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, envelope(400, 'ValidationError', 'Invalid key color', { key: 'color', path: null, source: 'body' }));
  });

  test('id in the body', async () => {
    const r = await demo.fetchJson('POST', '/api/tags', { data: { id: 999, name: 'WithId' } }, TOKEN);
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, envelope(400, 'ValidationError', 'Invalid key id', { key: 'id', source: 'body' }));
  });

  test('required attribute of a draft & publish type', async () => {
    const r = await demo.fetchJson('POST', '/api/articles', { data: { slug: 'no-title' } }, TOKEN);
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, oneFieldError(['title'], 'title must be a `string` type, but the final value was: `null`.', null));
  });

  test('required attribute of a type without draft & publish', async () => {
    const r = await demo.fetchJson('POST', '/api/authors', { data: { email: 'x@example.com' } }, TOKEN);
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, oneFieldError(['name'], 'name must be defined.'));
  });

  test('enumeration', async () => {
    const r = await demo.fetchJson('POST', '/api/articles', { data: { title: 'Bad enum', kind: 'poetry' } }, TOKEN);
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, oneFieldError(['kind'], 'kind must be one of the following values: news, tutorial, opinion, ', 'poetry'));
  });

  test('integer that is not a number', async () => {
    const r = await demo.fetchJson('POST', '/api/articles', { data: { title: 'Bad int', views: 'many' } }, TOKEN);
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, oneFieldError(['views'], 'views must be a `number` type, but the final value was: `NaN` (cast from the value `"many"`).', null));
  });

  test('unique', async () => {
    const r = await demo.fetchJson('POST', '/api/articles', { data: { title: 'Dup slug', slug: 'article-1' } }, TOKEN);
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, oneFieldError(['slug'], 'This attribute must be unique', 'article-1'));
  });

  test('uid format', async () => {
    const r = await demo.fetchJson('POST', '/api/articles', { data: { title: 'Bad slug', slug: 'has spaces!' } }, TOKEN);
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, oneFieldError(['slug'], 'slug must match the following: "/^[A-Za-z0-9-_.~]*$/"', 'has spaces!'));
  });

  test('email', async () => {
    const r = await demo.fetchJson('POST', '/api/authors', { data: { name: 'Bad', email: 'not-an-email' } }, TOKEN);
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, oneFieldError(['email'], 'email must be a valid email', 'not-an-email'));
  });

  test('PUT on an unknown document is 404 before validation', async () => {
    const r = await demo.fetchJson('PUT', '/api/tags/doesnotexist000000000000', { data: { name: 'x' } }, TOKEN);
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, envelope(404, 'NotFoundError', 'Not Found', {}));
  });

  test('relation to an unknown document', async () => {
    const r = await demo.fetchJson('POST', '/api/articles', { data: { title: 'x', tags: { connect: ['doesnotexist000000000000'] } } }, TOKEN);
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, envelope(400, 'ValidationError', 'Document with id "doesnotexist000000000000", locale "null" not found', {}));
  });

  test('unknown dynamic zone component (recorded: two errors, the second "Invalid relations")', async () => {
      const r = await demo.fetchJson('POST', '/api/articles', { data: { title: 'Bad dz', blocks: [{ __component: 'shared.nope' }] } }, TOKEN);
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, envelope(400, 'ValidationError', '2 errors occurred', { errors: [
        fieldError(['blocks', '0', '__component'], 'blocks[0].__component must be one of the following values: shared.slider, shared.seo, shared.rich-text, shared.quote, shared.media', 'shared.nope'),
        fieldError([], 'Invalid relations', { locale: 'en', publishedAt: null, blocks: [{ __component: 'shared.nope' }], views: 0, featured: false, title: 'Bad dz' }),
      ] }));
    });

  test('a dynamic-zone entry without __component (checked live: the key is required, then the relation store fails)', async () => {
    const r = await demo.fetchJson('POST', '/api/articles', { data: { title: 'No uid', blocks: [{ title: 'x' }] } }, TOKEN);
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, envelope(400, 'ValidationError', '2 errors occurred', { errors: [
      { path: ['blocks', '0', '__component'], message: 'blocks[0].__component is a required field', name: 'ValidationError' },
      fieldError([], 'Cannot build relations store from dynamiczone, component identifier is undefined',
        { locale: 'en', publishedAt: null, blocks: [{ title: 'x' }], views: 0, featured: false, title: 'No uid' }),
    ] }));
  });
});

describe('validation errors (every constraint, all-types models)', () => {
  const post = (data: Record<string, unknown>) => all.fetchJson('POST', '/api/everythings', { data }, TOKEN);

  const cases: Array<[string, Record<string, unknown>, string[], string, unknown]> = [
    ['required (missing)', {}, ['title'], 'title must be defined.', undefined],
    // A null given is yup's type error on a string (Strapi 5.54, checked live on a required string).
    ['required (null)', { title: null }, ['title'], 'title must be a `string` type, but the final value was: `null`.', null],
    ['minLength', { title: 'a' }, ['title'], 'title must be at least 2 characters', 'a'],
    ['maxLength', { title: 'x'.repeat(41) }, ['title'], 'title must be at most 40 characters', 'x'.repeat(41)],
    ['regex', { title: 'ok', code: 'abc-1' }, ['code'], 'code must match the following: "/^[A-Z]{3}-[0-9]+$/"', 'abc-1'],
    ['enumeration', { title: 'ok', level: 'extreme' }, ['level'], 'level must be one of the following values: low, medium, high, ', 'extreme'],
    ['integer: not an integer', { title: 'ok', quantity: 1.5 }, ['quantity'], 'quantity must be an integer', 1.5],
    ['integer: max', { title: 'ok', quantity: 101 }, ['quantity'], 'quantity must be less than or equal to 100', 101],
    ['integer: min', { title: 'ok', quantity: -1 }, ['quantity'], 'quantity must be greater than or equal to 0', -1],
    ['integer: NaN', { title: 'ok', quantity: 'lots' }, ['quantity'], 'quantity must be a `number` type, but the final value was: `NaN` (cast from the value `"lots"`).', null],
    ['decimal: min', { title: 'ok', price: -0.5 }, ['price'], 'price must be greater than or equal to 0', -0.5],
    ['email', { title: 'ok', contact: 'nope@' }, ['contact'], 'contact must be a valid email', 'nope@'],
    ['uid', { title: 'ok', slug: 'a b' }, ['slug'], 'slug must match the following: "/^[A-Za-z0-9-_.~]*$/"', 'a b'],
    ['boolean', { title: 'ok', active: 'maybe' }, ['active'], 'active must be a `boolean` type, but the final value was: `"maybe"`.', 'maybe'],
    ['component: required inside', { title: 'ok', address: { city: 'Porto' } }, ['address', 'street'], 'address.street must be defined.', undefined],
    ['component: regex inside', { title: 'ok', address: { street: 's', zip: '12' } }, ['address', 'zip'], 'address.zip must match the following: "/^[0-9]{4}-[0-9]{3}$/"', '12'],
    ['nested component: max', { title: 'ok', address: { street: 's', point: { lat: 91 } } }, ['address', 'point', 'lat'], 'address.point.lat must be less than or equal to 90', 91],
    ['repeatable component: max items', { title: 'ok', links: [{ url: 'a' }, { url: 'b' }, { url: 'c' }, { url: 'd' }] }, ['links'], 'links field must have less than or equal to 3 items', [{ url: 'a' }, { url: 'b' }, { url: 'c' }, { url: 'd' }]],
    ['repeatable component: required inside', { title: 'ok', links: [{ url: 'a' }, { label: 'no url' }] }, ['links', '1', 'url'], 'links[1].url must be defined.', undefined],
    // A component of the app outside the zone's list is validated as its own (Strapi's validator takes any).
    ['dynamic zone: a component outside its list', { title: 'ok', sections: [{ __component: 'geo.point', lat: 91 }] }, ['sections', '0', 'lat'], 'sections[0].lat must be less than or equal to 90', 91],
    ['dynamic zone: required inside', { title: 'ok', sections: [{ __component: 'common.link', label: 'x' }] }, ['sections', '0', 'url'], 'sections[0].url must be defined.', undefined],
  ];
  for (const [name, data, path, message, value] of cases) {
    test(name, async () => {
      const r = await post(data);
      assert.equal(r.status, 400, r.text);
      assert.deepEqual(r.body, oneFieldError(path, message, value));
    });
  }

  test('several errors: "N errors occurred" with every error listed', async () => {
    const r = await post({ title: 'a', level: 'x', quantity: 500 });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, envelope(400, 'ValidationError', '3 errors occurred', { errors: [
      fieldError(['title'], 'title must be at least 2 characters', 'a'),
      fieldError(['level'], 'level must be one of the following values: low, medium, high, ', 'x'),
      fieldError(['quantity'], 'quantity must be less than or equal to 100', 500),
    ] }));
  });

  test('unique', async () => {
    const first = await post({ title: 'first', serial: 'S-1' });
    assert.equal(first.status, 201);
    const r = await post({ title: 'second', serial: 'S-1' });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, oneFieldError(['serial'], 'This attribute must be unique', 'S-1'));
    // and on update of another document
    const other = await post({ title: 'third', serial: 'S-2' });
    const u = await all.fetchJson('PUT', `/api/everythings/${other.body.data.documentId}`, { data: { serial: 'S-1' } }, TOKEN);
    assert.equal(u.status, 400);
    assert.deepEqual(u.body, oneFieldError(['serial'], 'This attribute must be unique', 'S-1'));
  });

  test('update validates the attributes it is given, and null on a required one', async () => {
    const d = await post({ title: 'to update' });
    const id = d.body.data.documentId;
    const r = await all.fetchJson('PUT', `/api/everythings/${id}`, { data: { quantity: 1000 } }, TOKEN);
    assert.deepEqual(r.body, oneFieldError(['quantity'], 'quantity must be less than or equal to 100', 1000));
    const n = await all.fetchJson('PUT', `/api/everythings/${id}`, { data: { title: null } }, TOKEN);
    assert.equal(n.status, 400);
    assert.deepEqual(n.body, oneFieldError(['title'], 'title must be a `string` type, but the final value was: `null`.', null));
    const k = await all.fetchJson('PUT', `/api/everythings/${id}`, { data: { nope: 1 } }, TOKEN);
    assert.deepEqual(k.body, envelope(400, 'ValidationError', 'Invalid key nope', { key: 'nope', path: null, source: 'body' }));
  });

  test('unknown key inside a component', async () => {
    const r = await post({ title: 'ok', address: { street: 's', floor: 3 } });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, envelope(400, 'ValidationError', 'Invalid key floor at address', { key: 'floor', path: 'address', source: 'body' }));
  });

  test('a file id that does not exist', async () => {
    const r = await post({ title: 'ok', cover: 424242 });
    assert.equal(r.status, 400);
    assert.equal(r.body.error.name, 'ValidationError');
  });

  test('a date that does not exist is refused, not moved to another day', async () => {
    const r = await post({ title: 'ok', day: '2024-02-30' });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.error.name, 'ValidationError');
  });

  test('values of the wrong type never reach the database as a 500', async () => {
    const bad: Array<Record<string, unknown>> = [
      { big: 1.5 }, { big: 'x1' }, { ratio: 'fast' }, { day: 'soon' }, { clock: '25:61' }, { happenedAt: 'never' },
      { stamp: {} }, { content: [{ type: 'nope' }] }, { links: {} }, { sections: 'x' }, { address: [] }, { gallery: ['a'] },
      { owner: { foo: 1 } }, { labels: { set: ['x'], connect: ['y'] } }, { quantity: 1e20 }, { price: 'Infinity' },
    ];
    for (const extra of bad) {
      const r = await post({ title: 'typed', ...extra });
      assert.equal(r.status, 400, `${JSON.stringify(extra)} → ${r.status} ${r.text}`);
      assert.equal(r.body.data, null);
      assert.equal(r.body.error.status, 400);
      assert.equal(r.body.error.name, 'ValidationError', JSON.stringify(extra));
    }
  });
});

describe("what Strapi's document service refuses after the query's own checks (checked live)", () => {
  test('`lookup` (internal to the document service) is refused on every action, a write writing nothing', async () => {
    const lookup = envelope(400, 'ValidationError', "Invalid params: 'lookup'", {});
    for (const path of ['/api/tags?lookup[name]=x', `/api/tags/${tag}?lookup[updatedBy][password][$startsWith]=$2`, '/api/global?lookup=1']) {
      const r = await demo.fetchJson('GET', path);
      assert.deepEqual([r.status, r.body], [400, lookup], path);
    }
    const w = await demo.fetchJson('POST', '/api/tags?lookup[name]=x', { data: { name: 'looked-up' } }, TOKEN);
    assert.deepEqual([w.status, w.body], [400, lookup]);
    const d = await demo.fetchJson('DELETE', `/api/tags/${tag}?lookup[name]=x`, undefined, TOKEN);
    assert.deepEqual([d.status, d.body], [400, lookup]);
    const found = await demo.fetchJson('GET', '/api/tags?filters[name][$in][0]=looked-up&filters[name][$in][1]=REST&fields[0]=name');
    assert.deepEqual(found.body.data.map((t: { name: string }) => t.name), ['REST']);
    // An empty value is none (Strapi tests it for truth).
    assert.equal((await demo.fetchJson('GET', '/api/tags?lookup=')).status, 200);
  });

  test('a list with page or pageSize outside `pagination`: PaginationError', async () => {
    const page = envelope(400, 'PaginationError', 'Invalid pagination attributes. The page parameters are incorrect and must be in the pagination object', {});
    for (const q of ['page=1&pageSize=10', 'page=2', 'pageSize=', 'pagination[page]=1&pageSize=5']) {
      const r = await demo.fetchJson('GET', `/api/tags?${q}`);
      assert.deepEqual([r.status, r.body], [400, page], q);
    }
    assert.equal((await demo.fetchJson('GET', `/api/tags/${tag}?page=1`)).status, 200);
  });

  test("a write's invalid query is refused before anything is written", async () => {
    const r = await demo.fetchJson('POST', '/api/tags?populate=nope', { data: { name: 'bad-query' } }, TOKEN);
    assert.deepEqual([r.status, r.body], [400, envelope(400, 'ValidationError', 'Invalid key nope', { key: 'nope', path: 'nope', source: 'query', param: 'populate' })]);
    const u = await demo.fetchJson('PUT', `/api/tags/${tag}?fields[0]=nope`, { data: { name: 'renamed' } }, TOKEN);
    assert.equal(u.status, 400, u.text);
    const found = await demo.fetchJson('GET', '/api/tags?filters[name][$in][0]=bad-query&filters[name][$in][1]=renamed');
    assert.deepEqual(found.body.data, []);
    // The query is checked before `data` (Strapi's controller order).
    const m = await demo.fetchJson('POST', '/api/tags?populate=nope', { nodata: true }, TOKEN);
    assert.equal(m.body.error.message, 'Invalid key nope');
  });
});

describe('unknown body keys, named as Strapi 5.54 names them (checked live)', () => {
  test('inside a component, a nested one and a dynamic zone: the attribute path, without list positions', async () => {
    const nested = await all.fetchJson('POST', '/api/everythings', { data: { title: 'ok', address: { street: 's', floor: 3 } } }, TOKEN);
    assert.equal(nested.body.error.message, 'Invalid key floor at address');
    const zone = await all.fetchJson('POST', '/api/everythings', { data: { title: 'ok', sections: [{ __component: 'geo.address', street: 's' }, { __component: 'geo.address', street: 's', floor: 3 }] } }, TOKEN);
    assert.deepEqual([zone.status, zone.body], [400, envelope(400, 'ValidationError', 'Invalid key floor at sections', { key: 'floor', path: 'sections', source: 'body' })]);
  });

  test('the creator fields and `localizations` (on a localized type too, whatever its value: Strapi 5.54, checked live) name themselves', async () => {
    for (const key of ['createdBy', 'updatedBy', 'localizations']) {
      const r = await demo.fetchJson('POST', '/api/tags', { data: { name: `t-${key}`, [key]: key === 'localizations' ? [] : 1 } }, TOKEN);
      assert.deepEqual([r.status, r.body], [400, envelope(400, 'ValidationError', `Invalid key ${key}`, { key, path: key, source: 'body' })], key);
    }
    for (const value of [[], null, ['x'], { connect: [] }]) {
      const r = await demo.fetchJson('POST', '/api/articles', { data: { title: 'with localizations', localizations: value } }, TOKEN);
      assert.deepEqual([r.status, r.body], [400, envelope(400, 'ValidationError', 'Invalid key localizations', { key: 'localizations', path: 'localizations', source: 'body' })], JSON.stringify(value));
    }
  });
});

test("a list as `data`: Strapi 5.54's body schema refuses it in yup's words (checked live)", async () => {
  const r = await demo.fetchJson('POST', '/api/tags', { data: [{ name: 'string attr', n: 1 }] }, TOKEN);
  const message = 'this must be a `object` type, but the final value was: `null` (cast from the value `[\n  {\n    "name": "\\"string attr\\"",\n    "n": "1"\n  }\n]`).';
  assert.deepEqual([r.status, r.body], [400, envelope(400, 'ValidationError', message, { errors: [fieldError([], message, null)] })]);
});

test('deleting a draft (status=draft) is refused and deletes nothing (Strapi 5.54: "Cannot delete a draft document", a 500 there)', async () => {
  const a = await demo.fetchJson('POST', '/api/articles', { data: { title: 'keep me', slug: 'keep-me' } }, TOKEN);
  assert.equal(a.status, 201, a.text);
  const id = a.body.data.documentId;
  const r = await demo.fetchJson('DELETE', `/api/articles/${id}?status=draft`, undefined, TOKEN);
  assert.deepEqual([r.status, r.body], [400, envelope(400, 'ValidationError', 'Cannot delete a draft document', {})]);
  assert.equal((await demo.fetchJson('GET', `/api/articles/${id}`)).status, 200);
  assert.equal((await demo.fetchJson('GET', `/api/articles/${id}?status=draft`, undefined, TOKEN)).status, 200);
});
