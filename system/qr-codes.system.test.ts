import { DzpayError } from '@dzpay/client';
import { StandardError } from '@dzpay/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeQrPng, decodeQrSvg } from '../libs/rendering/test/qr-image-decode.ts';
import { startStack, type Stack } from './support/stack.ts';

let stack: Stack;
let alice: Awaited<ReturnType<Stack['merchant']>>;
let bob: Awaited<ReturnType<Stack['merchant']>>;
let tokens: string[];

beforeAll(async () => {
  stack = await startStack('qr-codes', { RATE_LIMIT_PER_MINUTE: '100000' });
  alice = await stack.merchant('Café Alice');
  bob = await stack.merchant('Épicerie Bob');
  tokens = [];
  for (let i = 0; i < 5; i++) tokens.push(await stack.qrCode(alice.id));
  const configured = await stack.post(
    '/set-qr-config',
    {
      token: tokens[1],
      amounts: [500, 2500.5],
      expiresAt: '2099-01-01T00:00:00Z',
      singleUse: true,
    },
    { 'x-api-key': alice.testKey },
  );
  expect(configured.status).toBe(200);
});
afterAll(() => stack?.stop());

const payerUrl = (token: string) => `${stack.gateway.url}/qr/${encodeURIComponent(token)}`;
const image = (token: string, key: string, query = '', headers: Record<string, string> = {}) =>
  stack.get(`/api/v1/qr-codes/${encodeURIComponent(token)}/image${query}`, {
    'x-api-key': key,
    ...headers,
  });
async function errorOf(response: Response) {
  return StandardError.parse(await response.json());
}

describe('GET /api/v1/qr-codes', () => {
  it('lists the merchant’s codes newest first with their configuration in DZD', async () => {
    const page = await stack.client(alice.testKey).listQrCodes();
    expect(page.nextCursor).toBeNull();
    expect(page.qrCodes.map((code) => code.token)).toEqual([...tokens].reverse());
    const configured = page.qrCodes.find((code) => code.token === tokens[1])!;
    expect(configured).toMatchObject({
      payerUrl: payerUrl(tokens[1]!),
      state: 'configured',
      config: {
        amounts: [500, 2500.5],
        expiresAt: '2099-01-01T00:00:00.000Z',
        singleUse: true,
        version: 1,
      },
    });
    expect(page.qrCodes.find((code) => code.token === tokens[0])).toMatchObject({
      state: 'none',
      config: null,
      payerUrl: payerUrl(tokens[0]!),
    });
  });

  it('pages with a stable cursor: every code once', async () => {
    const client = stack.client(alice.testKey);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listQrCodes({ limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...page.qrCodes.map((code) => code.token));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...tokens].reverse());
  });

  it('another merchant and the other mode see none of them', async () => {
    expect((await stack.client(bob.testKey).listQrCodes()).qrCodes).toEqual([]);
    expect((await stack.client(alice.liveKey).listQrCodes()).qrCodes).toEqual([]);
  });

  it('bad parameters are 400 naming the field; no key is 401', async () => {
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=abc', 'limit'],
      ['?cursor=not-ours', 'cursor'],
      ['?colour=red', 'colour'],
    ] as const) {
      const response = await stack.get(`/api/v1/qr-codes${query}`, { 'x-api-key': alice.testKey });
      expect(response.status, query).toBe(400);
      const body = await errorOf(response);
      expect(body.errorCode).toBe('VALIDATION400_BAD_REQUEST');
      expect(body.details).toMatchObject({ failures: [{ field }] });
    }
    expect((await stack.get('/api/v1/qr-codes')).status).toBe(401);
  });
});

describe('GET /api/v1/qr-codes/{token}/image', () => {
  it('SVG by default, encoding the payer’s URL, cacheable for ever', async () => {
    const response = await image(tokens[0]!, alice.testKey);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(response.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    expect(response.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(decodeQrSvg(await response.text())).toBe(payerUrl(tokens[0]!));
  });

  it('PNG by format or by Accept, at the size asked, decoding to the payer’s URL', async () => {
    const byFormat = await image(tokens[2]!, alice.testKey, '?format=png&size=200');
    expect(byFormat.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await byFormat.arrayBuffer());
    expect(png.readUInt32BE(16)).toBe(200);
    expect(decodeQrPng(png)).toBe(payerUrl(tokens[2]!));

    const byAccept = await image(tokens[2]!, alice.testKey, '', { accept: 'image/png' });
    expect(byAccept.headers.get('content-type')).toBe('image/png');
    expect(decodeQrPng(Buffer.from(await byAccept.arrayBuffer()))).toBe(payerUrl(tokens[2]!));

    const client = await stack.client(alice.testKey).qrCodeImage(tokens[2]!, { format: 'png' });
    expect(client.format).toBe('png');
    if (client.format === 'png')
      expect(decodeQrPng(Buffer.from(client.png))).toBe(payerUrl(tokens[2]!));
  });

  it('the same ETag every time; If-None-Match with it is 304 with no body', async () => {
    const first = await image(tokens[3]!, alice.testKey, '?format=png');
    const etag = first.headers.get('etag')!;
    const again = await image(tokens[3]!, alice.testKey, '?format=png');
    expect(again.headers.get('etag')).toBe(etag);
    const cached = await image(tokens[3]!, alice.testKey, '?format=png', { 'if-none-match': etag });
    expect(cached.status).toBe(304);
    expect(await cached.text()).toBe('');
    expect(cached.headers.get('etag')).toBe(etag);
    const svg = await image(tokens[3]!, alice.testKey, '', { 'if-none-match': etag });
    expect(svg.status).toBe(200);
  });

  it('another merchant’s token, the other mode’s, and an unknown one are the same 404', async () => {
    for (const [token, key] of [
      [tokens[0]!, bob.testKey],
      [tokens[0]!, alice.liveKey],
      ['NO-SUCH-CODE', alice.testKey],
      ['\u0000', alice.testKey],
    ] as const) {
      const response = await image(token, key);
      expect(response.status).toBe(404);
      const body = await errorOf(response);
      expect(body).toMatchObject({ errorCode: 'QR_CODE404_NOT_FOUND', details: { token } });
    }
    await expect(stack.client(bob.testKey).qrCodeImage(tokens[0]!)).rejects.toBeInstanceOf(
      DzpayError,
    );
  });

  it('bad format or size is 400 naming the field', async () => {
    for (const [query, field] of [
      ['?format=gif', 'format'],
      ['?format=png&size=127', 'size'],
      ['?format=png&size=1025', 'size'],
      ['?size=1.5', 'size'],
    ] as const) {
      const response = await image(tokens[0]!, alice.testKey, query);
      expect(response.status, query).toBe(400);
      expect((await errorOf(response)).details).toMatchObject({ failures: [{ field }] });
    }
  });
});
