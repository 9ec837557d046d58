import { describe, expect, it } from 'vitest';
import { withReference } from '../src/checkout/return-url.ts';

describe('withReference', () => {
  it('adds the reference as the only parameter of a URL without a query', () => {
    expect(withReference('https://shop.example/ok', 'R-1')).toBe(
      'https://shop.example/ok?reference=R-1',
    );
  });

  it("keeps the URL's own query exactly as written", () => {
    expect(withReference('https://shop.example/ok?flag&q=a%20b&t=~', 'R-1')).toBe(
      'https://shop.example/ok?flag&q=a%20b&t=~&reference=R-1',
    );
  });

  it('puts the parameter before a fragment and encodes the reference', () => {
    expect(withReference('https://shop.example/ok?cart=7#top', 'A&B =é')).toBe(
      'https://shop.example/ok?cart=7&reference=A%26B%20%3D%C3%A9#top',
    );
  });

  it('does not double a trailing separator', () => {
    expect(withReference('https://shop.example/ok?', 'R')).toBe(
      'https://shop.example/ok?reference=R',
    );
    expect(withReference('https://shop.example/ok?a=1&', 'R')).toBe(
      'https://shop.example/ok?a=1&reference=R',
    );
  });
});
