import { QrCodesListResponse, QrImageQuery, QrCodesListQuery } from '@dzpay/contracts';
import { API_KEY_RESPONSES, PAGE_QUERY } from '../shared/common-responses.ts';
import type { OperationSpec } from '../shared/operation-spec.ts';

const common = {
  ...API_KEY_RESPONSES,
  503: {
    description: 'qr-config did not answer in time; safe to retry',
    errors: ['SERVICE503_UNAVAILABLE'],
  },
} as const;
const invalid = {
  description: 'a query parameter is invalid: details.failures names it',
  errors: ['VALIDATION400_BAD_REQUEST'],
} as const;

const qrCode = {
  token: 'QR7K2M9P4X8C1V6B3N5Z0Q',
  createdAt: '2025-03-14T09:00:00.000Z',
  payerUrl: 'https://pay.dzpay.example/qr/QR7K2M9P4X8C1V6B3N5Z0Q',
  state: 'configured',
  config: {
    amounts: [500, 1000, 2500.5],
    expiresAt: null,
    singleUse: false,
    version: 3,
    updatedAt: '2025-03-15T10:00:00.000Z',
  },
};

/** The QR codes list of the merchant API, as the OpenAPI document describes it. */
export const QR_CODES_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'get',
    path: '/api/v1/qr-codes',
    operationId: 'listQrCodes',
    tag: 'QR codes',
    summary: 'The static QR codes of the key’s merchant and mode, with their configuration',
    description:
      'Newest first, paged by an opaque cursor (stable: codes created meanwhile never shift later pages). Amounts are DZD, as /set-qr-config takes them; set and remove configurations with /set-qr-config and /un-set-qr-config. state is none (nothing to pay), configured, or expired (kept, not offered). payerUrl is the page the printed code opens.',
    apiKey: true,
    query: PAGE_QUERY,
    querySchema: QrCodesListQuery,
    responses: {
      200: {
        description: 'a page of QR codes',
        json: QrCodesListResponse,
        example: {
          statusCode: 200,
          message: 'QR codes',
          data: {
            qrCodes: [qrCode, { ...qrCode, token: 'SHOP-2', state: 'none', config: null }],
            nextCursor: 'MTc0MTk0MjgwMDAwMDAwMDpTSE9QLTI',
          },
        },
      },
      400: invalid,
      ...common,
    },
  },
  {
    method: 'get',
    path: '/api/v1/qr-codes/{token}/image',
    operationId: 'qrCodeImage',
    tag: 'QR codes',
    summary: 'The image to print: a QR code of the payer URL {PUBLIC_BASE_URL}/qr/{token}',
    description:
      'SVG by default; format=png (or, without format, an Accept header preferring image/png) for a PNG of size pixels. Error correction M. The image of a token never changes: Cache-Control: private, max-age=31536000, immutable, with a strong ETag; If-None-Match with it answers 304.',
    apiKey: true,
    params: { token: 'the QR code’s token, URL-encoded' },
    query: {
      format: 'svg (default) or png',
      size: 'PNG width and height in pixels, 128 to 1024 (default 512)',
    },
    querySchema: QrImageQuery,
    responses: {
      200: { description: 'the image', media: ['image/svg+xml', 'image/png'] },
      304: { description: 'the ETag in If-None-Match is current', empty: true },
      400: invalid,
      404: {
        description: 'no QR code with this token for the key’s merchant and mode',
        errors: ['QR_CODE404_NOT_FOUND'],
      },
      ...common,
    },
  },
];
