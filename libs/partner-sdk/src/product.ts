import { z } from 'zod';
import { checkTimestamp, header, type IncomingHeaders } from './headers.ts';
import { sameSecret } from './signature.ts';

/**
 * What the partner's `GET {API_URL}/{reference}` answers with 200 (ARCHITECTURE §6).
 * dzpay turns `amount` into centimes, so more than two decimals is refused there; this
 * schema refuses it here first, where the mistake can be fixed.
 */
export const PartnerProduct = z.object({
  reference: z.string().min(1).max(255),
  /** In dinars (DZD), at most two decimals. */
  amount: z
    .number()
    .positive()
    .refine((dzd) => Math.round(dzd * 100) / 100 === dzd, 'at most two decimals'),
  currency: z.literal('DZD').default('DZD'),
  /** Shown to the payer as the product's name. */
  label: z.string().max(200).optional(),
  description: z.string().max(1000).optional(),
  metadata: z.record(z.string(), z.json()).optional(),
});
/** A product as dzpay receives it; `z.input<typeof PartnerProduct>` may leave out `currency`. */
export type PartnerProduct = z.infer<typeof PartnerProduct>;

/** The partner error codes dzpay understands, with the HTTP status each travels with. */
const partnerErrorStatus = {
  NOT_FOUND: 404,
  ALREADY_PAID: 409,
  SERVICE_UNAVAILABLE: 503,
} as const;
export type PartnerErrorCode = keyof typeof partnerErrorStatus;

/** The partner error shape of the spec: `{ error, errorMessage }`. */
export interface PartnerErrorBody {
  error: string;
  errorMessage: string;
}

/** An HTTP answer ready to send: a status and a JSON body. */
export interface PartnerResponse<Body = PartnerProduct | PartnerErrorBody> {
  status: number;
  body: Body;
}

/** 200 with the product, validated (a bad product throws: it is the partner's bug to fix). */
export function productResponse(
  product: z.input<typeof PartnerProduct>,
): PartnerResponse<PartnerProduct> {
  return { status: 200, body: PartnerProduct.parse(product) };
}

/** 404 `NOT_FOUND`, 409 `ALREADY_PAID` or 503 `SERVICE_UNAVAILABLE` in the partner error shape. */
export function partnerError(
  code: PartnerErrorCode,
  message: string,
): PartnerResponse<PartnerErrorBody> {
  return errorResponse(partnerErrorStatus[code], code, message);
}

/** An error answer with a code outside the three dzpay knows (401, 400 of this SDK). */
export function errorResponse(
  status: number,
  error: string,
  errorMessage: string,
): PartnerResponse<PartnerErrorBody> {
  return { status, body: { error, errorMessage } };
}

export type DzpayRequestFailure = 'missing_headers' | 'bad_secret' | 'stale_timestamp';

export type VerifyDzpayRequestResult =
  { ok: true } | { ok: false; reason: DzpayRequestFailure; message: string };

/**
 * Checks that a request comes from dzpay: `Authorization: Bearer <API_SECRET>` (compared
 * in constant time) and an `X-Timestamp` within `toleranceSeconds` of now.
 */
export function verifyDzpayRequest(
  headers: IncomingHeaders,
  apiSecret: string,
  { toleranceSeconds = 300, now = new Date() }: { toleranceSeconds?: number; now?: Date } = {},
): VerifyDzpayRequestResult {
  if (typeof apiSecret !== 'string' || apiSecret === '') {
    throw new TypeError('dzpay partner SDK: apiSecret must be a non-empty string');
  }
  const authorization = header(headers, 'authorization');
  const timestamp = header(headers, 'x-timestamp');
  const bearer = authorization === undefined ? undefined : /^Bearer (.+)$/i.exec(authorization);
  if (!bearer?.[1] || timestamp === undefined) {
    return {
      ok: false,
      reason: 'missing_headers',
      message: 'Authorization and X-Timestamp are required',
    };
  }
  if (!sameSecret(apiSecret, bearer[1])) {
    return { ok: false, reason: 'bad_secret', message: 'the API secret does not match' };
  }
  const time = checkTimestamp(timestamp, now, toleranceSeconds);
  if (time === 'malformed') {
    return { ok: false, reason: 'missing_headers', message: 'X-Timestamp must be unix seconds' };
  }
  if (time === 'stale') {
    return { ok: false, reason: 'stale_timestamp', message: 'the timestamp is too far from now' };
  }
  return { ok: true };
}
