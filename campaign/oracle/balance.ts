import type { PaymentRow, RefundRow, Verdict } from './evidence.ts';

/**
 * The balance, rechecked without dzpay's code (README.md): from the raw rows of
 * `payments.payments`, `payments.refunds` and `payments.payouts`, by the rules of
 * docs/balance.md read afresh:
 *
 *   captured = Σ total of payments that succeeded (status success or refunded, paid)
 *   fees     = Σ (total − amount) of the same
 *   refunds  = Σ amount of refunds the network confirmed (state succeeded) that the
 *              merchant asked for (reason merchant)
 *   paidOut  = Σ amount of payouts
 *   balance  = captured − fees − refunds − paidOut
 *
 * and compared to the centime with what `GET /api/v1/balance` answered for every
 * merchant and mode asked, with what the operators were told of their payouts, and
 * with what each payout could take when it was recorded.
 */

/** A row of `payments.payouts` (bigints as numbers). */
export interface PayoutRow {
  id: string;
  merchant_id: string;
  mode: string;
  amount: number;
  reference: string;
  recorded_at: Date;
}

/** The `data` of a `GET /api/v1/balance` answer, as far as the oracle reads it. */
export interface BalanceData {
  overall?: Record<string, unknown>;
  openingBalanceCentimes?: unknown;
  days?: Record<string, unknown>[];
  totals?: Record<string, unknown>;
}

/** `GET /api/v1/balance` after settle, for one merchant and mode. */
export interface BalanceAnswer {
  merchantId: string;
  mode: string;
  httpStatus: number;
  data: BalanceData | null;
}

/** What `dzpay payout record` told the operator. */
export interface PayoutAttempt {
  merchantId: string;
  mode: string;
  reference: string;
  amount: number;
  /** recorded (exit 0), refused (over the balance), or unknown (no answer: a fault). */
  outcome: 'recorded' | 'refused' | 'unknown';
  /** The payout id the CLI printed, when recorded. */
  payoutId?: string;
}

export interface BalanceEvidence {
  payments: readonly PaymentRow[];
  refunds: readonly RefundRow[];
  payouts: readonly PayoutRow[];
  answers: readonly BalanceAnswer[];
  attempts: readonly PayoutAttempt[];
  /**
   * How long a refund's confirmation may have been in flight: refunds confirmed within
   * this of a payout may not have been seen by it (they were still open then), so the
   * overdraw rule gives them the benefit of the doubt.
   */
  inFlightMs: number;
}

interface Figures {
  captured: number;
  fees: number;
  refunds: number;
  paidOut: number;
}

const scopeOf = (merchantId: string, mode: string) => `${merchantId}/${mode}`;
const balanceOf = (f: Figures) => f.captured - f.fees - f.refunds - f.paidOut;
const succeeded = (p: PaymentRow) =>
  (p.status === 'success' || p.status === 'refunded') && p.paid_at !== null;

/** The oracle's own sums per merchant and mode, of the rows that pass `keep`. */
function figuresByScope(
  evidence: Pick<BalanceEvidence, 'payments' | 'refunds' | 'payouts'>,
  keep: {
    payment?: (p: PaymentRow) => boolean;
    refund?: (r: RefundRow, p: PaymentRow) => boolean;
    payout?: (p: PayoutRow) => boolean;
  } = {},
): Map<string, Figures> {
  const figures = new Map<string, Figures>();
  const at = (merchantId: string, mode: string) => {
    const key = scopeOf(merchantId, mode);
    let found = figures.get(key);
    if (!found) figures.set(key, (found = { captured: 0, fees: 0, refunds: 0, paidOut: 0 }));
    return found;
  };
  const byId = new Map(evidence.payments.map((p) => [p.id, p]));
  for (const p of evidence.payments) {
    if (!succeeded(p) || (keep.payment && !keep.payment(p))) continue;
    const f = at(p.merchant_id, p.mode);
    f.captured += p.total;
    f.fees += p.total - p.amount;
  }
  for (const r of evidence.refunds) {
    const p = byId.get(r.payment_id);
    if (!p || r.state !== 'succeeded' || r.reason !== 'merchant') continue;
    if (keep.refund && !keep.refund(r, p)) continue;
    at(p.merchant_id, p.mode).refunds += r.amount;
  }
  for (const payout of evidence.payouts) {
    if (keep.payout && !keep.payout(payout)) continue;
    at(payout.merchant_id, payout.mode).paidOut += payout.amount;
  }
  return figures;
}

const FIELDS: [keyof Figures | 'balance', string][] = [
  ['captured', 'capturedCentimes'],
  ['fees', 'feesCentimes'],
  ['refunds', 'refundsCentimes'],
  ['paidOut', 'paidOutCentimes'],
  ['balance', 'balanceCentimes'],
];

/** balance = captured − fees − refunds − paidOut, for every merchant and mode, to the centime. */
export function checkBalance(evidence: BalanceEvidence): Verdict[] {
  return [answersAgree(evidence), payoutsAsTold(evidence), neverOverdrawn(evidence)];
}

