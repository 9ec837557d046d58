import { z } from 'zod';
import { MerchantScope } from '../scope.ts';
import { QrConfigState, QrConfiguration } from './qr-config.ts';

/**
 * A merchant's QR codes listed a page at a time, and each one's image to print: HTTP
 * queries and views, and the NATS request behind the list. These only read: amounts are
 * set and removed as qr-config.ts describes.
 */

/** Most QR codes one page of `GET /api/v1/qr-codes` holds; the default is 20. */
const QR_CODES_PAGE_MAX = 100;
export const QR_CODES_PAGE_DEFAULT = 20;

/** The image's edge in pixels (PNG only: SVG scales by itself). */
const QR_IMAGE_SIZE_MIN = 128;
const QR_IMAGE_SIZE_MAX = 1024;
export const QR_IMAGE_SIZE_DEFAULT = 512;

/** `GET /api/v1/qr-codes`: a page size and the cursor of the previous page. */
export const QrCodesListQuery = z.strictObject({
  limit: z.coerce
    .number({ error: 'limit must be an integer' })
    .int({ error: 'limit must be an integer' })
    .min(1, { error: `limit must be between 1 and ${QR_CODES_PAGE_MAX}` })
    .max(QR_CODES_PAGE_MAX, { error: `limit must be between 1 and ${QR_CODES_PAGE_MAX}` })
    .optional(),
  cursor: z
    .string({ error: 'cursor must be a string' })
    .min(1, { error: 'cursor should not be empty' })
    .max(1000, { error: 'cursor must be at most 1000 characters' })
    .optional(),
});
export type QrCodesListQuery = z.input<typeof QrCodesListQuery>;

/** `GET /api/v1/qr-codes/{token}/image`: the format, and the PNG's size in pixels. */
export const QrImageQuery = z.strictObject({
  format: z.enum(['svg', 'png'], { error: 'format must be svg or png' }).optional(),
  size: z.coerce
    .number({ error: 'size must be an integer' })
    .int({ error: 'size must be an integer' })
    .min(QR_IMAGE_SIZE_MIN, {
      error: `size must be between ${QR_IMAGE_SIZE_MIN} and ${QR_IMAGE_SIZE_MAX}`,
    })
    .max(QR_IMAGE_SIZE_MAX, {
      error: `size must be between ${QR_IMAGE_SIZE_MIN} and ${QR_IMAGE_SIZE_MAX}`,
    })
    .optional(),
});
export type QrImageQuery = z.input<typeof QrImageQuery>;

// ---- NATS (amounts in integer centimes) ----

export const QrCodesListRequest = MerchantScope.extend({
  limit: z.int().min(1).max(QR_CODES_PAGE_MAX),
  cursor: z.string().optional(),
});
export type QrCodesListRequest = z.infer<typeof QrCodesListRequest>;

/** A QR code as qr-config stores it, with its configuration's state now. */
export const QrCodeRecordView = z.object({
  token: z.string(),
  createdAt: z.iso.datetime(),
  state: QrConfigState,
  /** The stored configuration, also when it has expired (state says whether it applies). */
  config: QrConfiguration.nullable(),
});
export type QrCodeRecordView = z.infer<typeof QrCodeRecordView>;

export const QrCodesListReply = z.object({
  codes: z.array(QrCodeRecordView),
  /** Give it as `cursor` for the next (older) page; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type QrCodesListReply = z.infer<typeof QrCodesListReply>;

// ---- HTTP (amounts in DZD, as the spec's QR endpoints have them) ----

/** A QR code's configuration as the merchant API shows it. */
const QrCodeConfigView = z.object({
  /** DZD, at most two decimals, as set with /set-qr-config. */
  amounts: z.array(z.number().positive()),
  expiresAt: z.iso.datetime().nullable(),
  singleUse: z.boolean(),
  /** Grows with every /set-qr-config of the token; never repeats. */
  version: z.int(),
  updatedAt: z.iso.datetime(),
});

export const QrCodeView = z.object({
  token: z.string(),
  createdAt: z.iso.datetime(),
  /** The page the code sends payers to: `{PUBLIC_BASE_URL}/qr/{token}`. */
  payerUrl: z.string(),
  /** `none`: nothing to pay; `expired`: the configuration is kept but no longer offered. */
  state: QrConfigState,
  config: QrCodeConfigView.nullable(),
});
export type QrCodeView = z.infer<typeof QrCodeView>;

export const QrCodesPage = z.object({
  qrCodes: z.array(QrCodeView),
  nextCursor: z.string().nullable(),
});
export type QrCodesPage = z.infer<typeof QrCodesPage>;
