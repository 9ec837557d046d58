import { AppError } from '@dzpay/platform';
import type { PaymentsContext } from '../context.ts';
import { CardNetworkError } from '../card-network/card-network.ts';
import type { Lease } from '../store/payments-repository.ts';
import type { PaymentRecord } from '../domain/payment-record.ts';
import type { WithSettlement } from './settlement-lease.ts';

/**
 * What placing a card order runs on, taken from the payments context: the card networks,
 * what their register.do outcomes say of them (health), and the gateway's base URL the
 * network sends payers back to.
 */
export type OrderDeps = Pick<
  PaymentsContext,
  'repository' | 'cardNetworks' | 'health' | 'logger' | 'publicBaseUrl' | 'clock'
>;

/** A payer's second click waits this long for the first one's order. */
const PLACE_WAIT_MS = 3_000;

/**
 * Registers the attempt's order at the card network and records it, under `lease`. A
 * CardNetworkError is thrown as is (the caller decides what the attempt becomes), after
 * it told the network's health.
 */
export async function registerOrder(
  deps: OrderDeps,
  record: PaymentRecord,
  lease: Lease,
): Promise<PaymentRecord> {
  const { id } = record;
  const returnUrl = new URL(`/checkout/return/${id}`, deps.publicBaseUrl).href;
  const health = deps.health[record.mode];
  let order;
  try {
    order = await deps.cardNetworks[record.mode].register({
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
  } catch (error) {
    if (error instanceof CardNetworkError) {
      deps.logger.warn({ err: error, paymentId: id }, 'card network registration failed');
      if (saysNetworkIsOut(error)) health.failed(deps.clock().getTime());
    }
    throw error;
  }
  health.succeeded();
  const registered = await deps.repository.annotate(
    id,
    { cardnetOrderId: order.orderId, cardnetFormUrl: order.formUrl },
    lease,
  );
  // Taken over meanwhile: the order just registered is shown to nobody.
  if (!registered) throw leaseLost();
  return registered;
}

/**
 * The payer opened a hosted checkout and goes on to pay: its order at the card network,
 * registered now and once (a registration no longer waits for the network, and a
 * checkout nobody opens never reaches it). Under the attempt's settlement lease, so two
 * clicks register one order and the sweeper never decides the attempt meanwhile. When
 * the network fails, the attempt stays payable: it takes a new order number (the failed
 * call may have made an order the payer never saw, whose number cannot be used again)
 * and the payer is told to try again. A number the network says is used already (such
 * a call, made by a click whose process died) is replaced and tried again at once.
 */
export function orderPlacer(deps: OrderDeps & { withSettlement: WithSettlement }) {
  return async function placeOrder(record: PaymentRecord): Promise<PaymentRecord> {
    if (!needsOrder(record, deps.clock())) return record;
    const placed = await deps.withSettlement(
      record.id,
      async ({ record: fresh, lease }) => {
        let attempt = fresh;
        for (let tries = 1; needsOrder(attempt, deps.clock()); tries++) {
          try {
            return await registerOrder(deps, attempt, lease);
          } catch (error) {
            if (!(error instanceof CardNetworkError)) throw error;
            const renumbered = await deps.repository.renumber(attempt.id, lease);
            if (!renumbered) throw leaseLost();
            // The number was used by a call the network executed and nobody heard the
            // end of (a click whose process died, an answer lost): once more, anew.
            if (error.meaning !== 'duplicate-order-number' || tries > 1) {
              throw registrationFailed(attempt.reference);
            }
            attempt = renumbered;
          }
        }
        return attempt;
      },
      { waitMs: PLACE_WAIT_MS },
    );
    if (placed) return placed;
    const now = await deps.repository.findById(record.id);
    if (now && !needsOrder(now, deps.clock())) return now;
    throw leaseLost();
  };
}

function needsOrder(record: PaymentRecord, now: Date): boolean {
  return record.status === 'pending' && !record.cardnetOrderId && now < record.expiresAt;
}

/** Failures that say nobody can pay through the network now, not that this order is bad. */
function saysNetworkIsOut(error: CardNetworkError): boolean {
  return (
    error.kind === 'unavailable' || error.kind === 'timeout' || error.meaning === 'access-denied'
  );
}

export function registrationFailed(reference: string): AppError {
  return new AppError(
    'CARDNET502_REGISTRATION_FAILED',
    'card network unavailable; retry with a new reference',
    { details: { reference } },
  );
}

/** Another holder (a retry of the key, the sweeper) has the attempt: its answer counts. */
export function leaseLost(): AppError {
  return new AppError('SERVICE503_UNAVAILABLE', 'the payment is being settled; retry shortly', {
    details: { retryAfterSeconds: 1 },
  });
}
