import type { LedgerOrder, Millis, PaymentRow, Stage, StatusSample, Verdict } from './evidence.ts';
import {
  depositedAt,
  fullyRefundedAt,
  groupBy,
  hasSucceeded,
  isInFlight,
  orderOf,
  ordersById,
} from './facts.ts';

export interface SampleEvidence {
  samples: readonly StatusSample[];
  payments: readonly PaymentRow[];
  ledger: readonly LedgerOrder[];
  /** Merchant ids by the campaign's merchant index. */
  merchantIds: readonly string[];
  /** The mode the samples were asked in (the merchants' keys). */
  mode: string;
  /**
   * Clocks of the campaign, the sandbox and Postgres may disagree this much (one
   * machine: a few ms, and ISO instants are cut to the millisecond).
   */
  clockToleranceMs?: number;
  /**
   * How long after a change is committed in payments the status endpoint may still
   * answer without it (the projection's lag, a transaction's time between its `now()`
   * and its commit), or a function of the read's time: a fault (a NATS node lost, a
   * consumer re-attached) may stretch it for a while. Only rules (c) and (d) grant it;
   * nothing excuses paid-then-not-paid.
   */
  visibilityMs?: number | ((sentAt: Millis) => number);
}

const CLOCK_TOLERANCE_MS = 50;
const VISIBILITY_MS = 3_000;

/** What the status endpoint may say of a reference while it can no longer be sold. */
const UNPAID: ReadonlySet<Stage> = new Set(['locked', 'released', 'not_found']);

/**
 * Status read all through the run, against the network's ledger and payments' rows:
 * (a) never `paid` before the network deposited the deciding attempt's order;
 * (b) never `paid`, then later `locked`, `released` or `not_found` while that payment
 *     was not refunded in full at the network;
 * (c) never `released` while an attempt that existed then later succeeded;
 * (d) never `locked` by an attempt decided well before the read;
 * (e) every record is one the spec allows: flags and payment.status pair with the stage.
 * "Later" is real time: a read counts as after another only if it was sent after the
 * other's answer arrived, so two reads in flight together are never ordered.
 */
export function checkStatusSamples(evidence: SampleEvidence): Verdict[] {
  const context = contextOf(evidence);
  return [
    paidAfterDeposit(context),
    paidStaysPaid(context),
    releasedOnlyWhenNothingCanSucceed(context),
    lockedOnlyByUndecided(context),
    recordsAreCoherent(context),
  ];
}

interface Context {
  samples: readonly StatusSample[];
  byId: Map<string, PaymentRow>;
  orders: Map<string, LedgerOrder>;
  attemptsOf(sample: StatusSample): PaymentRow[];
  tolerance: number;
  /** The visibility allowance of a read sent at this time. */
  visibility: (sentAt: Millis) => number;
}

function contextOf(evidence: SampleEvidence): Context {
  const key = (merchantId: string | undefined, reference: string) =>
    `${merchantId}\u0000${reference}`;
  const products = groupBy(
    evidence.payments.filter((p) => p.reference_kind === 'product' && p.mode === evidence.mode),
    (p) => key(p.merchant_id, p.reference),
  );
  return {
    samples: evidence.samples,
    byId: new Map(evidence.payments.map((p) => [p.id, p])),
    orders: ordersById(evidence.ledger),
    attemptsOf: (s) => products.get(key(evidence.merchantIds[s.merchantIndex], s.reference)) ?? [],
    tolerance: evidence.clockToleranceMs ?? CLOCK_TOLERANCE_MS,
    visibility: visibilityOf(evidence.visibilityMs),
  };
}

function visibilityOf(given: SampleEvidence['visibilityMs']): (sentAt: Millis) => number {
  if (typeof given === 'function') return given;
  const ms = given ?? VISIBILITY_MS;
  return () => ms;
}

const sentAt = (s: StatusSample): Millis => s.sentAt ?? s.at;
const when = (at: Millis) => new Date(at).toISOString();
const label = (s: StatusSample) => `m${s.merchantIndex}/${s.reference}`;

/** (a) A `paid` answer arrived only after the network had deposited that payment's order. */
function paidAfterDeposit({ samples, byId, orders, tolerance }: Context): Verdict {
  const violations: string[] = [];
  const paid = samples.filter((s) => s.stage === 'paid');
  for (const s of paid) {
    const payment = s.paymentId ? byId.get(s.paymentId) : undefined;
    const order = orderOf(payment, orders);
    const deposited = order ? depositedAt(order) : null;
    if (!payment) {
      violations.push(`${label(s)} read paid at ${when(s.at)} by unknown payment ${s.paymentId}`);
    } else if (deposited === null) {
      violations.push(
        `${label(s)} read paid at ${when(s.at)}; the network never deposited ${payment.id}`,
      );
    } else if (deposited > s.at + tolerance) {
      violations.push(
        `${label(s)} read paid at ${when(s.at)}, ${deposited - s.at} ms before the network deposited ${payment.id}`,
      );
    }
  }
  return {
    name: 'status samples: never paid before the network deposited',
    checked: paid.length,
    violations,
  };
}

