// Expected values below are what qs 6.15.3 (the version @strapi/core pins)
// returns for qs.parse(raw, { depth: 20, arrayLimit: 100, strictDepth: true }),
// except where a test says it departs on purpose.
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_QS_LIMITS,
  parseQueryString,
  QueryStringError,
  type QueryStringLimits,
  type QueryValue,
} from '../compiler/querystring.ts';

const parse = parseQueryString;

function throwsLimit(raw: string, message: string, limits?: QueryStringLimits): void {
  assert.throws(
    () => parse(raw, limits),
    (error: unknown) => error instanceof QueryStringError && error.message === message,
  );
}

describe('keys and decoding', () => {
  test('raw bracket keys nest', () => {
    assert.deepEqual(parse('filters[title][$eq]=x'), { filters: { title: { $eq: 'x' } } });
  });

  test('URL-encoded brackets nest the same, in either case', () => {
    assert.deepEqual(parse('filters%5Btitle%5D%5B%24eq%5D=x'), { filters: { title: { $eq: 'x' } } });
    assert.deepEqual(parse('a%5bb%5d=1'), { a: { b: '1' } });
  });

  test('a Strapi client query, fully encoded (qs.stringify default)', () => {
    const raw =
      'filters%5Btitle%5D%5B%24eq%5D=hello%20world&filters%5B%24or%5D%5B0%5D%5Bviews%5D%5B%24gt%5D=10' +
      '&filters%5B%24or%5D%5B1%5D%5Bslug%5D%5B%24in%5D%5B0%5D=a%26b&filters%5B%24or%5D%5B1%5D%5Bslug%5D%5B%24in%5D%5B1%5D=c%3Dd' +
      '&populate%5B0%5D=seo&populate%5B1%5D=seo.shareImage&sort%5B0%5D=title%3Aasc' +
      '&pagination%5Bpage%5D=1&pagination%5BpageSize%5D=10&locale=en';
    assert.deepEqual(parse(raw), {
      filters: {
        title: { $eq: 'hello world' },
        $or: [{ views: { $gt: '10' } }, { slug: { $in: ['a&b', 'c=d'] } }],
      },
      populate: ['seo', 'seo.shareImage'],
      sort: ['title:asc'],
      pagination: { page: '1', pageSize: '10' },
      locale: 'en',
    });
  });

  test('the same query with encodeValuesOnly', () => {
    const raw =
      'filters[title][$eq]=hello%20world&filters[$or][0][views][$gt]=10&filters[$or][1][slug][$in][0]=a%26b' +
      '&filters[$or][1][slug][$in][1]=c%3Dd&populate[0]=seo&populate[1]=seo.shareImage&sort[0]=title%3Aasc' +
      '&pagination[page]=1&pagination[pageSize]=10&locale=en';
    assert.deepEqual(parse(raw), {
      filters: {
        title: { $eq: 'hello world' },
        $or: [{ views: { $gt: '10' } }, { slug: { $in: ['a&b', 'c=d'] } }],
      },
      populate: ['seo', 'seo.shareImage'],
      sort: ['title:asc'],
      pagination: { page: '1', pageSize: '10' },
      locale: 'en',
    });
  });

  test('+ is a space, %2B a plus, in keys and values', () => {
    assert.deepEqual(parse('a+b=c+d&e=%2B'), { 'a b': 'c d', e: '+' });
  });

  test('UTF-8 escapes decode', () => {
    assert.deepEqual(parse('a=%C3%A9&b=%E2%82%AC'), { a: 'é', b: '€' });
  });

  test('malformed escapes keep the whole string literally and never throw', () => {
    assert.deepEqual(parse('a=%ZZ'), { a: '%ZZ' });
    assert.deepEqual(parse('a=100%'), { a: '100%' });
    assert.deepEqual(parse('a=%E2%82'), { a: '%E2%82' });
    assert.deepEqual(parse('a%ZZ=1'), { 'a%ZZ': '1' });
    assert.deepEqual(parse('q=50%+off'), { q: '50% off' });
    // qs turns %5B/%5D into brackets before decoding, and keeps that on failure.
    assert.deepEqual(parse('a=%5Bx%ZZ'), { a: '[x%ZZ' });
    assert.deepEqual(parse('a%5Bb%5D%ZZ=1'), { a: { b: '1' } });
  });

  test('the key ends at the first "]=", otherwise at the first "="', () => {
    assert.deepEqual(parse('a=b=c'), { a: 'b=c' });
    assert.deepEqual(parse('a[b=c]=d'), { a: { 'b=c': 'd' } });
  });

  test('brackets balance, text between groups is ignored, unterminated groups stay literal', () => {
    assert.deepEqual(parse('a[b[c]]=d'), { a: { 'b[c]': 'd' } });
    assert.deepEqual(parse('a[b]c[d]=e'), { a: { b: { d: 'e' } } });
    assert.deepEqual(parse('a[b=c'), { a: { '[b': 'c' } });
  });

  test('dots are not separators', () => {
    assert.deepEqual(parse('populate=seo.shareImage'), { populate: 'seo.shareImage' });
    assert.deepEqual(parse('fields[0]=a.b'), { fields: ['a.b'] });
    assert.deepEqual(parse('a.b=c'), { 'a.b': 'c' });
  });
});

