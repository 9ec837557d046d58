import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SandboxControlError, sandboxControl, type LedgerOrder } from '../src/control-client.ts';
import { startSandbox, type Sandbox } from '../src/service.ts';

let sandbox: Sandbox;
let control: ReturnType<typeof sandboxControl>;
let sequence = 0;
/** Moves the sandbox's clock, for the session timeout. */
let clockOffsetMs = 0;

const env = { SANDBOX_PORT: '0', SANDBOX_HOST: '127.0.0.1', LOG_LEVEL: 'silent' };

beforeAll(async () => {
  sandbox = await startSandbox(
    { ...env, SANDBOX_CONTROL: 'true' },
    { handleSignals: false, clock: () => new Date(Date.now() + clockOffsetMs) },
  );
  control = sandboxControl(sandbox.url);
});

afterEach(async () => {
  clockOffsetMs = 0;
  await control.clearFaults();
  await control.restoreCredentials();
});

afterAll(() => sandbox.close());

const credentials = { userName: 'sandbox', password: 'sandbox' };

function call(operation: string, params: Record<string, string>, signal?: AbortSignal) {
  return fetch(`${sandbox.url}/payment/rest/${operation}.do`, {
    method: 'POST',
    body: new URLSearchParams({ ...credentials, ...params }),
    signal: signal ?? null,
  });
}

async function rest(operation: string, params: Record<string, string>) {
  return (await (await call(operation, params)).json()) as Record<string, unknown>;
}

async function register(params: Record<string, string> = {}) {
  const orderNumber = params.orderNumber ?? `faults-${++sequence}`;
  const body = await rest('register', {
    amount: '150000',
    currency: '012',
    returnUrl: 'https://shop.example/back',
    ...params,
    orderNumber,
  });
  return { orderId: body.orderId as string, orderNumber };
}

function submitCard(orderId: string) {
  return fetch(`${sandbox.url}/payment/merchants/pay`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({
      mdOrder: orderId,
      pan: '6280580000000009',
      expiry: '12/30',
      cvv: '123',
      cardholderName: 'Test Payer',
    }),
  });
}

async function paidOrder(params: Record<string, string> = {}) {
  const order = await register(params);
  expect((await submitCard(order.orderId)).status).toBe(303);
  return order;
}

async function ledgerOf(orderId: string): Promise<LedgerOrder> {
  const entry = (await control.ledger()).find((order) => order.orderId === orderId);
  if (!entry) throw new Error(`order ${orderId} is not in the ledger`);
  return entry;
}

/** What fetch reports when the server closes the connection instead of answering. */
const connectionLost = { message: 'fetch failed', cause: { code: 'UND_ERR_SOCKET' } };

/** getLastOrdersForMerchants.do's required parameters, over a window around now. */
function lastOrdersParams(): Record<string, string> {
  const stamp = (epochMs: number) =>
    new Date(epochMs + 3_600_000).toISOString().replace(/\D/g, '').slice(0, 14);
  return {
    size: '200',
    from: stamp(Date.now() - 3_600_000),
    to: stamp(Date.now() + 3_600_000),
    transactionStates: 'CREATED,APPROVED,DEPOSITED,DECLINED,REVERSED,REFUNDED',
    searchByCreatedDate: 'true',
  };
}

