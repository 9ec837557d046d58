import { Rpc } from '@dzpay/contracts';
import { requestRpc, type NatsConnection, type Sql } from '@dzpay/platform';
import type { IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveBalanceHandlers } from '../src/balance/balance-handlers.ts';
import { seedPayment, seedPayout, seedRefund, type Scope } from './seeded-rows.ts';
import { startHandlersTestbed } from './handlers-testbed.ts';

let infra: IsolatedInfra;
let sql: Sql;
let nats: NatsConnection;
let stop: (() => Promise<void>) | undefined;

const alice: Scope = { merchantId: '11111111-1111-4111-8111-111111111111', mode: 'test' };
const bob: Scope = { merchantId: '22222222-2222-4222-8222-222222222222', mode: 'test' };

const balance = (range: { from: string; to: string }, scope: Scope = alice) =>
  requestRpc(nats, infra.natsPrefix, Rpc.balanceGet, { ...scope, ...range });

beforeAll(async () => {
  ({ infra, sql, nats, stop } = await startHandlersTestbed(
    'payments-balance',
    serveBalanceHandlers,
  ));

  // Algiers is UTC+01:00: its 10 March runs from 09T23:00Z to 10T23:00Z.
  const ninth = await seedPayment(sql, alice, {
    status: 'success',
    total: 155_000,
    fee: 5_000,
    paidAt: '2026-03-09T22:59:59.999Z',
  });
  const tenth = await seedPayment(sql, alice, {
    status: 'refunded',
    total: 102_000,
    fee: 2_000,
    paidAt: '2026-03-09T23:00:00.000Z',
  });
  // Refunded whole on the 11th (in Algiers): the total, fee included, goes back.
  await seedRefund(sql, tenth, alice, {
    amount: 102_000,
    state: 'succeeded',
    at: '2026-03-11T10:00:00Z',
  });
  // Partly refunded on the 10th; another refund of it refused, one still open.
  await seedRefund(sql, ninth, alice, {
    amount: 30_000,
    state: 'succeeded',
    at: '2026-03-10T08:00:00Z',
  });
  await seedRefund(sql, ninth, alice, { amount: 1_000, state: 'failed', at: '2026-03-10T09:00Z' });
  await seedRefund(sql, ninth, alice, {
    amount: 4_000,
    state: 'requested',
    at: '2026-03-10T10:00:00Z',
  });
  // Money dzpay returned on its own, on a payment that never succeeded: not the merchant's.
  const late = await seedPayment(sql, alice, {
    status: 'failed',
    total: 70_000,
    fee: 0,
    paidAt: null,
  });
  await seedRefund(sql, late, alice, {
    amount: 70_000,
    state: 'succeeded',
    reason: 'late',
    at: '2026-03-10T11:00:00Z',
  });
  await seedPayout(sql, alice, { amount: 20_000, at: '2026-03-10T22:30:00Z' });
  // Before the range (opening balance), and after it.
  await seedPayment(sql, alice, {
    status: 'success',
    total: 10_100,
    fee: 100,
    paidAt: '2026-02-28T12:00:00Z',
  });
  await seedPayout(sql, alice, { amount: 5_000, at: '2026-03-01T12:00:00Z' });
  await seedPayment(sql, alice, {
    status: 'success',
    total: 40_400,
    fee: 400,
    paidAt: '2026-03-20T12:00:00Z',
  });
  // Others: another merchant, the other mode.
  await seedPayment(sql, bob, {
    status: 'success',
    total: 99_900,
    fee: 900,
    paidAt: '2026-03-10T10:00Z',
  });
  await seedPayment(
    sql,
    { ...alice, mode: 'live' },
    {
      status: 'success',
      total: 88_800,
      fee: 800,
      paidAt: '2026-03-10T10:00Z',
    },
  );
});

afterAll(() => stop?.());

describe('payments.balance.get', () => {
  it('sums by Algiers day from the tables, carrying the balance', async () => {
    const reply = await balance({ from: '2026-03-09', to: '2026-03-11' });
    // Before 9 March: 10 100 − 100 captured less fee, 5 000 paid out on the 1st.
    expect(reply.openingBalance).toBe(10_000 - 5_000);
    const days = Object.fromEntries(reply.days.map((d) => [d.date, d]));
    expect(days['2026-03-09']).toMatchObject({
      capturedCount: 1,
      captured: 155_000,
      fees: 5_000,
      net: 150_000,
      balance: 155_000,
    });
    expect(days['2026-03-10']).toMatchObject({
      capturedCount: 1,
      captured: 102_000,
      fees: 2_000,
      refundCount: 1,
      refunds: 30_000,
      payoutCount: 1,
      paidOut: 20_000,
      net: 70_000,
      balance: 205_000,
    });
    expect(days['2026-03-11']).toMatchObject({ refunds: 102_000, net: -102_000, balance: 103_000 });
    expect(reply.totals.balance).toBe(103_000);
    // Overall adds the 20th.
    expect(reply.overall).toEqual({
      capturedCount: 4,
      captured: 10_100 + 155_000 + 102_000 + 40_400,
      fees: 100 + 5_000 + 2_000 + 400,
      refundCount: 2,
      refunds: 132_000,
      net: 307_500 - 7_500 - 132_000,
      payoutCount: 2,
      paidOut: 25_000,
      balance: 307_500 - 7_500 - 132_000 - 25_000,
    });
    expect(reply.pendingRefunds).toBe(4_000);
    expect(reply.available).toBe(reply.overall.balance - 4_000);
  });

  it('keeps merchants and modes apart', async () => {
    const range = { from: '2026-03-01', to: '2026-03-31' };
    expect((await balance(range, bob)).overall).toMatchObject({
      captured: 99_900,
      balance: 99_000,
    });
    expect((await balance(range, { ...alice, mode: 'live' })).overall.balance).toBe(88_000);
    const stranger = await balance(range, {
      merchantId: '99999999-9999-4999-8999-999999999999',
      mode: 'test',
    });
    expect(stranger.overall.balance).toBe(0);
    expect(stranger.days).toHaveLength(31);
  });
});

describe('payments.statement.get', () => {
  it('is the month: opening, days, closing and its payouts, oldest first', async () => {
    const statement = await requestRpc(nats, infra.natsPrefix, Rpc.statementGet, {
      ...alice,
      month: '2026-03',
    });
    expect(statement).toMatchObject({ month: '2026-03', from: '2026-03-01', to: '2026-03-31' });
    expect(statement.openingBalance).toBe(10_000);
    expect(statement.days).toHaveLength(31);
    expect(statement.totals.paidOut).toBe(25_000);
    expect(statement.totals.balance).toBe(143_000);
    expect(statement.payouts.map((p) => p.amount)).toEqual([5_000, 20_000]);
    expect(statement.payouts[0]).not.toHaveProperty('recordedBy');
  });
});