describe('empty keys and values', () => {
  test('empty input', () => {
    assert.deepEqual(parse(''), {});
  });

  test('a= and a bare key both give an empty string', () => {
    // Strapi itself passes strictNullHandling: true and would give null for `a`.
    assert.deepEqual(parse('a&b='), { a: '', b: '' });
  });

  test('empty keys and empty parts are ignored', () => {
    assert.deepEqual(parse('=x'), {});
    assert.deepEqual(parse('='), {});
    assert.deepEqual(parse('&&'), {});
    assert.deepEqual(parse('a=1&&=2&'), { a: '1' });
  });
});

describe('arrays', () => {
  test('indices', () => {
    assert.deepEqual(parse('a[0]=x&a[1]=y'), { a: ['x', 'y'] });
  });

  test('indices are placed by index, not by arrival', () => {
    assert.deepEqual(parse('a[1]=y&a[0]=x'), { a: ['x', 'y'] });
  });

  test('brackets', () => {
    assert.deepEqual(parse('a[]=x&a[]=y'), { a: ['x', 'y'] });
    assert.deepEqual(parse('a[]=x&a[0]=y'), { a: ['x', 'y'] });
    assert.deepEqual(parse('a[0]=x&a[]=y'), { a: ['x', 'y'] });
  });

  test('a Strapi query with arrayFormat brackets', () => {
    const raw =
      'filters[title][$eq]=hello%20world&filters[$or][][views][$gt]=10&filters[$or][][slug][$in][]=a%26b' +
      '&filters[$or][][slug][$in][]=c%3Dd&populate[]=seo&populate[]=seo.shareImage&sort[]=title%3Aasc' +
      '&pagination[page]=1&pagination[pageSize]=10&locale=en';
    assert.deepEqual(parse(raw), {
      filters: {
        title: { $eq: 'hello world' },
        // qs merges every `[]` object into the first element.
        $or: [{ views: { $gt: '10' }, slug: { $in: ['a&b', 'c=d'] } }],
      },
      populate: ['seo', 'seo.shareImage'],
      sort: ['title:asc'],
      pagination: { page: '1', pageSize: '10' },
      locale: 'en',
    });
  });

  test('repeated plain keys', () => {
    assert.deepEqual(parse('a=x&a=y'), { a: ['x', 'y'] });
  });

  test('repeating the same indexed key nests an array', () => {
    assert.deepEqual(parse('a[0]=x&a[0]=y'), { a: [['x', 'y']] });
  });

  test('gaps are compacted in index order', () => {
    assert.deepEqual(parse('a[1]=b&a[3]=c'), { a: ['b', 'c'] });
    assert.deepEqual(parse('a[3]=c&a[1]=b'), { a: ['b', 'c'] });
    assert.deepEqual(parse('a[0][b]=1&a[5][b]=2'), { a: [{ b: '1' }, { b: '2' }] });
  });

  test('objects inside arrays merge by index', () => {
    assert.deepEqual(parse('a[0][b]=1&a[1][b]=2&a[0][c]=3'), { a: [{ b: '1', c: '3' }, { b: '2' }] });
  });

  test('only canonical decimal indices make arrays', () => {
    assert.deepEqual(parse('a[01]=x&a[-1]=y&a[1e2]=z&a[ 1]=w'), {
      a: { '01': 'x', '-1': 'y', '1e2': 'z', ' 1': 'w' },
    });
  });

  test('an index at or above arrayLimit (100) makes that level an object', () => {
    assert.deepEqual(parse('a[99]=x'), { a: ['x'] });
    assert.deepEqual(parse('a[101]=x'), { a: { '101': 'x' } });
    // qs before 6.14.1 still made an array for index == arrayLimit.
    assert.deepEqual(parse('a[100]=x'), { a: { '100': 'x' } });
    assert.deepEqual(parse('a[0]=x&a[150]=y'), { a: { '0': 'x', '150': 'y' } });
  });

  test('the object that replaced an array keeps taking appended scalars', () => {
    assert.deepEqual(parse('a[150]=x&a=y'), { a: { '150': 'x', '151': 'y' } });
    // Array-shaped sources merge by key instead.
    assert.deepEqual(parse('a[150]=x&a[]=y'), { a: { '0': 'y', '150': 'x' } });
    assert.deepEqual(parse('a[150]=x&a=y&a=z'), { a: { '0': 'y', '1': 'z', '150': 'x' } });
  });

  test('more than arrayLimit repeated values become an object', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => `a=${i}`).join('&');
    const expectedArray = Array.from({ length: 100 }, (_, i) => String(i));
    assert.deepEqual(parse(hundred), { a: expectedArray });

    const expectedObject: { [key: string]: QueryValue } = {};
    for (let i = 0; i <= 100; i++) expectedObject[i] = String(i);
    assert.deepEqual(parse(`${hundred}&a=100`), { a: expectedObject });
  });

  test('an array meeting object keys becomes an object', () => {
    assert.deepEqual(parse('a[0]=x&a[b]=y'), { a: { '0': 'x', b: 'y' } });
    assert.deepEqual(parse('a[b]=y&a[0]=x'), { a: { '0': 'x', b: 'y' } });
  });

  test('a scalar meeting a structure becomes a pair (qs strictMerge)', () => {
    assert.deepEqual(parse('a=x&a[b]=y'), { a: ['x', { b: 'y' }] });
    assert.deepEqual(parse('a[b]=y&a=x'), { a: [{ b: 'y' }, 'x'] });
  });

  test('conflicts resolve in qs order: array-index keys are merged first', () => {
    assert.deepEqual(parse('5[a]=x&5=y'), { '5': ['y', { a: 'x' }] });
  });

  test('a leading bracket group has no parent key', () => {
    assert.deepEqual(parse('[0]=x&[a]=y'), { '0': 'x', a: 'y' });
  });
});

