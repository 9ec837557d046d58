import { describe, expect, it } from 'vitest';
import { apiUrlProblem, partnerUrl } from '../../src/partner/partner-url.ts';

describe('joining a path to a partner API_URL', () => {
  it.each([
    ['https://p.example/api', ['BOOK-1'], 'https://p.example/api/BOOK-1'],
    ['https://p.example/api/', ['BOOK-1'], 'https://p.example/api/BOOK-1'],
    ['https://p.example/api///', ['BOOK-1'], 'https://p.example/api/BOOK-1'],
    ['https://p.example', ['BOOK-1'], 'https://p.example/BOOK-1'],
    [
      'http://127.0.0.1:8080/products',
      ['webhooks', 'platform'],
      'http://127.0.0.1:8080/products/webhooks/platform',
    ],
    // A query stays a query: it never swallows the path appended after it.
    [
      'https://p.example/api?tenant=7',
      ['webhooks', 'platform'],
      'https://p.example/api/webhooks/platform?tenant=7',
    ],
    ['https://p.example/api?', ['webhooks', 'platform'], 'https://p.example/api/webhooks/platform'],
    // A fragment is never sent, and never cuts the path off either.
    [
      'https://p.example/api#frag',
      ['webhooks', 'platform'],
      'https://p.example/api/webhooks/platform',
    ],
    ['https://p.example/api?a=1#frag', ['BOOK-1'], 'https://p.example/api/BOOK-1?a=1'],
  ])('%s + %j is %s', (apiUrl, segments, expected) => {
    expect(partnerUrl(apiUrl, ...segments).href).toBe(expected);
  });

  it.each([
    ['a/b', '/api/a%2Fb'],
    ['a?b=1', '/api/a%3Fb%3D1'],
    ['a#b', '/api/a%23b'],
    ['100%', '/api/100%25'],
    ['%2e%2e', '/api/%252e%252e'],
    ['..%2f..%2fadmin', '/api/..%252f..%252fadmin'],
    ['...', '/api/...'],
    ['livre été', '/api/livre%20%C3%A9t%C3%A9'],
    ['a\\b', '/api/a%5Cb'],
  ])('keeps the reference %j one segment under API_URL: %s', (reference, pathname) => {
    const url = partnerUrl('https://p.example/api?k=v', reference);
    expect(url.pathname).toBe(pathname);
    expect(url.search).toBe('?k=v');
    expect(url.host).toBe('p.example');
  });

  it.each(['.', '..', ''])('refuses the segment %j, which a URL would resolve', (segment) => {
    expect(() => partnerUrl('https://p.example/api', segment)).toThrow(RangeError);
  });

  it.each(['ftp://p.example/api', 'file:///etc/passwd', 'javascript:alert(1)'])(
    'refuses an API_URL that is not http(s): %s',
    (apiUrl) => {
      expect(() => partnerUrl(apiUrl, 'x')).toThrow(TypeError);
    },
  );
});

describe('checking an API_URL before it is stored', () => {
  it.each(['https://p.example/api', 'http://127.0.0.1:8080/products', 'https://p.example'])(
    'accepts %s',
    (apiUrl) => {
      expect(apiUrlProblem(apiUrl)).toBeNull();
    },
  );

  it.each([
    ['p.example/api', 'must be an absolute URL'],
    ['ftp://p.example/api', 'must be an http(s) URL'],
    ['https://user:pass@p.example/api', 'must not carry a user or password'],
    ['https://p.example/api?tenant=7', 'must not have a query (?...)'],
    ['https://p.example/api?', 'must not have a query (?...)'],
    ['https://p.example/api#top', 'must not have a fragment (#...)'],
    ['https://p.example/api#', 'must not have a fragment (#...)'],
  ])('refuses %s: %s', (apiUrl, problem) => {
    expect(apiUrlProblem(apiUrl)).toBe(problem);
  });
});
