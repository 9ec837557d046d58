import { QrCodesListResponse, type QrCodesPage } from '@dzpay/contracts';
import type { ClientTransport } from './transport.ts';

/** The query string of the given fields; absent ones are left out. */
function queryOf(fields: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined) params.set(name, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** A QR code's image: SVG as text, PNG as bytes, and the ETag to cache it by. */
export type QrCodeImage =
  | { format: 'svg'; contentType: string; etag: string | null; svg: string }
  | { format: 'png'; contentType: string; etag: string | null; png: Uint8Array };

/** GET /api/v1/qr-codes: a page size (1 to 100, default 20) and the previous page's cursor. */
export interface QrCodesListOptions {
  limit?: number;
  cursor?: string;
}

/** GET /api/v1/qr-codes/{token}/image: SVG by default; PNG `size` pixels (128 to 1024). */
export interface QrCodeImageOptions {
  format?: 'svg' | 'png';
  size?: number;
}

/** The back office's qr methods (issue 14). */
export function backOfficeQrMethods(transport: ClientTransport) {
  const { call, raw, segment } = transport;
  return {
    /** GET /api/v1/qr-codes: one page, newest first; pass `nextCursor` back as `cursor`. */
    async listQrCodes(query: QrCodesListOptions = {}): Promise<QrCodesPage> {
      const answer = await call('GET', `/api/v1/qr-codes${queryOf({ ...query })}`, {
        status: 200,
        schema: QrCodesListResponse,
      });
      return answer.data;
    },
    /** GET /api/v1/qr-codes/{token}/image: the code to print (SVG unless `format: 'png'`). */
    async qrCodeImage(token: string, query: QrCodeImageOptions = {}): Promise<QrCodeImage> {
      const response = await raw(
        'GET',
        `/api/v1/qr-codes/${segment(token)}/image${queryOf({ ...query })}`,
      );
      const contentType = response.headers.get('content-type') ?? '';
      const etag = response.headers.get('etag');
      return contentType.startsWith('image/png')
        ? { format: 'png', contentType, etag, png: new Uint8Array(await response.arrayBuffer()) }
        : { format: 'svg', contentType, etag, svg: await response.text() };
    },
  };
}
