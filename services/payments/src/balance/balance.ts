import {
  addDays,
  daysInRange,
  type BalanceDay,
  type BalanceFigures,
  type BalanceReply,
} from '@dzpay/contracts';

/**
 * What the tables say of a span of time (centimes): successes by paid_at, confirmed
 * merchant refunds by confirmation, payouts by when they were recorded. Every field
 * optional: a span holds what its rows gave, the rest is zero.
 */
export interface Sums {
  capturedCount?: number;
  /** What cards were charged (amount + fee). */
  captured?: number;
  fees?: number;
  refundCount?: number;
  refunds?: number;
  payoutCount?: number;
  paidOut?: number;
}

/** The repository's rows, by where they fall against the range asked for. */
export interface Buckets {
  /** Before `from` began (Algiers midnight). */
  before: Sums;
  /** Each Algiers day of the range that had any row. */
  days: Map<string, Sums>;
  /** After `to` ended (a range reaching into the future has none). */
  after: Sums;
}

const FIELDS = [
  'capturedCount',
  'captured',
  'fees',
  'refundCount',
  'refunds',
  'payoutCount',
  'paidOut',
] as const;

/** a + b, field by field. */
function addSums(a: Sums, b: Sums): Required<Sums> {
  const sum = {} as Required<Sums>;
  for (const field of FIELDS) sum[field] = (a[field] ?? 0) + (b[field] ?? 0);
  return sum;
}

/** net = captured − fees − refunds: the fee of a refunded payment stays dzpay's. */
function netOf(s: Sums): number {
  return (s.captured ?? 0) - (s.fees ?? 0) - (s.refunds ?? 0);
}

/** The balance a span moves: captured − fees − refunds − paidOut. */
function movementOf(s: Sums): number {
  return netOf(s) - (s.paidOut ?? 0);
}

/** A span's figures, its balance carried on from `opening`. */
export function figuresOf(s: Sums, opening: number): BalanceFigures {
  const all = addSums(s, {});
  return { ...all, net: netOf(all), balance: opening + movementOf(all) };
}

/**
 * The balance of `from`..`to` (both included) and overall: one entry per day, oldest
 * first, quiet days as zeros with the balance carried; the totals close on the
 * balance at the end of `to`. What a payout may take (`available`) leaves the merchant
 * refunds still open aside, and is never below zero.
 */
export function balanceReply(
  range: { from: string; to: string },
  buckets: Buckets,
  pendingRefunds: number,
  asOf: Date,
): BalanceReply {
  const openingBalance = movementOf(buckets.before);
  const days: BalanceDay[] = [];
  let running = openingBalance;
  let period: Sums = {};
  for (let offset = 0; offset < daysInRange(range.from, range.to); offset++) {
    const date = addDays(range.from, offset);
    const sums = buckets.days.get(date) ?? {};
    const figures = figuresOf(sums, running);
    running = figures.balance;
    period = addSums(period, sums);
    days.push({ date, ...figures });
  }
  const overall = figuresOf(addSums(addSums(buckets.before, period), buckets.after), 0);
  return {
    asOf: asOf.toISOString(),
    overall,
    pendingRefunds,
    available: Math.max(0, overall.balance - pendingRefunds),
    from: range.from,
    to: range.to,
    openingBalance,
    days,
    totals: figuresOf(period, openingBalance),
  };
}