describe('limits', () => {
  const twenty = 'a[b][c][d][e][f][g][h][i][j][k][l][m][n][o][p][q][r][s][t][u]';

  test('20 bracket levels are allowed', () => {
    let expected: QueryValue = 'x';
    for (const name of 'utsrqponmlkjihgfedcb') expected = { [name]: expected };
    assert.deepEqual(parse(`${twenty}=x`), { a: expected });
  });

  test('a 21st level throws', () => {
    throwsLimit(`${twenty}[v]=x`, 'Input depth exceeded depth option of 20 and strictDepth is true');
    throwsLimit(`ok=1&${twenty}[]=x`, 'Input depth exceeded depth option of 20 and strictDepth is true');
  });

  test('the depth error carries which limit was hit', () => {
    assert.throws(
      () => parse(`${twenty}[v]=x`),
      (error: unknown) => error instanceof QueryStringError && error.limit === 'depth' && error instanceof Error,
    );
  });

  test('custom depth', () => {
    const limits = { ...DEFAULT_QS_LIMITS, depth: 2 };
    assert.deepEqual(parse('a[b][c]=x', limits), { a: { b: { c: 'x' } } });
    throwsLimit('a[b][c][d]=x', 'Input depth exceeded depth option of 2 and strictDepth is true', limits);
  });

  test('1000 parameters are allowed, 1001 throw', () => {
    const thousand = Array.from({ length: 1000 }, (_, i) => `k${i}=${i}`).join('&');
    assert.equal(Object.keys(parse(thousand)).length, 1000);
    throwsLimit(`${thousand}&x=1`, 'Parameter limit exceeded. Only 1000 parameters allowed.');
  });

  test('the parameter error carries which limit was hit', () => {
    assert.throws(
      () => parse('a&b&c', { ...DEFAULT_QS_LIMITS, parameterLimit: 2 }),
      (error: unknown) => error instanceof QueryStringError && error.limit === 'parameterLimit',
    );
  });

  test('empty parts count as parameters, as in qs', () => {
    const limits = { ...DEFAULT_QS_LIMITS, parameterLimit: 2 };
    assert.deepEqual(parse('a=1&b=2', limits), { a: '1', b: '2' });
    throwsLimit('a=1&b=2&', 'Parameter limit exceeded. Only 2 parameters allowed.', limits);
    throwsLimit('&&', 'Parameter limit exceeded. Only 2 parameters allowed.', limits);
    throwsLimit('a&', 'Parameter limit exceeded. Only 1 parameter allowed.', { ...DEFAULT_QS_LIMITS, parameterLimit: 1 });
  });

  test('custom arrayLimit', () => {
    const limits = { ...DEFAULT_QS_LIMITS, arrayLimit: 2 };
    assert.deepEqual(parse('a[1]=x', limits), { a: ['x'] });
    assert.deepEqual(parse('a[2]=x', limits), { a: { '2': 'x' } });
    assert.deepEqual(parse('a=1&a=2&a=3', limits), { a: { '0': '1', '1': '2', '2': '3' } });
  });
});

