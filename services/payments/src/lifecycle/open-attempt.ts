import { randomUUID } from 'node:crypto';
import {
  FailureReasons,
  type Language,
  type MerchantTerms,
  type ReferenceKind,
} from '@dzpay/contracts';
import { CardNetworkError } from '../card-network/card-network.ts';
import type { PaymentsContext } from '../context.ts';
import type { NewPayment } from '../store/payments-repository.ts';
import { chargeFor } from '../domain/charge.ts';
import type { PaymentRecord } from '../domain/payment-record.ts';
import { newCheckoutToken } from '../domain/tokens.ts';
import { renewWhileRunning } from '../store/lease-renewal.ts';
import { leaseLost, registerOrder, registrationFailed, type OrderDeps } from './place-order.ts';
import type { WithSettlement } from './settlement-lease.ts';

/** What opening an attempt runs on, taken from the payments context. */
export type OpenAttemptDeps = OrderDeps & Pick<PaymentsContext, 'windowMs'>;

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

const ATTEMPT_LEASE_MS = 10_000;
/** A registration still running after this is hung: its lease ends (the settlement's bound). */
const MAX_HOLD_MS = 2 * 60 * 1000;
/** A retry waits this long for a dead first try's lease to run out before it says busy. */
const RESUME_WAIT_MS = 3_000;

/** The row of a new attempt, and the checkout token only its hash is kept of. */
export function newAttempt(
  deps: Pick<OpenAttemptDeps, 'clock' | 'windowMs'>,
  spec: AttemptSpec,
): { payment: NewPayment; checkoutToken: string } {
  const charge = chargeFor(spec.amount, spec.terms.feeDzd);
  const { token, hash } = newCheckoutToken();
  const payment: NewPayment = {
    id: randomUUID(),
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
    expiresAt: new Date(deps.clock().getTime() + deps.windowMs),
    locksReference: spec.locksReference ?? false,
    productLabel: spec.productLabel ?? null,
  };
  return { payment, checkoutToken: token };
}

/**
 * Opens an attempt: the row and its payment.created event in one transaction (bound
 * there to the request's Idempotency-Key, when it has one). A hosted checkout's order
 * is registered at the card network when its payer opens it (orderPlacer); while the
 * network is known to be out, the attempt is failed at once and answers CARDNET502 (the
 * reference is used up), as the spec's registration does. An AGENCY attempt, whose payer
 * goes straight to the card form, registers its order now (the form closes with our
 * window), holding the attempt's settlement lease from the insert on, like anything else
 * that talks to the card network about it; the network down fails it with CARDNET502.
 * Null when the row could not be taken (a reference used, or held by another attempt).
 */
export async function openAttempt(
  deps: OpenAttemptDeps,
  spec: AttemptSpec,
  options: { idempotencyKey?: { key: string; owner: string } } = {},
): Promise<{ record: PaymentRecord; checkoutToken: string } | null> {
  const { repository } = deps;
  const { payment, checkoutToken } = newAttempt(deps, spec);
  const key = options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {};
  if (spec.channel === 'CHECKOUT') {
    const record = await repository.insert(payment, key);
    if (!record) return null;
    if (!deps.health[record.mode].isDown(deps.clock().getTime())) return { record, checkoutToken };
    return await failRegistration(deps, record);
  }

  // The settlement lease an AGENCY attempt holds from its insert on, renewed while its
  // order is registered.
  const leaseMs = ATTEMPT_LEASE_MS;
  const lease = randomUUID();
  const record = await repository.insert(payment, { lease: { id: lease, ms: leaseMs }, ...key });
  if (!record) return null;
  const renewal = renewWhileRunning({
    leaseMs,
    maxHoldMs: MAX_HOLD_MS,
    renew: () => repository.renewSettlement(record.id, lease, leaseMs),
    logger: deps.logger,
    subject: { paymentId: record.id },
  });
  try {
    return { record: await registerOrder(deps, record, lease), checkoutToken };
  } catch (error) {
    if (error instanceof CardNetworkError) await failRegistration(deps, record, lease);
    throw error;
  } finally {
    renewal.stop();
    await repository
      .releaseSettlement(record.id, lease)
      .catch((err: unknown) =>
        deps.logger.warn(
          { err, paymentId: record.id },
          'registration lease not released; it runs out',
        ),
      );
  }
}

/**
 * The attempt failed for want of a card network; CARDNET502 thrown. Its reference is
 * used up (hosted checkout) or released (AGENCY): the merchant or payer retries anew.
 */
async function failRegistration(
  deps: OpenAttemptDeps,
  record: PaymentRecord,
  lease?: string,
): Promise<never> {
  const failed = await deps.repository.transition(
    record.id,
    ['pending'],
    { status: 'failed', failureReason: REGISTRATION_FAILED },
    'payment.failed',
    lease,
  );
  if (!failed) throw leaseLost();
  throw registrationFailed(record.reference);
}

/**
 * A registration retried under its Idempotency-Key whose first try committed `paymentId`
 * and died before its answer was stored (so before anyone saw it): answers that payment
 * as the first try would have. Its checkout token was never shown and is kept only
 * hashed, so it gets a new one (its order, if any, is registered when a payer opens
 * it). One whose registration failed answers CARDNET502 again.
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
      const reissued = await deps.repository.reissueCheckout(record.id, lease, hash);
      if (!reissued) throw leaseLost();
      return { record: reissued, checkoutToken: token };
    },
    { waitMs: RESUME_WAIT_MS },
  );
  if (!resumed) throw leaseLost();
  return resumed;
}
