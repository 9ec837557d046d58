import type { MerchantTerms, RegisterPaymentBody } from '@dzpay/contracts';
import { MAX_METADATA_BYTES } from '@dzpay/contracts';
import type { ErrorCode } from '@dzpay/contracts';
import { AppError } from '@dzpay/platform';

export interface Charge {
  /** Centimes before the fee. */
  amount: number;
  /** Centimes: the merchant's fee, configured in whole DZD. */
  fees: number;
  /** Centimes charged to the card. */
  total: number;
}

/** The fee is whole DZD per payment (ARCHITECTURE.md §6): total = amount + fee × 100. */
export function chargeFor(amount: number, feeDzd: number): Charge {
  const fees = feeDzd * 100;
  return { amount, fees, total: amount + fees };
}

export interface Refusal {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * The rules of a registration that depend on the merchant, in the order the spec lists
 * their errors, but for the wallet: it is checked before the reference is taken (the
 * duplicate check is the insert), so a merchant without a wallet does not use up
 * references. Returns the first broken one, or null.
 */
export function refusalOf(body: RegisterPaymentBody, terms: MerchantTerms): Refusal | null {
  if (body.amount < terms.minAmount || body.amount > terms.maxAmount) {
    return {
      code: 'PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE',
      message: `amount must be between ${terms.minAmount} and ${terms.maxAmount} centimes`,
      details: { amount: body.amount, min: terms.minAmount, max: terms.maxAmount },
    };
  }
  if (body.currency !== 'DZD') {
    return {
      code: 'PAYMENT_INSTANCE400_UNSUPPORTED_CURRENCY',
      message: `currency ${body.currency} is not supported; use DZD`,
      details: { currency: body.currency, supported: ['DZD'] },
    };
  }
  if (body.metadata && metadataBytes(body.metadata) > MAX_METADATA_BYTES) {
    return {
      code: 'VALIDATION422_UNPROCESSABLE_ENTITY',
      message: `metadata must be at most ${MAX_METADATA_BYTES} bytes of JSON`,
      details: { bytes: metadataBytes(body.metadata), max: MAX_METADATA_BYTES },
    };
  }
  if (!terms.hasWallet) {
    return {
      code: 'SETTLEMENT422_MERCHANT_WALLET_MISSING',
      message: 'the merchant has no wallet to settle into',
    };
  }
  return null;
}

/** Size of metadata as it is stored and sent in webhooks: UTF-8 bytes of its JSON. */
function metadataBytes(metadata: unknown): number {
  return Buffer.byteLength(JSON.stringify(metadata), 'utf8');
}

/** A refusal as the error the NATS face answers (its code, message and details). */
export function refusalError(refusal: Refusal): AppError {
  return new AppError(
    refusal.code,
    refusal.message,
    refusal.details ? { details: refusal.details } : {},
  );
}
