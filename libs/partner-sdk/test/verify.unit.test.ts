import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook, type VerifyWebhookResult } from '../src/index.ts';
import { dzpayHeaders, standardHeaders, successEvent, unixNow, xHeaders } from './events.ts';

const secret = 'whsk-partner-current';
const now = new Date('2025-03-14T09:30:00.000Z');
const rawBody = JSON.stringify(successEvent({ id: 'evt-42' }));

function reasonOf(result: VerifyWebhookResult) {
  return result.ok ? 'ok' : result.reason;
}

describe('verifyWebhook with X-Signature and X-Timestamp', () => {
  it('accepts a signature the SDK makes and returns the typed event', () => {
    const result = verifyWebhook({
      rawBody,
      headers: xHeaders(rawBody, secret, unixNow(now)),
      signingSecret: secret,
      now,
    });
    expect(result).toMatchObject({ ok: true, event: { id: 'evt-42', type: 'payment.success' } });
    if (result.ok && result.event.type !== 'webhook.test')
      expect(result.event.data.amount).toBe(1500.5);
  });

  it('accepts a signed test event, typed as one', () => {
    const testBody = JSON.stringify({
      id: 'evt-test',
      type: 'webhook.test',
      createdAt: '2025-03-14T09:26:53.000Z',
      data: { message: 'a test' },
    });
    const result = verifyWebhook({
      rawBody: testBody,
      headers: xHeaders(testBody, secret, unixNow(now)),
      signingSecret: secret,
      now,
    });
    expect(result).toMatchObject({ ok: true, event: { id: 'evt-test', type: 'webhook.test' } });
  });

  it('accepts the raw body as a Buffer, and header names in any case', () => {
    const { 'x-timestamp': timestamp, 'x-signature': signature } = xHeaders(
      rawBody,
      secret,
      unixNow(now),
    );
    const result = verifyWebhook({
      rawBody: Buffer.from(rawBody),
      headers: { 'X-Timestamp': timestamp, 'X-Signature': signature.toUpperCase() },
      signingSecret: secret,
      now,
    });
    expect(result.ok).toBe(true);
  });

  it('accepts a fetch Headers object, as web-standard servers give it', () => {
    const headers = new Headers(xHeaders(rawBody, secret, unixNow(now)));
    expect(reasonOf(verifyWebhook({ rawBody, headers, signingSecret: secret, now }))).toBe('ok');
    headers.append('x-timestamp', String(unixNow(now)));
    expect(reasonOf(verifyWebhook({ rawBody, headers, signingSecret: secret, now }))).toBe(
      'missing_headers',
    );
  });

  it('rejects a tampered body', () => {
    const tampered = rawBody.replace('1500.5', '15.5');
    const result = verifyWebhook({
      rawBody: tampered,
      headers: xHeaders(rawBody, secret, unixNow(now)),
      signingSecret: secret,
      now,
    });
    expect(reasonOf(result)).toBe('bad_signature');
  });

  it('rejects a signature made with another secret', () => {
    const result = verifyWebhook({
      rawBody,
      headers: xHeaders(rawBody, 'someone-else', unixNow(now)),
      signingSecret: secret,
      now,
    });
    expect(reasonOf(result)).toBe('bad_signature');
  });

  it('rejects a signed timestamp changed after signing', () => {
    const headers = xHeaders(rawBody, secret, unixNow(now));
    headers['x-timestamp'] = String(unixNow(now) + 1);
    expect(reasonOf(verifyWebhook({ rawBody, headers, signingSecret: secret, now }))).toBe(
      'bad_signature',
    );
  });

  it('accepts a timestamp 300 s old and rejects one 301 s old', () => {
    const at = (age: number) =>
      verifyWebhook({
        rawBody,
        headers: xHeaders(rawBody, secret, unixNow(now) - age),
        signingSecret: secret,
        now,
      });
    expect(reasonOf(at(300))).toBe('ok');
    expect(reasonOf(at(301))).toBe('stale_timestamp');
  });

  it('rejects a timestamp from beyond the tolerance in the future', () => {
    const result = verifyWebhook({
      rawBody,
      headers: xHeaders(rawBody, secret, unixNow(now) + 301),
      signingSecret: secret,
      now,
    });
    expect(reasonOf(result)).toBe('stale_timestamp');
  });

  it('honours a custom tolerance', () => {
    const result = verifyWebhook({
      rawBody,
      headers: xHeaders(rawBody, secret, unixNow(now) - 61),
      signingSecret: secret,
      toleranceSeconds: 60,
      now,
    });
    expect(reasonOf(result)).toBe('stale_timestamp');
  });

  it('accepts either secret while a secret is rotated', () => {
    const secrets = ['whsk-partner-next', secret];
    for (const signer of secrets) {
      const result = verifyWebhook({
        rawBody,
        headers: xHeaders(rawBody, signer, unixNow(now)),
        signingSecrets: secrets,
        now,
      });
      expect(reasonOf(result)).toBe('ok');
    }
    const retired = verifyWebhook({
      rawBody,
      headers: xHeaders(rawBody, 'whsk-partner-retired', unixNow(now)),
      signingSecrets: secrets,
      now,
    });
    expect(reasonOf(retired)).toBe('bad_signature');
  });
});

