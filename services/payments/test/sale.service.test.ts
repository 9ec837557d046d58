import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentsRepository } from '../src/store/payments-repository.ts';
import {
  expectOneOpensSale,
  qrToken,
  refusal,
  startPaymentsHarness,
  type PaymentsHarness,
} from './harness.ts';

/**
 * One success per sale (merchant, mode, reference kind, reference, epoch), held by the
 * database. The window is short and the sweeper never runs here, so an attempt whose
 * window closed is undecided until someone settles it: the case that once sold a
 * product twice.
 */

const WINDOW_MS = 1_500;
let h: PaymentsHarness;

beforeAll(async () => {
  h = await startPaymentsHarness('payments-sale', {
    PAYMENT_WINDOW_MS: String(WINDOW_MS),
    SWEEP_INTERVAL_MS: '3600000',
  });
});
afterAll(async () => {
  await h?.stop();
});

/** Status of every attempt of a reference, oldest first. */
async function attemptsOf(reference: string) {
  return h.db<{ id: string; status: string; failure_reason: string | null; epoch: number }[]>`
    select id, status, failure_reason, epoch from payments
    where reference = ${reference} order by created_at`;
}

describe('one success per sale', () => {
  it('refuses a second payer as already paid when the first paid but never came back and the window closed before the sweeper ran', async () => {
    const qr = qrToken();
    const first = await h.startQr(qr);
    await h.payCard(await h.toCardForm(first.checkoutToken));
    // Payer 1's redirect back to dzpay is lost; the window closes; nobody settles.
    await sleep(WINDOW_MS + 200);
    expect((await attemptsOf(qr)).map((a) => a.status)).toEqual(['processing']);

    expect(await refusal(h.startQr(qr))).toBe('PARTNER409_ALREADY_PAID');
    expect((await attemptsOf(qr)).map((a) => a.status)).toEqual(['success']);
    // And again, now that the success is recorded.
    expect(await refusal(h.startQr(qr))).toBe('PARTNER409_ALREADY_PAID');
    expect(await attemptsOf(qr)).toHaveLength(1);
  });

  it('tells a second payer the reference is locked while the first is on the card form, and still after the window until settlement decided', async () => {
    const qr = qrToken();
    const first = await h.startQr(qr);
    await h.toCardForm(first.checkoutToken);
    expect(await refusal(h.startQr(qr))).toBe('REFERENCE409_LOCKED');

    // Past the window the card network is asked: the order was never paid, so it is
    // cancelled there, the attempt fails, and the second payer gets the reference.
    await sleep(WINDOW_MS + 200);
    const second = await h.startQr(qr);
    const attempts = await attemptsOf(qr);
    expect(attempts.map((a) => [a.status, a.failure_reason])).toEqual([
      ['failed', 'expired'],
      ['pending', null],
    ]);
    expect(attempts[1]!.id).toBe(second.paymentId);
    const ledger = await h.control.ledger();
    const order = ledger.find((o) => o.udf1 === first.paymentId);
    expect(order?.status).toBe(3);
  });

  it('lets many payers race for one sale: exactly one opens it', async () => {
    await expectOneOpensSale(h, 30);
  });

  it('sells a new configuration version of a QR code again', async () => {
    const qr = qrToken();
    const v1 = await h.startQr(qr, 1);
    await h.payCard(await h.toCardForm(v1.checkoutToken));
    expect((await h.comeBack(v1.paymentId)).status).toBe('success');
    expect(await refusal(h.startQr(qr, 1))).toBe('PARTNER409_ALREADY_PAID');

    const v2 = await h.startQr(qr, 2);
    await h.payCard(await h.toCardForm(v2.checkoutToken));
    expect((await h.comeBack(v2.paymentId)).status).toBe('success');
    expect((await attemptsOf(qr)).map((a) => [a.status, a.epoch])).toEqual([
      ['success', 1],
      ['success', 2],
    ]);
  });

  it('keeps a product and a QR code of the same name apart', async () => {
    const repository = paymentsRepository(h.db);
    const shared = qrToken();
    const attempt = (referenceKind: 'product' | 'qr') => ({
      id: randomUUID(),
      merchantId: h.merchant.merchantId,
      mode: 'test' as const,
      channel: 'AGENCY' as const,
      reference: shared,
      referenceKind,
      epoch: referenceKind === 'qr' ? 1 : 0,
      merchantName: 'Shop',
      amount: 10_000,
      fee: 0,
      total: 10_000,
      currency: 'DZD',
      language: 'fr' as const,
      status: 'pending' as const,
      successUrl: null,
      failureUrl: null,
      metadata: null,
      checkoutTokenHash: Buffer.from(randomUUID()),
      expiresAt: new Date(Date.now() + 60_000),
      locksReference: true,
      productLabel: null,
    });
    expect(await repository.insert(attempt('product'))).not.toBeNull();
    expect(await repository.insert(attempt('qr'))).not.toBeNull();
    expect(await repository.insert(attempt('product'))).toBeNull();
  });
});

describe('the backstop behind the index', () => {
  it('refunds a success that would be the second of its sale, records it failed and publishes payment.failed', async () => {
    // This test's own database loses the rule that keeps a second attempt from opening
    // after a success (the index over in-flight attempts only, as it once was): the
    // success check must still hold.
    await h.db`drop index payments_one_sale`;
    await h.db`
      create unique index payments_one_sale on payments
        (merchant_id, mode, reference_kind, reference, epoch)
      where locks_reference and status in ('pending', 'processing')`;
    try {
      const qr = qrToken();
      const first = await h.startQr(qr);
      await h.payCard(await h.toCardForm(first.checkoutToken));
      expect((await h.comeBack(first.paymentId)).status).toBe('success');

      // Once the Redis gate has expired, nothing but the index refuses a new attempt.
      await sleep(WINDOW_MS + 200);
      const second = await h.startQr(qr);
      await h.payCard(await h.toCardForm(second.checkoutToken));
      expect((await h.comeBack(second.paymentId)).status).toBe('failed');

      expect((await attemptsOf(qr)).map((a) => [a.status, a.failure_reason])).toEqual([
        ['success', null],
        ['failed', 'already paid'],
      ]);
      const orders = await h.control.ledger();
      const secondOrder = orders.find((o) => o.udf1 === second.paymentId)!;
      expect(secondOrder.refundedAmount).toBe(secondOrder.amount);
      expect(secondOrder.refunds).toHaveLength(1);
      const events = await h.db<{ type: string }[]>`
        select payload->>'type' as type from outbox
        where payload->'data'->>'paymentId' = ${second.paymentId} order by created_at`;
      expect(events.map((e) => e.type)).toEqual([
        'payment.created',
        'payment.processing',
        'payment.failed',
      ]);
      const [intent] = await h.db<{ reason: string; state: string }[]>`
        select reason, state from refunds where payment_id = ${second.paymentId}`;
      expect(intent).toEqual({ reason: 'already-paid', state: 'succeeded' });
    } finally {
      await h.db`drop index payments_one_sale`;
      await h.db`
        create unique index payments_one_sale on payments
          (merchant_id, mode, reference_kind, reference, epoch)
        where locks_reference and status in ('pending', 'processing', 'success')`;
    }
  });
});
