import { describe, expect, it } from 'vitest';
import type { CardInput } from '../src/domain/card.ts';
import { confirmOrder } from '../src/domain/confirmation.ts';
import {
  actionCodeOf,
  AMOUNT_EXCEEDS,
  expireIfStale,
  INVALID_FOR_STATUS,
  payOrder,
  redirectTarget,
  refundOrder,
  registerOrder,
  reverseOrder,
  WRONG_STATE,
  type Order,
} from '../src/domain/order.ts';
import { judgeCard } from '../src/domain/test-cards.ts';

const t0 = new Date('2026-11-21T12:00:00Z');
const later = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

const registered = registerOrder(
  {
    orderNumber: 'N1',
    amount: 150_000,
    returnUrl: 'https://shop.example/back?cart=7',
    failUrl: 'https://shop.example/failed',
    language: 'fr',
    description: '',
    sessionTimeoutSecs: 600,
    jsonParams: {},
  },
  'order-1',
  t0,
);

const card = (pan: string, cvv = '123'): CardInput => ({
  pan,
  expiryMonth: 12,
  expiryYear: 2028,
  cvv,
  cardholderName: 'Test Payer',
});

function pay(order: Order, pan: string, at = later(60), cvv = '123') {
  const input = card(pan, cvv);
  return payOrder(
    order,
    { card: input, verdict: judgeCard(input, at), approvalCode: '123456' },
    at,
  );
}

const deposited = pay(registered, '6280580000000009').order;

describe('an order', () => {
  it('starts registered with no payment attempt (-100)', () => {
    expect(registered.status).toBe(0);
    expect(actionCodeOf(registered)).toBe(-100);
  });

  it('is deposited by an approved card, keeping only the masked PAN', () => {
    const paid = pay(registered, '6280580000000009');
    expect(paid.charged).toBe(true);
    expect(paid.order).toMatchObject({
      status: 2,
      outcome: 'approved',
      approvalCode: '123456',
      card: { maskedPan: '628058**0009', expiration: '202812', cardholderName: 'Test Payer' },
    });
    expect(JSON.stringify(paid.order)).not.toContain('6280580000000009');
  });

  it('is declined (6) by a declining card, without an approval code', () => {
    const paid = pay(registered, '6280580000000017');
    expect(paid).toMatchObject({ charged: false, order: { status: 6, approvalCode: null } });
    expect(actionCodeOf(paid.order)).toBe(116);
  });

  it('never decides twice: a second payment leaves the first verdict', () => {
    const again = pay(deposited, '6280580000000017');
    expect(again.charged).toBe(false);
    expect(again.order).toBe(deposited);
  });

  it('expires unpaid at its session timeout (6, -2007), not a moment before', () => {
    expect(expireIfStale(registered, later(599))).toBe(registered);
    const expired = expireIfStale(registered, later(600));
    expect(expired).toMatchObject({ status: 6, outcome: 'sessionExpired' });
    expect(actionCodeOf(expired)).toBe(-2007);
  });

  it('refuses a payment once its session expired', () => {
    const paid = pay(registered, '6280580000000009', later(601));
    expect(paid).toMatchObject({ charged: false, order: { status: 6, outcome: 'sessionExpired' } });
  });

  it('never expires once paid', () => {
    expect(expireIfStale(deposited, later(10_000))).toBe(deposited);
  });
});

let refundSequence = 0;
/** A refund with its own RRN, at t0 + 2 minutes unless said. */
function refund(order: Order, amount: number, at = later(120)) {
  refundSequence += 1;
  const receipt = { referenceNumber: `RRN-${refundSequence}`, approvalCode: '654321' };
  return refundOrder(order, { amount, ...receipt }, at);
}

describe('refunds', () => {
  it('make the order refunded (4) at a partial refund and count what went back', () => {
    expect(refund(deposited, 50_000)).toMatchObject({
      ok: true,
      value: { status: 4, refundedAmount: 50_000 },
    });
  });

  it('take more partial refunds from a refunded order (4) while money is left, never beyond', () => {
    const partly = refund(deposited, 50_000);
    if (!partly.ok) throw new Error(partly.error);
    expect(partly.value.status).toBe(4);
    const again = refund(partly.value, 60_000);
    expect(again).toMatchObject({ ok: true, value: { status: 4, refundedAmount: 110_000 } });
    if (!again.ok) return;
    expect(again.value.refunds.map((taken) => taken.amount)).toEqual([50_000, 60_000]);
    expect(refund(again.value, 40_001)).toEqual({ ok: false, error: AMOUNT_EXCEEDS });
  });

  it('make the order refunded (4) once all is returned', () => {
    const first = refund(deposited, 50_000);
    const second = first.ok ? refund(first.value, 100_000) : first;
    expect(second).toMatchObject({ ok: true, value: { status: 4, refundedAmount: 150_000 } });
  });

  it('refuse more than what remains (7, amount exceeds), zero, and fractions', () => {
    expect(refund(deposited, 150_001)).toEqual({ ok: false, error: AMOUNT_EXCEEDS });
    const partly = refund(deposited, 100_000);
    expect(partly.ok && refund(partly.value, 50_001)).toEqual({ ok: false, error: AMOUNT_EXCEEDS });
    expect(refund(deposited, 0).ok).toBe(false);
    expect(refund(deposited, 1.5).ok).toBe(false);
  });

  it('refuse unpaid and declined orders: the payment is not in the right state', () => {
    const refused = { ok: false, error: WRONG_STATE };
    expect(refund(registered, 1)).toEqual(refused);
    expect(refund(pay(registered, '6280580000000025').order, 1)).toEqual(refused);
  });

  it('refuse a fully refunded order as exceeding the debit: its state still takes refunds', () => {
    const full = refund(deposited, 150_000);
    expect(full.ok && refund(full.value, 1)).toEqual({ ok: false, error: AMOUNT_EXCEEDS });
  });
});