describe('verifyWebhook checks the raw bytes', () => {
  it('rejects the same JSON with other whitespace: the signature covers bytes, not values', () => {
    const pretty = JSON.stringify(JSON.parse(rawBody), null, 2);
    expect(signWebhook(pretty, 1, secret)).not.toBe(signWebhook(rawBody, 1, secret));
    const result = verifyWebhook({
      rawBody: pretty,
      headers: xHeaders(rawBody, secret, unixNow(now)),
      signingSecret: secret,
      now,
    });
    expect(reasonOf(result)).toBe('bad_signature');
  });

  it('rejects a body with a trailing newline added', () => {
    const result = verifyWebhook({
      rawBody: `${rawBody}\n`,
      headers: xHeaders(rawBody, secret, unixNow(now)),
      signingSecret: secret,
      now,
    });
    expect(reasonOf(result)).toBe('bad_signature');
  });

  it('verifies non-ASCII bodies byte for byte, as a string or as its UTF-8 bytes', () => {
    const body = JSON.stringify(successEvent({ reference: 'Livre « Nedjma » — نجمة' }));
    const headers = xHeaders(body, secret, unixNow(now));
    for (const form of [body, Buffer.from(body, 'utf8')]) {
      expect(reasonOf(verifyWebhook({ rawBody: form, headers, signingSecret: secret, now }))).toBe(
        'ok',
      );
    }
    const latin1 = Buffer.from(body, 'latin1');
    expect(reasonOf(verifyWebhook({ rawBody: latin1, headers, signingSecret: secret, now }))).toBe(
      'bad_signature',
    );
  });
});

describe('verifyWebhook with the Standard Webhooks headers', () => {
  it('accepts webhook-id, webhook-timestamp and a v1 webhook-signature', () => {
    const result = verifyWebhook({
      rawBody,
      headers: standardHeaders(rawBody, [secret], unixNow(now)),
      signingSecret: secret,
      now,
    });
    expect(reasonOf(result)).toBe('ok');
  });

  it('accepts any of several space-separated signatures during a rotation', () => {
    const headers = standardHeaders(rawBody, ['whsk-old', 'whsk-new'], unixNow(now));
    for (const mine of ['whsk-old', 'whsk-new']) {
      expect(reasonOf(verifyWebhook({ rawBody, headers, signingSecret: mine, now }))).toBe('ok');
    }
    expect(reasonOf(verifyWebhook({ rawBody, headers, signingSecret: secret, now }))).toBe(
      'bad_signature',
    );
  });

  it('skips entries of other versions and rejects a tampered webhook-id', () => {
    const headers = standardHeaders(rawBody, [secret], unixNow(now));
    const v1 = headers['webhook-signature'];
    headers['webhook-signature'] = `v1a,${'A'.repeat(86)}== ${v1.replace('v1,', 'v2,')}`;
    expect(reasonOf(verifyWebhook({ rawBody, headers, signingSecret: secret, now }))).toBe(
      'bad_signature',
    );
    const tampered = { ...standardHeaders(rawBody, [secret], unixNow(now)), 'webhook-id': 'evt-2' };
    expect(
      reasonOf(verifyWebhook({ rawBody, headers: tampered, signingSecret: secret, now })),
    ).toBe('bad_signature');
  });

  it('rejects a stale webhook-timestamp', () => {
    const result = verifyWebhook({
      rawBody,
      headers: standardHeaders(rawBody, [secret], unixNow(now) - 301),
      signingSecret: secret,
      now,
    });
    expect(reasonOf(result)).toBe('stale_timestamp');
  });

  it('passes when X-Signature is signed with a secret the partner no longer holds but webhook-signature also carries its own', () => {
    // Rotation: dzpay signs X-Signature with the new secret and lists both in webhook-signature.
    const headers = {
      ...xHeaders(rawBody, 'whsk-new', unixNow(now)),
      ...standardHeaders(rawBody, ['whsk-old', 'whsk-new'], unixNow(now)),
    };
    expect(reasonOf(verifyWebhook({ rawBody, headers, signingSecret: 'whsk-old', now }))).toBe(
      'ok',
    );
  });

  it('accepts everything dzpay sends at once', () => {
    const result = verifyWebhook({
      rawBody,
      headers: dzpayHeaders(rawBody, secret, unixNow(now)),
      signingSecret: secret,
      now,
    });
    expect(reasonOf(result)).toBe('ok');
  });
});

