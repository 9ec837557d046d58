import { algiersDay, StandardError } from '@dzpay/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARDS, payByHttp, type Card } from './support/payer.ts';
import { startStack, type Stack } from './support/stack.ts';

let stack: Stack;
let merchant: Awaited<ReturnType<Stack['merchant']>>;
let other: Awaited<ReturnType<Stack['merchant']>>;

beforeAll(async () => {
  stack = await startStack('reports', { RATE_LIMIT_PER_MINUTE: '100000' }, { withPayments: true });
  merchant = await stack.merchant('Librairie Ibn Khaldoun', { walletId: 'W-R', feeDzd: 15 });
  other = await stack.merchant('Someone else', { walletId: 'W-O', feeDzd: 0 });
});
afterAll(() => stack?.stop());

let seq = 0;
async function paid(key: string, amount: number, card: Card = CARDS.approved) {
  const client = stack.client(key);
  const payment = await client.registerPayment({
    amount,
    currency: 'DZD',
    reference: `RPT-${Date.now()}-${seq++}`,
  });
  await payByHttp(payment.checkoutUrl, card);
  return client.getPayment(payment.id);
}

const DAY_MS = 86_400_000;
/** Yesterday to tomorrow in Algiers: today's activity, whenever the test runs. */
function aroundToday() {
  const now = Date.now();
  return { from: algiersDay(new Date(now - DAY_MS)), to: algiersDay(new Date(now + DAY_MS)) };
}

describe('GET /api/v1/reports/daily', () => {
  it('counts real payments, fees and a refund on their Algiers days', async () => {
    const first = await paid(merchant.testKey, 150_000);
    const second = await paid(merchant.testKey, 200_050);
    await paid(merchant.testKey, 99_000, CARDS.insufficientFunds);
    expect([first.status, second.status]).toEqual(['success', 'success']);
    expect(first.total).toBe(151_500);
    await stack.client(merchant.testKey).refundPayment(first.id, { amount: 50_000 });
    await paid(other.testKey, 70_000);

    const range = aroundToday();
    const report = await stack.client(merchant.testKey).dailyReport(range);
    expect(report).toMatchObject({
      timeZone: 'Africa/Algiers',
      utcOffset: '+01:00',
      currency: 'DZD',
      ...range,
    });
    expect(report.days.map((day) => day.date)).toHaveLength(3);
    expect(report.totals).toEqual({
      successCount: 2,
      successAmount: 3530.5,
      successAmountCentimes: 353_050,
      refundCount: 1,
      refundAmount: 500,
      refundAmountCentimes: 50_000,
      feeAmount: 30,
      feeAmountCentimes: 3_000,
      net: 3000.5,
      netCentimes: 300_050,
    });
    // Each success is on the Algiers day of its paidAt; the other days are zeros.
    const paidDay = report.days.find((day) => day.date === algiersDay(new Date(second.paidAt!)))!;
    expect(paidDay.successCount).toBeGreaterThanOrEqual(1);
    const quiet = report.days.filter((day) => day.successCount === 0 && day.refundCount === 0);
    for (const day of quiet) expect(day.netCentimes).toBe(0);
    expect(report.days.reduce((sum, day) => sum + day.netCentimes, 0)).toBe(300_050);
  });

  it('the other mode, another merchant and a quiet range see only their own', async () => {
    const range = aroundToday();
    const live = await stack.client(merchant.liveKey).dailyReport(range);
    expect(live.totals.successCount).toBe(0);
    const others = await stack.client(other.testKey).dailyReport(range);
    expect(others.totals).toMatchObject({
      successCount: 1,
      successAmountCentimes: 70_000,
      feeAmount: 0,
    });
    const past = await stack
      .client(merchant.testKey)
      .dailyReport({ from: '2020-02-01', to: '2020-02-29' });
    expect(past.days).toHaveLength(29);
    expect(past.totals.successCount).toBe(0);
  });

  it('defaults to the last 30 days, today in Algiers last', async () => {
    const report = await stack.client(merchant.testKey).dailyReport();
    expect(report.days).toHaveLength(30);
    expect([algiersDay(new Date()), algiersDay(new Date(Date.now() - 60_000))]).toContain(
      report.to,
    );
  });

  it('bad dates are 400 naming the field; no key is 401', async () => {
    for (const [query, field] of [
      ['?from=2026-02-30', 'from'],
      ['?to=yesterday', 'to'],
      ['?from=2026-03-01T00:00:00Z', 'from'],
      ['?from=2026-03-02&to=2026-03-01', 'to'],
      ['?from=2025-01-01&to=2026-01-02', 'to'],
      ['?from=2026-01-01&from=2026-01-02', 'from'],
      ['?day=2026-01-01', 'day'],
    ] as const) {
      const response = await stack.get(`/api/v1/reports/daily${query}`, {
        'x-api-key': merchant.testKey,
      });
      expect(response.status, query).toBe(400);
      const body = StandardError.parse(await response.json());
      expect(body.errorCode).toBe('VALIDATION400_BAD_REQUEST');
      expect(body.details, query).toMatchObject({ failures: [{ field }] });
    }
    expect((await stack.get('/api/v1/reports/daily')).status).toBe(401);
  });
});