describe('the control API', () => {
  it('does not exist unless SANDBOX_CONTROL is on', async () => {
    const plain = await startSandbox(env, { handleSignals: false });
    try {
      for (const [method, path] of [
        ['GET', 'faults'],
        ['PUT', 'faults'],
        ['DELETE', 'faults'],
        ['GET', 'ledger'],
        ['GET', 'stats'],
        ['PUT', 'credentials'],
        ['DELETE', 'credentials'],
      ] as const) {
        const response = await fetch(`${plain.url}/_control/${path}`, { method });
        expect(response.status, `${method} ${path}`).toBe(404);
      }
      await expect(sandboxControl(plain.url).ledger()).rejects.toMatchObject({ status: 404 });
    } finally {
      await plain.close();
    }
  });

  it('refuses bad rules with 400 and the issues, keeping the rules in force', async () => {
    await control.setFaults([{ id: 'kept', operation: 'reverse', effect: 'unavailable' }]);
    const response = await fetch(`${sandbox.url}/_control/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rules: [{ operation: 'refund', effect: 'latency' }] }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { issues: { path: unknown[] }[] };
    expect(body.issues[0]?.path).toEqual(['rules', 0, 'ms']);
    const refused = control.setFaults([{ operation: 'register', effect: 'hang', orderIds: ['x'] }]);
    await expect(refused).rejects.toBeInstanceOf(SandboxControlError);
    expect((await control.faults()).map((rule) => rule.id)).toEqual(['kept']);
  });

  it('answers the rules it set, and lists them with how often each applied', async () => {
    const rules = [
      { id: 'a', operation: 'reverse', effect: 'unavailable', times: 5 },
      { id: 'b', operation: 'refund', effect: 'latency', ms: 1 },
    ] as const;
    expect(await control.setFaults(rules)).toEqual(rules);
    const { orderId } = await register();
    expect((await call('reverse', { orderId })).status).toBe(503);
    expect(await control.faults()).toEqual([
      { ...rules[0], applied: 1 },
      { ...rules[1], applied: 0 },
    ]);
    await control.clearFaults();
    expect(await control.faults()).toEqual([]);
  });
});

describe('unavailable', () => {
  it('answers 503 with HTML and leaves the order unrefunded', async () => {
    const { orderId } = await paidOrder();
    await control.setFaults([{ operation: 'refund', effect: 'unavailable', orderIds: [orderId] }]);
    const response = await call('refund', { orderId, amount: '150000' });
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await ledgerOf(orderId)).toMatchObject({ status: 2, refundedAmount: 0, refunds: [] });
  });

  it('spends itself after `times` calls', async () => {
    const orderNumber = `spent-${++sequence}`;
    await control.setFaults([
      { operation: 'register', effect: 'unavailable', orderNumbers: [orderNumber], times: 2 },
    ]);
    const params = {
      orderNumber,
      amount: '100',
      currency: '012',
      returnUrl: 'https://shop.example/back',
    };
    expect((await call('register', params)).status).toBe(503);
    expect((await call('register', params)).status).toBe(503);
    // Nothing was registered by the refused calls, so the number is still free.
    expect(await (await call('register', params)).json()).toMatchObject({ errorCode: '0' });
    expect((await control.faults())[0]?.applied).toBe(2);
  });
});

describe('lost-answer', () => {
  it('refunds the order while the client gets a connection error', async () => {
    const { orderId } = await paidOrder();
    await control.setFaults([{ operation: 'refund', effect: 'lost-answer', orderIds: [orderId] }]);
    await expect(call('refund', { orderId, amount: '40000' })).rejects.toMatchObject(
      connectionLost,
    );
    const entry = await ledgerOf(orderId);
    expect(entry).toMatchObject({ status: 4, refundedAmount: 40_000 });
    expect(entry.refunds.map((refund) => refund.amount)).toEqual([40_000]);
  });

  it('decides the payment, but no redirect reaches the payer', async () => {
    const { orderId } = await register();
    await control.setFaults([{ operation: 'pay', effect: 'lost-answer', orderIds: [orderId] }]);
    await expect(submitCard(orderId)).rejects.toMatchObject(connectionLost);
    const entry = await ledgerOf(orderId);
    expect(entry.status).toBe(2);
    expect(entry.authorizedAt).not.toBeNull();
    // A payer who submits again is only sent where the first decision goes.
    await control.clearFaults();
    const again = await submitCard(orderId);
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe(`https://shop.example/back?orderId=${orderId}`);
  });
});

describe('hang', () => {
  it('holds concurrent confirmations at the network until the rules are cleared', async () => {
    const orders = await Promise.all([paidOrder(), paidOrder(), paidOrder()]);
    await control.setFaults([{ id: 'held', operation: 'confirmOrder', effect: 'hang' }]);
    let answered = 0;
    const confirmations = orders.map(async ({ orderId }) => {
      const body = (await (await call('confirmOrder', { orderId })).json()) as object;
      answered += 1;
      return body;
    });
    await vi.waitFor(async () => expect((await control.stats()).inFlight.confirmOrder).toBe(3), {
      timeout: 5_000,
      interval: 20,
    });
    expect(answered).toBe(0);
    expect((await control.faults())[0]?.applied).toBe(3);

    await control.clearFaults();
    for (const body of await Promise.all(confirmations))
      expect(body).toMatchObject({ ErrorCode: '0', OrderStatus: 2 });
    expect((await control.stats()).inFlight.confirmOrder).toBe(0);
  });

  it('is released by a new set of rules too, and after `ms` at the latest', async () => {
    const { orderId } = await paidOrder();
    await control.setFaults([{ operation: 'getOrderStatusExtended', effect: 'hang' }]);
    const held = rest('getOrderStatusExtended', { orderId });
    await vi.waitFor(async () =>
      expect((await control.stats()).inFlight.getOrderStatusExtended).toBe(1),
    );
    await control.setFaults([{ operation: 'getOrderStatusExtended', effect: 'hang', ms: 200 }]);
    expect(await held).toMatchObject({ errorCode: '0' });

    const started = performance.now();
    expect(await rest('getOrderStatusExtended', { orderId })).toMatchObject({ errorCode: '0' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('still refunds when the client gave up before the answer', async () => {
    const { orderId } = await paidOrder();
    await control.setFaults([{ operation: 'refund', effect: 'hang', orderIds: [orderId] }]);
    const gaveUp = call('refund', { orderId, amount: '150000' }, AbortSignal.timeout(100));
    await expect(gaveUp).rejects.toMatchObject({ name: 'TimeoutError' });
    expect((await ledgerOf(orderId)).refundedAmount).toBe(0);
    await control.clearFaults();
    await vi.waitFor(async () =>
      expect(await ledgerOf(orderId)).toMatchObject({ status: 4, refundedAmount: 150_000 }),
    );
    await vi.waitFor(async () => expect((await control.stats()).inFlight.refund).toBe(0));
  });

  it('does not hold the sandbox when it stops', async () => {
    const other = await startSandbox({ ...env, SANDBOX_CONTROL: '1' }, { handleSignals: false });
    const otherControl = sandboxControl(other.url);
    await otherControl.setFaults([{ operation: 'register', effect: 'hang' }]);
    const held = fetch(`${other.url}/payment/rest/register.do`, {
      method: 'POST',
      body: new URLSearchParams({ ...credentials, orderNumber: 'stop-1' }),
    });
    await vi.waitFor(async () => expect((await otherControl.stats()).inFlight.register).toBe(1));
    await other.close();
    // Released, then handled as usual: the missing parameters are refused.
    expect(await (await held).json()).toMatchObject({ errorCode: '4' });
  });
});

describe('error-code', () => {
  it('answers HTTP 200 with the errorCode and BPC text, and refunds nothing', async () => {
    const { orderId } = await paidOrder();
    await control.setFaults([
      { operation: 'refund', effect: 'error-code', errorCode: '7', orderIds: [orderId] },
    ]);
    const response = await call('refund', { orderId, amount: '40000' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ errorCode: '7', errorMessage: 'System error' });
    expect(await ledgerOf(orderId)).toMatchObject({ status: 2, refundedAmount: 0, refunds: [] });
    expect((await ledgerOf(orderId)).operations.map((op) => op.operation)).toEqual([
      'register',
      'pay',
    ]);
  });

  it('answers any code on every operation, in its shape, without acting', async () => {
    const paid = await paidOrder();
    const orderNumber = `refused-${++sequence}`;
    await control.setFaults([
      { operation: 'register', effect: 'error-code', errorCode: '5' },
      {
        operation: 'getOrderStatusExtended',
        effect: 'error-code',
        errorCode: '5',
        errorMessage: 'The user must change the password',
      },
      { operation: 'confirmOrder', effect: 'error-code', errorCode: '6' },
      { operation: 'reverse', effect: 'error-code', errorCode: '7' },
      { operation: 'getLastOrdersForMerchants', effect: 'error-code', errorCode: '13' },
    ]);
    expect(await rest('register', { orderNumber })).toEqual({
      errorCode: '5',
      errorMessage: 'Access denied',
    });
    expect(await rest('getOrderStatusExtended', { orderId: paid.orderId })).toEqual({
      errorCode: '5',
      errorMessage: 'The user must change the password',
    });
    // SATIM's confirmOrder.do capitalises its keys, errors included.
    expect(await rest('confirmOrder', { orderId: paid.orderId })).toEqual({
      ErrorCode: '6',
      ErrorMessage: 'Unregistered order Id.',
    });
    expect(await rest('reverse', { orderId: paid.orderId })).toEqual({
      errorCode: '7',
      errorMessage: 'System error',
    });
    expect(await rest('getLastOrdersForMerchants', lastOrdersParams())).toEqual({
      errorCode: '13',
      errorMessage: 'Error 13',
    });

    await control.clearFaults();
    const entry = await ledgerOf(paid.orderId);
    expect(entry).toMatchObject({ status: 2, reversedAt: null });
    expect(entry.operations.map((op) => op.operation)).toEqual(['register', 'pay']);
    // Nothing was registered: the number is still free.
    expect((await register({ orderNumber })).orderId).toEqual(expect.any(String));
  });
});

describe('late', () => {
  it('drops the connection at once, then refunds `ms` later, dated then', async () => {
    const { orderId } = await paidOrder();
    await control.setFaults([
      { operation: 'refund', effect: 'late', ms: 500, orderIds: [orderId] },
    ]);
    const sent = Date.now();
    await expect(call('refund', { orderId, amount: '40000' })).rejects.toMatchObject(
      connectionLost,
    );
    expect(Date.now() - sent).toBeLessThan(400);
    // Not refunded yet, and still in flight at the network.
    expect(await ledgerOf(orderId)).toMatchObject({ refundedAmount: 0, refunds: [] });
    expect((await control.stats()).inFlight.refund).toBe(1);
    // A new set of rules does not bring the call forward.
    await control.clearFaults();
    expect((await ledgerOf(orderId)).refundedAmount).toBe(0);

    await vi.waitFor(async () => expect((await ledgerOf(orderId)).refundedAmount).toBe(40_000), {
      timeout: 3_000,
      interval: 20,
    });
    const entry = await ledgerOf(orderId);
    expect(Date.parse(entry.refunds[0]!.at) - sent).toBeGreaterThanOrEqual(490);
    expect((await control.stats()).inFlight.refund).toBe(0);
  });

  it('registers the order only `ms` later, as if the call arrived then', async () => {
    const orderNumber = `late-${++sequence}`;
    await control.setFaults([
      { operation: 'register', effect: 'late', ms: 300, orderNumbers: [orderNumber] },
    ]);
    const sent = Date.now();
    const params = {
      orderNumber,
      amount: '150000',
      currency: '012',
      returnUrl: 'https://shop.example/back',
    };
    await expect(call('register', params)).rejects.toMatchObject(connectionLost);
    expect(await rest('getOrderStatusExtended', { orderNumber })).toMatchObject({
      errorCode: '6',
    });
    await vi.waitFor(
      async () =>
        expect(await rest('getOrderStatusExtended', { orderNumber })).toMatchObject({
          errorCode: '0',
          orderStatus: 0,
        }),
      { timeout: 3_000, interval: 20 },
    );
    const status = await rest('getOrderStatusExtended', { orderNumber });
    expect((status.date as number) - sent).toBeGreaterThanOrEqual(290);
  });

  it('checks the credentials when the call lands, not when it was sent', async () => {
    const { orderId } = await paidOrder();
    await control.setFaults([
      { operation: 'reverse', effect: 'late', ms: 300, orderIds: [orderId] },
    ]);
    await expect(call('reverse', { orderId })).rejects.toMatchObject(connectionLost);
    await control.setCredentials({ userName: 'rotated', password: 'rotated-password' });
    await vi.waitFor(async () => expect((await control.stats()).inFlight.reverse).toBe(0), {
      timeout: 3_000,
      interval: 20,
    });
    expect(await ledgerOf(orderId)).toMatchObject({ status: 2, reversedAt: null });
  });
});

describe('credentials', () => {
  it('refused while changed: every REST call answers 5 and acts on nothing', async () => {
    const unpaid = await register();
    const paid = await paidOrder();
    const orderNumber = `denied-${++sequence}`;
    await control.setCredentials({ userName: 'rotated', password: 'rotated-password' });

    const denied = { errorCode: '5', errorMessage: 'Access denied' };
    const registration = { orderNumber, amount: '100', currency: '012' };
    expect(
      await rest('register', { ...registration, returnUrl: 'https://shop.example/b' }),
    ).toEqual(denied);
    expect(await rest('getOrderStatusExtended', { orderId: paid.orderId })).toEqual(denied);
    expect(await rest('refund', { orderId: paid.orderId, amount: '100' })).toEqual(denied);
    expect(await rest('reverse', { orderId: paid.orderId })).toEqual(denied);
    expect(await rest('getLastOrdersForMerchants', lastOrdersParams())).toEqual(denied);
    expect(await rest('confirmOrder', { orderId: paid.orderId })).toEqual({
      ErrorCode: '5',
      ErrorMessage: 'Access denied',
    });

    // The payer is not the merchant: the card form still takes the payment.
    expect((await submitCard(unpaid.orderId)).status).toBe(303);
    const withNew = await call('getOrderStatusExtended', {
      orderId: unpaid.orderId,
      userName: 'rotated',
      password: 'rotated-password',
    });
    expect(await withNew.json()).toMatchObject({ errorCode: '0', orderStatus: 2 });

    await control.restoreCredentials();
    expect(await rest('getOrderStatusExtended', { orderId: unpaid.orderId })).toMatchObject({
      errorCode: '0',
      orderStatus: 2,
    });
    expect(await ledgerOf(paid.orderId)).toMatchObject({
      status: 2,
      refunds: [],
      reversedAt: null,
    });
    expect(await rest('getOrderStatusExtended', { orderNumber })).toMatchObject({ errorCode: '6' });
  });

  it('can refuse with "the user must change the password"', async () => {
    const { orderId } = await register();
    await control.setCredentials({
      userName: 'sandbox',
      password: 'expired',
      errorMessage: 'The user must change the password',
    });
    expect(await rest('getOrderStatusExtended', { orderId })).toEqual({
      errorCode: '5',
      errorMessage: 'The user must change the password',
    });
  });

  it('are refused with 400 when the body is not a pair of credentials', async () => {
    const refused = control.setCredentials({ userName: '', password: 'x' });
    await expect(refused).rejects.toMatchObject({ status: 400 });
    const { orderId } = await register();
    expect(await rest('getOrderStatusExtended', { orderId })).toMatchObject({ errorCode: '0' });
  });
});

describe('latency', () => {
  it('delays the calls it matches, then handles them normally', async () => {
    const { orderId } = await paidOrder();
    await control.setFaults([{ operation: 'getOrderStatusExtended', effect: 'latency', ms: 300 }]);
    const started = performance.now();
    expect(await rest('getOrderStatusExtended', { orderId })).toMatchObject({
      errorCode: '0',
      orderStatus: 2,
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });
});

describe('probability', () => {
  it('replays the same draws each time the same rules are set', async () => {
    const { orderId } = await register();
    const rules = [
      { operation: 'getOrderStatusExtended', effect: 'unavailable', probability: 0.5, seed: 11 },
    ] as const;
    const run = async () => {
      await control.setFaults(rules);
      const statuses: number[] = [];
      for (let i = 0; i < 16; i += 1)
        statuses.push((await call('getOrderStatusExtended', { orderId })).status);
      return statuses;
    };
    const first = await run();
    expect(new Set(first)).toEqual(new Set([200, 503]));
    expect(await run()).toEqual(first);
  });
});

describe('the ledger', () => {
  it('shows amounts, refunds and reversals, and the udf1 of each order', async () => {
    const refunded = await paidOrder({ amount: '250000', jsonParams: '{"udf1":"pay-1"}' });
    expect(await rest('refund', { orderId: refunded.orderId, amount: '50000' })).toMatchObject({
      errorCode: '0',
    });
    expect(await rest('refund', { orderId: refunded.orderId, amount: '200000' })).toMatchObject({
      errorCode: '0',
    });
    const reversed = await paidOrder();
    expect(await rest('reverse', { orderId: reversed.orderId })).toMatchObject({ errorCode: '0' });
    const unpaid = await register({ amount: '7000' });

    const orders = await control.ledger();
    const entry = (orderId: string) => orders.find((order) => order.orderId === orderId);
    expect(entry(refunded.orderId)).toMatchObject({
      orderNumber: refunded.orderNumber,
      amount: 250_000,
      status: 4,
      refundedAmount: 250_000,
      refunds: [{ amount: 50_000 }, { amount: 200_000 }],
      reversedAt: null,
      udf1: 'pay-1',
    });
    expect(entry(reversed.orderId)).toMatchObject({ status: 3, refundedAmount: 0, refunds: [] });
    expect(entry(reversed.orderId)?.reversedAt).not.toBeNull();
    expect(entry(unpaid.orderId)).toMatchObject({
      amount: 7000,
      status: 0,
      authorizedAt: null,
      udf1: null,
    });
    const times = [entry(refunded.orderId)!.registeredAt, entry(refunded.orderId)!.authorizedAt];
    for (const time of times) expect(Date.parse(time!)).toBeLessThanOrEqual(Date.now());
  });

  it('records every operation executed, each refund with the RRN the status call shows', async () => {
    const { orderId } = await paidOrder({ amount: '250000' });
    await rest('refund', { orderId, amount: '50000' });
    await rest('refund', { orderId, amount: '250000' }); // refused: more than remains
    await rest('refund', { orderId, amount: '70000' });
    await rest('confirmOrder', { orderId });
    await rest('confirmOrder', { orderId });
    await rest('reverse', { orderId }); // refused: refunded already

    const entry = await ledgerOf(orderId);
    expect(entry.operations).toMatchObject([
      { operation: 'register', orderStatus: 0, amount: 250_000 },
      { operation: 'pay', orderStatus: 2 },
      { operation: 'refund', orderStatus: 4, amount: 50_000 },
      { operation: 'refund', orderStatus: 4, amount: 70_000 },
      { operation: 'confirm', orderStatus: 4, errorCode: '0' },
      { operation: 'confirm', orderStatus: 4, errorCode: '2' },
    ]);
    const instants = entry.operations.map((op) => Date.parse(op.at));
    expect(instants).toEqual([...instants].sort((a, b) => a - b));
    const status = await rest('getOrderStatusExtended', { orderId });
    const numbers = (status.refunds as { referenceNumber: string }[]).map((r) => r.referenceNumber);
    expect(entry.refunds.map((refund) => refund.referenceNumber)).toEqual(numbers);
    expect(entry.operations.flatMap((op) => op.referenceNumber ?? [])).toEqual(numbers);
  });

  it('applies the session timeout, as every read does', async () => {
    const { orderId } = await register({ sessionTimeoutSecs: '600' });
    clockOffsetMs = 601_000;
    expect(await ledgerOf(orderId)).toMatchObject({ status: 6 });
  });
});

describe('the stats', () => {
  it('count every call, with and without faults', async () => {
    const before = await control.stats();
    const { orderId } = await paidOrder();
    await control.setFaults([{ operation: 'reverse', effect: 'unavailable' }]);
    await call('reverse', { orderId });
    await rest('getOrderStatusExtended', { orderId });
    const after = await control.stats();
    expect(after.calls.register - before.calls.register).toBe(1);
    expect(after.calls.pay - before.calls.pay).toBe(1);
    expect(after.calls.reverse - before.calls.reverse).toBe(1);
    expect(after.calls.getOrderStatusExtended - before.calls.getOrderStatusExtended).toBe(1);
    expect(after.inFlight).toEqual({
      register: 0,
      getOrderStatusExtended: 0,
      confirmOrder: 0,
      refund: 0,
      reverse: 0,
      getLastOrdersForMerchants: 0,
      pay: 0,
    });
  });
});
