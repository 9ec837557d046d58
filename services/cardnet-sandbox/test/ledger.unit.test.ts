import { describe, expect, it } from 'vitest';
import { SandboxEnv } from '../src/config.ts';
import { LedgerOrder, ledgerEntry } from '../src/domain/ledger.ts';
import { payOrder, refundOrder, registerOrder, reverseOrder } from '../src/domain/order.ts';
import { judgeCard } from '../src/domain/test-cards.ts';

const t0 = new Date('2026-11-21T12:00:00Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

const registered = registerOrder(
  {
    orderNumber: 'N1',
    amount: 150_000,
    returnUrl: 'https://shop.example/back',
    failUrl: 'https://shop.example/back',
    language: 'fr',
    description: '',
    sessionTimeoutSecs: 600,
    jsonParams: { udf1: 'payment-1', force_terminal_id: 'E010901' },
  },
  'order-1',
  t0,
);
const card = {
  pan: '6280580000000009',
  expiryMonth: 12,
  expiryYear: 2028,
  cvv: '123',
  cardholderName: 'Test Payer',
};
const deposited = payOrder(
  registered,
  { card, verdict: judgeCard(card, at(30)), approvalCode: '123456' },
  at(30),
).order;

const receipt = (referenceNumber: string) => ({ referenceNumber, approvalCode: '654321' });

function ok<T>(result: { ok: true; value: T } | { ok: false; error: string }): T {
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

describe('an order', () => {
  it('starts with no refunds and no reversal', () => {
    expect(registered).toMatchObject({ refunds: [], reversedAt: null });
  });

  it('records each refund with its instant', () => {
    const once = ok(refundOrder(deposited, { amount: 50_000, ...receipt('6325000001') }, at(60)));
    const twice = ok(refundOrder(once, { amount: 100_000, ...receipt('6325000002') }, at(90)));
    expect(twice.refunds).toEqual([
      { amount: 50_000, at: at(60).getTime(), ...receipt('6325000001') },
      { amount: 100_000, at: at(90).getTime(), ...receipt('6325000002') },
    ]);
    expect(twice).toMatchObject({ status: 4, refundedAmount: 150_000 });
  });

  it('records when it was reversed or cancelled', () => {
    expect(ok(reverseOrder(deposited, at(120))).reversedAt).toBe(at(120).getTime());
    expect(ok(reverseOrder(registered, at(5))).reversedAt).toBe(at(5).getTime());
  });
});

describe('ledgerEntry', () => {
  it('shows the order with ISO instants and its udf1', () => {
    const refunded = ok(
      refundOrder(deposited, { amount: 50_000, ...receipt('6325000001') }, at(60)),
    );
    const entry = ledgerEntry(refunded);
    expect(entry).toEqual({
      orderId: 'order-1',
      orderNumber: 'N1',
      amount: 150_000,
      status: 4,
      refundedAmount: 50_000,
      registeredAt: '2026-11-21T12:00:00.000Z',
      authorizedAt: '2026-11-21T12:00:30.000Z',
      refunds: [{ amount: 50_000, at: '2026-11-21T12:01:00.000Z', referenceNumber: '6325000001' }],
      reversedAt: null,
      udf1: 'payment-1',
      operations: [
        { operation: 'register', at: '2026-11-21T12:00:00.000Z', orderStatus: 0, amount: 150_000 },
        { operation: 'pay', at: '2026-11-21T12:00:30.000Z', orderStatus: 2 },
        {
          operation: 'refund',
          at: '2026-11-21T12:01:00.000Z',
          orderStatus: 4,
          amount: 50_000,
          referenceNumber: '6325000001',
        },
      ],
    });
    expect(LedgerOrder.parse(entry)).toEqual(entry);
  });

  it('shows null where nothing happened yet', () => {
    const entry = ledgerEntry({ ...registered, jsonParams: {} });
    expect(entry).toMatchObject({ status: 0, authorizedAt: null, reversedAt: null, udf1: null });
  });
});

describe('SANDBOX_CONTROL', () => {
  const parse = (value?: string) => SandboxEnv.parse({ SANDBOX_CONTROL: value }).SANDBOX_CONTROL;

  it('is off unless set', () => {
    expect(parse()).toBe(false);
  });

  it('takes true, 1, false and 0 only', () => {
    expect([parse('true'), parse('1'), parse('false'), parse('0')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(SandboxEnv.safeParse({ SANDBOX_CONTROL: 'yes' }).success).toBe(false);
  });
});