/** (b) Once read `paid`, a reference never reads unpaid until that payment was refunded in full. */
function paidStaysPaid({ samples, byId, orders, tolerance }: Context): Verdict {
  const violations: string[] = [];
  let checked = 0;
  for (const reads of groupBy(samples, (s) => `${s.merchantIndex}\u0000${s.reference}`).values()) {
    const paid = reads.filter((s) => s.stage === 'paid');
    if (paid.length === 0) continue;
    checked++;
    for (const later of reads.filter((s) => UNPAID.has(s.stage))) {
      const before = paid.find((p) => p.at < sentAt(later) && !refundedBy(p, later.at));
      if (before) {
        violations.push(
          `${label(later)} read ${later.stage} at ${when(sentAt(later))} after paid by ${before.paymentId} at ${when(before.at)}`,
        );
      }
    }
  }
  function refundedBy(paid: StatusSample, at: Millis): boolean {
    const order = orderOf(paid.paymentId ? byId.get(paid.paymentId) : undefined, orders);
    const refunded = order ? fullyRefundedAt(order) : null;
    return refunded !== null && refunded <= at + tolerance;
  }
  return { name: 'status samples: never paid, then locked or released', checked, violations };
}

/** (c) `released` only when no attempt that existed then could still succeed. */
function releasedOnlyWhenNothingCanSucceed(context: Context): Verdict {
  const { samples, orders, tolerance, visibility } = context;
  const violations: string[] = [];
  const released = samples.filter((s) => s.stage === 'released');
  for (const s of released) {
    const culprit = context.attemptsOf(s).find((attempt) => {
      if (!hasSucceeded(attempt)) return false;
      if (attempt.created_at.getTime() + visibility(sentAt(s)) > sentAt(s)) return false;
      const order = orderOf(attempt, orders);
      const refunded = order ? fullyRefundedAt(order) : null;
      return refunded === null || refunded > s.at + tolerance;
    });
    if (culprit) {
      violations.push(
        `${label(s)} read released at ${when(sentAt(s))}; ${culprit.id}, created ${culprit.created_at.toISOString()}, succeeded`,
      );
    }
  }
  return {
    name: 'status samples: never released while an attempt can still succeed',
    checked: released.length,
    violations,
  };
}

/**
 * (d) `locked` only by an attempt not yet decided. A row's `updated_at` is no earlier than
 * its decision, so an attempt whose last write is older than the read by more than the
 * visibility allowance was surely decided before the read was sent.
 */
function lockedOnlyByUndecided({ samples, byId, visibility }: Context): Verdict {
  const violations: string[] = [];
  const locked = samples.filter((s) => s.stage === 'locked');
  for (const s of locked) {
    const payment = s.paymentId ? byId.get(s.paymentId) : undefined;
    if (!payment) {
      violations.push(`${label(s)} read locked at ${when(s.at)} by unknown payment ${s.paymentId}`);
    } else if (
      !isInFlight(payment) &&
      payment.updated_at.getTime() + visibility(sentAt(s)) <= sentAt(s)
    ) {
      violations.push(
        `${label(s)} read locked by ${payment.id} at ${when(sentAt(s))}; it was ${payment.status} by ${payment.updated_at.toISOString()}`,
      );
    }
  }
  return {
    name: 'status samples: never locked by an attempt already decided',
    checked: locked.length,
    violations,
  };
}

/** The spec's table: the flags of each stage, and the payment status it pairs with. */
const SHAPES: Record<
  Stage,
  { locked: boolean; paid: boolean; statuses: readonly (string | null)[] }
> = {
  locked: { locked: true, paid: false, statuses: ['pending', 'processing'] },
  paid: { locked: false, paid: true, statuses: ['success'] },
  released: { locked: false, paid: false, statuses: ['failed'] },
  refunded: { locked: false, paid: false, statuses: ['refunded'] },
  not_found: { locked: false, paid: false, statuses: [null] },
};

/** (e) Every record read is one the spec allows. */
function recordsAreCoherent({ samples }: Context): Verdict {
  const violations: string[] = [];
  for (const s of samples) {
    const shape = SHAPES[s.stage];
    const noPayment = (s.stage === 'not_found') !== (s.paymentId === null);
    if (
      s.locked !== shape.locked ||
      s.paid !== shape.paid ||
      noPayment ||
      !shape.statuses.includes(s.paymentStatus)
    ) {
      violations.push(
        `${label(s)} at ${when(s.at)}: stage ${s.stage} with locked ${s.locked}, paid ${s.paid}, payment ${s.paymentId} ${s.paymentStatus}`,
      );
    }
  }
  return {
    name: 'status samples: every record pairs its stage as the spec says',
    checked: samples.length,
    violations,
  };
}
