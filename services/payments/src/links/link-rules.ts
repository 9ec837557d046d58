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
import type { Refusal } from '../domain/charge.ts';

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
  /** The end of its payment window. */
  expiresAt: Date;
  /** Until when it holds the link against the next payer: see heldUntilOf. */
  heldUntil: Date;
}

/**
 * Until when an in-flight payment holds its single-use link: its whole window once its
 * payer reached the card form (the card order is placed), else the press hold counted
 * from its creation, never past the window.
 */
export function heldUntilOf(
  payment: { createdAt: Date; expiresAt: Date; cardOrderPlaced: boolean },
  pressHoldMs: number,
): Date {
  if (payment.cardOrderPlaced) return payment.expiresAt;
  return new Date(Math.min(payment.expiresAt.getTime(), payment.createdAt.getTime() + pressHoldMs));
}

/**
 * A holder still in flight whose hold has ended (its window, or its press hold): its
 * payer can no longer be waited for. It does not count as holding the link, but it stays
 * in the payments_one_link_sale index until it is settled: paying the link settles it
 * then (payment-link-pay.ts).
 */
export function isStaleHolder(holder: LinkHolder | null, now: Date): holder is LinkHolder {
  return (
    holder !== null &&
    (holder.status === 'pending' || holder.status === 'processing') &&
    holder.heldUntil.getTime() <= now.getTime()
  );
}

/**
 * A stale holder whose window is still open: a press that never reached the card form.
 * No card order means no money can be taken: the next payer's press expires it at once
 * (rather than settling it at the card network, as a holder past its window is).
 */
export function isIdlePress(holder: LinkHolder | null, now: Date): holder is LinkHolder {
  return isStaleHolder(holder, now) && now.getTime() < holder.expiresAt.getTime();
}

/** A payer in flight whose hold still runs: the link waits for them. */
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
 * by another payer answers when that payer's hold ends: they may still give up.
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
          retryAt: holder.heldUntil.toISOString(),
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
