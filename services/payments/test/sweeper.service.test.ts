import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentsContext } from '../src/context.ts';
import { startPaymentsHarness, type PaymentsHarness } from './harness.ts';

/**
 * The sweeper is fair: an attempt it fails to decide backs off on its own, so a crowd of
 * attempts the card network cannot answer for never keeps a newer one waiting. (It once
 * took the 100 oldest each pass: 120 failing attempts starved everything behind them.)
 */

const FAILING = 120;
let h: PaymentsHarness;
let core: PaymentsContext;
/**
 * The sweeper's clock stands an hour ahead, still: every attempt's window has closed
 * for it, and a pass that takes longer than the first backoff (a loaded machine) does
 * not let the second pass find the failed attempts due again.
 */
const HOUR_AHEAD = new Date(Date.now() + 3_600_000);
const later = () => HOUR_AHEAD;

beforeAll(async () => {
  h = await startPaymentsHarness('payments-sweeper', {
    CARDNET_TIMEOUT_MS: '1000',
    // The service's own sweeper stays out of the way; this test runs passes itself.
    SWEEP_INTERVAL_MS: '86400000',
  });
  core = h.core({ clock: later });
}, 120_000);
afterAll(async () => {
  await h?.control.clearFaults().catch(() => undefined);
  await h?.stop();
});

describe('the sweeper', () => {
  it(`decides a newer attempt within two passes behind ${FAILING} older ones it cannot decide`, async () => {
    const failing = [];
    for (let i = 0; i < FAILING; i++) {
      const payment = await h.register();
      // Its payer opened the checkout: the order exists at the card network.
      await h.toCardForm(payment.checkoutToken);
      failing.push(payment);
    }
    const orderIds = (
      await h.db<{ cardnet_order_id: string }[]>`
        select cardnet_order_id from payments where id in ${h.db(failing.map((p) => p.paymentId))}`
    ).map((row) => row.cardnet_order_id);
    // The card network answers nothing about the older orders.
    await h.control.setFaults([
      { operation: 'getOrderStatusExtended', effect: 'unavailable', orderIds },
      { operation: 'reverse', effect: 'unavailable', orderIds },
    ]);
    // The newest attempt was paid; its payer never came back.
    const newest = await h.register();
    await h.payCard(await h.toCardForm(newest.checkoutToken));

    await h.sweepOnce(core);
    await h.sweepOnce(core);
    expect((await h.get(newest.paymentId)).status).toBe('success');

    // The failing ones wait out their backoff instead of taking every pass.
    const backoff = await h.db<{ sweep_failures: number; next_sweep_at: Date }[]>`
      select sweep_failures, next_sweep_at from payments
      where id in ${h.db(failing.map((p) => p.paymentId))}`;
    expect(backoff.every((row) => row.sweep_failures === 1)).toBe(true);
    expect(backoff.every((row) => row.next_sweep_at > later())).toBe(true);

    // Their turn comes again once the backoff is over.
    const afterBackoff = new Date(Date.now() + 3_700_000);
    expect(await core.repository.needingAttention(afterBackoff, 60_000, 500)).toHaveLength(FAILING);
  });
});
