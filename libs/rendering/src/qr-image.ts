import { createHash } from 'node:crypto';
import QRCode from 'qrcode';

/** The formats a QR code's image comes in. */
export type QrImageFormat = 'svg' | 'png';

const QR_IMAGE_MEDIA: Record<QrImageFormat, string> = {
  svg: 'image/svg+xml',
  png: 'image/png',
};

/** A rendered image: its bytes, media type and a strong ETag of those bytes. */
interface QrImage {
  body: Buffer;
  contentType: string;
  etag: string;
}

/**
 * The page a static QR code sends payers to: `{PUBLIC_BASE_URL}/qr/{token}` (the payer
 * route of the gateway's routes/payer-pages/agency-routes.ts), the token percent-encoded as
 * one path segment.
 */
export function payerUrlOf(publicBaseUrl: string, token: string): string {
  return new URL(`/qr/${encodeURIComponent(token)}`, publicBaseUrl).href;
}

/**
 * The format to render: the query's `format` when given, else the Accept header's
 * choice between the two (PNG only when it asks for PNG and not for SVG, or ranks PNG
 * higher), else SVG.
 */
export function negotiateQrFormat(
  format: QrImageFormat | undefined,
  accept: string | undefined,
): QrImageFormat {
  if (format) return format;
  const weights = acceptWeights(accept ?? '');
  const png = weights.get('image/png') ?? 0;
  const svg = weights.get('image/svg+xml') ?? 0;
  return png > svg ? 'png' : 'svg';
}

/** The q value of each media type an Accept header names (wildcards left out). */
function acceptWeights(accept: string): Map<string, number> {
  const weights = new Map<string, number>();
  for (const part of accept.split(',')) {
    const [type, ...params] = part.split(';').map((piece) => piece.trim().toLowerCase());
    if (!type || type.includes('*')) continue;
    const q = params.find((param) => param.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (Number.isFinite(weight)) weights.set(type, weight);
  }
  return weights;
}

/**
 * Renders `text` as a QR code (error correction M, the standard 4-module quiet zone).
 * PNG is `size` pixels wide; SVG scales by itself and ignores it. The output of one
 * text, format and size is always the same bytes, so the ETag (a hash of them) is
 * strong and the image can be cached for ever.
 */
export async function renderQrImage(
  text: string,
  options: { format: QrImageFormat; size: number },
): Promise<QrImage> {
  const common = { errorCorrectionLevel: 'M' as const, margin: 4 };
  const body =
    options.format === 'png'
      ? await QRCode.toBuffer(text, { ...common, type: 'png', width: options.size })
      : Buffer.from(await QRCode.toString(text, { ...common, type: 'svg' }), 'utf8');
  const digest = createHash('sha256').update(body).digest('base64url');
  return { body, contentType: QR_IMAGE_MEDIA[options.format], etag: `"${digest}"` };
}

/**
 * Whether an If-None-Match header names this strong ETag (or is `*`): the client's copy
 * is current and the answer is 304. Weak forms (`W/"…"`) match too, as RFC 9110 says for
 * If-None-Match.
 */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}
