import { describe, expect, it } from 'vitest';
import type { CardOrderStatus } from '../src/card-network/card-network.ts';
import { cardOutcome } from '../src/domain/card-outcome.ts';
import { chargeFor, refusalOf } from '../src/domain/charge.ts';
import { checkoutStatusOf } from '../src/domain/checkout-status.ts';
import { hashToken, newCheckoutToken } from '../src/domain/tokens.ts';

const terms = {
  merchantId: '11111111-1111-4111-8111-111111111111',
  mode: 'test' as const,
  name: 'Shop',
  feeDzd: 50,
  minAmount: 5_000,
  maxAmount: 100_000_000,
  hasWallet: true,
};
const body = { amount: 10_000, currency: 'DZD', reference: 'R1' };

describe('chargeFor', () => {
  it('adds the fee, configured in whole DZD, as centimes', () => {
    expect(chargeFor(250_000, 50)).toEqual({ amount: 250_000, fees: 5_000, total: 255_000 });
    expect(chargeFor(5_000, 0)).toEqual({ amount: 5_000, fees: 0, total: 5_000 });
  });
});

describe('refusalOf', () => {
  it('accepts a payment inside the range, in DZD, with a wallet', () => {
    expect(refusalOf(body, terms)).toBeNull();
    expect(refusalOf({ ...body, amount: 5_000 }, terms)).toBeNull();
    expect(refusalOf({ ...body, amount: 100_000_000 }, terms)).toBeNull();
  });

  it.each([
    [{ ...body, currency: 'EUR' }, terms, 'PAYMENT_INSTANCE400_UNSUPPORTED_CURRENCY'],
    [{ ...body, amount: 4_999 }, terms, 'PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE'],
    [{ ...body, amount: 100_000_001 }, terms, 'PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE'],
    [{ ...body, metadata: { k: 'x'.repeat(4089) } }, terms, 'VALIDATION422_UNPROCESSABLE_ENTITY'],
    [body, { ...terms, hasWallet: false }, 'SETTLEMENT422_MERCHANT_WALLET_MISSING'],
  ])('refuses %j', (payment, merchant, code) => {
    expect(refusalOf(payment, merchant)?.code).toBe(code);
  });

  it('counts metadata in UTF-8 bytes: 4096 passes, 4097 does not', () => {
    // {"k":"…"} is 8 bytes around the value; "é" is two bytes.
    expect(refusalOf({ ...body, metadata: { k: 'é'.repeat(2044) } }, terms)).toBeNull();
    expect(refusalOf({ ...body, metadata: { k: `${'é'.repeat(2044)}x` } }, terms)?.code).toBe(
      'VALIDATION422_UNPROCESSABLE_ENTITY',
    );
  });

  it('checks the merchant range, not only the default one', () => {
    expect(refusalOf({ ...body, amount: 6_000 }, { ...terms, minAmount: 7_000 })?.code).toBe(
      'PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE',
    );
  });
});

describe('checkoutStatusOf', () => {
  it('shows pending as created and a failure by expiry as expired', () => {
    expect(checkoutStatusOf('pending', null)).toBe('created');
    expect(checkoutStatusOf('failed', 'expired')).toBe('expired');
    expect(checkoutStatusOf('failed', 'Insufficient funds')).toBe('failed');
    expect(checkoutStatusOf('success', null)).toBe('success');
    expect(checkoutStatusOf('refunded', null)).toBe('refunded');
  });
});

describe('cardOutcome', () => {
  const order = (state: CardOrderStatus['state'], amount = 10_000): CardOrderStatus => ({
    orderId: 'o',
    orderNumber: '0000000001',
    state,
    amount,
    refundedAmount: 0,
    refunds: [],
    registeredAt: null,
    udf1: null,
    actionCode: state === 'declined' ? 116 : 0,
    respCode: null,
    description: state === 'declined' ? 'Insufficient funds' : null,
    approvalCode: state === 'deposited' ? '123456' : null,
    maskedPan: '628058**0009',
    authorizedAt: state === 'deposited' ? new Date('2030-01-01T00:05:00Z') : null,
  });
  const expiresAt = new Date('2030-01-01T00:15:00Z');
  const inside = new Date('2030-01-01T00:10:00Z');
  const after = new Date('2030-01-01T00:20:00Z');

  it('takes a deposit of our total as paid', () => {
    expect(cardOutcome(order('deposited'), 10_000, expiresAt, inside)).toMatchObject({
      kind: 'paid',
      approvalCode: '123456',
    });
  });

  it('never accepts a deposit of another amount', () => {
    expect(cardOutcome(order('deposited', 9_999), 10_000, expiresAt, inside)).toEqual({
      kind: 'amount-mismatch',
      paidAmount: 9_999,
    });
  });

  it('takes a deposit authorised inside the window as paid even when seen after it', () => {
    expect(cardOutcome(order('deposited'), 10_000, expiresAt, after)).toMatchObject({
      kind: 'paid',
    });
  });

  it('refuses a deposit authorised after the window closed', () => {
    const late = { ...order('deposited'), authorizedAt: new Date('2030-01-01T00:16:00Z') };
    expect(cardOutcome(late, 10_000, expiresAt, after)).toEqual({
      kind: 'late',
      paidAmount: 10_000,
    });
    const undated = { ...order('deposited'), authorizedAt: null };
    expect(cardOutcome(undated, 10_000, expiresAt, after)).toEqual({
      kind: 'late',
      paidAmount: 10_000,
    });
    expect(cardOutcome(undated, 10_000, expiresAt, inside)).toMatchObject({ kind: 'paid' });
  });

  it("reports a decline with the network's text", () => {
    expect(cardOutcome(order('declined'), 10_000, expiresAt, inside)).toMatchObject({
      kind: 'declined',
      reason: 'Insufficient funds',
      actionCode: 116,
    });
  });

  it('waits on an unpaid order inside the window, and expires it after', () => {
    expect(cardOutcome(order('registered'), 10_000, expiresAt, inside)).toEqual({
      kind: 'undecided',
    });
    expect(cardOutcome(order('registered'), 10_000, expiresAt, after)).toEqual({ kind: 'expire' });
    expect(cardOutcome(order('preauthorized'), 10_000, expiresAt, after)).toEqual({
      kind: 'expire',
    });
  });

  it('reads a reversed order as cancelled, or expired when the window closed', () => {
    expect(cardOutcome(order('reversed'), 10_000, expiresAt, inside)).toMatchObject({
      kind: 'declined',
      reason: 'cancelled',
    });
    expect(cardOutcome(order('reversed'), 10_000, expiresAt, after)).toMatchObject({
      kind: 'declined',
      reason: 'expired',
    });
  });

  it("reads an order reversed by a merchant's cancel as cancelled, even past the window", () => {
    expect(cardOutcome(order('reversed'), 10_000, expiresAt, after, true)).toMatchObject({
      kind: 'declined',
      reason: 'cancelled',
    });
  });
});

describe('checkout tokens', () => {
  it('makes 43-character checkout tokens stored only as their SHA-256', () => {
    const { token, hash } = newCheckoutToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(hash.equals(hashToken(token))).toBe(true);
    expect(newCheckoutToken().token).not.toBe(token);
  });
});
