import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/service.ts';

// getLastOrdersForMerchants.do over HTTP, the sandbox's clock set by each test so the
// orders fall where it wants them. Each test uses its own day, so they never mix.

let algiers: Sandbox;
let utc: Sandbox;
let now = Date.parse('2026-11-01T00:00:00Z');
let sequence = 0;

const env = { SANDBOX_PORT: '0', SANDBOX_HOST: '127.0.0.1', LOG_LEVEL: 'silent' };
const clock = { handleSignals: false, clock: () => new Date(now) };

beforeAll(async () => {
  algiers = await startSandbox(env, clock);
  utc = await startSandbox({ ...env, SANDBOX_TIME_ZONE: 'UTC' }, clock);
});

afterAll(async () => {
  await algiers.close();
  await utc.close();
});

const credentials = { userName: 'sandbox', password: 'sandbox' };
const ALL_STATES = 'CREATED,APPROVED,DEPOSITED,DECLINED,REVERSED,REFUNDED';

async function rest(sandbox: Sandbox, operation: string, params: Record<string, string>) {
  const response = await fetch(`${sandbox.url}/payment/rest/${operation}.do`, {
    method: 'POST',
    body: new URLSearchParams({ ...credentials, ...params }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

/** Registers an order at `registeredAt` and, when `paidAt` is given, pays it then. */
async function order(
  registeredAt: string,
  paidAt?: string,
  options: { pan?: string; sandbox?: Sandbox } = {},
): Promise<string> {
  const sandbox = options.sandbox ?? algiers;
  now = Date.parse(registeredAt);
  const registered = await rest(sandbox, 'register', {
    orderNumber: `last-${++sequence}`,
    amount: '150000',
    currency: '012',
    returnUrl: 'https://shop.example/back',
    sessionTimeoutSecs: '86400',
  });
  const orderId = registered.orderId as string;
  if (paidAt) {
    now = Date.parse(paidAt);
    const response = await fetch(`${sandbox.url}/payment/merchants/pay`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({
        mdOrder: orderId,
        pan: options.pan ?? '6280580000000009',
        expiry: '12/30',
        cvv: '123',
        cardholderName: 'Test Payer',
      }),
    });
    expect(response.status).toBe(303);
  }
  return orderId;
}

interface LastOrders {
  errorCode: string;
  orderStatuses: {
    orderStatus: number;
    paymentAmountInfo: { paymentState: string };
    attributes: { name: string; value: string }[];
  }[];
  totalCount: number;
  page: number;
  pageSize: number;
}

async function lastOrders(params: Record<string, string>, sandbox = algiers) {
  return (await rest(sandbox, 'getLastOrdersForMerchants', {
    size: '200',
    transactionStates: ALL_STATES,
    ...params,
  })) as unknown as LastOrders;
}

const idsOf = (answer: LastOrders) =>
  answer.orderStatuses.map(
    (status) => status.attributes.find((attribute) => attribute.name === 'mdOrder')?.value,
  );

/** A whole local day, yyyyMMdd, as from and to. */
const day = (yyyyMMdd: string) => ({ from: `${yyyyMMdd}000000`, to: `${yyyyMMdd}235959` });

describe('getLastOrdersForMerchants.do', () => {
  it('pages through the orders in a stable order, with the total count', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1)
      ids.push(await order(`2026-11-10T09:0${i}:00Z`, '2026-11-10T10:00:00Z'));
    // Paid at the same instant: the order id decides.
    const expected = [...ids].sort();

    const pages = [];
    for (const page of ['0', '1', '2', '3']) {
      const answer = await lastOrders({ ...day('20261110'), size: '2', page });
      expect(answer).toMatchObject({
        errorCode: '0',
        totalCount: 5,
        page: Number(page),
        pageSize: 2,
      });
      pages.push(idsOf(answer));
    }
    expect(pages).toEqual([expected.slice(0, 2), expected.slice(2, 4), [expected[4]], []]);
    const again = await lastOrders({ ...day('20261110'), size: '2', page: '1' });
    expect(idsOf(again)).toEqual(pages[1]);
  });

  it('describes each order as the status call does, its gateway id in attributes', async () => {
    const orderId = await order('2026-11-15T09:00:00Z', '2026-11-15T09:05:00Z');
    const answer = await lastOrders(day('20261115'));
    const status = await rest(algiers, 'getOrderStatusExtended', { orderId });
    expect(answer.orderStatuses).toEqual([status]);
    expect(status).toMatchObject({ attributes: [{ name: 'mdOrder', value: orderId }] });
  });

  it('searches by payment date unless asked for the registration date', async () => {
    // Registered the day before (23:30 in Algiers), paid on the day.
    const lateNight = await order('2026-11-10T22:30:00Z', '2026-11-11T08:00:00Z');
    const paid = await order('2026-11-11T07:00:00Z', '2026-11-11T11:00:00Z');
    const unpaid = await order('2026-11-11T08:00:00Z');
    const declined = await order('2026-11-11T08:30:00Z', '2026-11-11T08:31:00Z', {
      pan: '6280580000000017',
    });

    const byPayment = await lastOrders(day('20261111'));
    expect(idsOf(byPayment)).toEqual([lateNight, paid]);
    const explicit = await lastOrders({ ...day('20261111'), searchByCreatedDate: 'false' });
    expect(idsOf(explicit)).toEqual([lateNight, paid]);

    const byCreation = await lastOrders({ ...day('20261111'), searchByCreatedDate: 'true' });
    expect(idsOf(byCreation)).toEqual([paid, unpaid, declined]);
    expect(byCreation.orderStatuses.map((status) => status.orderStatus)).toEqual([2, 0, 6]);
  });

  it('keeps only the transaction states asked for', async () => {
    const refunded = await order('2026-11-12T08:00:00Z', '2026-11-12T08:01:00Z');
    const deposited = await order('2026-11-12T08:10:00Z', '2026-11-12T08:11:00Z');
    const reversed = await order('2026-11-12T08:20:00Z', '2026-11-12T08:21:00Z');
    const created = await order('2026-11-12T08:30:00Z');
    await rest(algiers, 'refund', { orderId: refunded, amount: '150000' });
    await rest(algiers, 'reverse', { orderId: reversed });

    const of = async (transactionStates: string) =>
      idsOf(
        await lastOrders({ ...day('20261112'), transactionStates, searchByCreatedDate: 'true' }),
      );
    expect(await of('REFUNDED')).toEqual([refunded]);
    expect(await of('DEPOSITED,REVERSED')).toEqual([deposited, reversed]);
    expect(await of('CREATED')).toEqual([created]);
    expect(await of('APPROVED')).toEqual([]);
  });

  it('reads from and to in Algiers time by default, in SANDBOX_TIME_ZONE otherwise', async () => {
    // 23:30 UTC on the 13th is 00:30 on the 14th in Algiers.
    const inAlgiers = await order('2026-11-13T23:00:00Z', '2026-11-13T23:30:00Z');
    const inUtc = await order('2026-11-13T23:00:00Z', '2026-11-13T23:30:00Z', { sandbox: utc });

    expect(idsOf(await lastOrders(day('20261114')))).toEqual([inAlgiers]);
    expect(idsOf(await lastOrders(day('20261113')))).toEqual([]);
    expect(idsOf(await lastOrders(day('20261113'), utc))).toEqual([inUtc]);
    expect(idsOf(await lastOrders(day('20261114'), utc))).toEqual([]);
    // Both ends count, to the second.
    const exact = { from: '20261114003000', to: '20261114003001' };
    expect(idsOf(await lastOrders(exact))).toEqual([inAlgiers]);
  });

  it('finds the orders of this merchant only', async () => {
    const orderId = await order('2026-11-16T09:00:00Z', '2026-11-16T09:01:00Z');
    expect(idsOf(await lastOrders({ ...day('20261116'), merchants: '' }))).toEqual([orderId]);
    expect(idsOf(await lastOrders({ ...day('20261116'), merchants: 'sandbox' }))).toEqual([
      orderId,
    ]);
    expect(await lastOrders({ ...day('20261116'), merchants: 'another-shop' })).toMatchObject({
      totalCount: 0,
      orderStatuses: [],
    });
  });

  it.each([
    ['size is missing', { size: '' }],
    ['size is over 200', { size: '201' }],
    ['transactionStates is missing', { transactionStates: '' }],
    ['a state is unknown', { transactionStates: 'DEPOSITED,PAID' }],
    ['from is not yyyyMMddHHmmss', { from: '2026-11-17' }],
    ['from is not before to', { from: '20261117235959' }],
    ['page is negative', { page: '-1' }],
  ])('answers 5 when %s', async (_label, change) => {
    const answer = await lastOrders({ ...day('20261117'), ...change });
    expect(answer).toMatchObject({ errorCode: '5' });
    expect(answer).not.toHaveProperty('orderStatuses');
  });

  it('answers 5, access denied, to other credentials', async () => {
    const answer = await rest(algiers, 'getLastOrdersForMerchants', {
      ...day('20261117'),
      size: '10',
      transactionStates: ALL_STATES,
      password: 'wrong',
    });
    expect(answer).toEqual({ errorCode: '5', errorMessage: 'Access denied' });
  });
});
