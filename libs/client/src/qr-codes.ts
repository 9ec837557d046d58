import {
  QrCodesListResponse,
  SetQrConfigResponse,
  type QrCodesPage,
  type SetQrConfigBody,
  type UnsetQrConfigBody,
} from '@dzpay/contracts';
import type { ClientTransport } from './transport.ts';

/** A QR code's image: SVG as text, PNG as bytes, and the ETag to cache it by. */
type QrCodeImage =
  | { format: 'svg'; contentType: string; etag: string | null; svg: string }
  | { format: 'png'; contentType: string; etag: string | null; png: Uint8Array };

/** GET /api/v1/qr-codes: a page size (1 to 100, default 20) and the previous page's cursor. */
interface QrCodesListOptions {
  limit?: number;
  cursor?: string;
}

/** GET /api/v1/qr-codes/{token}/image: SVG by default; PNG `size` pixels (128 to 1024). */
interface QrCodeImageOptions {
  format?: 'svg' | 'png';
  size?: number;
}

/** A merchant's static QR codes: their amounts set and removed, listed, printed. */
export function qrCodesMethods(transport: ClientTransport) {
  const { call, raw, segment, query } = transport;
  return {
    /** POST /set-qr-config: replaces the QR code's amounts (DZD). */
    async setQrConfig(body: SetQrConfigBody): Promise<void> {
      await call('POST', '/set-qr-config', { status: 200, schema: SetQrConfigResponse }, body);
    },
    /** POST /un-set-qr-config. */
    async unsetQrConfig(body: UnsetQrConfigBody): Promise<void> {
      await call('POST', '/un-set-qr-config', { status: 204 }, body);
    },
    /** GET /api/v1/qr-codes: one page, newest first; pass `nextCursor` back as `cursor`. */
    async listQrCodes(options: QrCodesListOptions = {}): Promise<QrCodesPage> {
      const answer = await call('GET', `/api/v1/qr-codes${query(options)}`, {
        status: 200,
        schema: QrCodesListResponse,
      });
      return answer.data;
    },
    /** GET /api/v1/qr-codes/{token}/image: the code to print (SVG unless `format: 'png'`). */
    async qrCodeImage(token: string, options: QrCodeImageOptions = {}): Promise<QrCodeImage> {
      const response = await raw(
        'GET',
        `/api/v1/qr-codes/${segment(token)}/image${query(options)}`,
      );
      const contentType = response.headers.get('content-type') ?? '';
      const etag = response.headers.get('etag');
      return contentType.startsWith('image/png')
        ? { format: 'png', contentType, etag, png: new Uint8Array(await response.arrayBuffer()) }
        : { format: 'svg', contentType, etag, svg: await response.text() };
    },
  };
}