describe('verifyWebhook on bad input', () => {
  const cases: [string, Record<string, string | string[] | undefined>, string][] = [
    ['no headers at all', {}, 'missing_headers'],
    ['a signature without a timestamp', { 'x-signature': 'ab'.repeat(32) }, 'missing_headers'],
    ['an empty signature', { 'x-signature': '', 'x-timestamp': '1' }, 'missing_headers'],
    [
      'a timestamp sent twice',
      { 'x-signature': 'ab'.repeat(32), 'x-timestamp': ['1', '2'] },
      'missing_headers',
    ],
    [
      'a timestamp that is not unix seconds',
      { 'x-signature': 'ab'.repeat(32), 'x-timestamp': '2025-03-14T09:30:00Z' },
      'missing_headers',
    ],
    [
      'a signature that is not hex',
      { 'x-signature': 'zz', 'x-timestamp': '1741944600' },
      'bad_signature',
    ],
    [
      'a Standard Webhooks signature that is not base64',
      { 'webhook-id': 'e', 'webhook-timestamp': '1741944600', 'webhook-signature': 'v1,%%%' },
      'bad_signature',
    ],
  ];
  for (const [name, headers, reason] of cases) {
    it(`answers ${reason} for ${name}, without throwing`, () => {
      expect(reasonOf(verifyWebhook({ rawBody, headers, signingSecret: secret, now }))).toBe(
        reason,
      );
    });
  }

  it('reports a correctly signed body that is not JSON, or not an event, as malformed', () => {
    for (const body of ['not json', '{"id":"e","type":"payment.refund"}', '\u00ff']) {
      const result = verifyWebhook({
        rawBody: body,
        headers: xHeaders(body, secret, unixNow(now)),
        signingSecret: secret,
        now,
      });
      expect(reasonOf(result)).toBe('malformed_body');
    }
    const invalidUtf8 = Buffer.from([0x7b, 0xff, 0x7d]);
    const headers = {
      'x-timestamp': String(unixNow(now)),
      'x-signature': signWebhook(invalidUtf8, unixNow(now), secret),
    };
    expect(
      reasonOf(verifyWebhook({ rawBody: invalidUtf8, headers, signingSecret: secret, now })),
    ).toBe('malformed_body');
  });

  it('parses a payment.fail with its failure reason and keeps unknown fields out', () => {
    const event = successEvent();
    const body = JSON.stringify({
      ...event,
      type: 'payment.fail',
      futureField: 1,
      data: { ...event.data, status: 'failed', paidAt: null, failureReason: 'declined' },
    });
    const result = verifyWebhook({
      rawBody: body,
      headers: xHeaders(body, secret, unixNow(now)),
      signingSecret: secret,
      now,
    });
    expect(result.ok && result.event).toMatchObject({
      type: 'payment.fail',
      data: { failureReason: 'declined', paidAt: null },
    });
    expect(result.ok && 'futureField' in result.event).toBe(false);
  });

  it('refuses to run without a secret: an empty key would let anyone sign', () => {
    expect(() => verifyWebhook({ rawBody, headers: {}, signingSecret: '' })).toThrow(TypeError);
    expect(() => verifyWebhook({ rawBody, headers: {}, signingSecrets: [] })).toThrow(TypeError);
  });

  it('refuses a whsec_ secret too short to be a key (a truncated copy decodes to almost nothing)', () => {
    const real = `whsec_${randomBytes(32).toString('base64')}`;
    for (const secret of ['whsec_', 'whsec_=', 'whsec_A', 'whsec_!!!!', real.slice(0, 20)]) {
      expect(() => verifyWebhook({ rawBody, headers: {}, signingSecret: secret })).toThrow(
        /at least 16 bytes/,
      );
      expect(() => verifyWebhook({ rawBody, headers: {}, signingSecrets: [real, secret] })).toThrow(
        TypeError,
      );
    }
    expect(() => verifyWebhook({ rawBody, headers: {}, signingSecret: real })).not.toThrow();
  });
});
