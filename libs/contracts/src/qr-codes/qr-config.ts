import { z } from 'zod';
import { hasAtMostTwoDecimals } from '../money.ts';
import { MerchantScope } from '../scope.ts';

/**
 * What a static QR code offers its payers: the amounts set with the spec's
 * /set-qr-config and removed with /un-set-qr-config, and the NATS messages to qr-config
 * that set, remove, read and make codes.
 */

/** How many amounts one QR configuration may offer: a payer picks from a short list. */
const MAX_QR_AMOUNTS = 20;
/** The largest DZD amount one QR payment may carry (the payments API's default ceiling). */
const MAX_QR_AMOUNT_DZD = 1_000_000;

export const QrMessages = {
  tokenString: 'token must be a string',
  tokenEmpty: 'token should not be empty',
  tokenTooLong: 'token must be shorter than or equal to 255 characters',
  tokenControl: 'token must not contain control characters',
  amountsArray: 'amounts must be an array',
  amountsMin: 'amounts must contain at least 1 element',
  amountsMax: `amounts must contain no more than ${MAX_QR_AMOUNTS} elements`,
  amountPositive: 'each value in amounts must be a positive number',
  amountDecimals: 'each value in amounts must have at most 2 decimal places',
  amountCeiling: `each value in amounts must not be greater than ${MAX_QR_AMOUNT_DZD}`,
  /** An amount this merchant could never be paid: its payable range, in centimes. */
  amountRange: (minCentimes: number, maxCentimes: number) =>
    `each value in amounts must be between ${minCentimes / 100} and ${maxCentimes / 100} (the merchant's payable range in DZD)`,
  expiresAtIso: 'expiresAt must be a valid ISO 8601 date string',
  expiresAtFuture: 'expiresAt must be in the future',
  singleUseBoolean: 'singleUse must be a boolean',
} as const;

const IsoDateTimeWithZone = z.iso.datetime({ offset: true });
const IsoDate = z.iso.date();
const IsoLocalDateTime = z.iso.datetime({ local: true });

/**
 * The QR token: the identifier the partner platform gave the QR code, used as sent (it
 * is echoed in details.token). Whitespace alone counts as empty and control characters
 * are refused: neither can name a real code, and Postgres refuses NUL in text.
 */
export const QrToken = z
  .string({ error: QrMessages.tokenString })
  .refine((token) => token.trim().length > 0, { error: QrMessages.tokenEmpty })
  .refine((token) => token.length <= 255, { error: QrMessages.tokenTooLong })
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  .refine((token) => !/[\u0000-\u001f\u007f]/.test(token), { error: QrMessages.tokenControl });

const QrAmountDzd = z
  .number({ error: QrMessages.amountPositive })
  .positive({ error: QrMessages.amountPositive })
  .max(MAX_QR_AMOUNT_DZD, { error: QrMessages.amountCeiling })
  .refine(hasAtMostTwoDecimals, { error: QrMessages.amountDecimals });

/**
 * ISO 8601: with a zone, or without one (what Python's isoformat() writes), which is read
 * as UTC like a date alone (midnight UTC). See expiresAtInstant.
 */
const ExpiresAt = z
  .string({ error: QrMessages.expiresAtIso })
  .refine(
    (value) =>
      IsoDateTimeWithZone.safeParse(value).success ||
      IsoLocalDateTime.safeParse(value).success ||
      IsoDate.safeParse(value).success,
    { error: QrMessages.expiresAtIso },
  );

/** The instant an accepted expiresAt names: a date-time without a zone is UTC. */
export function expiresAtInstant(value: string): Date {
  const zoned = IsoDateTimeWithZone.safeParse(value).success || IsoDate.safeParse(value).success;
  return new Date(zoned ? value : `${value}Z`);
}

/** Body of POST /set-qr-config (amounts in DZD, as the spec has them). */
export const SetQrConfigBody = z.strictObject({
  token: QrToken,
  amounts: z
    .array(QrAmountDzd, { error: QrMessages.amountsArray })
    .min(1, { error: QrMessages.amountsMin })
    .max(MAX_QR_AMOUNTS, { error: QrMessages.amountsMax }),
  expiresAt: ExpiresAt.nullable().optional(),
  singleUse: z.boolean({ error: QrMessages.singleUseBoolean }),
});
export type SetQrConfigBody = z.infer<typeof SetQrConfigBody>;

/** Body of POST /un-set-qr-config. */
export const UnsetQrConfigBody = z.strictObject({ token: QrToken });
export type UnsetQrConfigBody = z.infer<typeof UnsetQrConfigBody>;

// ---- NATS messages between the gateway and qr-config (amounts in integer centimes) ----

export const QrConfigSetRequest = MerchantScope.extend({
  token: z.string().min(1),
  amounts: z.array(z.int().positive()).min(1).max(MAX_QR_AMOUNTS),
  expiresAt: z.iso.datetime({ offset: true }).nullable(),
  singleUse: z.boolean(),
});
export type QrConfigSetRequest = z.infer<typeof QrConfigSetRequest>;

export const QrConfigSetReply = z.object({ token: z.string(), version: z.int() });
export type QrConfigSetReply = z.infer<typeof QrConfigSetReply>;

export const QrConfigUnsetRequest = MerchantScope.extend({ token: z.string().min(1) });
export type QrConfigUnsetRequest = z.infer<typeof QrConfigUnsetRequest>;

export const QrConfigUnsetReply = z.object({ token: z.string(), removed: z.boolean() });
export type QrConfigUnsetReply = z.infer<typeof QrConfigUnsetReply>;

/** Payer pages know only the token; the reply says whose code it is. */
export const QrConfigGetRequest = z.object({ token: z.string().min(1) });
export type QrConfigGetRequest = z.infer<typeof QrConfigGetRequest>;

export const QrConfigState = z.enum(['none', 'configured', 'expired']);
export type QrConfigState = z.infer<typeof QrConfigState>;

export const QrConfiguration = z.object({
  amounts: z.array(z.int().positive()),
  expiresAt: z.iso.datetime().nullable(),
  singleUse: z.boolean(),
  version: z.int(),
  updatedAt: z.iso.datetime(),
});
export type QrConfiguration = z.infer<typeof QrConfiguration>;

export const QrConfigGetReply = MerchantScope.extend({
  token: z.string(),
  state: QrConfigState,
  /** The stored configuration, also when it has expired (state says whether it applies). */
  config: QrConfiguration.nullable(),
});
export type QrConfigGetReply = z.infer<typeof QrConfigGetReply>;

/** Without a token, qr-config makes one up. */
export const QrCodeCreateRequest = MerchantScope.extend({ token: QrToken.optional() });
export type QrCodeCreateRequest = z.infer<typeof QrCodeCreateRequest>;

export const QrCodeCreateReply = MerchantScope.extend({
  token: z.string(),
  createdAt: z.iso.datetime(),
});
export type QrCodeCreateReply = z.infer<typeof QrCodeCreateReply>;
