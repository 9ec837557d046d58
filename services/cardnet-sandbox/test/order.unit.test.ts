import { describe, expect, it } from 'vitest';
import type { CardInput } from '../src/domain/card.ts';
import {
  actionCodeOf,
  expireIfStale,
  payOrder,
  redirectTarget,
  refundOrder,
  registerOrder,
  reverseOrder,
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

describe('refunds', () => {
  it('keep a partly refunded order deposited and count what went back', () => {
    const refunded = refundOrder(deposited, 50_000);
    expect(refunded).toMatchObject({ ok: true, value: { status: 2, refundedAmount: 50_000 } });
  });

  it('make the order refunded (4) once all is returned', () => {
    const first = refundOrder(deposited, 50_000);
    const second = first.ok ? refundOrder(first.value, 100_000) : first;
    expect(second).toMatchObject({ ok: true, value: { status: 4, refundedAmount: 150_000 } });
  });

  it('refuse more than what remains, zero, and fractions', () => {
    expect(refundOrder(deposited, 150_001).ok).toBe(false);
    expect(refundOrder(deposited, 0).ok).toBe(false);
    expect(refundOrder(deposited, 1.5).ok).toBe(false);
  });

  it('refuse unpaid, declined and refunded orders', () => {
    expect(refundOrder(registered, 1).ok).toBe(false);
    expect(refundOrder(pay(registered, '6280580000000025').order, 1).ok).toBe(false);
    const full = refundOrder(deposited, 150_000);
    expect(full.ok && refundOrder(full.value, 1).ok).toBe(false);
  });
});

describe('reversal', () => {
  it('reverses a deposited order (3), keeping its payment verdict', () => {
    expect(reverseOrder(deposited)).toMatchObject({
      ok: true,
      value: { status: 3, outcome: 'approved' },
    });
  });

  it('cancels a registered order (3, action code 10) so it can no longer be paid', () => {
    const reversed = reverseOrder(registered);
    expect(reversed).toMatchObject({ ok: true, value: { status: 3, outcome: 'cancelled' } });
    if (!reversed.ok) return;
    expect(actionCodeOf(reversed.value)).toBe(10);
    expect(pay(reversed.value, '6280580000000009').charged).toBe(false);
  });

  it('refuses declined, refunded and partly refunded orders', () => {
    expect(reverseOrder(pay(registered, '6280580000000017').order).ok).toBe(false);
    const partly = refundOrder(deposited, 1);
    expect(partly.ok && reverseOrder(partly.value).ok).toBe(false);
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
