import { randomUUID } from 'node:crypto';
import type { Language, MerchantTerms, ReferenceKind } from '@dzpay/contracts';
import { AppError, type Logger } from '@dzpay/platform';
import { CardNetworkError, type CardNetwork } from '../adapters/cardnet/card-network.ts';
import type { PaymentsRepository } from '../adapters/payments-repository.ts';
import { chargeFor } from '../domain/charge.ts';
import type { PaymentRecord } from '../domain/payment-record.ts';
import { newCheckoutToken } from '../domain/tokens.ts';

export interface OpenAttemptDeps {
  repository: PaymentsRepository;
  cardNetworks: Record<'test' | 'live', CardNetwork>;
  logger: Logger;
  publicBaseUrl: string;
  windowMs: number;
  clock: () => Date;
}

export interface AttemptSpec {
  terms: MerchantTerms;
  channel: 'CHECKOUT' | 'AGENCY';
  reference: string;
  /** What the reference names (an order for CHECKOUT), and its sale (0 unless a QR version). */
  referenceKind: ReferenceKind;
  epoch: number;
  /** Centimes before the fee. */
  amount: number;
  language: Language;
  successUrl?: string | null;
  failureUrl?: string | null;
  metadata?: Record<string, unknown> | null;
  locksReference?: boolean;
  productLabel?: string | null;
}

/**
 * Opens an attempt of either channel: the row and its payment.created event in one
 * transaction, then the order at the card network (its form closes with our window).
 * Null when the row could not be taken (a reference used, or held by another attempt).
 * The card network down fails the attempt and answers CARDNET502.
 */
export async function openAttempt(
  deps: OpenAttemptDeps,
  spec: AttemptSpec,
): Promise<{ record: PaymentRecord; checkoutToken: string } | null> {
  const { repository, clock } = deps;
  const charge = chargeFor(spec.amount, spec.terms.feeDzd);
  const { token, hash } = newCheckoutToken();
  const id = randomUUID();
  const record = await repository.insert({
    id,
    merchantId: spec.terms.merchantId,
    mode: spec.terms.mode,
    channel: spec.channel,
    reference: spec.reference,
    referenceKind: spec.referenceKind,
    epoch: spec.epoch,
    merchantName: spec.terms.name,
    amount: charge.amount,
    fee: charge.fees,
    total: charge.total,
    currency: 'DZD',
    language: spec.language,
    status: 'pending',
    successUrl: spec.successUrl ?? null,
    failureUrl: spec.failureUrl ?? null,
    metadata: spec.metadata ?? null,
    checkoutTokenHash: hash,
    expiresAt: new Date(clock().getTime() + deps.windowMs),
    locksReference: spec.locksReference ?? false,
    productLabel: spec.productLabel ?? null,
  });
  if (!record) return null;

  const returnUrl = new URL(`/checkout/return/${id}`, deps.publicBaseUrl).href;
  try {
    const order = await deps.cardNetworks[spec.terms.mode].register({
      orderNumber: record.orderNumber,
      amount: record.total,
      returnUrl,
      failUrl: returnUrl,
      language: record.language,
      description: `${spec.terms.name} ${spec.reference}`.slice(0, 99),
      // The card form closes with our window (SATIM accepts 600 s at the least).
      sessionTimeoutSecs: Math.max(
        600,
        Math.floor((record.expiresAt.getTime() - clock().getTime()) / 1000),
      ),
      udf1: id,
    });
    const registered = await repository.annotate(id, {
      cardnetOrderId: order.orderId,
      cardnetFormUrl: order.formUrl,
    });
    return { record: registered ?? record, checkoutToken: token };
  } catch (error) {
    if (!(error instanceof CardNetworkError)) throw error;
    deps.logger.warn({ err: error, paymentId: id }, 'card network registration failed');
    // The reference is used up (hosted checkout) or released (AGENCY): retry anew.
    await repository.transition(
      id,
      ['pending'],
      { status: 'failed', failureReason: 'card network unavailable at registration' },
      'payment.failed',
    );
    throw new AppError(
      'CARDNET502_REGISTRATION_FAILED',
      'card network unavailable; retry with a new reference',
      {
        details: { reference: spec.reference },
      },
    );
  }
}