describe('reversal', () => {
  it('reverses a deposited order (3), keeping its payment verdict', () => {
    expect(reverseOrder(deposited, later(120))).toMatchObject({
      ok: true,
      value: { status: 3, outcome: 'approved' },
    });
  });

  it('cancels a registered order (3, action code 10) so it can no longer be paid', () => {
    const reversed = reverseOrder(registered, later(30));
    expect(reversed).toMatchObject({ ok: true, value: { status: 3, outcome: 'cancelled' } });
    if (!reversed.ok) return;
    expect(actionCodeOf(reversed.value)).toBe(10);
    expect(pay(reversed.value, '6280580000000009').charged).toBe(false);
  });

  it('happens once: a second reversal is an invalid operation for the status', () => {
    const once = reverseOrder(deposited, later(120));
    expect(once.ok && reverseOrder(once.value, later(121))).toEqual({
      ok: false,
      error: INVALID_FOR_STATUS,
    });
  });

  it('refuses declined, refunded and partly refunded orders', () => {
    expect(reverseOrder(pay(registered, '6280580000000017').order, later(120)).ok).toBe(false);
    const partly = refund(deposited, 1);
    expect(partly.ok && reverseOrder(partly.value, later(180)).ok).toBe(false);
  });
});

describe('confirmation', () => {
  it('answers 0 the first time for a paid order, 2 every later time, still paid', () => {
    const first = confirmOrder(deposited, later(90));
    expect(first.verdict.errorCode).toBe('0');
    const second = confirmOrder(first.order, later(91));
    expect(second.verdict).toEqual({
      errorCode: '2',
      errorMessage: 'The order is declined because of an error in the payment credentials',
    });
    expect(second.order.status).toBe(2);
  });

  it('answers 3 for a declined order and for one nobody paid yet, which it leaves payable', () => {
    const declined = pay(registered, '6280580000000017').order;
    expect(confirmOrder(declined, later(90)).verdict).toEqual({
      errorCode: '3',
      errorMessage: 'Order is not confirmed due to order’s state',
    });
    const unpaid = confirmOrder(registered, later(10));
    expect(unpaid.verdict.errorCode).toBe('3');
    expect(confirmOrder(unpaid.order, later(11)).verdict.errorCode).toBe('3');
    expect(pay(unpaid.order, '6280580000000009').charged).toBe(true);
  });
});

describe('the history', () => {
  it('records every operation executed, when, and the status right after', () => {
    const refunded = refund(deposited, 50_000, later(120));
    if (!refunded.ok) throw new Error(refunded.error);
    const confirmed = confirmOrder(refunded.value, later(150)).order;
    const reversedLater = reverseOrder(confirmed, later(180));
    expect(reversedLater.ok).toBe(false);
    expect(confirmed.history).toEqual([
      { operation: 'register', at: t0.getTime(), orderStatus: 0, amount: 150_000 },
      { operation: 'pay', at: later(60).getTime(), orderStatus: 2 },
      {
        operation: 'refund',
        at: later(120).getTime(),
        orderStatus: 4,
        amount: 50_000,
        referenceNumber: expect.stringMatching(/^RRN-/) as string,
      },
      { operation: 'confirm', at: later(150).getTime(), orderStatus: 4, errorCode: '0' },
    ]);
  });
});

describe('redirectTarget', () => {
  it('sends an approved payer to returnUrl, keeping its query', () => {
    expect(redirectTarget(deposited)).toBe('https://shop.example/back?cart=7&orderId=order-1');
  });

  it('sends a declined or expired payer to failUrl', () => {
    expect(redirectTarget(pay(registered, '6280580000000033').order)).toBe(
      'https://shop.example/failed?orderId=order-1',
    );
    expect(redirectTarget(expireIfStale(registered, later(600)))).toBe(
      'https://shop.example/failed?orderId=order-1',
    );
  });
});
