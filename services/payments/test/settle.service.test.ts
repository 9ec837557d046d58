import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentsContext } from '../src/context.ts';
import { startPaymentsHarness, type PaymentsHarness } from './harness.ts';

/**
 * Settlement: money the card network took for an attempt dzpay refuses goes back once,
 * whatever answer is lost on the way; a settlement's lease is what lets one process at
 * a time talk to the card network about a payment, and one that died lets go when its
 * lease runs out; a settlement that lost its lease writes nothing.
 */

const WINDOW_MS = 1_000;
const QUIET_MS = 500;
let h: PaymentsHarness;
let core: PaymentsContext;

beforeAll(async () => {
  h = await startPaymentsHarness('payments-settle', {
    PAYMENT_WINDOW_MS: String(WINDOW_MS),
    SWEEP_INTERVAL_MS: '86400000',
    REFUND_QUIET_MS: String(QUIET_MS),
  });
  core = h.core({ refundQuietMs: QUIET_MS });
});
afterEach(async () => {
  await h.control.clearFaults();
});
afterAll(async () => {
  await h?.stop();
});

const sweepOnce = () => h.sweepOnce(core);

const row = async (id: string) =>
  (
    await h.db<{ status: string; failure_reason: string | null; refund_due: boolean }[]>`
      select status, failure_reason, refund_due from payments where id = ${id}`
  )[0]!;

describe('money dzpay refuses', () => {
  it('paid after the window: failed, and refunded once although the refund answer was lost', async () => {
    const payment = await h.register();
    const formUrl = await h.toCardForm(payment.checkoutToken);
    await sleep(WINDOW_MS + 200);
    await h.payCard(formUrl);
    const orderId = new URL(formUrl).searchParams.get('mdOrder')!;
    // confirmOrder's own status read goes through; the refund's answer and the reads
    // after it are lost.
    await h.loseRefundAnswer(orderId, 2);

    expect((await h.comeBack(payment.paymentId)).status).toBe('expired');
    expect(await row(payment.paymentId)).toEqual({
      status: 'failed',
      failure_reason: 'expired',
      refund_due: true,
    });
    await h.control.clearFaults();
    await sleep(QUIET_MS + 100);
    await sweepOnce();
    await sweepOnce();

    expect((await row(payment.paymentId)).refund_due).toBe(false);
    const order = (await h.control.ledger()).find((o) => o.orderId === orderId)!;
    expect(order.refunds.map((r) => r.amount)).toEqual([order.amount]);
    const intents = await h.db<{ reason: string; state: string }[]>`
      select reason, state from refunds where payment_id = ${payment.paymentId}`;
    expect(intents).toEqual([{ reason: 'late', state: 'succeeded' }]);
  });
});

describe('an attempt given up on', () => {
  it('whose order could not be cancelled at the card network is cancelled by the next sweep', async () => {
    const payment = await h.register();
    const formUrl = await h.toCardForm(payment.checkoutToken);
    const orderId = new URL(formUrl).searchParams.get('mdOrder')!;
    await sleep(WINDOW_MS + 200);
    // Down for the whole first pass: the expiry's cancellation and the watch's.
    await h.control.setFaults([
      { operation: 'reverse', effect: 'unavailable', orderIds: [orderId], times: 2 },
    ]);
    await sweepOnce();
    // Expired, and watched: the payer could still pay the order.
    expect(await row(payment.paymentId)).toEqual({
      status: 'failed',
      failure_reason: 'expired',
      refund_due: true,
    });
    expect((await h.control.ledger()).find((o) => o.orderId === orderId)?.status).toBe(0);

    await sweepOnce();
    expect((await row(payment.paymentId)).refund_due).toBe(false);
    expect((await h.control.ledger()).find((o) => o.orderId === orderId)?.status).toBe(3);
  });
});

describe('settlement leases', () => {
  it('a payment another (dead) process was settling is settled once its lease ran out', async () => {
    const payment = await h.register();
    await h.payCard(await h.toCardForm(payment.checkoutToken));
    // A process claimed the payment and died: its lease runs for 3 more seconds.
    await h.db`
      update payments set settle_lease = ${randomUUID()},
        settle_lease_until = now() + interval '3 seconds'
      where id = ${payment.paymentId}`;
    // The payer's return waits a moment, then shows the payment being confirmed.
    expect((await h.comeBack(payment.paymentId)).status).toBe('processing');
    await sleep(1_500);
    expect((await h.comeBack(payment.paymentId)).status).toBe('success');
  });

  it('a settlement that lost its lease writes nothing', async () => {
    const payment = await h.register();
    const claimed = await core.repository.claimSettlement(payment.paymentId, 10_000);
    expect(claimed).not.toBeNull();
    // It paused past its lease, and another settlement took the payment.
    await h.db`update payments set settle_lease = ${randomUUID()} where id = ${payment.paymentId}`;
    const written = await core.repository.transition(
      payment.paymentId,
      ['pending'],
      { status: 'failed', failureReason: 'expired' },
      'payment.failed',
      claimed!.lease,
    );
    expect(written).toBeNull();
    expect(
      await core.repository.annotate(payment.paymentId, { refundDue: true }, claimed!.lease),
    ).toBeNull();
    expect((await row(payment.paymentId)).status).toBe('pending');
    const events = await h.db`
      select 1 from outbox where payload->>'type' = 'payment.failed'
        and payload->'data'->>'paymentId' = ${payment.paymentId}`;
    expect(events).toHaveLength(0);
  });
});
