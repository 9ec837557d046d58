import type { PaymentRow, RefundRow, Verdict, WebhookSeen } from './evidence.ts';
import { centimesOf, groupBy, hasSucceeded } from './facts.ts';

export interface WebhookEvidence {
  webhooks: readonly WebhookSeen[];
  payments: readonly PaymentRow[];
  refunds: readonly RefundRow[];
  /** Merchant ids by the campaign's merchant index (whose endpoint took a webhook). */
  merchantIds: readonly string[];
  /** Indexes of the merchants whose endpoint takes `payment.refunded` (none by default). */
  merchantsWantingRefunds: readonly number[];
}

const OUTCOMES = new Set(['payment.success', 'payment.fail']);

/**
 * Every webhook the partner received against the database (docs/webhooks.md, Body):
 * amounts in DZD, the attempt's before the fee (a refund's: that refund); status and
 * failure reason of the outcome; every copy of one event id the same body; one outcome
 * per decided payment, of its kind; refunds that add up to the payment's refunded amount.
 */
export function checkWebhooks(evidence: WebhookEvidence): Verdict[] {
  const byId = new Map(evidence.payments.map((p) => [p.id, p]));
  const copies = groupBy(evidence.webhooks, (w) => w.event.id);
  const events = [...copies.values()].map((seen) => seen[0]!);
  return [
    bodies(evidence, byId, events),
    outcomes(evidence, copies, events),
    refundsAddUp(evidence, byId, events),
  ];
}

/** Each distinct event's body against its payment's row. */
function bodies(
  evidence: WebhookEvidence,
  byId: Map<string, PaymentRow>,
  events: WebhookSeen[],
): Verdict {
  const violations: string[] = [];
  for (const webhook of events) {
    const { event } = webhook;
    const row = byId.get(event.data.paymentId);
    if (!row) {
      violations.push(`${event.type} ${event.id}: no payment ${event.data.paymentId}`);
      continue;
    }
    const wrong = wrongFields(evidence, webhook, row);
    if (wrong.length > 0)
      violations.push(`${event.type} ${event.id} of ${row.id}: ${wrong.join('; ')}`);
  }
  return { name: 'webhook bodies equal the database', checked: events.length, violations };
}

function wrongFields(
  evidence: WebhookEvidence,
  { merchant, event }: WebhookSeen,
  row: PaymentRow,
): string[] {
  const { data } = event;
  const refunded = event.type === 'payment.refunded';
  const fail = event.type === 'payment.fail';
  const expected: [string, unknown, unknown][] = [
    ['merchant', evidence.merchantIds[merchant], row.merchant_id],
    ['reference', data.reference, row.reference],
    ['channel', data.channel, row.channel],
    ['currency', data.currency, row.currency],
    ['orderId', data.orderId, row.cardnet_order_id],
    ['failureReason', data.failureReason, fail ? row.failure_reason : null],
    ['paidAt', instant(data.paidAt), fail ? null : instant(row.paid_at)],
  ];
  if (!refunded) expected.push(['amount (centimes)', centimesOf(data.amount), row.amount]);
  const wrong = expected
    .filter(([, got, want]) => got !== want)
    .map(([field, got, want]) => `${field} ${String(got)}, the row says ${String(want)}`);
  switch (event.type) {
    case 'payment.success':
      if (data.status !== 'success') wrong.push(`status ${data.status} on a success`);
      if (!hasSucceeded(row)) wrong.push(`payment.success, the payment is ${row.status}`);
      break;
    case 'payment.fail':
      if (data.status !== 'failed') wrong.push(`status ${data.status} on a fail`);
      if (row.status !== 'failed') wrong.push(`payment.fail, the payment is ${row.status}`);
      break;
    case 'payment.refunded':
      if (data.status !== 'success' && data.status !== 'refunded')
        wrong.push(`status ${data.status} on a refund`);
      if (!hasSucceeded(row)) wrong.push(`payment.refunded, the payment is ${row.status}`);
      if (data.refundedAmount === undefined) wrong.push('no refundedAmount');
      else if (centimesOf(data.refundedAmount) > row.refunded_amount) {
        wrong.push(
          `refundedAmount ${data.refundedAmount} beyond the row's ${row.refunded_amount / 100}`,
        );
      }
      break;
    default:
      wrong.push(`unknown type ${event.type}`);
  }
  return wrong;
}

