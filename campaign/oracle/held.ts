import type {
  CardFormVisit,
  LedgerOrder,
  Millis,
  PaymentRow,
  Stage,
  StatusSample,
  Verdict,
} from './evidence.ts';
import {
  depositedAt,
  fullyRefundedAt,
  groupBy,
  hasSucceeded,
  orderOf,
  ordersById,
} from './facts.ts';

export interface HeldEvidence {
  samples: readonly StatusSample[];
  /** The card forms the payers reached (the payer actor's record). */
  cardForms: readonly CardFormVisit[];
  payments: readonly PaymentRow[];
  ledger: readonly LedgerOrder[];
  /** Merchant ids by the campaign's merchant index. */
  merchantIds: readonly string[];
  /** The mode the samples were asked in (the merchants' keys). */
  mode: string;
  /**
   * Payments a merchant's cancel was acknowledged for: a cancel may end the hold before
   * the form is sent, at a time nobody recorded, so their card forms prove nothing.
   * (Merchants cannot cancel AGENCY attempts: a correct dzpay answers 404.)
   */
  cancelled?: readonly string[];
  /** Clocks of the campaign, the sandbox and payments may disagree this much. */
  clockToleranceMs?: number;
  /**
   * How long before its row's `expires_at` an attempt may be expired, by the window's end
   * (a function of it): a payments replica whose wall clock runs ahead (the campaign's
   * clock-skew fault) closes windows early by its skew. 0 on a machine with one clock.
   */
  expiryEarlyMs?: number | ((expiresAt: Millis) => number);
}

const CLOCK_TOLERANCE_MS = 50;

/** The stages the spec calls "safe to release": nothing is held. */
const FREE: ReadonlySet<Stage> = new Set(['not_found', 'released', 'refunded']);

/** An interval during which an attempt surely held its reference, and why. */
interface Hold {
  paymentId: string;
  from: Millis;
  /** The hold ended at the latest then (exclusive); Infinity: not by the end of the run. */
  until: Millis;
  why: string;
}

/**
 * (f) Never free while held: a status read of a product reference answering `not_found`,
 * `released` or `refunded` is wrong when, over the whole read (sent to answered), an
 * attempt on that reference surely held it:
 * - a payer was on its card form: from when the payer had the form's URL (the attempt
 *   was committed, its order registered) until the payer sent the form, or, never sent,
 *   the attempt's window closed (`expires_at`); nothing but the form or the window's end
 *   decides an attempt before that (a merchant's cancel could, at a time nobody
 *   recorded: attempts with an acknowledged cancel or failed `cancelled` do not count).
 * - money: the network had deposited the order of an attempt dzpay recorded as a success
 *   before the read was sent, and had not refunded it in full by the answer. (A deposit
 *   dzpay refused, paid after the window or a sale's second, is money owed back, not a
 *   sale: the reference is free with it.)
 * No visibility allowance: a partner is told "safe to sell" only about a reference that
 * is; a read that cannot tell answers an error, and the partner keeps the lock (the spec).
 * `checked`: the reads made while a hold was sure, each of which had to say held or paid.
 */
export function checkNeverFreeWhileHeld(evidence: HeldEvidence): Verdict {
  const tolerance = evidence.clockToleranceMs ?? CLOCK_TOLERANCE_MS;
  const early = earlyOf(evidence.expiryEarlyMs);
  const key = (merchantId: string | undefined, reference: string) =>
    `${merchantId}\u0000${reference}`;
  const merchants = new Set(evidence.merchantIds);
  const cancelled = new Set(evidence.cancelled ?? []);
  const byId = new Map(evidence.payments.map((p) => [p.id, p]));
  const orders = ordersById(evidence.ledger);
  const counts = (p: PaymentRow | undefined): p is PaymentRow =>
    p !== undefined &&
    p.reference_kind === 'product' &&
    p.mode === evidence.mode &&
    merchants.has(p.merchant_id);

  const holds: { payment: PaymentRow; hold: Hold }[] = [];
  for (const visit of evidence.cardForms) {
    const payment = byId.get(orders.get(visit.mdOrder)?.udf1 ?? '');
    if (!counts(payment) || cancelled.has(payment.id) || payment.failure_reason === 'cancelled') {
      continue;
    }
    const windowEnd = payment.expires_at.getTime() - early(payment.expires_at.getTime());
    const sent = visit.submittedAt ?? Infinity;
    holds.push({
      payment,
      hold: {
        paymentId: payment.id,
        from: visit.reachedAt,
        until: Math.min(sent, windowEnd),
        why:
          `a payer on the card form of order ${visit.mdOrder} from ${when(visit.reachedAt)} ` +
          (sent <= windowEnd ? `until sending it at ${when(sent)}` : `until ${when(windowEnd)}`),
      },
    });
  }
  for (const payment of evidence.payments) {
    if (!counts(payment) || !hasSucceeded(payment)) continue;
    const order = orderOf(payment, orders);
    const deposited = order ? depositedAt(order) : null;
    if (!order || deposited === null) continue;
    const refunded = fullyRefundedAt(order);
    holds.push({
      payment,
      hold: {
        paymentId: payment.id,
        from: deposited,
        until: refunded ?? Infinity,
        why:
          `the network deposited order ${order.orderId} at ${when(deposited)}` +
          (refunded === null
            ? ', never refunded in full'
            : `, refunded in full at ${when(refunded)}`),
      },
    });
  }
  const holdsOf = groupBy(holds, ({ payment }) => key(payment.merchant_id, payment.reference));

  const violations: string[] = [];
  let checked = 0;
  for (const s of evidence.samples) {
    const sent = s.sentAt ?? s.at;
    const sure = (holdsOf.get(key(evidence.merchantIds[s.merchantIndex], s.reference)) ?? [])
      .map(({ hold }) => hold)
      .find((h) => h.from + tolerance <= sent && s.at + tolerance < h.until);
    if (!sure) continue;
    checked++;
    if (FREE.has(s.stage)) {
      violations.push(
        `m${s.merchantIndex}/${s.reference} read ${s.stage}${s.paymentId ? ` (${s.paymentId})` : ''} ` +
          `sent ${when(sent)}, answered ${s.at - sent} ms later; ${sure.paymentId} held it: ${sure.why}`,
      );
    }
  }
  return {
    name: 'status samples: never not_found, released or refunded while an attempt holds the reference',
    checked,
    violations,
  };
}

function earlyOf(given: HeldEvidence['expiryEarlyMs']): (expiresAt: Millis) => number {
  if (typeof given === 'function') return given;
  const ms = given ?? 0;
  return () => ms;
}

const when = (at: Millis) => new Date(at).toISOString();
