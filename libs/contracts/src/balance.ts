// A merchant's balance and payouts: schemas and NATS subjects, and the merchant API's bodies.
import { z } from 'zod';
import { refusingBidiControls } from './bidi-controls.ts';
import { centimesToDzd } from './money.ts';
import { pageQuery } from './page-query.ts';
import { algiersDay, dayRangeQuery, daysInRange, REPORT_TIME_ZONE } from './reports.ts';
import { READ, rpc } from './rpc-definition.ts';
import { MerchantScope } from './scope.ts';

/**
 * Per merchant and mode, in integer centimes (docs/balance.md):
 *
 *   captured  what cards were charged for successes (amount + fee), on the day of paid_at
 *   fees      dzpay's fees on those successes
 *   refunds   merchant refunds the card network confirmed, on the day of confirmation
 *   net       captured − fees − refunds
 *   paidOut   payouts an operator recorded to the merchant's wallet
 *   balance   net − paidOut: what dzpay still owes the merchant (negative: the merchant owes)
 *
 * A refund of everything gives the payer back the total, fee included; the fee stays
 * dzpay's, so such a payment leaves −fee in the merchant's balance.
 */

const IsoDay = z.iso.date();
const Centimes = z.int();
const Count = z.int().nonnegative();

/** A month, YYYY-MM (01 to 12). */
export const StatementMonth = z
  .string({ error: 'month must be YYYY-MM' })
  .regex(/^(19|20|21)\d{2}-(0[1-9]|1[0-2])$/, { error: 'month must be YYYY-MM (01 to 12)' });

/** The first and last days of a month (YYYY-MM). */
export function monthDays(month: string): { from: string; to: string } {
  const [year, number] = month.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(year, number, 0)).getUTCDate();
  return { from: `${month}-01`, to: `${month}-${String(last).padStart(2, '0')}` };
}

/** The month in Algiers at an instant (YYYY-MM). */
export function algiersMonth(at: Date): string {
  return algiersDay(at).slice(0, 7);
}

/**
 * A DZD amount typed by a person, read exactly into centimes (never through a float):
 * digits, then at most two decimals after `.` or `,` (`1500`, `1500.5`, `1500,50`).
 * Thousands separators are refused, so `1.500` is never mistaken for 1 500. Null when
 * the text is not such an amount, or is zero.
 */
export function dzdTextToCentimes(text: string): number | null {
  const match = /^(\d{1,12})(?:[.,](\d{1,2}))?$/.exec(text.trim());
  if (!match) return null;
  const centimes = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return centimes > 0 && Number.isSafeInteger(centimes) ? centimes : null;
}

// ---- NATS (integer centimes) ----

/** The figures of a span of time; `balance` is where the balance stood at its end. */
export const BalanceFigures = z.object({
  capturedCount: Count,
  captured: Centimes,
  fees: Centimes,
  refundCount: Count,
  refunds: Centimes,
  /** captured − fees − refunds. */
  net: Centimes,
  payoutCount: Count,
  paidOut: Centimes,
  /** The balance at the span's end: what came before, plus net − paidOut. */
  balance: Centimes,
});
export type BalanceFigures = z.infer<typeof BalanceFigures>;

export const BalanceDay = BalanceFigures.extend({ date: IsoDay });
export type BalanceDay = z.infer<typeof BalanceDay>;

const dayRange = { from: IsoDay, to: IsoDay };
const rangeRule = [
  ({ from, to }: { from: string; to: string }) =>
    daysInRange(from, to) >= 1 && daysInRange(from, to) <= 366,
  { error: 'from..to must be 1 to 366 days' },
] as const;

export const BalanceGetRequest = MerchantScope.extend(dayRange).refine(...rangeRule);
export type BalanceGetRequest = z.infer<typeof BalanceGetRequest>;

export const BalanceReply = z.object({
  /** When it was read (every figure from one snapshot of the database). */
  asOf: z.iso.datetime(),
  /** Everything until now. */
  overall: BalanceFigures,
  /** Merchant refunds asked of the card network and not decided yet. */
  pendingRefunds: Centimes,
  /** What a payout may take now: overall.balance − pendingRefunds (never below 0). */
  available: Centimes,
  from: IsoDay,
  to: IsoDay,
  /** The balance when `from` began (Algiers midnight). */
  openingBalance: Centimes,
  /** Every day of from..to, oldest first, quiet days as zeros (balance carried). */
  days: z.array(BalanceDay),
  /** The range's sums; `balance` is the closing balance at the end of `to`. */
  totals: BalanceFigures,
});
export type BalanceReply = z.infer<typeof BalanceReply>;

