// A write's body as Strapi's body parser (strapi::body, koa-body) reads it, by Content-Type: JSON types
// are JSON, a urlencoded form is qs-parsed (`data[name]=…` is a `data` object), text is a string and a
// multipart form's fields are strings, so neither has a `data` object (Strapi 5.54 takes no multipart
// writes on content routes: its controller answers "Missing data"); no type, no body.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, TOKEN, type TestServer } from './helpers.ts';

let s: TestServer;
before(async () => { s = await startTestServer(); });
after(async () => { await s?.stop(); });

const send = (type: string | null, body: string, path = '/api/tags') =>
  s.fetchJson('POST', path, Buffer.from(body), TOKEN, type === null ? { 'content-type': '' } : { 'content-type': type });
const missingData = (r: { status: number; body: { error?: { name: string; message: string } } }) => {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.deepEqual([r.body.error?.name, r.body.error?.message], ['ValidationError', 'Missing "data" payload in the request body']);
};

test('a urlencoded form writes its data[…] fields', async () => {
  const r = await send('application/x-www-form-urlencoded', 'data%5Bname%5D=Form+tag');
  assert.equal(r.status, 201, r.text);
  assert.equal(r.body.data.name, 'Form tag');
});

test('JSON types are JSON, parameters aside', async () => {
  for (const type of ['application/json; charset=utf-8', 'application/vnd.api+json']) {
    const r = await send(type, JSON.stringify({ data: { name: `json ${type}` } }));
    assert.equal(r.status, 201, r.text);
  }
});

test('a multipart form, text, an unknown or no type: no data object, nothing written', async () => {
  const before = (await s.sql().unsafe('select count(*)::int as n from tags'))[0].n;
  const boundary = 'XyZ';
  const multipart = `--${boundary}\r\nContent-Disposition: form-data; name="data"\r\n\r\n{"name":"multi"}\r\n--${boundary}--\r\n`;
  missingData(await send(`multipart/form-data; boundary=${boundary}`, multipart));
  missingData(await send('text/plain', JSON.stringify({ data: { name: 'text' } })));
  missingData(await send('application/octet-stream', JSON.stringify({ data: { name: 'bytes' } })));
  missingData(await send(null, JSON.stringify({ data: { name: 'untyped' } })));
  assert.equal((await s.sql().unsafe('select count(*)::int as n from tags'))[0].n, before);
});

test('users-permissions routes read forms too: login with a urlencoded body', async () => {
  const reg = await s.fetchJson('POST', '/api/auth/local/register', { username: 'formy', email: 'formy@example.com', password: 'Passw0rd!' });
  assert.equal(reg.status, 200, reg.text);
  const r = await send('application/x-www-form-urlencoded', 'identifier=formy&password=Passw0rd%21', '/api/auth/local');
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.user.username, 'formy');
});

test('JSON is strict, as co-body reads it: an object or an array, and no __proto__ key (a 400 SyntaxError without details)', async () => {
  for (const [text, message] of [
    ['"just a string"', 'invalid JSON, only supports object and array'],
    ['42', 'invalid JSON, only supports object and array'],
    ['{"data":{"name":"p","nested":{"__proto__":{"polluted":true}}}}', 'Object contains forbidden prototype property'],
  ]) {
    const r = await send('application/json', text);
    assert.equal(r.status, 400, r.text);
    assert.deepEqual(r.body, { data: null, error: { status: 400, name: 'SyntaxError', message } });
  }
});

test('a form or a text body over koa-body\'s 56 kb limits is a 413 PayloadTooLargeError, nothing written (JSON takes up to http.maxBodySize)', async () => {
  const bio = (n: number) => 'x'.repeat(n * 1024);
  for (const [type, body] of [['application/x-www-form-urlencoded', `data%5Bname%5D=big&data%5Bbio%5D=${bio(60)}`], ['text/plain', JSON.stringify({ data: { name: 'big', bio: bio(60) } })]]) {
    const r = await send(type, body, '/api/authors');
    assert.equal(r.status, 413, r.text);
    assert.deepEqual([r.body.error?.name, r.body.error?.message], ['PayloadTooLargeError', 'request entity too large']);
  }
  const [n] = await s.sql()`select count(*)::int as n from authors where name = 'big'`;
  assert.equal(n.n, 0);
  // Just under the limit a form still writes; JSON of the larger size too.
  assert.equal((await send('application/x-www-form-urlencoded', `data%5Bname%5D=under&data%5Bbio%5D=${bio(50)}`, '/api/authors')).status, 201);
  assert.equal((await send('application/json', JSON.stringify({ data: { name: 'json', bio: bio(60) } }), '/api/authors')).status, 201);
});
