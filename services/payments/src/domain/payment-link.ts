import {
  MAX_METADATA_BYTES,
  type CreatePaymentLinkBody,
  type ErrorCode,
  type Language,
  type MerchantTerms,
  type Mode,
  type PaymentLinkState,
  type PaymentStatus,
} from '@dzpay/contracts';
import type { Refusal } from './charge.ts';

/** A payment link as payments stores it (amounts in centimes). */
export interface PaymentLinkRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  token: string;
  label: string;
  amount: number | null;
  minAmount: number | null;
  maxAmount: number | null;
  singleUse: boolean;
  expiresAt: Date | null;
  language: Language;
  metadata: Record<string, unknown> | null;
  /** Payments opened through the link so far: numbers their references. */
  opened: number;
  deactivatedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The payment that holds a single-use link: in flight (pending, processing) or paid
 * (success, refunded). There is at most one (the payments_one_link_sale index).
 */
export interface LinkHolder {
  paymentId: string;
  status: PaymentStatus;
  expiresAt: Date;
}

/**
 * A holder still in flight (pending, processing) whose window has ended: its payer can
 * no longer be waited for. It does not count as holding the link, but it stays in the
 * payments_one_link_sale index until it is settled as the sweeper would (its card order
 * cancelled first): paying the link settles it then (payment-link-pay.ts).
 */
export function isStaleHolder(holder: LinkHolder | null, now: Date): holder is LinkHolder {
  return (
    holder !== null &&
    (holder.status === 'pending' || holder.status === 'processing') &&
    holder.expiresAt.getTime() <= now.getTime()
  );
}

/** A payer in flight whose window is still open: the link waits for them. */
export function isBusyHolder(holder: LinkHolder | null, now: Date): holder is LinkHolder {
  return (
    holder !== null &&
    (holder.status === 'pending' || holder.status === 'processing') &&
    !isStaleHolder(holder, now)
  );
}

/**
 * What the link offers now. A deactivated link says so whatever else is true; a
 * single-use link paid once is used (a refund does not sell it again); past its expiry
 * it is expired. A single-use link being paid by someone is still active: that payment
 * may fail and free it.
 */
export function linkStateOf(
  link: Pick<PaymentLinkRecord, 'deactivatedAt' | 'expiresAt' | 'singleUse'>,
  holder: LinkHolder | null,
  now: Date,
): PaymentLinkState {
  if (link.deactivatedAt) return 'deactivated';
  if (link.singleUse && holder && (holder.status === 'success' || holder.status === 'refunded'))
    return 'used';
  if (link.expiresAt && link.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

const refusal = (code: ErrorCode, message: string, details?: Record<string, unknown>): Refusal =>
  details ? { code, message, details } : { code, message };

/**
 * Why the link takes no payment now, or null when it does. A single-use link being paid
 * by another payer answers when that payer's window ends: they may still give up.
 */
export function linkRefusalOf(
  link: Pick<PaymentLinkRecord, 'id' | 'deactivatedAt' | 'expiresAt' | 'singleUse'>,
  holder: LinkHolder | null,
  now: Date,
): Refusal | null {
  const details = { paymentLinkId: link.id };
  switch (linkStateOf(link, holder, now)) {
    case 'deactivated':
      return refusal('PAYMENT_LINK410_DEACTIVATED', 'the payment link was deactivated', details);
    case 'used':
      return refusal(
        'PAYMENT_LINK409_ALREADY_PAID',
        'the single-use payment link is paid',
        details,
      );
    case 'expired':
      return refusal('PAYMENT_LINK410_EXPIRED', 'the payment link has expired', {
        ...details,
        expiresAt: link.expiresAt!.toISOString(),
      });
    case 'active':
      if (link.singleUse && isBusyHolder(holder, now)) {
        return refusal('PAYMENT_LINK409_BEING_PAID', 'another payer is paying this link now', {
          ...details,
          retryAt: holder.expiresAt.toISOString(),
        });
      }
      return null;
  }
}

/**
 * The amount a payer pays through the link: the link's own when fixed (a chosen one is
 * ignored: the page offers no choice), else the payer's, which must be given and lie
 * within the link's bounds.
 */
export function linkAmountOf(
  link: Pick<PaymentLinkRecord, 'amount' | 'minAmount' | 'maxAmount'>,
  chosen: number | undefined,
): { ok: true; value: number } | { ok: false; error: Refusal } {
  if (link.amount !== null) return { ok: true, value: link.amount };
  const min = link.minAmount!;
  const max = link.maxAmount!;
  if (chosen === undefined || !Number.isSafeInteger(chosen) || chosen < min || chosen > max) {
    return {
      ok: false,
      error: refusal(
        'PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE',
        `amount must be between ${min} and ${max} centimes`,
        { amount: chosen ?? null, min, max },
      ),
    };
  }
  return { ok: true, value: chosen };
}

/**
 * The rules of a new link that depend on the merchant and the clock, first broken one
 * or null: every amount it can ask lies in the merchant's range (a link that could only
 * make refused payments is refused now, not at the payer's), the expiry is ahead, the
 * metadata fits what a payment may carry, and the merchant has a wallet.
 */
export function createRefusalOf(
  body: CreatePaymentLinkBody,
  terms: MerchantTerms,
  now: Date,
): Refusal | null {
  const bounds = [body.amount, body.minAmount, body.maxAmount].filter(
    (value): value is number => value != null,
  );
  const outside = bounds.find((value) => value < terms.minAmount || value > terms.maxAmount);
  if (outside !== undefined) {
    return refusal(
      'PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE',
      `amounts must be between ${terms.minAmount} and ${terms.maxAmount} centimes`,
      { amount: outside, min: terms.minAmount, max: terms.maxAmount },
    );
  }
  if (body.expiresAt && Date.parse(body.expiresAt) <= now.getTime()) {
    return refusal('VALIDATION400_BAD_REQUEST', 'request validation failed', {
      failures: [{ field: 'expiresAt', message: 'expiresAt must be in the future' }],
    });
  }
  const bytes = body.metadata ? Buffer.byteLength(JSON.stringify(body.metadata), 'utf8') : 0;
  if (bytes > MAX_METADATA_BYTES) {
    return refusal(
      'VALIDATION422_UNPROCESSABLE_ENTITY',
      `metadata must be at most ${MAX_METADATA_BYTES} bytes of JSON`,
      { bytes, max: MAX_METADATA_BYTES },
    );
  }
  if (!terms.hasWallet) {
    return refusal(
      'SETTLEMENT422_MERCHANT_WALLET_MISSING',
      'the merchant has no wallet to settle into',
    );
  }
  return null;
}
