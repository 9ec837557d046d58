import { describe, expect, it } from 'vitest';
import { liveReturnUrlProblem } from '../src/domain/live-return-url.ts';
import { parseRegisterPayment } from '../src/domain/payment-request.ts';

describe('liveReturnUrlProblem', () => {
  it.each([
    'https://shop.example.dz/merci?cart=7',
    'https://shop.example/ok#top',
    'https://SHOP.Example.DZ./ok',
    'https://xn--mnchen-3ya.de/ok',
    'https://münchen.de/ok',
    'https://8.8.8.8/ok',
    'https://[2606:4700:4700::1111]/ok',
    'https://shop.example:8443/ok',
    'https://localhost.shop.example/ok',
  ])('lets %s through', (url) => {
    expect(liveReturnUrlProblem(url)).toBeNull();
  });

  it.each([
    ['http://shop.example/ok', 'https'],
    ['HTTP://shop.example/ok', 'https'],
    ['ftp://shop.example/ok', 'https'],
    ['/thanks', 'absolute'],
    ['https://user:pass@shop.example/ok', 'user or password'],
    ['https://user@shop.example/ok', 'user or password'],
    ['https://:pass@shop.example/ok', 'user or password'],
  ])('refuses %s (%s)', (url, words) => {
    expect(liveReturnUrlProblem(url)).toContain(words);
  });

  it.each([
    // The machine itself, however it is written.
    'https://localhost/ok',
    'https://LOCALHOST./ok',
    'https://shop.localhost/ok',
    'https://127.0.0.1/ok',
    'https://127.1.2.3:8443/ok',
    'https://127.0.0.1./ok',
    'https://0x7f.1/ok',
    'https://2130706433/ok',
    'https://0177.0.0.1/ok',
    'https://[::1]/ok',
    'https://[::ffff:127.0.0.1]/ok',
    'https://0.0.0.0/ok',
    'https://[::]/ok',
    // Networks behind it, link-local, cloud metadata, other special-purpose blocks.
    'https://10.1.2.3/ok',
    'https://172.16.0.1/ok',
    'https://192.168.1.10/ok',
    'https://100.64.0.1/ok',
    'https://169.254.169.254/latest',
    'https://192.0.2.1/ok',
    'https://224.0.0.1/ok',
    'https://255.255.255.255/ok',
    'https://[fe80::1]/ok',
    'https://[fd00::1]/ok',
    'https://[64:ff9b::a00:1]/ok',
    'https://[2001:db8::1]/ok',
    // Names that never reach the internet.
    'https://intranet/ok',
    'https://printer.local/ok',
    'https://router.home.arpa/ok',
    'https://api.internal/ok',
  ])('refuses the host of %s', (url) => {
    expect(liveReturnUrlProblem(url)).toContain('public host');
  });
});

describe('parseRegisterPayment', () => {
  const body = (urls: Record<string, unknown>) => ({
    amount: 250_000,
    currency: 'DZD',
    reference: 'ORDER-1',
    ...urls,
  });
  const local = { successUrl: 'http://localhost:3000/ok', failureUrl: 'http://127.0.0.1/ko' };

  it('accepts http and localhost with a test key: developers test on their machines', () => {
    expect(parseRegisterPayment(body(local), 'test').ok).toBe(true);
  });

  it('refuses them with a live key, one failure per URL, named by its field', () => {
    expect(parseRegisterPayment(body(local), 'live')).toEqual({
      ok: false,
      error: [
        { field: 'successUrl', message: 'successUrl must be an https URL with a live key' },
        { field: 'failureUrl', message: 'failureUrl must be an https URL with a live key' },
      ],
    });
  });

  it('accepts https on public hosts, and no URL at all, with a live key', () => {
    const urls = {
      successUrl: 'https://shop.example.dz/ok',
      failureUrl: 'https://shop.example.dz/ko',
    };
    expect(parseRegisterPayment(body(urls), 'live').ok).toBe(true);
    expect(parseRegisterPayment(body({}), 'live').ok).toBe(true);
    expect(parseRegisterPayment(body({ successUrl: null, failureUrl: null }), 'live').ok).toBe(
      true,
    );
  });

  it("lists the live rule's failures with the schema's, without judging a URL twice", () => {
    const parsed = parseRegisterPayment(
      { currency: 'DZD', successUrl: 'ftp://shop.example/ok', failureUrl: 'https://10.0.0.1/ko' },
      'live',
    );
    expect(parsed.ok).toBe(false);
    const fields = parsed.ok ? [] : parsed.error.map((failure) => failure.field);
    expect(fields.sort()).toEqual(['amount', 'failureUrl', 'reference', 'successUrl']);
  });
});
