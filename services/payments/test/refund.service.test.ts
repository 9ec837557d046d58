import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '@dzpay/platform';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPaymentsHarness, type PaymentsHarness } from './harness.ts';

/**
 * Refunds are exactly once although refund.do has no idempotency key: an intent is
 * written before the card network is asked and marked asked just before the call; a
 * lost answer leaves it pending, decided from the order's refund history by a retry with
 * the same Idempotency-Key or by the sweeper, and never asked again.
 */

const TIMEOUT_MS = 1_000;
const QUIET_MS = 1_500;
const HORIZON_MS = 7_000;
let h: PaymentsHarness;

beforeAll(async () => {
  h = await startPaymentsHarness('payments-refund', {
    CARDNET_TIMEOUT_MS: String(TIMEOUT_MS),
    REFUND_QUIET_MS: String(QUIET_MS),
    REFUND_HORIZON_MS: String(HORIZON_MS),
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

const refundCalls = async () => (await h.control.stats()).calls.refund;

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
  it('is pending, then refunded once when the merchant retries with the same key', async () => {
    const payment = await paidPayment();
    await lostAnswer(payment.orderId);

    // A partial refund: a retry that refunded again would still find money left.
    const refund = { amount: 50_000, key: 'refund-1' };
    const first = await h.refund(payment.id, refund);
    expect(first.refund).toMatchObject({ status: 'pending', amount: 50_000 });
    expect(first).toMatchObject({ refundedAmount: 0, pendingRefundAmount: 50_000 });
    expect((await h.get(payment.id)).pendingRefundAmount).toBe(50_000);
    // The card network did refund it.
    expect(await refundsAtNetwork(payment.orderId)).toHaveLength(1);

    await h.control.clearFaults();
    const retried = await h.refund(payment.id, refund);
    expect(retried).toMatchObject({
      status: 'success',
      refundedAmount: 50_000,
      pendingRefundAmount: 0,
      refund: { id: first.refund.id, status: 'succeeded', amount: 50_000 },
    });
    expect((await refundsAtNetwork(payment.orderId)).map((r) => r.amount)).toEqual([50_000]);
    // Replayed from now on.
    expect(await h.refund(payment.id, refund)).toEqual(retried);
  });

  it('is decided by the sweeper from the refund history, and the retry then answers it', async () => {
    const payment = await paidPayment();
    await lostAnswer(payment.orderId);
    const first = await h.refund(payment.id, { amount: 40_000, key: 'part-1' });
    expect(first.refund.status).toBe('pending');
    await h.control.clearFaults();

    await sleep(QUIET_MS + 100);
    await sweepOnce();
    await expect
      .poll(async () => (await h.get(payment.id)).refundedAmount, { timeout: 5_000 })
      .toBe(40_000);
    const [intent] = await h.db<{ network_reference: string | null }[]>`
      select network_reference from refunds where payment_id = ${payment.id}`;
    const [atNetwork] = await refundsAtNetwork(payment.orderId);
    expect(intent?.network_reference).toBe(atNetwork!.referenceNumber);

    const retried = await h.refund(payment.id, { amount: 40_000, key: 'part-1' });
    expect(retried).toMatchObject({ refundedAmount: 40_000, refund: { status: 'succeeded' } });
    expect((await refundsAtNetwork(payment.orderId)).map((r) => r.amount)).toEqual([40_000]);
  });

  it('held by the network past our timeout and the quiet time, is never asked again; it lands once', async () => {
    const payment = await paidPayment();
    // The card network holds refund.do well past CARDNET_TIMEOUT_MS + REFUND_QUIET_MS,
    // then refunds: what BPC gateways do with a request whose client gave up.
    const holdMs = TIMEOUT_MS + QUIET_MS + 2_000;
    await h.control.setFaults([
      { operation: 'refund', effect: 'hang', ms: holdMs, orderIds: [payment.orderId], times: 1 },
    ]);
    const started = Date.now();
    const partial = { amount: 60_000, key: 'late-1' };
    expect((await h.refund(payment.id, partial)).refund.status).toBe('pending');
    const asked = await refundCalls();

    // Past the quiet time, a retry and a sweeper pass find it not landed: still pending,
    // and nothing asked again.
    await sleep(TIMEOUT_MS + QUIET_MS + 200 - (Date.now() - started));
    expect((await h.refund(payment.id, partial)).refund.status).toBe('pending');
    await sweepOnce();
    expect(await refundCalls()).toBe(asked);
    expect(await refundsAtNetwork(payment.orderId)).toHaveLength(0);

    // It lands: recorded once, and the network refunded once.
    await sleep(Math.max(0, started + holdMs + 300 - Date.now()));
    const done = await h.refund(payment.id, partial);
    expect(done).toMatchObject({ refundedAmount: 60_000, refund: { status: 'succeeded' } });
    expect((await refundsAtNetwork(payment.orderId)).map((r) => r.amount)).toEqual([60_000]);
    expect(await refundCalls()).toBe(asked);
  });

  it('that never reached the card network stays pending until the horizon, then may be made again', async () => {
    const payment = await paidPayment();
    await h.control.setFaults([
      { operation: 'refund', effect: 'unavailable', orderIds: [payment.orderId], times: 1 },
    ]);
    const key = { key: 'never-1' };
    expect((await h.refund(payment.id, key)).refund.status).toBe('pending');
    expect(await refundsAtNetwork(payment.orderId)).toHaveLength(0);

    await sleep(QUIET_MS + 100);
    expect((await h.refund(payment.id, key)).refund.status).toBe('pending');
    await sleep(HORIZON_MS);
    const retried = await h.refund(payment.id, key);
    expect(retried).toMatchObject({ status: 'refunded', refundedAmount: payment.total });
    expect(await refundsAtNetwork(payment.orderId)).toHaveLength(1);
  });
});

describe('a refund the card network refused', () => {
  it('did not happen: 503 with the network code, and the same key may try again', async () => {
    const payment = await paidPayment();
    await h.control.setFaults([
      { operation: 'refund', effect: 'error-code', errorCode: '5', orderIds: [payment.orderId] },
    ]);
    const refused = await failureOf(h.refund(payment.id, { key: 'refused-1' }));
    expect(refused.code).toBe('SERVICE503_UNAVAILABLE');
    expect(refused.details).toMatchObject({ cardNetworkCode: '5' });
    expect((await h.get(payment.id)).pendingRefundAmount).toBe(0);

    await h.control.clearFaults();
    const retried = await h.refund(payment.id, { key: 'refused-1' });
    expect(retried).toMatchObject({ status: 'refunded', refund: { status: 'succeeded' } });
    expect(await refundsAtNetwork(payment.orderId)).toHaveLength(1);
  });
});

describe('a refund whose first try died before asking', () => {
  it('is asked by the next request for the payment, once', async () => {
    const payment = await paidPayment();
    // What a crash between writing the intent and marking it asked leaves.
    const id = randomUUID();
    await h.db`
      insert into refunds (id, payment_id, merchant_id, mode, amount, reason, idempotency_key,
        state, base_refunded)
      select ${id}, id, merchant_id, mode, 30000, 'merchant', 'crashed-1', 'requested', 0
      from payments where id = ${payment.id}`;
    await h.db`update payments set pending_refund = 30000 where id = ${payment.id}`;

    const retried = await h.refund(payment.id, { amount: 30_000, key: 'crashed-1' });
    expect(retried).toMatchObject({ refundedAmount: 30_000, refund: { id, status: 'succeeded' } });
    expect((await refundsAtNetwork(payment.orderId)).map((r) => r.amount)).toEqual([30_000]);
  });
});

describe('refunds of one payment', () => {
  it('refuses another refund while one is pending, then takes it', async () => {
    const payment = await paidPayment();
    const holdMs = TIMEOUT_MS + 1_500;
    await h.control.setFaults([
      { operation: 'refund', effect: 'hang', ms: holdMs, orderIds: [payment.orderId], times: 1 },
    ]);
    const started = Date.now();
    expect((await h.refund(payment.id, { amount: 10_000, key: 'a' })).refund.status).toBe(
      'pending',
    );
    // Another key cannot slip a refund in while the first's outcome is unknown...
    const other = await failureOf(h.refund(payment.id, { amount: 20_000, key: 'b' }));
    expect(other.code).toBe('PAYMENT_INSTANCE409_REFUND_PENDING');
    expect(other.details).toMatchObject({ pendingRefundAmount: 10_000 });
    // ...and its refusal is not kept for its key: once the first is known, it goes through.
    await sleep(Math.max(0, started + holdMs + 300 - Date.now()));
    const taken = await h.refund(payment.id, { amount: 20_000, key: 'b' });
    expect(taken.refundedAmount).toBe(30_000);
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

  it('never absorbs money the network refunded behind its back: it is an alarm', async () => {
    const payment = await paidPayment();
    // A refund made at the card network without dzpay (its back office, another system).
    const outside = await fetch(`${h.sandbox.url}/payment/rest/refund.do`, {
      method: 'POST',
      body: new URLSearchParams({
        userName: 'sandbox',
        password: 'sandbox',
        orderId: payment.orderId,
        amount: '20000',
      }),
    });
    expect(((await outside.json()) as { errorCode: string }).errorCode).toBe('0');
    const before = await unexplainedCount();

    const refunded = await h.refund(payment.id, { amount: 10_000, key: 'behind-1' });
    // dzpay counts its own refund only, and never offers more than either count leaves.
    expect(refunded.refundedAmount).toBe(10_000);
    expect(await unexplainedCount()).toBeGreaterThan(before);
    const beyond = await failureOf(h.refund(payment.id, { amount: payment.total - 10_000 }));
    expect(beyond.code).toBe('VALIDATION400_BAD_REQUEST');
  });
});

async function unexplainedCount(): Promise<number> {
  const metric = await h.runtime.ops.registry
    .getSingleMetric('dzpay_refund_unexplained_total')
    ?.get();
  return metric?.values[0]?.value ?? 0;
}

/** One pass of the service's own sweeper logic, now (its timer runs once a day here). */
function sweepOnce(): Promise<void> {
  return h.sweepOnce(h.core({ refundQuietMs: QUIET_MS }));
}