/** A payout as the merchant sees it (the operator who recorded it is in the audit log). */
export const PayoutView = z.object({
  id: z.uuid(),
  mode: z.enum(['test', 'live']),
  amount: Centimes.positive(),
  /** The wallet the money was sent to. */
  wallet: z.string(),
  /** The bank's reference of the transfer. */
  reference: z.string(),
  recordedAt: z.iso.datetime(),
});
export type PayoutView = z.infer<typeof PayoutView>;

export const PAYOUTS_PAGE_MAX = 100;
export const PAYOUTS_PAGE_DEFAULT = 20;

export const PayoutsListRequest = MerchantScope.extend({
  limit: z.int().min(1).max(PAYOUTS_PAGE_MAX),
  cursor: z.string().max(200).optional(),
});
export type PayoutsListRequest = z.infer<typeof PayoutsListRequest>;

export const PayoutsPage = z.object({
  /** Newest first. */
  payouts: z.array(PayoutView),
  /** Give it as `cursor` for the next (older) page; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type PayoutsPage = z.infer<typeof PayoutsPage>;

/**
 * Bank references and wallets: printable text without spaces at either end, and nothing
 * that reorders it where the merchant reads it (statements, the dashboard).
 */
const Label = (field: string, max: number) =>
  refusingBidiControls(
    z
      .string()
      .min(1, { error: `${field} should not be empty` })
      .max(max, { error: `${field} must be at most ${max} characters` })
      .regex(/^\S(.*\S)?$/, { error: `${field} must not start or end with a space` })
      .regex(/^[^\p{Cc}]*$/u, { error: `${field} must not hold control characters` }),
    field,
  );

/**
 * A bank reference as the bank means it: `bna-2026-03-0001` and ` BNA-2026-03-0001 ` name
 * one transfer, so it is trimmed and upper-cased before it is checked or stored (the
 * payouts table's unique index compares upper(reference) too, migration 016).
 */
const BankReference = refusingBidiControls(
  z
    .string()
    .trim()
    .toUpperCase()
    .min(1, { error: 'reference should not be empty' })
    .max(100, { error: 'reference must be at most 100 characters' })
    .regex(/^[^\p{Cc}]*$/u, { error: 'reference must not hold control characters' }),
  'reference',
);

export const PayoutRecordRequest = MerchantScope.extend({
  amount: Centimes.positive(),
  wallet: Label('wallet', 100),
  reference: BankReference,
  /** Who recorded it (kept with the payout; the audit event is the CLI's). */
  operator: Label('operator', 100),
});
export type PayoutRecordRequest = z.infer<typeof PayoutRecordRequest>;

export const PayoutRecordReply = z.object({
  payout: PayoutView,
  /** The reference had recorded this very payout already: nothing new was recorded. */
  replayed: z.boolean(),
  /** The balance after the payout (what it was when first recorded, for a replay: now). */
  balance: Centimes,
});
export type PayoutRecordReply = z.infer<typeof PayoutRecordReply>;

export const StatementRequest = MerchantScope.extend({ month: StatementMonth });
export type StatementRequest = z.infer<typeof StatementRequest>;

export const StatementReply = z.object({
  month: StatementMonth,
  from: IsoDay,
  to: IsoDay,
  asOf: z.iso.datetime(),
  openingBalance: Centimes,
  days: z.array(BalanceDay),
  totals: BalanceFigures,
  /** The month's payouts, oldest first. */
  payouts: z.array(PayoutView),
});
export type StatementReply = z.infer<typeof StatementReply>;

/** The balance's and payouts' NATS subjects, spread into Rpc (rpc.ts). */
export const BalanceRpc = {
  balanceGet: rpc('payments.balance.get', BalanceGetRequest, BalanceReply, READ),
  payoutsList: rpc('payments.payouts.list', PayoutsListRequest, PayoutsPage, READ),
  /** An operator records a payout (the admin CLI): never more than the balance. */
  payoutRecord: rpc('payments.payouts.record', PayoutRecordRequest, PayoutRecordReply),
  /** A month's statement: the figures the PDF, CSV and XLSX are drawn from. */
  statementGet: rpc('payments.statement.get', StatementRequest, StatementReply, READ),
} as const;

// ---- HTTP (DZD with at most 2 decimals, and the same in centimes) ----

/** `GET /api/v1/balance`: the days of the by-day table (both optional, as the daily report). */
export const BalanceQuery = z.strictObject(dayRangeQuery);
export type BalanceQuery = z.input<typeof BalanceQuery>;

/** `GET /api/v1/payouts`. */
export const PayoutsQuery = z.strictObject(pageQuery(PAYOUTS_PAGE_MAX));
export type PayoutsQuery = z.input<typeof PayoutsQuery>;

export const StatementFormat = z.enum(['pdf', 'csv', 'xlsx'], {
  error: 'format must be pdf, csv or xlsx',
});
export type StatementFormat = z.infer<typeof StatementFormat>;

/** `GET /api/v1/statements/{month}`: the file's format, the CSV's dialect, the PDF's language. */
export const StatementQuery = z.strictObject({
  format: StatementFormat.optional(),
  dialect: z
    .enum(['standard', 'spreadsheet'], { error: 'dialect must be standard or spreadsheet' })
    .optional(),
  language: z.enum(['fr', 'en', 'ar'], { error: 'language must be fr, en or ar' }).optional(),
});
export type StatementQuery = z.input<typeof StatementQuery>;

/** A month whose statement can be asked for: not after the current month in Algiers. */
export function statementMonthProblem(month: string, now: Date): string | null {
  if (!StatementMonth.safeParse(month).success) return 'month must be YYYY-MM (01 to 12)';
  if (month > algiersMonth(now)) return 'month must not be after the current month';
  return null;
}

/** An amount twice: DZD (at most two decimals) and centimes. */
const money = <F extends string>(field: F) =>
  ({ [field]: z.number(), [`${field}Centimes`]: Centimes }) as {
    [K in F]: z.ZodNumber;
  } & { [K in `${F}Centimes`]: typeof Centimes };

const BalanceFiguresView = z.object({
  capturedCount: Count,
  ...money('captured'),
  ...money('fees'),
  refundCount: Count,
  ...money('refunds'),
  ...money('net'),
  payoutCount: Count,
  ...money('paidOut'),
  ...money('balance'),
});
export type BalanceFiguresView = z.infer<typeof BalanceFiguresView>;

export const BalanceView = z.object({
  timeZone: z.literal(REPORT_TIME_ZONE),
  utcOffset: z.literal('+01:00'),
  currency: z.literal('DZD'),
  asOf: z.iso.datetime(),
  overall: BalanceFiguresView,
  ...money('pendingRefunds'),
  ...money('available'),
  from: IsoDay,
  to: IsoDay,
  ...money('openingBalance'),
  days: z.array(BalanceFiguresView.extend({ date: IsoDay })),
  totals: BalanceFiguresView,
});
export type BalanceView = z.infer<typeof BalanceView>;

export const PayoutItemView = PayoutView.omit({ amount: true }).extend({
  amount: z.number(),
  amountCentimes: Centimes.positive(),
});
export type PayoutItemView = z.infer<typeof PayoutItemView>;

export const PayoutsPageView = z.object({
  payouts: z.array(PayoutItemView),
  nextCursor: z.string().nullable(),
});
export type PayoutsPageView = z.infer<typeof PayoutsPageView>;

const withData = <S extends z.ZodType>(data: S) =>
  z.object({ statusCode: z.literal(200), message: z.string(), data });

/** 200 of GET /api/v1/balance. */
export const BalanceResponse = withData(BalanceView);
/** 200 of GET /api/v1/payouts. */
export const PayoutsResponse = withData(PayoutsPageView);

function figuresView(f: BalanceFigures): BalanceFiguresView {
  const both = (field: string, centimes: number) => ({
    [field]: centimesToDzd(centimes),
    [`${field}Centimes`]: centimes,
  });
  return {
    capturedCount: f.capturedCount,
    ...both('captured', f.captured),
    ...both('fees', f.fees),
    refundCount: f.refundCount,
    ...both('refunds', f.refunds),
    ...both('net', f.net),
    payoutCount: f.payoutCount,
    ...both('paidOut', f.paidOut),
    ...both('balance', f.balance),
  } as BalanceFiguresView;
}

/** The balance as the merchant API shows it: DZD converted at the edge, centimes kept. */
export function balanceView(reply: BalanceReply): BalanceView {
  return {
    timeZone: REPORT_TIME_ZONE,
    utcOffset: '+01:00',
    currency: 'DZD',
    asOf: reply.asOf,
    overall: figuresView(reply.overall),
    pendingRefunds: centimesToDzd(reply.pendingRefunds),
    pendingRefundsCentimes: reply.pendingRefunds,
    available: centimesToDzd(reply.available),
    availableCentimes: reply.available,
    from: reply.from,
    to: reply.to,
    openingBalance: centimesToDzd(reply.openingBalance),
    openingBalanceCentimes: reply.openingBalance,
    days: reply.days.map(({ date, ...figures }) => ({ date, ...figuresView(figures) })),
    totals: figuresView(reply.totals),
  };
}

export function payoutItemView(payout: PayoutView): PayoutItemView {
  return { ...payout, amount: centimesToDzd(payout.amount), amountCentimes: payout.amount };
}
