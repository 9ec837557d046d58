import { setTimeout as sleep } from 'node:timers/promises';
import { Rpc } from '@dzpay/contracts';
import { AppError, requestRpc } from '@dzpay/platform';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPaymentsHarness, type PaymentsHarness } from './harness.ts';

/**
 * What the card network answers is read by its documented meaning: only "order not found"
 * (errorCode 6) says an order holds no money. Access denied (5: credentials wrong or
 * rotated, or the API user must change its password) and a system error (7) say nothing
 * about the order: the attempt stays held, nothing is failed or cancelled, and the money
 * is decided once the network answers again.
 */

const WINDOW_MS = 2_500;
const HORIZON_MS = 4_000;
let h: PaymentsHarness;

beforeAll(async () => {
  h = await startPaymentsHarness('payments-cardnet-errors', {
    PAYMENT_WINDOW_MS: String(WINDOW_MS),
    CARDNET_TIMEOUT_MS: '1000',
    OVERDUE_ALERT_MS: '1000',
    REFUND_HORIZON_MS: String(HORIZON_MS),
    // The sweeper stays out of the way unless a test lets it in (it runs here every 24 h).
    SWEEP_INTERVAL_MS: '86400000',
  });
});
afterEach(async () => {
  await h.control.restoreCredentials();
  await h.control.clearFaults();
});
afterAll(async () => {
  await h?.stop();
});

const sweepOnce = () => h.sweepOnce(h.core());

async function row(id: string) {
  const [payment] = await h.db<{ status: string; refund_due: boolean; failure_reason: string }[]>`
    select status, refund_due, failure_reason from payments where id = ${id}`;
  return payment!;
}

async function overdueAttempts(): Promise<number> {
  const metric = await h.runtime.ops.registry.getSingleMetric('dzpay_settlement_overdue')?.get();
  return metric?.values.find((v) => v.labels.kind === 'attempt')?.value ?? 0;
}

/** The network refuses dzpay's credentials (5), or answers every status read 7. */
const outages = {
  'credentials refused (errorCode 5)': () =>
    h.control.setCredentials({ userName: 'sandbox', password: 'rotated-yesterday' }),
  'a system error on every status read (errorCode 7)': () =>
    h.control.setFaults([
      { operation: 'getOrderStatusExtended', effect: 'error-code', errorCode: '7' },
      { operation: 'reverse', effect: 'error-code', errorCode: '7' },
    ]),
};
const restore = async () => {
  await h.control.restoreCredentials();
  await h.control.clearFaults();
};

describe.each(Object.entries(outages))('while the card network answers %s', (_, outage) => {
  it('a payer who paid and never came back is held past the window, then recorded paid', async () => {
    const payment = await h.register();
    await h.payCard(await h.toCardForm(payment.checkoutToken));
    await outage();

    await sleep(WINDOW_MS + 1_200);
    await sweepOnce();
    // Never "expired, no money taken": the network kept the money.
    expect(await row(payment.paymentId)).toMatchObject({ status: 'processing', refund_due: false });
    expect(await overdueAttempts()).toBeGreaterThan(0);
    const events = await h.db<{ type: string }[]>`
      select payload->>'type' as type from outbox
      where payload->'data'->>'paymentId' = ${payment.paymentId}`;
    expect(events.map((e) => e.type)).not.toContain('payment.failed');

    await restore();
    await h.db`update payments set next_sweep_at = null where id = ${payment.paymentId}`;
    await sweepOnce();
    expect((await row(payment.paymentId)).status).toBe('success');
  });

  it('a cancel answers 503 and cancels nothing; the payer may still pay', async () => {
    const payment = await h.register();
    const formUrl = await h.toCardForm(payment.checkoutToken);
    await outage();

    const refused = await cancel(payment.paymentId).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('SERVICE503_UNAVAILABLE');
    expect((await row(payment.paymentId)).status).toBe('processing');

    await restore();
    await h.payCard(formUrl);
    expect((await h.comeBack(payment.paymentId)).status).toBe('success');
  });
});

describe('a cancel whose reverse.do goes unanswered', () => {
  it('answers 503; a payment made meanwhile is never a success while the reversal may land, and it lands', async () => {
    const payment = await h.register();
    const formUrl = await h.toCardForm(payment.checkoutToken);
    // The network takes reverse.do without answering, and executes it 2 s later.
    await h.control.setFaults([{ operation: 'reverse', effect: 'late', ms: 2_000, times: 1 }]);
    const refused = await cancel(payment.paymentId).then(
      () => null,
      (error: unknown) => error,
    );
    expect((refused as AppError).code).toBe('SERVICE503_UNAVAILABLE');

    // The payer pays before the reversal lands: the money is deposited, for now.
    await h.payCard(formUrl);
    expect((await h.comeBack(payment.paymentId)).status).toBe('processing');
    expect((await row(payment.paymentId)).status).toBe('processing');

    // The reversal lands and gives the money back: the payment ends cancelled, never paid.
    await sleep(2_300);
    await h.comeBack(payment.paymentId);
    expect(await row(payment.paymentId)).toMatchObject({
      status: 'failed',
      failure_reason: 'cancelled',
    });
    const events = await h.db<{ type: string }[]>`
      select payload->>'type' as type from outbox
      where payload->'data'->>'paymentId' = ${payment.paymentId}`;
    expect(events.map((e) => e.type)).not.toContain('payment.succeeded');
  });

  it('records the payment paid once the reversal can no longer land', async () => {
    const payment = await h.register();
    const formUrl = await h.toCardForm(payment.checkoutToken);
    // 503 from the network's front: nothing reversed, but dzpay cannot know that.
    await h.control.setFaults([{ operation: 'reverse', effect: 'unavailable', times: 1 }]);
    await cancel(payment.paymentId).catch(() => undefined);
    await h.payCard(formUrl);
    expect((await h.comeBack(payment.paymentId)).status).toBe('processing');

    await sleep(HORIZON_MS + 200);
    expect((await h.comeBack(payment.paymentId)).status).toBe('success');
  });
});

describe('an order the network says does not exist (errorCode 6)', () => {
  it('took no money: an attempt past its window whose order is unknown expires', async () => {
    const payment = await h.register();
    await h.toCardForm(payment.checkoutToken);
    // The network lost the order (restored from a backup, say).
    await h.db`update payments set cardnet_order_id = 'lost-' || id where id = ${payment.paymentId}`;
    await sleep(WINDOW_MS + 200);
    await sweepOnce();
    expect(await row(payment.paymentId)).toMatchObject({
      status: 'failed',
      failure_reason: 'expired',
    });
  });
});

function cancel(id: string) {
  return requestRpc(
    h.runtime.nats,
    h.infra.natsPrefix,
    Rpc.paymentsCancel,
    { merchantId: h.merchant.merchantId, mode: 'test', id },
    { timeoutMs: 30_000 },
  );
}
