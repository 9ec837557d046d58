import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '@dzpay/platform';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPaymentsHarness, type PaymentsHarness } from './harness.ts';

/**
 * Refunds are exactly-once: an intent is written before the card network is asked, a
 * lost answer leaves it open, and a retry with the same Idempotency-Key or the sweeper
 * completes it from the card network's refunded amount instead of refunding again.
 */

const QUIET_MS = 1_500;
let h: PaymentsHarness;

beforeAll(async () => {
  h = await startPaymentsHarness('payments-refund', {
    CARDNET_TIMEOUT_MS: '1000',
    REFUND_QUIET_MS: String(QUIET_MS),
    // The sweeper stays out of the way unless a test lets it in (it runs here every 24 h).
    SWEEP_INTERVAL_MS: '86400000',
  });
});
afterEach(async () => {
  await h.control.clearFaults();
});
afterAll(async () => {
  await h?.stop();
});

/** A hosted-checkout payment paid with the approved card: 1 500 DZD + 50 DZD fee. */
async function paidPayment(): Promise<{ id: string; orderId: string; total: number }> {
  const payment = await h.register();
  await h.payCard(await h.toCardForm(payment.checkoutToken));
  expect((await h.comeBack(payment.paymentId)).status).toBe('success');
  const view = await h.get(payment.paymentId);
  return { id: view.id, orderId: view.orderId!, total: view.total };
}

async function refundsAtNetwork(orderId: string) {
  return (await h.control.ledger()).find((order) => order.orderId === orderId)!.refunds;
}

async function failureOf(call: Promise<unknown>): Promise<AppError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

/**
 * refund.do acts but its answer is lost, and so are the status reads right after it
 * (the refund's own read before it asks, how much is left, goes through).
 */
const lostAnswer = (orderId: string) => h.loseRefundAnswer(orderId, 4);

describe('a refund whose answer was lost', () => {
  it('is refunded once when the merchant retries with the same Idempotency-Key', async () => {
    const payment = await paidPayment();
    await lostAnswer(payment.orderId);

    // A partial refund: a retry that refunded again would still find money left.
    const refund = { amount: 50_000, key: 'refund-1' };
    const first = await failureOf(h.refund(payment.id, refund));
    expect(first.code).toBe('SERVICE503_UNAVAILABLE');
    expect(first.details).toMatchObject({ refund: 'pending' });
    // The card network did refund it.
    expect(await refundsAtNetwork(payment.orderId)).toHaveLength(1);

    await h.control.clearFaults();
    const retried = await h.refund(payment.id, refund);
    expect(retried).toMatchObject({ status: 'success', refundedAmount: 50_000 });
    expect((await refundsAtNetwork(payment.orderId)).map((r) => r.amount)).toEqual([50_000]);
    // Replayed from now on.
    expect(await h.refund(payment.id, refund)).toEqual(retried);
  });

  it('is completed by the sweeper, and the retry then answers it', async () => {
    const payment = await paidPayment();
    await lostAnswer(payment.orderId);
    const first = await failureOf(h.refund(payment.id, { amount: 40_000, key: 'part-1' }));
    expect(first.code).toBe('SERVICE503_UNAVAILABLE');
    await h.control.clearFaults();

    await sleep(QUIET_MS + 100);
    const [intent] = await h.db<{ id: string }[]>`
      select id from refunds where payment_id = ${payment.id} and state = 'requested'`;
    expect(intent).toBeDefined();
    await sweepOnce();
    await expect
      .poll(async () => (await h.get(payment.id)).refundedAmount, { timeout: 5_000 })
      .toBe(40_000);

    const retried = await h.refund(payment.id, { amount: 40_000, key: 'part-1' });
    expect(retried).toMatchObject({ status: 'success', refundedAmount: 40_000 });
    expect((await refundsAtNetwork(payment.orderId)).map((r) => r.amount)).toEqual([40_000]);
  });

  it('answered late (after our timeout), is not made again by a retry that finds it not landed yet', async () => {
    const payment = await paidPayment();
    // The card network holds refund.do past our 1 s timeout, then refunds.
    await h.control.setFaults([
      { operation: 'refund', effect: 'hang', ms: 2_500, orderIds: [payment.orderId], times: 1 },
    ]);
    const first = await failureOf(h.refund(payment.id, { key: 'late-1' }));
    expect(first.details).toMatchObject({ refund: 'pending' });
    // Not landed yet, and too soon to ask again: still pending, nothing asked.
    const second = await failureOf(h.refund(payment.id, { key: 'late-1' }));
    expect(second.details).toMatchObject({ refund: 'pending' });
    expect((await h.control.stats()).calls.refund).toBeGreaterThan(0);
    const asked = (await h.control.stats()).calls.refund;

    await sleep(2_500);
    const done = await h.refund(payment.id, { key: 'late-1' });
    expect(done).toMatchObject({ status: 'refunded', refundedAmount: payment.total });
    expect((await h.control.stats()).calls.refund).toBe(asked);
    expect(await refundsAtNetwork(payment.orderId)).toHaveLength(1);
  });

  it('that never reached the card network is asked once more after the quiet time', async () => {
    const payment = await paidPayment();
    await h.control.setFaults([
      { operation: 'refund', effect: 'unavailable', orderIds: [payment.orderId], times: 1 },
    ]);
    const first = await failureOf(h.refund(payment.id, { key: 'never-1' }));
    expect(first.code).toBe('SERVICE503_UNAVAILABLE');
    expect(await refundsAtNetwork(payment.orderId)).toHaveLength(0);

    await sleep(QUIET_MS + 100);
    const retried = await h.refund(payment.id, { key: 'never-1' });
    expect(retried).toMatchObject({ status: 'refunded', refundedAmount: payment.total });
    expect(await refundsAtNetwork(payment.orderId)).toHaveLength(1);
  });
});

describe('refunds of one payment', () => {
  it('blocks another refund while one has an unknown outcome', async () => {
    const payment = await paidPayment();
    await lostAnswer(payment.orderId);
    await failureOf(h.refund(payment.id, { amount: 10_000, key: 'a' }));
    // Another key cannot slip a refund in between: the open one is completed first.
    await h.control.clearFaults();
    const other = await h.refund(payment.id, { amount: 20_000, key: 'b' });
    expect(other.refundedAmount).toBe(30_000);
    expect((await refundsAtNetwork(payment.orderId)).map((r) => r.amount)).toEqual([
      10_000, 20_000,
    ]);
    expect((await h.refund(payment.id, { amount: 10_000, key: 'a' })).refundedAmount).toBe(30_000);
  });

  it('ten full refunds at once, with ten keys: one goes through', async () => {
    const payment = await paidPayment();
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        h.refund(payment.id, { key: `all-${i}` }).then(
          (view) => view.status,
          (e: unknown) => (e instanceof AppError ? e.code : String(e)),
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'refunded')).toHaveLength(1);
    expect(await refundsAtNetwork(payment.orderId)).toHaveLength(1);
    expect((await h.get(payment.id)).refundedAmount).toBe(payment.total);
  });
});

/** One pass of the service's own sweeper logic, now (its timer runs once a day here). */
function sweepOnce(): Promise<void> {
  return h.sweepOnce(h.core({ refundQuietMs: QUIET_MS }));
}
