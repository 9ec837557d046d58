import { setTimeout as sleep } from 'node:timers/promises';
import { FailureReasons } from '@dzpay/contracts';
import { AppError } from '@dzpay/platform';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPaymentsHarness, type PaymentsHarness } from './harness.ts';

/**
 * A hosted checkout's order is registered at the card network when its payer goes on to
 * pay, not when the merchant registers the payment: a registration waits for no network,
 * and a checkout nobody opens never reaches it. The network out at that moment leaves
 * the payment payable, and makes registrations answer CARDNET502 for a while.
 */

const DOWN_MS = 1_500;
let h: PaymentsHarness;

beforeAll(async () => {
  h = await startPaymentsHarness('payments-checkout-order', { CARDNET_DOWN_MS: String(DOWN_MS) });
});
afterEach(async () => {
  await h.control.clearFaults();
  // A test that left the network "out" must not refuse the next one's registrations.
  await sleep(DOWN_MS);
});
afterAll(async () => {
  await h?.stop();
});

const ordersOf = async (paymentId: string) =>
  (await h.control.ledger()).filter((order) => order.udf1 === paymentId);

const codeOf = (call: Promise<unknown>) =>
  call.then(
    () => 'answered',
    (error: unknown) => (error instanceof AppError ? error.code : String(error)),
  );

const orderNumberOf = async (paymentId: string) =>
  (
    await h.db<
      { order_number: string }[]
    >`select order_number from payments where id = ${paymentId}`
  )[0]!.order_number;

describe("a hosted checkout's card order", () => {
  it('is registered when the payer first goes on to pay, once for two clicks at the same moment', async () => {
    const payment = await h.register();
    expect(await ordersOf(payment.paymentId)).toEqual([]);
    const [one, two] = await Promise.all([
      h.toCardForm(payment.checkoutToken),
      h.toCardForm(payment.checkoutToken),
    ]);
    expect(two).toBe(one);
    expect(await ordersOf(payment.paymentId)).toHaveLength(1);
    await h.payCard(one);
    expect((await h.comeBack(payment.paymentId)).status).toBe('success');
  });

  it('whose register.do answer is lost is registered again under a new number; the lost one is never paid', async () => {
    const payment = await h.register();
    const number = await orderNumberOf(payment.paymentId);
    // Ten digits at least, as SATIM takes them (next_order_number(), the one insert path).
    expect(number).toMatch(/^\d{10,}$/);
    await h.control.setFaults([{ operation: 'register', effect: 'lost-answer', times: 1 }]);
    expect(await codeOf(h.toCardForm(payment.checkoutToken))).toBe(
      'CARDNET502_REGISTRATION_FAILED',
    );
    // The payment is still the payer's to pay, under another order number.
    expect((await h.get(payment.paymentId)).status).toBe('created');
    expect(await orderNumberOf(payment.paymentId)).not.toBe(number);
    const formUrl = await h.toCardForm(payment.checkoutToken);
    await h.payCard(formUrl);
    expect((await h.comeBack(payment.paymentId)).status).toBe('success');
    const orders = await ordersOf(payment.paymentId);
    expect(orders).toHaveLength(2);
    const lost = orders.find(
      (order) => order.orderId !== new URL(formUrl).searchParams.get('mdOrder'),
    );
    expect(lost!.authorizedAt).toBeNull();
  });
});

describe('registrations while the card network is out', () => {
  it('answer CARDNET502 (reference used up) from the failure seen until a register.do succeeds', async () => {
    const opened = await h.register();
    await h.control.setFaults([{ operation: 'register', effect: 'unavailable', times: 2 }]);
    expect(await codeOf(h.toCardForm(opened.checkoutToken))).toBe('CARDNET502_REGISTRATION_FAILED');

    const reference = `ORDER-OUT-${Date.now()}`;
    expect(await codeOf(h.register(reference))).toBe('CARDNET502_REGISTRATION_FAILED');
    expect(await codeOf(h.register(reference))).toBe('PAYMENT_INSTANCE409_DUPLICATE_REFERENCE');
    const [failed] = await h.db<{ status: string; failure_reason: string }[]>`
      select status, failure_reason from payments where reference = ${reference}`;
    expect(failed).toEqual({
      status: 'failed',
      failure_reason: FailureReasons.registrationFailed,
    });

    // The payer's next clicks: one more failure, then the network answers again.
    expect(await codeOf(h.toCardForm(opened.checkoutToken))).toBe('CARDNET502_REGISTRATION_FAILED');
    await h.toCardForm(opened.checkoutToken);
    expect(await codeOf(h.register())).toBe('answered');
  });

  it('are accepted again once the failure is older than CARDNET_DOWN_MS', async () => {
    const opened = await h.register();
    await h.control.setFaults([{ operation: 'register', effect: 'unavailable', times: 1 }]);
    expect(await codeOf(h.toCardForm(opened.checkoutToken))).toBe('CARDNET502_REGISTRATION_FAILED');
    expect(await codeOf(h.register())).toBe('CARDNET502_REGISTRATION_FAILED');
    await sleep(DOWN_MS + 100);
    expect(await codeOf(h.register())).toBe('answered');
  });
});
