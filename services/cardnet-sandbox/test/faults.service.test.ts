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
    expect(entry).toMatchObject({ status: 2, refundedAmount: 40_000 });
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
      expect(body).toMatchObject({ errorCode: '0', orderStatus: 2 });
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
      pay: 0,
    });
  });
});
