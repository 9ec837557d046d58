import type { Millis, PaymentRow, StatusAnswer, StatusRecord, Verdict } from './evidence.ts';
import { centimesOf, groupBy, hasSucceeded, isInFlight, iso, latest } from './facts.ts';

/**
 * The stage of a product reference, recomputed from payments' rows by the rules of the
 * spec ("Stage of a reference") and ARCHITECTURE §4, first match wins:
 * 1. an attempt succeeded and was not refunded: `paid` (the latest such);
 * 2. an attempt is in flight (pending, processing; also once its window closed, until
 *    it is decided): `locked` (the latest such);
 * 3. the latest decided attempt was refunded: `refunded`;
 * 4. attempts exist: `released` (the latest);
 * 5. none: `not_found`.
 * Amounts are DZD (the attempt's amount before the fee, centimes / 100).
 */
export function stageOf(
  reference: string,
  attempts: readonly PaymentRow[],
  now: Millis,
): StatusRecord {
  const success = latest(attempts.filter((p) => p.status === 'success'));
  if (success) return recordOf(reference, 'paid', success, null);
  const inFlight = latest(attempts.filter(isInFlight));
  if (inFlight) {
    // Once the network holds the order, or the window closed undecided, the lock has no end.
    const open = !inFlight.awaiting_verdict && inFlight.expires_at.getTime() > now;
    return recordOf(reference, 'locked', inFlight, open ? iso(inFlight.expires_at) : null);
  }
  const decided = latest(attempts.filter((p) => !isInFlight(p)));
  if (decided?.status === 'refunded') return recordOf(reference, 'refunded', decided, null);
  const last = latest(attempts);
  if (last) return recordOf(reference, 'released', last, null);
  return {
    reference,
    stage: 'not_found',
    locked: false,
    paid: false,
    lockReleaseTime: null,
    paymentId: null,
    currency: 'DZD',
    amount: null,
    payment: null,
  };
}

function recordOf(
  reference: string,
  stage: 'paid' | 'locked' | 'refunded' | 'released',
  attempt: PaymentRow,
  lockReleaseTime: string | null,
): StatusRecord {
  return {
    reference,
    stage,
    locked: stage === 'locked',
    paid: stage === 'paid',
    lockReleaseTime,
    paymentId: attempt.id,
    currency: attempt.currency,
    amount: attempt.amount / 100,
    payment: {
      paymentId: attempt.id,
      status: attempt.status,
      amount: attempt.amount / 100,
      currency: attempt.currency,
      paidAt: hasSucceeded(attempt) ? iso(attempt.paid_at) : null,
      orderId: attempt.cardnet_order_id,
    },
  };
}

/** The product attempts a status query for `reference` looks at: this merchant and mode only. */
function attemptsOf(
  payments: readonly PaymentRow[],
  key: { merchantId: string; mode: string; reference: string },
): PaymentRow[] {
  return payments.filter(
    (p) =>
      p.reference_kind === 'product' &&
      p.merchant_id === key.merchantId &&
      p.mode === key.mode &&
      p.reference === key.reference,
  );
}

/**
 * The status endpoint's answers after settle against the stage recomputed from the rows,
 * at the moment each answer arrived; and every product reference of the rows was asked.
 */
export function checkFinalStatus(evidence: {
  payments: readonly PaymentRow[];
  answers: readonly StatusAnswer[];
}): Verdict {
  const violations: string[] = [];
  const keyOf = (k: { merchantId: string; mode: string; reference: string }) =>
    `${k.merchantId}\u0000${k.mode}\u0000${k.reference}`;
  const asked = new Set(evidence.answers.map(keyOf));
  const products = groupBy(
    evidence.payments.filter((p) => p.reference_kind === 'product'),
    (p) => keyOf({ merchantId: p.merchant_id, mode: p.mode, reference: p.reference }),
  );
  for (const [key, attempts] of products) {
    if (!asked.has(key)) violations.push(`${attempts[0]!.reference}: its status was never asked`);
  }
  for (const answer of evidence.answers) {
    if (answer.httpStatus !== 200 || !answer.record) {
      violations.push(`${answer.reference}: the status endpoint answered ${answer.httpStatus}`);
      continue;
    }
    const expected = stageOf(answer.reference, attemptsOf(evidence.payments, answer), answer.at);
    const differences = differencesOf(answer.record, expected);
    if (differences.length > 0) {
      violations.push(`${answer.reference}: ${differences.join('; ')}`);
    }
  }
  return {
    name: 'status answers equal the stage recomputed by the oracle',
    checked: evidence.answers.length,
    violations,
  };
}

/** What a status record says differently from the recomputed one, field by field. */
function differencesOf(actual: StatusRecord, expected: StatusRecord): string[] {
  const fields: [string, unknown, unknown][] = [
    ['stage', actual.stage, expected.stage],
    ['locked', actual.locked, expected.locked],
    ['paid', actual.paid, expected.paid],
    ['paymentId', actual.paymentId, expected.paymentId],
    ['payment.status', actual.payment?.status ?? null, expected.payment?.status ?? null],
    ['amount (centimes)', cents(actual.amount), cents(expected.amount)],
    ['payment.amount (centimes)', cents(actual.payment?.amount), cents(expected.payment?.amount)],
    ['currency', actual.currency, expected.currency],
    ['lockReleaseTime', instant(actual.lockReleaseTime), instant(expected.lockReleaseTime)],
  ];
  // An attempt shows its order and payment time once decided (spec, fields of `payment`).
  if (expected.payment && !['pending', 'processing'].includes(expected.payment.status)) {
    fields.push(
      ['payment.orderId', actual.payment?.orderId ?? null, expected.payment.orderId],
      ['payment.paidAt', instant(actual.payment?.paidAt), instant(expected.payment.paidAt)],
    );
  }
  return fields
    .filter(([, got, want]) => got !== want)
    .map(([field, got, want]) => `${field} is ${String(got)}, the rows say ${String(want)}`);
}

const cents = (dzd: number | null | undefined) =>
  dzd === null || dzd === undefined ? null : centimesOf(dzd);
const instant = (value: string | null | undefined) =>
  value ? new Date(value).toISOString() : null;
