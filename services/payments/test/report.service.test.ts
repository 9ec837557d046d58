import { Rpc, type DailyReportReply } from '@dzpay/contracts';
import { requestRpc, type NatsConnection, type Sql } from '@dzpay/platform';
import type { IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveReportHandlers } from '../src/balance/daily-report-handlers.ts';
import { startHandlersTestbed } from './handlers-testbed.ts';
import { seedPayment, seedRefund, type Scope } from './seeded-rows.ts';

let infra: IsolatedInfra;
let sql: Sql;
let nats: NatsConnection;
let stop: (() => Promise<void>) | undefined;

const alice: Scope = { merchantId: '11111111-1111-4111-8111-111111111111', mode: 'test' };
const bob: Scope = { merchantId: '22222222-2222-4222-8222-222222222222', mode: 'test' };

const report = (request: { from: string; to: string }, scope: Scope = alice) =>
  requestRpc(nats, infra.natsPrefix, Rpc.paymentsReportDaily, { ...scope, ...request });

beforeAll(async () => {
  ({ infra, sql, nats, stop } = await startHandlersTestbed('payments-report', serveReportHandlers));

  // Algiers is UTC+01:00: its 10 March runs from 09T23:00Z to 10T23:00Z.
  const lastOfNinth = await seedPayment(sql, alice, {
    status: 'success',
    total: 155_000,
    fee: 5_000,
    paidAt: '2026-03-09T22:59:59.999Z',
  });
  await seedPayment(sql, alice, {
    status: 'success',
    total: 102_000,
    fee: 2_000,
    paidAt: '2026-03-09T23:00:00.000Z',
  });
  const refundedLater = await seedPayment(sql, alice, {
    status: 'refunded',
    total: 50_000,
    fee: 0,
    paidAt: '2026-03-10T22:59:59.000Z',
  });
  // Never counted: not paid, or paid by someone else, or in the other mode.
  await seedPayment(sql, alice, { status: 'failed', total: 70_000, fee: 1_000, paidAt: null });
  await seedPayment(sql, alice, { status: 'pending', total: 70_000, fee: 1_000, paidAt: null });
  const bobs = await seedPayment(sql, bob, {
    status: 'success',
    total: 999_900,
    fee: 900,
    paidAt: '2026-03-10T12:00:00Z',
  });
  const live = await seedPayment(
    sql,
    { ...alice, mode: 'live' },
    { status: 'success', total: 300_000, fee: 3_000, paidAt: '2026-03-10T12:00:00Z' },
  );

  // Confirmed merchant refunds count on the Algiers day they were confirmed.
  await seedRefund(sql, lastOfNinth, alice, {
    amount: 10_000,
    state: 'succeeded',
    at: '2026-03-10T22:00:00Z',
  });
  await seedRefund(sql, refundedLater, alice, {
    amount: 50_000,
    state: 'succeeded',
    at: '2026-03-11T23:30:00Z',
  });
  // Not counted: refused, still open, dzpay's own return of a late payment, others'.
  await seedRefund(sql, lastOfNinth, alice, {
    amount: 7_000,
    state: 'failed',
    at: '2026-03-10T10:00:00Z',
  });
  await seedRefund(sql, lastOfNinth, alice, {
    amount: 3_000,
    state: 'requested',
    at: '2026-03-10T10:00:00Z',
  });
  await seedRefund(sql, lastOfNinth, alice, {
    amount: 4_000,
    state: 'succeeded',
    reason: 'late',
    at: '2026-03-10T10:00:00Z',
  });
  await seedRefund(sql, bobs, bob, {
    amount: 1_000,
    state: 'succeeded',
    at: '2026-03-10T10:00:00Z',
  });
  await seedRefund(
    sql,
    live,
    { ...alice, mode: 'live' },
    {
      amount: 2_000,
      state: 'succeeded',
      at: '2026-03-10T10:00:00Z',
    },
  );
});
afterAll(() => stop?.());

const zero = {
  successCount: 0,
  successAmount: 0,
  refundCount: 0,
  refundAmount: 0,
  feeAmount: 0,
  net: 0,
};

describe('payments.report.daily', () => {
  it('sums successes by paid_at and confirmed refunds by confirmation, per Algiers day', async () => {
    const answer: DailyReportReply = await report({ from: '2026-03-09', to: '2026-03-12' });
    expect(answer.days).toEqual([
      {
        date: '2026-03-09',
        ...zero,
        successCount: 1,
        successAmount: 155_000,
        feeAmount: 5_000,
        net: 150_000,
      },
      {
        date: '2026-03-10',
        successCount: 2,
        successAmount: 152_000,
        refundCount: 1,
        refundAmount: 10_000,
        feeAmount: 2_000,
        net: 140_000,
      },
      { date: '2026-03-11', ...zero },
      { date: '2026-03-12', ...zero, refundCount: 1, refundAmount: 50_000, net: -50_000 },
    ]);
    expect(answer.totals).toEqual({
      successCount: 3,
      successAmount: 307_000,
      refundCount: 2,
      refundAmount: 60_000,
      feeAmount: 7_000,
      net: 240_000,
    });
  });

  it('cuts at Algiers midnight, both ends included', async () => {
    const ninth = await report({ from: '2026-03-09', to: '2026-03-09' });
    expect(ninth.days).toEqual([
      {
        date: '2026-03-09',
        ...zero,
        successCount: 1,
        successAmount: 155_000,
        feeAmount: 5_000,
        net: 150_000,
      },
    ]);
    const tenth = await report({ from: '2026-03-10', to: '2026-03-10' });
    expect(tenth.totals).toMatchObject({ successCount: 2, successAmount: 152_000, refundCount: 1 });
  });

  it('keeps merchants and modes apart', async () => {
    const bobs = await report({ from: '2026-03-10', to: '2026-03-10' }, bob);
    expect(bobs.totals).toMatchObject({
      successCount: 1,
      successAmount: 999_900,
      refundAmount: 1_000,
    });
    const live = await report({ from: '2026-03-01', to: '2026-03-31' }, { ...alice, mode: 'live' });
    expect(live.days).toHaveLength(31);
    expect(live.totals).toEqual({
      successCount: 1,
      successAmount: 300_000,
      refundCount: 1,
      refundAmount: 2_000,
      feeAmount: 3_000,
      net: 295_000,
    });
  });

  it('a whole leap year of days, all zeros where nothing happened', async () => {
    const year = await report({ from: '2028-01-01', to: '2028-12-31' });
    expect(year.days).toHaveLength(366);
    expect(year.days[59]!.date).toBe('2028-02-29');
    expect(year.totals).toEqual(zero);
  });
});
