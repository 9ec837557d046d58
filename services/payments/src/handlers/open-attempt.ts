import { randomUUID } from 'node:crypto';
import {
  FailureReasons,
  type Language,
  type MerchantTerms,
  type ReferenceKind,
} from '@dzpay/contracts';
import { AppError, type Logger } from '@dzpay/platform';
import { CardNetworkError, type CardNetwork } from '../adapters/cardnet/card-network.ts';
import type { Lease, PaymentsRepository } from '../adapters/payments-repository.ts';
import { chargeFor } from '../domain/charge.ts';
import type { PaymentRecord } from '../domain/payment-record.ts';
import { newCheckoutToken } from '../domain/tokens.ts';
import { renewWhileRunning } from './lease-renewal.ts';
import type { WithSettlement } from './settlement.ts';

export interface OpenAttemptDeps {
  repository: PaymentsRepository;
  cardNetworks: Record<'test' | 'live', CardNetwork>;
  logger: Logger;
  publicBaseUrl: string;
  windowMs: number;
  clock: () => Date;
  /**
   * The settlement lease a registration holds from its insert on (renewed while it runs);
   * a registration under an Idempotency-Key holds it as long as its key's lease.
   */
  leaseMs?: number;
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

/** Why an attempt failed when the card network did not register its order. */
const REGISTRATION_FAILED = FailureReasons.registrationFailed;

const DEFAULT_LEASE_MS = 10_000;
/** A registration still running after this is hung: its lease ends (the settlement's bound). */
const MAX_HOLD_MS = 2 * 60 * 1000;
/** A retry waits this long for a dead first try's lease to run out before it says busy. */
const RESUME_WAIT_MS = 3_000;

/**
 * Opens an attempt of either channel: the row and its payment.created event in one
 * transaction (bound there to the request's Idempotency-Key, when it has one), then the
 * order at the card network (its form closes with our window). The registration holds
 * the attempt's settlement lease from the insert on, like anything else that talks to
 * the card network about it: a retry that takes the attempt over (resumeRegistration)
 * is never overwritten by a first try that was only paused.
 * Null when the row could not be taken (a reference used, or held by another attempt).
 * The card network down fails the attempt and answers CARDNET502.
 */
export async function openAttempt(
  deps: OpenAttemptDeps,
  spec: AttemptSpec,
  options: { idempotencyKey?: { key: string; owner: string } } = {},
): Promise<{ record: PaymentRecord; checkoutToken: string } | null> {
  const { repository, clock } = deps;
  const leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
  const charge = chargeFor(spec.amount, spec.terms.feeDzd);
  const { token, hash } = newCheckoutToken();
  const id = randomUUID();
  const lease = randomUUID();
  const record = await repository.insert(
    {
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
    },
    {
      lease: { id: lease, ms: leaseMs },
      ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
    },
  );
  if (!record) return null;

  const renewal = renewWhileRunning({
    leaseMs,
    maxHoldMs: MAX_HOLD_MS,
    renew: () => repository.renewSettlement(id, lease, leaseMs),
    logger: deps.logger,
    subject: { paymentId: id },
  });
  try {
    return { record: await registerOrder(deps, record, lease), checkoutToken: token };
  } finally {
    renewal.stop();
    await repository
      .releaseSettlement(id, lease)
      .catch((err: unknown) =>
        deps.logger.warn({ err, paymentId: id }, 'registration lease not released; it runs out'),
      );
  }
}

/**
 * A registration retried under its Idempotency-Key whose first try committed `paymentId`
 * and died before its answer was stored (so before anyone saw it): answers that payment
 * as the first try would have. Its checkout token was never shown and is kept only
 * hashed, so it gets a new one. An attempt left pending without a card order (the try
 * died before, or while, registering it) is registered now under a new order number
 * while its window is open; one whose registration failed answers CARDNET502 again.
 */
export async function resumeRegistration(
  deps: OpenAttemptDeps & { withSettlement: WithSettlement },
  paymentId: string,
): Promise<{ record: PaymentRecord; checkoutToken: string }> {
  const resumed = await deps.withSettlement(
    paymentId,
    async ({ record, lease }) => {
      if (record.failureReason === REGISTRATION_FAILED) throw registrationFailed(record.reference);
      const { token, hash } = newCheckoutToken();
      const renumber =
        record.status === 'pending' && !record.cardnetOrderId && deps.clock() < record.expiresAt;
      const reissued = await deps.repository.reissueCheckout(record.id, lease, {
        checkoutTokenHash: hash,
        renumber,
      });
      if (!reissued) throw leaseLost();
      const current = renumber ? await registerOrder(deps, reissued, lease) : reissued;
      return { record: current, checkoutToken: token };
    },
    { waitMs: RESUME_WAIT_MS },
  );
  if (!resumed) throw leaseLost();
  return resumed;
}

/** Registers the attempt's order at the card network and records it, under `lease`. */
async function registerOrder(
  deps: OpenAttemptDeps,
  record: PaymentRecord,
  lease: Lease,
): Promise<PaymentRecord> {
  const { id } = record;
  const returnUrl = new URL(`/checkout/return/${id}`, deps.publicBaseUrl).href;
  try {
    const order = await deps.cardNetworks[record.mode].register({
      orderNumber: record.orderNumber,
      amount: record.total,
      returnUrl,
      failUrl: returnUrl,
      language: record.language,
      description: `${record.merchantName} ${record.reference}`.slice(0, 99),
      // The card form closes with our window (SATIM accepts 600 s at the least).
      sessionTimeoutSecs: Math.max(
        600,
        Math.floor((record.expiresAt.getTime() - deps.clock().getTime()) / 1000),
      ),
      udf1: id,
    });
    const registered = await deps.repository.annotate(
      id,
      { cardnetOrderId: order.orderId, cardnetFormUrl: order.formUrl },
      lease,
    );
    // Taken over meanwhile: the order just registered is shown to nobody.
    if (!registered) throw leaseLost();
    return registered;
  } catch (error) {
    if (!(error instanceof CardNetworkError)) throw error;
    deps.logger.warn({ err: error, paymentId: id }, 'card network registration failed');
    // The reference is used up (hosted checkout) or released (AGENCY): retry anew.
    const failed = await deps.repository.transition(
      id,
      ['pending'],
      { status: 'failed', failureReason: REGISTRATION_FAILED },
      'payment.failed',
      lease,
    );
    if (!failed) throw leaseLost();
    throw registrationFailed(record.reference);
  }
}

function registrationFailed(reference: string): AppError {
  return new AppError(
    'CARDNET502_REGISTRATION_FAILED',
    'card network unavailable; retry with a new reference',
    { details: { reference } },
  );
}

/** Another holder (a retry of the key, the sweeper) has the attempt: its answer counts. */
function leaseLost(): AppError {
  return new AppError('SERVICE503_UNAVAILABLE', 'the payment is being settled; retry shortly', {
    details: { retryAfterSeconds: 1 },
  });
}
