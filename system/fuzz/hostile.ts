import fc from 'fast-check';
import type { FuzzBody } from './http.ts';

/**
 * Values that have broken web services before, mixed into every place a request has
 * room for text: NUL and other controls, lone surrogates, bidirectional overrides,
 * homoglyphs, very long text, numbers JSON cannot hold, keys that mean something to
 * JavaScript objects.
 */
export const HOSTILE_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'A\u0000B',
  '\ud800',
  'A\udfffB',
  '\udc00\ud800',
  '\u202eRTL\u202c',
  '\u2066isolate\u2069',
  '\ufeffBOM',
  '\u200b',
  'Ａｂｃ',
  'é',
  'e\u0301',
  '💳',
  'د.ج 1500',
  '\r\n',
  '\t',
  '\u0007\u001b[31m',
  '\u007f',
  '\u0085',
  '\u2028\u2029',
  '../../../etc/passwd',
  '..\\..\\windows',
  '%00',
  '%2e%2e%2f',
  '..%2f',
  '%ED%A0%80',
  '%zz',
  '%',
  '{{7*7}}',
  '${jndi:ldap://x}',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "' OR 1=1 --",
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '0x10',
  'true',
  '[]',
  '{}',
  'pk_test_',
  'pk_live_' + 'A'.repeat(43),
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  'a'.repeat(255),
  'a'.repeat(256),
  'é'.repeat(300),
  'x'.repeat(5000),
];

/** Short text of every kind: hostile picks, arbitrary Unicode (surrogates included), ASCII. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 40 }) },
  // fast-check's units never produce a half surrogate pair on its own; these do.
  {
    weight: 1,
    arbitrary: fc.string({
      unit: fc.oneof(
        fc.constantFrom('a', '0', '-', ' '),
        fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)),
      ),
      maxLength: 12,
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...HOSTILE_STRINGS), fc.constantFrom(...HOSTILE_STRINGS))
      .map(([a, b]) => a + b),
  },
);

/** Numbers at the edges of what JSON, JavaScript and Postgres hold. */
export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    0,
    -0,
    1,
    -1,
    0.1,
    0.005,
    1e-7,
    4999,
    5000,
    100_000_000,
    100_000_001,
    1_000_000,
    1_000_000.01,
    2 ** 31,
    -(2 ** 31),
    2 ** 53,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 2,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    1e21,
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Any JSON value, hostile text and numbers inside, a few levels deep. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(hostileString, fc.string({ maxLength: 8 })), tie('value'), {
      maxKeys: 4,
    }),
  ),
})).value;

/**
 * Request bodies no serializer produces: numbers JSON cannot hold as doubles, negative
 * zero, duplicate keys (the last one wins in JSON.parse, the first in some parsers),
 * prototype keys, deep nesting, broken JSON, escaped lone surrogates, NUL bytes, byte
 * sequences that are not UTF-8, and 10 MB.
 */
export const hostileJsonText: fc.Arbitrary<FuzzBody> = fc.oneof(
  fc.constantFrom<FuzzBody>(
    { text: '' },
    { text: ' ' },
    { text: 'null' },
    { text: 'true' },
    { text: '0' },
    { text: '"text"' },
    { text: '[]' },
    { text: '{}' },
    { text: '1e309' },
    { text: '-0' },
    { text: '{"amount":1e309,"currency":"DZD","reference":"R1"}' },
    { text: '{"amount":-0,"currency":"DZD","reference":"R1"}' },
    { text: '{"amount":5000,"amount":"5000","currency":"DZD","reference":"R1"}' },
    { text: '{"token":"A","token":null,"amounts":[1],"singleUse":true}' },
    { text: '{"email":"a@b.dz","email":["x"]}' },
    { text: '{"__proto__":{"isAdmin":true},"amount":5000,"currency":"DZD","reference":"R1"}' },
    { text: '{"constructor":{"prototype":{"polluted":1}},"token":"A"}' },
    { text: '{"amounts":[1e-400, 1e400],"token":"A","singleUse":false}' },
    { text: '{"reference":"\\ud800","amount":5000,"currency":"DZD"}' },
    { text: '{"email":"\\u0000@x.dz"}' },
    { text: '{"token":"\\u202eQR","amounts":[1],"singleUse":false}' },
    { text: '{"a":1' },
    { text: '{"a":1}}' },
    { text: "{'a':1}" },
    { text: '{"a":01}' },
    { text: '{"a":NaN}' },
    { text: '{"a":Infinity}' },
    { text: '{"a":.5}' },
    { text: '\ufeff{"token":"A"}' },
    { text: '{"token":"A"}\u0000' },
    { text: '{"token":"A"} trailing' },
    { bytes: [0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d] },
    { bytes: [0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00] },
    { bytes: [0x7b, 0x22, 0xc0, 0xaf, 0x22, 0x3a, 0x31, 0x7d] },
  ),
  fc
    .integer({ min: 100, max: 40_000 })
    .map((depth) => ({ repeat: '[', times: depth, suffix: ']'.repeat(depth) })),
  fc
    .integer({ min: 100, max: 14_000 })
    .map((depth) => ({ repeat: '{"a":', times: depth, suffix: '1' + '}'.repeat(depth) })),
  fc.constant<FuzzBody>({
    repeat: 'A',
    times: 10 * 1024 * 1024,
    prefix: '{"token":"',
    suffix: '"}',
  }),
  fc.constant<FuzzBody>({ repeat: '[1],', times: 40_000, prefix: '{"amounts":[', suffix: '[1]]}' }),
);

/** Percent-encoded tricks for a path segment: traversal, NUL, broken UTF-8, bad escapes. */
export const PATH_TRICKS: readonly string[] = [
  '%00',
  '%2e%2e%2f',
  '%2e%2e%2F%2e%2e%2fdocs%2fjson',
  '..%2f',
  '..%2F..%2Fdocs',
  '%2e%2e',
  '..',
  '.',
  '%2f',
  '%5c',
  '..%5c',
  '%ED%A0%80',
  '%ED%B0%80',
  '%C0%AF',
  '%E0%80%AF',
  '%FF',
  '%zz',
  '%',
  '%%',
  '%u0000',
  '%252e%252e%252f',
  '%0d%0aSet-Cookie:%20x=1',
  '%E2%80%AE',
  '%EF%BB%BF',
  ';jsessionid=1',
  '?',
  '#',
  '%3F',
  '%23',
  '*',
  '%20',
  '+',
];

/**
 * A string as one path segment. encodeURIComponent throws on a lone surrogate: those
 * go as the bytes a careless encoder writes (CESU-8: %ED%A0%80), which is no UTF-8.
 */
export function encodeSegment(value: string): string {
  let out = '';
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}
