import { z } from 'zod';
import { centimesToDzd } from './money.ts';
import { MerchantScope } from './scope.ts';

/**
 * A merchant's daily report of what was paid, refunded and charged: the query of
 * `GET /api/v1/reports/daily`, its answer, and the NATS request payments answers.
 *
 * Days are calendar days in Algiers (`Africa/Algiers`, UTC+01:00 all year, no daylight
 * saving): a payment at 23:30 UTC on the 1st counts on the 2nd.
 */

export const REPORT_TIME_ZONE = 'Africa/Algiers';
const REPORT_UTC_OFFSET = '+01:00';
/** Longest report: a leap year. */
const REPORT_MAX_DAYS = 366;
/** Without from/to, the last 30 days, today included. */
const REPORT_DEFAULT_DAYS = 30;

const DAY_MS = 86_400_000;
const IsoDay = z.iso.date();

/** The calendar day in Algiers at an instant (YYYY-MM-DD). */
export function algiersDay(at: Date): string {
  // en-CA formats as YYYY-MM-DD; the zone database knows Algiers' offset.
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: REPORT_TIME_ZONE,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(at);
}

/** The day `count` days after `day` (before, when negative). */
export function addDays(day: string, count: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + count * DAY_MS).toISOString().slice(0, 10);
}

/** How many days from `from` to `to`, both included (0 or less when to is before from). */
export function daysInRange(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

/** A day of a query string, `YYYY-MM-DD`, named in the error by its field. */
const queryDay = (field: string) =>
  z
    .string({ error: `${field} must be a date (YYYY-MM-DD)` })
    .refine((value) => IsoDay.safeParse(value).success, {
      error: `${field} must be a date (YYYY-MM-DD)`,
    });

/** The days of a range a query asks for: both optional, days in Algiers, both included. */
export const dayRangeQuery = { from: queryDay('from').optional(), to: queryDay('to').optional() };

/** `GET /api/v1/reports/daily`: both optional, days in Algiers, both included. */
export const DailyReportQuery = z.strictObject(dayRangeQuery);
export type DailyReportQuery = z.input<typeof DailyReportQuery>;

export interface ReportRange {
  from: string;
  to: string;
}

/**
 * The days a valid query asks for, defaults filled: `to` is today in Algiers, `from` is
 * 29 days before `to`. A failure names the field at fault.
 */
export function resolveReportRange(
  query: { from?: string | undefined; to?: string | undefined },
  now: Date,
): { ok: true; value: ReportRange } | { ok: false; error: { field: string; message: string }[] } {
  const to = query.to ?? algiersDay(now);
  const from = query.from ?? addDays(to, -(REPORT_DEFAULT_DAYS - 1));
  const days = daysInRange(from, to);
  if (days < 1)
    return { ok: false, error: [{ field: 'to', message: 'to must not be before from' }] };
  if (days > REPORT_MAX_DAYS) {
    // Blame the field the caller gave: a lone `from` too far back is the one at fault.
    const field = query.to === undefined ? 'from' : 'to';
    return {
      ok: false,
      error: [
        {
          field,
          message: `from and to must be at most ${REPORT_MAX_DAYS} days apart (both included)`,
        },
      ],
    };
  }
  return { ok: true, value: { from, to } };
}

// ---- NATS (integer centimes) ----

export const DailyReportRequest = MerchantScope.extend({ from: IsoDay, to: IsoDay }).refine(
  ({ from, to }) => daysInRange(from, to) >= 1 && daysInRange(from, to) <= REPORT_MAX_DAYS,
  { error: `from..to must be 1 to ${REPORT_MAX_DAYS} days` },
);
export type DailyReportRequest = z.infer<typeof DailyReportRequest>;

const Centimes = z.int();
const Count = z.int().nonnegative();

/** One day's figures in centimes. */
export const ReportFigures = z.object({
  successCount: Count,
  /** What cards were charged for the successes (amount + fee), by paid_at. */
  successAmount: Centimes,
  refundCount: Count,
  /** Merchant refunds the card network confirmed, by confirmation time. */
  refundAmount: Centimes,
  /** dzpay's fees on the successes. */
  feeAmount: Centimes,
  /** successAmount − feeAmount − refundAmount: may be negative. */
  net: Centimes,
});
export type ReportFigures = z.infer<typeof ReportFigures>;

export const ReportDay = ReportFigures.extend({ date: IsoDay });
export type ReportDay = z.infer<typeof ReportDay>;

export const DailyReportReply = z.object({
  from: IsoDay,
  to: IsoDay,
  /** Every day of the range, oldest first, days without activity as zeros. */
  days: z.array(ReportDay),
  totals: ReportFigures,
});
export type DailyReportReply = z.infer<typeof DailyReportReply>;

// ---- HTTP (DZD with at most 2 decimals, and the same in centimes) ----

const ReportFiguresView = z.object({
  successCount: Count,
  successAmount: z.number(),
  successAmountCentimes: Centimes,
  refundCount: Count,
  refundAmount: z.number(),
  refundAmountCentimes: Centimes,
  feeAmount: z.number(),
  feeAmountCentimes: Centimes,
  net: z.number(),
  netCentimes: Centimes,
});
type ReportFiguresView = z.infer<typeof ReportFiguresView>;

export const DailyReportView = z.object({
  timeZone: z.literal(REPORT_TIME_ZONE),
  utcOffset: z.literal(REPORT_UTC_OFFSET),
  currency: z.literal('DZD'),
  from: IsoDay,
  to: IsoDay,
  days: z.array(ReportFiguresView.extend({ date: IsoDay })),
  totals: ReportFiguresView,
});
export type DailyReportView = z.infer<typeof DailyReportView>;

function figuresView(figures: ReportFigures): ReportFiguresView {
  return {
    successCount: figures.successCount,
    successAmount: centimesToDzd(figures.successAmount),
    successAmountCentimes: figures.successAmount,
    refundCount: figures.refundCount,
    refundAmount: centimesToDzd(figures.refundAmount),
    refundAmountCentimes: figures.refundAmount,
    feeAmount: centimesToDzd(figures.feeAmount),
    feeAmountCentimes: figures.feeAmount,
    net: centimesToDzd(figures.net),
    netCentimes: figures.net,
  };
}

/** The report as the merchant API shows it: DZD converted at the edge, centimes kept. */
export function dailyReportView(reply: DailyReportReply): DailyReportView {
  return {
    timeZone: REPORT_TIME_ZONE,
    utcOffset: REPORT_UTC_OFFSET,
    currency: 'DZD',
    from: reply.from,
    to: reply.to,
    days: reply.days.map(({ date, ...figures }) => ({ date, ...figuresView(figures) })),
    totals: figuresView(reply.totals),
  };
}
