// strapi.db.connection.raw's bindings as knex reads them (src/project/knex-raw.ts): the statement is the
// project's; only knex's placeholders become PostgreSQL's. Run against PostgreSQL in test/query-engine.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { knexBindings } from '../src/project/knex-raw.ts';

test('positional bindings: ? a value, ?? an identifier, \\? a literal, a list one array value', () => {
  assert.deepEqual(knexBindings('select ?? from ?? where a = ? and b = any(?) and c = \'\\?\'', ['x.y', 'articles', 1, [2, 3]]),
    { text: 'select "x"."y" from "articles" where a = $1 and b = any($2) and c = \'?\'', params: [1, [2, 3]] });
  assert.deepEqual(knexBindings('select ?', 5), { text: 'select $1', params: [5] });
  const d = new Date(0);
  assert.deepEqual(knexBindings('select ?', d), { text: 'select $1', params: [d] });
  assert.deepEqual(knexBindings('select 1', undefined), { text: 'select 1', params: [] });
  assert.deepEqual(knexBindings('select ?? from t', ['we"ird']), { text: 'select "we""ird" from t', params: [] });
});

test('named bindings: :name a value, :name: an identifier, casts and unknown names left alone', () => {
  assert.deepEqual(knexBindings('select :col: from :t: where id = :id and v::text = :id and x = :nope', { col: 'slug', t: 'articles', id: 7 }),
    { text: 'select "slug" from "articles" where id = $1 and v::text = $2 and x = :nope', params: [7, 7] });
  assert.deepEqual(knexBindings('select :a::int', { a: '3' }), { text: 'select $1::int', params: ['3'] });
});

test('what knex refuses is refused', () => {
  assert.throws(() => knexBindings('select ?', [undefined]), /Undefined binding\(s\) detected when compiling RAW query/);
  assert.throws(() => knexBindings('select ?, ?', [1]), /Expected 2 bindings, saw 1/);
  assert.throws(() => knexBindings('select ?', [1, 2]), /Expected 1 bindings, saw 2/);
  assert.throws(() => knexBindings('select ??', [5]), /an identifier binding must be a string/);
});
