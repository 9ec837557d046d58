import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPaymentsHarness, type PaymentsHarness, type Registered } from './harness.ts';

/**
 * Settlement holds no pooled connection while it waits on the card network. With a pool
 * of P connections, P + 3 settlements whose confirmation hangs all reach the card
 * network at once, and other requests are answered meanwhile. (When the settlement lock
 * sat on a reserved connection and its work took more from the same pool, P of them
 * left nothing for the work, and everything waited.)
 */

const POOL = 3;
const SETTLEMENTS = POOL + 3;
let h: PaymentsHarness;

beforeAll(async () => {
  h = await startPaymentsHarness('payments-pool', {
    DATABASE_POOL_SIZE: String(POOL),
    // Longer than the test: the confirmations hang until the test lets them go.
    CARDNET_TIMEOUT_MS: '60000',
    SWEEP_INTERVAL_MS: '3600000',
  });
});
afterAll(async () => {
  await h?.control.clearFaults().catch(() => undefined);
  await h?.stop();
});

describe('settlements waiting on a hanging card network', () => {
  it(`holds no connection: ${SETTLEMENTS} confirmations hang at once on a pool of ${POOL}, and other requests are answered`, async () => {
    const paid: Registered[] = [];
    for (let i = 0; i < SETTLEMENTS; i++) {
      const payment = await h.register();
      await h.payCard(await h.toCardForm(payment.checkoutToken));
      paid.push(payment);
    }
    await h.control.setFaults([{ operation: 'confirmOrder', effect: 'hang' }]);

    // Every payer comes back at once: each settlement confirms at the card network.
    const returns = paid.map((payment) => h.comeBack(payment.paymentId));
    await expect
      .poll(async () => (await h.control.stats()).inFlight.confirmOrder, { timeout: 10_000 })
      .toBe(SETTLEMENTS);

    // While all of them wait, payments still answers (each needs a connection).
    const view = await h.get(paid[0]!.paymentId);
    expect(view.status).toBe('processing');
    const another = await h.register();
    expect((await h.get(another.paymentId)).status).toBe('created');
    expect((await h.control.stats()).inFlight.confirmOrder).toBe(SETTLEMENTS);

    await h.control.clearFaults();
    const outcomes = await Promise.all(returns);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(SETTLEMENTS).fill('success'));
  });
});
