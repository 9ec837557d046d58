import {
  algiersDay,
  dailyReportView,
  DailyReportQuery,
  resolveReportRange,
} from '@dzpay/contracts';
import { describe, expect, it } from 'vitest';
import { dailyReport } from '../src/balance/daily-report.ts';

const zero = {
  successCount: 0,
  successAmount: 0,
  refundCount: 0,
  refundAmount: 0,
  feeAmount: 0,
  net: 0,
};

describe('daily report: day filling and sums', () => {
  it('fills every day of the range, oldest first, across a month end', () => {
    const report = dailyReport({ from: '2026-02-27', to: '2026-03-02' }, [], []);
    expect(report.days.map((day) => day.date)).toEqual([
      '2026-02-27',
      '2026-02-28',
      '2026-03-01',
      '2026-03-02',
    ]);
    expect(
      report.days.every(
        (day) => JSON.stringify({ ...day, date: 0 }) === JSON.stringify({ date: 0, ...zero }),
      ),
    ).toBe(true);
    expect(report.totals).toEqual(zero);
  });

  it('places successes and refunds on their days; net = successes − fees − refunds', () => {
    const report = dailyReport(
      { from: '2026-03-01', to: '2026-03-03' },
      [
        { day: '2026-03-01', count: 2, amount: 310_000, fee: 10_000 },
        { day: '2026-03-03', count: 1, amount: 5_050, fee: 50 },
        // outside the range: ignored
        { day: '2026-03-04', count: 9, amount: 9, fee: 9 },
      ],
      [{ day: '2026-03-02', count: 1, amount: 155_000 }],
    );
    expect(report.days).toEqual([
      {
        date: '2026-03-01',
        ...zero,
        successCount: 2,
        successAmount: 310_000,
        feeAmount: 10_000,
        net: 300_000,
      },
      { date: '2026-03-02', ...zero, refundCount: 1, refundAmount: 155_000, net: -155_000 },
      {
        date: '2026-03-03',
        ...zero,
        successCount: 1,
        successAmount: 5_050,
        feeAmount: 50,
        net: 5_000,
      },
    ]);
    expect(report.totals).toEqual({
      successCount: 3,
      successAmount: 315_050,
      refundCount: 1,
      refundAmount: 155_000,
      feeAmount: 10_050,
      net: 150_000,
    });
  });

  it('shows DZD with the centimes beside them', () => {
    const view = dailyReportView(
      dailyReport(
        { from: '2026-03-01', to: '2026-03-01' },
        [{ day: '2026-03-01', count: 1, amount: 250_029, fee: 29 }],
        [{ day: '2026-03-01', count: 1, amount: 1 }],
      ),
    );
    expect(view).toMatchObject({
      timeZone: 'Africa/Algiers',
      utcOffset: '+01:00',
      currency: 'DZD',
    });
    expect(view.days[0]).toEqual({
      date: '2026-03-01',
      successCount: 1,
      successAmount: 2500.29,
      successAmountCentimes: 250_029,
      refundCount: 1,
      refundAmount: 0.01,
      refundAmountCentimes: 1,
      feeAmount: 0.29,
      feeAmountCentimes: 29,
      net: 2499.99,
      netCentimes: 249_999,
    });
  });
});

describe('daily report: the range asked', () => {
  it('today is the Algiers day: 23:30 UTC is already tomorrow', () => {
    expect(algiersDay(new Date('2026-03-09T22:59:59Z'))).toBe('2026-03-09');
    expect(algiersDay(new Date('2026-03-09T23:00:00Z'))).toBe('2026-03-10');
  });

  it('defaults to the last 30 days, today included', () => {
    const now = new Date('2026-03-09T23:30:00Z');
    expect(resolveReportRange({}, now)).toEqual({
      ok: true,
      value: { from: '2026-02-09', to: '2026-03-10' },
    });
    expect(resolveReportRange({ to: '2026-01-31' }, now)).toEqual({
      ok: true,
      value: { from: '2026-01-02', to: '2026-01-31' },
    });
    expect(resolveReportRange({ from: '2026-03-01' }, now)).toEqual({
      ok: true,
      value: { from: '2026-03-01', to: '2026-03-10' },
    });
  });

  it('at most 366 days, to not before from, each failure naming its field', () => {
    const now = new Date('2026-03-09T12:00:00Z');
    expect(resolveReportRange({ from: '2028-01-01', to: '2028-12-31' }, now).ok).toBe(true);
    expect(resolveReportRange({ from: '2026-01-01', to: '2027-01-02' }, now)).toMatchObject({
      ok: false,
      error: [{ field: 'to' }],
    });
    expect(resolveReportRange({ from: '2024-01-01' }, now)).toMatchObject({
      ok: false,
      error: [{ field: 'from' }],
    });
    expect(resolveReportRange({ from: '2026-03-02', to: '2026-03-01' }, now)).toEqual({
      ok: false,
      error: [{ field: 'to', message: 'to must not be before from' }],
    });
  });

  it('dates are YYYY-MM-DD days that exist', () => {
    for (const from of ['2026-02-30', '2026-13-01', '20260301', '2026-03-01T00:00:00Z', '']) {
      const parsed = DailyReportQuery.safeParse({ from });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]).toMatchObject({
        path: ['from'],
        message: 'from must be a date (YYYY-MM-DD)',
      });
    }
    expect(DailyReportQuery.safeParse({ from: '2028-02-29' }).success).toBe(true);
    expect(DailyReportQuery.safeParse({ day: '2028-02-29' }).success).toBe(false);
  });
});