/** One outcome per decided payment, of its kind; every copy of an event the same body. */
function outcomes(
  evidence: WebhookEvidence,
  copies: Map<string, WebhookSeen[]>,
  events: WebhookSeen[],
): Verdict {
  const violations: string[] = [];
  for (const [id, seen] of copies) {
    const bodies = new Set(seen.map((w) => `${w.merchant} ${stable(w.event)}`));
    if (bodies.size > 1)
      violations.push(`event ${id} arrived ${bodies.size} times with different bodies`);
  }
  const outcomesOf = groupBy(
    events.filter((w) => OUTCOMES.has(w.event.type)),
    (w) => w.event.data.paymentId,
  );
  const ours = new Set(evidence.merchantIds);
  const decided = evidence.payments.filter(
    (p) => ours.has(p.merchant_id) && (hasSucceeded(p) || p.status === 'failed'),
  );
  for (const p of decided) {
    const got = outcomesOf.get(p.id) ?? [];
    const kind = p.status === 'failed' ? 'payment.fail' : 'payment.success';
    if (got.length === 0)
      violations.push(`${p.id} (${p.status}): no outcome webhook reached the partner`);
    else if (got.length > 1) {
      violations.push(
        `${p.id}: ${got.length} outcome events (${got.map((w) => `${w.event.type} ${w.event.id}`).join(', ')})`,
      );
    } else if (got[0]!.event.type !== kind) {
      violations.push(`${p.id} (${p.status}): the partner was told ${got[0]!.event.type}`);
    }
  }
  return {
    name: 'one outcome webhook per decided payment, the same body every time',
    checked: decided.length,
    violations,
  };
}

/**
 * Refund events against the payment's merchant refunds that succeeded: each one's amount
 * is one intent's (no two events for one intent); where the endpoint takes them all,
 * their running totals are `refundedAmount` and the last is the row's refunded amount.
 */
function refundsAddUp(
  evidence: WebhookEvidence,
  byId: Map<string, PaymentRow>,
  events: WebhookSeen[],
): Verdict {
  const violations: string[] = [];
  const wanting = new Set(evidence.merchantsWantingRefunds);
  const refundEvents = groupBy(
    events.filter((w) => w.event.type === 'payment.refunded'),
    (w) => w.event.data.paymentId,
  );
  const intents = groupBy(
    evidence.refunds.filter((r) => r.state === 'succeeded' && r.reason === 'merchant'),
    (r) => r.payment_id,
  );
  const refundedPayments = evidence.payments.filter(
    (p) => p.refunded_amount > 0 && wanting.has(evidence.merchantIds.indexOf(p.merchant_id)),
  );
  const paymentIds = new Set([...refundEvents.keys(), ...refundedPayments.map((p) => p.id)]);
  for (const paymentId of paymentIds) {
    const row = byId.get(paymentId);
    const got = refundEvents.get(paymentId) ?? [];
    const merchant = row ? evidence.merchantIds.indexOf(row.merchant_id) : -1;
    if (!row) continue; // bodies() names it
    if (got.length > 0 && !wanting.has(merchant)) {
      violations.push(
        `${paymentId}: ${got.length} payment.refunded sent to an endpoint that did not ask for them`,
      );
    }
    const left = (intents.get(paymentId) ?? []).map((r) => r.amount);
    for (const webhook of got) {
      const at = left.indexOf(centimesOf(webhook.event.data.amount));
      if (at >= 0) left.splice(at, 1);
      else
        violations.push(
          `${paymentId}: payment.refunded ${webhook.event.id} of ${webhook.event.data.amount} DZD matches no refund`,
        );
    }
    if (!wanting.has(merchant)) continue;
    if (left.length > 0)
      violations.push(
        `${paymentId}: refunds of ${left.join(', ')} centimes sent no payment.refunded`,
      );
    const totals = got
      .map((w) => centimesOf(w.event.data.refundedAmount ?? Number.NaN))
      .sort((a, b) => a - b);
    const amounts = [...got]
      .sort((a, b) => (a.event.data.refundedAmount ?? 0) - (b.event.data.refundedAmount ?? 0))
      .map((w) => centimesOf(w.event.data.amount));
    let running = 0;
    const expected = amounts.map((amount) => (running += amount));
    if (totals.join() !== expected.join() || (running !== row.refunded_amount && got.length > 0)) {
      violations.push(
        `${paymentId}: refundedAmount ${totals.join(', ')} for refunds ${amounts.join(', ')}; the row has ${row.refunded_amount} (centimes)`,
      );
    }
  }
  return {
    name: 'payment.refunded webhooks add up to the refunds made',
    checked: paymentIds.size,
    violations,
  };
}

const instant = (value: string | Date | null) =>
  value === null ? null : new Date(value).getTime();

/** JSON with sorted keys: two parses of one body compare equal. */
function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a.localeCompare(b),
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stable(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