function answersAgree(evidence: BalanceEvidence): Verdict {
  const violations: string[] = [];
  const figures = figuresByScope(evidence);
  for (const answer of evidence.answers) {
    const scope = scopeOf(answer.merchantId, answer.mode);
    const overall = answer.data?.overall;
    if (answer.httpStatus !== 200 || !overall) {
      violations.push(`${scope}: GET /api/v1/balance answered ${answer.httpStatus}`);
      continue;
    }
    const own = figures.get(scope) ?? { captured: 0, fees: 0, refunds: 0, paidOut: 0 };
    const expected = { ...own, balance: balanceOf(own) };
    for (const [field, key] of FIELDS) {
      if (overall[key] !== expected[field]) {
        violations.push(
          `${scope}: ${key} is ${String(overall[key])}, the rows say ${expected[field]}`,
        );
      }
    }
    // The answer's own arithmetic, whatever the rows: overall, and the days carried
    // from the opening balance to the totals' closing one.
    const n = (value: unknown) => (typeof value === 'number' ? value : NaN);
    const identity =
      n(overall.capturedCentimes) -
      n(overall.feesCentimes) -
      n(overall.refundsCentimes) -
      n(overall.paidOutCentimes);
    if (identity !== n(overall.balanceCentimes)) {
      violations.push(
        `${scope}: balance ${String(overall.balanceCentimes)} is not captured − fees − refunds − paidOut = ${identity}`,
      );
    }
    let running = n(answer.data?.openingBalanceCentimes);
    for (const day of answer.data?.days ?? []) {
      running +=
        n(day.capturedCentimes) -
        n(day.feesCentimes) -
        n(day.refundsCentimes) -
        n(day.paidOutCentimes);
      if (running !== n(day.balanceCentimes)) {
        violations.push(
          `${scope}: ${String(day.date)} closes on ${String(day.balanceCentimes)}, its movements say ${running}`,
        );
        break;
      }
    }
    if (running !== n(answer.data?.totals?.balanceCentimes)) {
      violations.push(
        `${scope}: the range closes on ${String(answer.data?.totals?.balanceCentimes)}, its days say ${running}`,
      );
    }
  }
  return {
    name: 'balance = captured − fees − refunds − payouts, to the centime',
    checked: evidence.answers.length,
    violations,
  };
}

/** What the operator was told is what the table holds: once, for the amount typed. */
function payoutsAsTold(evidence: BalanceEvidence): Verdict {
  const violations: string[] = [];
  // A bank reference is one transfer whatever its case or surrounding spaces: payments
  // stores it trimmed and upper-cased (PayoutRecordRequest), the operator typed it as is.
  const keyOf = (mode: string, reference: string) => `${mode}/${reference.trim().toUpperCase()}`;
  const byReference = new Map<string, PayoutRow[]>();
  for (const row of evidence.payouts) {
    const key = keyOf(row.mode, row.reference);
    byReference.set(key, [...(byReference.get(key) ?? []), row]);
  }
  for (const rows of byReference.values()) {
    const [first] = rows;
    if (first && rows.length > 1) {
      violations.push(
        `bank reference ${first.mode}/${first.reference} records ${rows.length} payouts`,
      );
    }
  }
  for (const attempt of evidence.attempts) {
    const rows = byReference.get(keyOf(attempt.mode, attempt.reference)) ?? [];
    const row = rows[0];
    if (attempt.outcome === 'recorded') {
      if (!row) violations.push(`payout ${attempt.reference} was acknowledged, no row holds it`);
      else if (
        row.amount !== attempt.amount ||
        row.merchant_id !== attempt.merchantId ||
        (attempt.payoutId !== undefined && row.id !== attempt.payoutId)
      ) {
        violations.push(
          `payout ${attempt.reference}: told ${attempt.amount} to ${attempt.merchantId} (${attempt.payoutId ?? '?'}), the row says ${row.amount} to ${row.merchant_id} (${row.id})`,
        );
      }
    } else if (attempt.outcome === 'refused' && row) {
      violations.push(`payout ${attempt.reference} was refused, yet a row holds it (${row.id})`);
    }
  }
  return {
    name: 'payouts recorded as the operators were told',
    checked: evidence.attempts.length,
    violations,
  };
}

/**
 * No payout took more than the balance when it was recorded. The bound is generous to
 * dzpay (an upper bound of what it could have seen): every success paid before the
 * payout, only the refunds confirmed well before it, every payout recorded before it.
 */
function neverOverdrawn(evidence: BalanceEvidence): Verdict {
  const violations: string[] = [];
  for (const payout of evidence.payouts) {
    const t = payout.recorded_at.getTime();
    const before = figuresByScope(evidence, {
      payment: (p) => p.paid_at !== null && p.paid_at.getTime() <= t,
      refund: (r) =>
        r.updated_at !== undefined && r.updated_at.getTime() <= t - evidence.inFlightMs,
      payout: (other) =>
        other.merchant_id === payout.merchant_id &&
        other.mode === payout.mode &&
        (other.recorded_at.getTime() < t ||
          (other.recorded_at.getTime() === t && other.id < payout.id)),
    }).get(scopeOf(payout.merchant_id, payout.mode));
    const bound = before ? balanceOf(before) : 0;
    if (payout.amount > bound) {
      violations.push(
        `payout ${payout.id} (${payout.reference}) took ${payout.amount}; at most ${bound} was there to take`,
      );
    }
  }
  return {
    name: 'no payout takes more than the balance',
    checked: evidence.payouts.length,
    violations,
  };
}
