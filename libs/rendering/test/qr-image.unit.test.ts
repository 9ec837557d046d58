import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { etagMatches, negotiateQrFormat, payerUrlOf, renderQrImage } from '@dzpay/rendering';
import { decodeQrPng, decodeQrSvg } from './qr-image-decode.ts';

const url = 'https://pay.dzpay.example/qr/QR0123456789ABCDEFGHIJ';

describe('QR code images', () => {
  it('SVG encodes the text, with its media type', async () => {
    const image = await renderQrImage(url, { format: 'svg', size: 512 });
    expect(image.contentType).toBe('image/svg+xml');
    expect(image.body.toString('utf8')).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(decodeQrSvg(image.body.toString('utf8'))).toBe(url);
  });

  it('PNG encodes the text at the size asked', async () => {
    for (const size of [128, 300, 1024]) {
      const image = await renderQrImage(url, { format: 'png', size });
      expect(image.contentType).toBe('image/png');
      const png = PNG.sync.read(image.body);
      expect([png.width, png.height]).toEqual([size, size]);
      expect(decodeQrPng(image.body)).toBe(url);
    }
  });

  it('the same input gives the same bytes and ETag; another input another ETag', async () => {
    const first = await renderQrImage(url, { format: 'png', size: 256 });
    const again = await renderQrImage(url, { format: 'png', size: 256 });
    expect(again.body.equals(first.body)).toBe(true);
    expect(again.etag).toBe(first.etag);
    expect(first.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    const others = await Promise.all([
      renderQrImage(url, { format: 'png', size: 257 }),
      renderQrImage(url, { format: 'svg', size: 256 }),
      renderQrImage(`${url}X`, { format: 'png', size: 256 }),
    ]);
    for (const other of others) expect(other.etag).not.toBe(first.etag);
  });

  it('the payer URL is the /qr/ page, the token one encoded path segment', () => {
    expect(payerUrlOf('http://127.0.0.1:8080', 'QR0123')).toBe('http://127.0.0.1:8080/qr/QR0123');
    expect(payerUrlOf('https://pay.example/', 'a/b c?d')).toBe(
      'https://pay.example/qr/a%2Fb%20c%3Fd',
    );
  });

  it('negotiates: format wins, then Accept by q, else SVG', () => {
    expect(negotiateQrFormat('png', 'image/svg+xml')).toBe('png');
    expect(negotiateQrFormat('svg', 'image/png')).toBe('svg');
    expect(negotiateQrFormat(undefined, undefined)).toBe('svg');
    expect(negotiateQrFormat(undefined, '*/*')).toBe('svg');
    expect(negotiateQrFormat(undefined, 'image/png')).toBe('png');
    expect(negotiateQrFormat(undefined, 'image/png, image/svg+xml')).toBe('svg');
    expect(negotiateQrFormat(undefined, 'image/svg+xml;q=0.5, image/png')).toBe('png');
    expect(negotiateQrFormat(undefined, 'image/webp,image/png;q=0.9,*/*;q=0.8')).toBe('png');
  });

  it('If-None-Match matches the ETag, a list holding it, its weak form, or *', () => {
    const etag = '"abc"';
    expect(etagMatches(undefined, etag)).toBe(false);
    expect(etagMatches('"abd"', etag)).toBe(false);
    expect(etagMatches('"abc"', etag)).toBe(true);
    expect(etagMatches('"x", W/"abc"', etag)).toBe(true);
    expect(etagMatches('*', etag)).toBe(true);
  });
});
