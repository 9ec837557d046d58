import {
  addDays,
  daysInRange,
  type DailyReportReply,
  type ReportDay,
  type ReportFigures,
} from '@dzpay/contracts';

/** What the payments table says of one Algiers day: its successes (centimes). */
export interface SuccessDay {
  day: string;
  count: number;
  /** Totals charged to cards (amount + fee). */
  amount: number;
  fee: number;
}

/** What the refunds table says of one Algiers day: merchant refunds confirmed then. */
export interface RefundDay {
  day: string;
  count: number;
  amount: number;
}

const ZERO: ReportFigures = {
  successCount: 0,
  successAmount: 0,
  refundCount: 0,
  refundAmount: 0,
  feeAmount: 0,
  net: 0,
};

/**
 * The report of `from`..`to` (both included): one entry per day, oldest first, days
 * without activity as zeros, and the totals. net = successes − fees − refunds: the fee
 * of a refunded payment stays dzpay's, so a payment refunded whole nets −fee.
 * Days outside the range are ignored (the SQL never gives any).
 */
export function dailyReport(
  range: { from: string; to: string },
  successes: readonly SuccessDay[],
  refunds: readonly RefundDay[],
): DailyReportReply {
  const byDay = new Map<string, ReportDay>();
  const length = daysInRange(range.from, range.to);
  for (let offset = 0; offset < length; offset++) {
    const date = addDays(range.from, offset);
    byDay.set(date, { date, ...ZERO });
  }
  for (const success of successes) {
    const day = byDay.get(success.day);
    if (!day) continue;
    day.successCount += success.count;
    day.successAmount += success.amount;
    day.feeAmount += success.fee;
  }
  for (const refund of refunds) {
    const day = byDay.get(refund.day);
    if (!day) continue;
    day.refundCount += refund.count;
    day.refundAmount += refund.amount;
  }
  const days = [...byDay.values()].map((day) => ({
    ...day,
    net: day.successAmount - day.feeAmount - day.refundAmount,
  }));
  const totals = days.reduce<ReportFigures>(
    (sum, day) => ({
      successCount: sum.successCount + day.successCount,
      successAmount: sum.successAmount + day.successAmount,
      refundCount: sum.refundCount + day.refundCount,
      refundAmount: sum.refundAmount + day.refundAmount,
      feeAmount: sum.feeAmount + day.feeAmount,
      net: sum.net + day.net,
    }),
    ZERO,
  );
  return { from: range.from, to: range.to, days, totals };
}
