import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/service.ts';

// The sandbox's answers, code by code, as BPC documents them and SATIM was seen to send.

let sandbox: Sandbox;
let sequence = 0;

const env = { SANDBOX_PORT: '0', SANDBOX_HOST: '127.0.0.1', LOG_LEVEL: 'silent' };

beforeAll(async () => {
  sandbox = await startSandbox(env, { handleSignals: false });
});

afterAll(() => sandbox.close());

const credentials = { userName: 'sandbox', password: 'sandbox' };

async function rest(operation: string, params: Record<string, string>, at = sandbox) {
  const response = await fetch(`${at.url}/payment/rest/${operation}.do`, {
    method: 'POST',
    body: new URLSearchParams({ ...credentials, ...params }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

async function register(at = sandbox, params: Record<string, string> = {}) {
  const body = await rest(
    'register',
    {
      orderNumber: `bpc-${++sequence}`,
      amount: '150000',
      currency: '012',
      returnUrl: 'https://shop.example/back',
      ...params,
    },
    at,
  );
  return body.orderId as string;
}

async function pay(orderId: string, pan = '6280580000000009', at = sandbox) {
  const response = await fetch(`${at.url}/payment/merchants/pay`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({
      mdOrder: orderId,
      pan,
      expiry: '12/30',
      cvv: '123',
      cardholderName: 'Test Payer',
    }),
  });
  expect(response.status).toBe(303);
  return orderId;
}

describe('confirmOrder.do', () => {
  it('confirms a paid order with ErrorCode "0", capitalised as SATIM sends it', async () => {
    const orderId = await pay(await register(sandbox, { jsonParams: '{"udf1":"pay-7"}' }));
    const body = await rest('confirmOrder', { orderId });
    expect(body).toMatchObject({
      ErrorCode: '0',
      ErrorMessage: 'Success',
      OrderStatus: 2,
      OrderNumber: expect.stringMatching(/^bpc-/) as string,
      Amount: 150_000,
      Pan: '628058**0009',
      depositAmount: 150_000,
      currency: '012',
      approvalCode: expect.stringMatching(/^\d{6}$/) as string,
      actionCode: 0,
      SvfeResponse: '00',
      params: { udf1: 'pay-7', respCode: '00', respCode_desc: 'Paiement accepté' },
    });
    expect(body).not.toHaveProperty('errorCode');
  });

  it('answers ErrorCode "2" with the order still paid when it was confirmed already', async () => {
    const orderId = await pay(await register());
    await rest('confirmOrder', { orderId });
    expect(await rest('confirmOrder', { orderId })).toMatchObject({
      ErrorCode: '2',
      OrderStatus: 2,
      params: { respCode: '00' },
    });
  });

  it('answers a bare number 3 with OrderStatus 6 for a declined card', async () => {
    const orderId = await pay(await register(), '6280580000000017');
    const body = await rest('confirmOrder', { orderId });
    expect(body).toMatchObject({
      ErrorCode: 3,
      ErrorMessage: 'Order is not confirmed due to order’s state',
      OrderStatus: 6,
      actionCode: 116,
      depositAmount: 0,
      SvfeResponse: '51',
      params: { respCode: '51' },
    });
    expect(body).not.toHaveProperty('approvalCode');
  });

  it('answers 3 with OrderStatus 0 for an order nobody paid yet, which stays payable', async () => {
    const orderId = await register();
    expect(await rest('confirmOrder', { orderId })).toMatchObject({
      ErrorCode: 3,
      OrderStatus: 0,
      actionCode: -100,
    });
    await pay(orderId);
    expect(await rest('confirmOrder', { orderId })).toMatchObject({
      ErrorCode: '0',
      OrderStatus: 2,
    });
  });

  it('answers 6 for an unknown order and 5 without an orderId', async () => {
    expect(await rest('confirmOrder', { orderId: 'nope' })).toEqual({
      ErrorCode: '6',
      ErrorMessage: 'Unregistered order Id.',
    });
    expect(await rest('confirmOrder', {})).toMatchObject({ ErrorCode: '5' });
  });

  it('still makes the timeout card wait, its order confirmed meanwhile', async () => {
    const slow = await startSandbox(
      { ...env, SANDBOX_CONFIRM_DELAY_MS: '300' },
      { handleSignals: false },
    );
    try {
      const orderId = await pay(await register(slow), '6280580000000041', slow);
      const started = performance.now();
      const first = rest('confirmOrder', { orderId }, slow);
      expect(await rest('getOrderStatusExtended', { orderId }, slow)).toMatchObject({
        orderStatus: 2,
      });
      // A client that gave up and asks again meets a confirmation already done.
      const second = rest('confirmOrder', { orderId }, slow);
      expect(await first).toMatchObject({ ErrorCode: '0', OrderStatus: 2 });
      expect(await second).toMatchObject({ ErrorCode: '2', OrderStatus: 2 });
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    } finally {
      await slow.close();
    }
  });
});

describe('reverse.do', () => {
  it('reverses once: a second reversal is 7, invalid for the order status', async () => {
    const orderId = await pay(await register());
    expect(await rest('reverse', { orderId })).toEqual({ errorCode: '0', errorMessage: 'Success' });
    expect(await rest('reverse', { orderId })).toEqual({
      errorCode: '7',
      errorMessage: 'Invalid operation for the current order status',
    });
    expect(await rest('getOrderStatusExtended', { orderId })).toMatchObject({ orderStatus: 3 });
  });

  it('answers 6 for an unknown order and 5 without an orderId', async () => {
    expect(await rest('reverse', { orderId: 'nope' })).toEqual({
      errorCode: '6',
      errorMessage: 'Unregistered orderId',
    });
    expect(await rest('reverse', {})).toMatchObject({ errorCode: '5' });
  });
});

describe('refund.do', () => {
  it('answers 7 when the payment is not in the right state, or the amount exceeds it', async () => {
    const unpaid = await register();
    expect(await rest('refund', { orderId: unpaid, amount: '100' })).toEqual({
      errorCode: '7',
      errorMessage: 'Payment must be in the correct state',
    });
    const paid = await pay(await register());
    expect(await rest('refund', { orderId: paid, amount: '100000' })).toMatchObject({
      errorCode: '0',
    });
    expect(await rest('refund', { orderId: paid, amount: '50001' })).toEqual({
      errorCode: '7',
      errorMessage: 'The refund amount exceeds the debited amount',
    });
  });

  it.each([['0'], ['-5'], ['1.5'], ['']])('answers 5 for the amount "%s"', async (amount) => {
    const orderId = await pay(await register());
    expect(await rest('refund', { orderId, amount })).toEqual({
      errorCode: '5',
      errorMessage: 'Incorrect amount',
    });
  });

  it('answers 6 for an unknown order', async () => {
    expect(await rest('refund', { orderId: 'nope', amount: '100' })).toMatchObject({
      errorCode: '6',
    });
  });
});

describe('getOrderStatusExtended.do', () => {
  it('answers 1 when neither orderId nor orderNumber is given, 6 for an unknown order', async () => {
    expect(await rest('getOrderStatusExtended', {})).toEqual({
      errorCode: '1',
      errorMessage: 'Expected [orderId] or [orderNumber]',
    });
    expect(await rest('getOrderStatusExtended', { orderNumber: 'nope' })).toEqual({
      errorCode: '6',
      errorMessage: 'Order not found',
    });
  });

  it('lists every refund, oldest first, with its date, RRN and approval code', async () => {
    const orderId = await pay(await register());
    const before = Date.now();
    await rest('refund', { orderId, amount: '40000' });
    await rest('refund', { orderId, amount: '60000' });
    const status = await rest('getOrderStatusExtended', { orderId });
    const refunds = status.refunds as Record<string, unknown>[];
    expect(refunds).toEqual([
      {
        date: expect.any(Number) as number,
        amount: 40_000,
        actionCode: 0,
        approvalCode: expect.stringMatching(/^\d{6}$/) as string,
        referenceNumber: expect.stringMatching(/^\d{12}$/) as string,
      },
      {
        date: expect.any(Number) as number,
        amount: 60_000,
        actionCode: 0,
        approvalCode: expect.stringMatching(/^\d{6}$/) as string,
        referenceNumber: expect.stringMatching(/^\d{12}$/) as string,
      },
    ]);
    const [first, second] = refunds as { date: number; referenceNumber: string }[];
    expect(first!.date).toBeGreaterThanOrEqual(before);
    expect(second!.date).toBeGreaterThanOrEqual(first!.date);
    expect(second!.referenceNumber).not.toBe(first!.referenceNumber);
    // Partly refunded is refunded (4), and the deposit still shows in full.
    expect(status).toMatchObject({
      orderStatus: 4,
      refundedAmount: 100_000,
      refundedDate: second!.date,
      paymentAmountInfo: {
        paymentState: 'REFUNDED',
        approvedAmount: 150_000,
        depositedAmount: 150_000,
        refundedAmount: 100_000,
      },
      attributes: [{ name: 'mdOrder', value: orderId }],
    });
    expect(status).not.toHaveProperty('reversedDate');
  });

  it('gives every refund its own RRN, across orders', async () => {
    const numbers = new Set<string>();
    for (let i = 0; i < 3; i += 1) {
      const orderId = await pay(await register());
      await rest('refund', { orderId, amount: '1000' });
      await rest('refund', { orderId, amount: '1000' });
      const status = await rest('getOrderStatusExtended', { orderId });
      for (const refund of status.refunds as { referenceNumber: string }[])
        numbers.add(refund.referenceNumber);
    }
    expect(numbers.size).toBe(6);
  });

  it('shows an empty refund list, and when the order was reversed', async () => {
    const orderId = await pay(await register());
    await rest('reverse', { orderId });
    const status = await rest('getOrderStatusExtended', { orderId });
    expect(status).toMatchObject({
      orderStatus: 3,
      refunds: [],
      reversedDate: expect.any(Number) as number,
    });
    expect(status).not.toHaveProperty('refundedDate');
  });

  it('lists no refunds from a network whose status version has none (SANDBOX_STATUS_REFUNDS)', async () => {
    const older = await startSandbox(
      { ...env, SANDBOX_STATUS_REFUNDS: 'false' },
      { handleSignals: false },
    );
    try {
      const orderId = await pay(await register(older), undefined, older);
      await rest('refund', { orderId, amount: '40000' }, older);
      const status = await rest('getOrderStatusExtended', { orderId }, older);
      expect(status).not.toHaveProperty('refunds');
      expect(status).toMatchObject({
        refundedAmount: 40_000,
        paymentAmountInfo: { refundedAmount: 40_000 },
      });
    } finally {
      await older.close();
    }
  });
});