describe('prototype safety', () => {
  const attacks = [
    '__proto__[polluted]=1',
    '__proto__=1',
    'a[__proto__][polluted]=1',
    'constructor[prototype][polluted]=1',
    'a[constructor][prototype][polluted]=1',
    '%5F%5Fproto%5F%5F[polluted]=1',
    'a[toString]=1',
    'hasOwnProperty=1',
    'a[b][valueOf]=1',
  ];

  for (const raw of attacks) {
    test(`drops ${raw}`, () => {
      const result = parse(`${raw}&keep=1`);
      assert.deepEqual(result, { keep: '1' });
      assert.equal(Object.getPrototypeOf(result), Object.prototype);
      assert.equal(({} as { polluted?: unknown }).polluted, undefined);
      assert.equal(typeof result.hasOwnProperty, 'function');
    });
  }

  test('a dropped segment drops the whole parameter, even past the depth limit', () => {
    assert.deepEqual(parse('a[constructor][b][c][d][e][f][g][h][i][j][k][l][m][n][o][p][q][r][s][t][u][v]=x'), {});
  });

  test('prototype is an ordinary key on plain objects, as in qs', () => {
    const result = parse('prototype=p&a[prototype][b]=c');
    assert.deepEqual(result, { prototype: 'p', a: { prototype: { b: 'c' } } });
    assert.equal(Object.getPrototypeOf(result.a), Object.prototype);
  });

  test('result objects and arrays have the ordinary prototypes', () => {
    const result = parse('a[b]=1&c[0]=2');
    assert.equal(Object.getPrototypeOf(result.a), Object.prototype);
    assert.ok(Array.isArray(result.c));
  });
});

// Differential check against a real qs, only if one was installed outside the
// project (e.g. `npm install --no-save qs@6.15.3` in /tmp/qsref); the project
// itself does not depend on qs.
type QsParse = (raw: string, options: object) => unknown;

function loadReferenceQs(): QsParse | undefined {
  const dir = process.env.QS_REFERENCE_DIR ?? '/tmp/qsref';
  try {
    const qs = createRequire(`${dir}/`)('qs') as { parse?: unknown };
    return typeof qs.parse === 'function' ? (qs.parse as QsParse) : undefined;
  } catch {
    return undefined;
  }
}

const referenceParse = loadReferenceQs();

test('matches qs on random inputs', { skip: referenceParse === undefined && 'no reference qs installed' }, () => {
  assert.ok(referenceParse);
  const options = { depth: 20, arrayLimit: 100, parameterLimit: 1000, strictDepth: true };
  const tokens = [
    '[', ']', '[]', '%5B', '%5d', '=', '&', '+', '%', '%2', '%25', 'a', 'b', '0', '1', '3', '99', '100', '101',
    '.', '%E2', '%82', '%AC', '__proto__', 'constructor', 'prototype', '$eq', '%3D', '%26',
  ];
  let seed = 12345;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const outcome = (run: () => unknown): unknown => {
    try {
      return run();
    } catch (error) {
      return `throws: ${(error as Error).message}`;
    }
  };
  for (let round = 0; round < 3000; round++) {
    let raw = '';
    const length = Math.floor(random() * 30);
    for (let i = 0; i < length; i++) raw += tokens[Math.floor(random() * tokens.length)];
    assert.deepEqual(
      outcome(() => parse(raw)),
      outcome(() => referenceParse(raw, options)),
      `input ${JSON.stringify(raw)}`,
    );
  }
});
