import type { LedgerOrder } from '@dzpay/cardnet-sandbox/control';
import type { MailCatcher } from '@dzpay/testkit';
import type postgres from 'postgres';
import type { Acknowledged } from './actors/context.ts';
import type { FaultWindow } from './faults.ts';
import type { PaymentRow as OracleRow } from './oracle/evidence.ts';
import type { Exchange } from './http.ts';
import type { ReceivedWebhook } from './partner.ts';
import type { CampaignMerchant } from './world.ts';

/** One invariant's verdict: how many things it looked at, and what broke it. */
export interface Verdict {
  name: string;
  checked: number;
  violations: string[];
}

export interface Evidence {
  sql: postgres.Sql;
  ledger: LedgerOrder[];
  webhooks: ReceivedWebhook[];
  exchanges: Exchange[];
  windows: FaultWindow[];
  faultGraceMs: number;
  acks: Acknowledged;
  mail: MailCatcher;
  gatewayUrl: string;
  merchants: CampaignMerchant[];
  unexpectedExits: { service: string; at: number; code: number | null; signal: string | null }[];
  /** An attempt open this long past its window is a violation (the settle grace). */
  settleGraceMs: number;
}

/** A payments row as the oracle reads it, and where the sweeper stands with it. */
interface PaymentRow extends Omit<OracleRow, 'failure_reason'> {
  settle_lease_until: Date | null;
  sweep_failures: number;
  next_sweep_at: Date | null;
}

/** Invariants 1, 2, 3, 5 and 6 of docs/reliability.md, checked once the system has settled. */
export async function checkInvariants(evidence: Evidence): Promise<Verdict[]> {
  const payments = await evidence.sql<PaymentRow[]>`
    select id, merchant_id, mode, channel, reference, reference_kind, epoch, status, amount,
           total, currency, cardnet_order_id, refunded_amount, refund_due, locks_reference,
           awaiting_verdict, settle_lease_until, sweep_failures, next_sweep_at, expires_at,
           paid_at, created_at, updated_at
    from payments.payments`;
  const refunded = new Map<string, number>();
  for (const row of await evidence.sql<{ payment_id: string; sum: number }[]>`
      select payment_id, sum(amount)::bigint as sum from payments.refunds
      where state = 'succeeded' group by payment_id`) {
    refunded.set(row.payment_id, Number(row.sum));
  }
  return [
    oneSuccessPerSale(payments, evidence.ledger),
    ledgerAgrees(payments, refunded, evidence.ledger),
    await outcomesDelivered(evidence),
    await nothingLeftOpen(payments, evidence),
    answersAndWrites(payments, evidence),
  ];
}

const saleOf = (p: PaymentRow) =>
  `${p.merchant_id}/${p.mode}/${p.reference_kind}/${p.reference}/${p.epoch}`;

/** 1. At most one success per reference epoch (sale), and at most one charge kept for it. */
function oneSuccessPerSale(payments: PaymentRow[], ledger: LedgerOrder[]): Verdict {
  const violations: string[] = [];
  const sales = new Map<string, PaymentRow[]>();
  for (const p of payments.filter((p) => p.locks_reference)) {
    sales.set(saleOf(p), [...(sales.get(saleOf(p)) ?? []), p]);
  }
  const orders = new Map(ledger.map((order) => [order.orderId, order]));
  for (const [sale, attempts] of sales) {
    const successes = attempts.filter((p) => p.status === 'success');
    if (successes.length > 1) {
      violations.push(
        `${sale}: ${successes.length} successes (${successes.map((p) => p.id).join(', ')})`,
      );
    }
    const kept = attempts.filter((p) => {
      const order = p.cardnet_order_id ? orders.get(p.cardnet_order_id) : undefined;
      return order && order.status === 2 && order.refundedAmount < order.amount;
    });
    if (kept.length > 1) {
      violations.push(
        `${sale}: the card network kept ${kept.length} charges (${kept.map((p) => p.id).join(', ')})`,
      );
    }
  }
  return { name: '1. at most one success per reference epoch', checked: sales.size, violations };
}

/**
 * 2. The sandbox's ledger and dzpay agree to the centime: every order that took money is
 * a dzpay success or was given back for exactly what dzpay's refunds say; no success
 * without a deposited order for its total.
 */
function ledgerAgrees(
  payments: PaymentRow[],
  refunded: Map<string, number>,
  ledger: LedgerOrder[],
): Verdict {
  const violations: string[] = [];
  const byId = new Map(payments.map((p) => [p.id, p]));
  const paidOrders = new Set<string>();
  for (const order of ledger) {
    const p = order.udf1 ? byId.get(order.udf1) : undefined;
    const tookMoney = order.status === 2 || order.status === 4;
    const kept = tookMoney ? order.amount - order.refundedAmount : 0;
    if (!p) {
      if (tookMoney) violations.push(`order ${order.orderId} took money for no dzpay payment`);
      continue;
    }
    if (p.cardnet_order_id !== order.orderId) {
      if (tookMoney)
        violations.push(`order ${order.orderId} took money; dzpay never knew it (${p.id})`);
      continue;
    }
    const dzpayRefunded = refunded.get(p.id) ?? 0;
    if (order.refundedAmount !== dzpayRefunded) {
      violations.push(
        `${p.id}: the card network refunded ${order.refundedAmount}, dzpay's refunds say ${dzpayRefunded}`,
      );
    }
    if (p.status === 'success' || p.status === 'refunded') {
      paidOrders.add(p.id);
      if (!tookMoney || order.amount !== p.total) {
        violations.push(
          `${p.id}: ${p.status} but order ${order.orderId} is ${order.status} for ${order.amount}`,
        );
      } else if (order.refundedAmount !== p.refunded_amount) {
        violations.push(
          `${p.id}: refundedAmount ${p.refunded_amount}, card network ${order.refundedAmount}`,
        );
      }
    } else if (p.status === 'failed' && kept > 0) {
      violations.push(
        `${p.id}: failed, yet the card network kept ${kept} of order ${order.orderId}`,
      );
    }
  }
  for (const p of payments) {
    if ((p.status === 'success' || p.status === 'refunded') && !paidOrders.has(p.id)) {
      violations.push(`${p.id}: ${p.status} without a deposited order`);
    }
  }
  return {
    name: '2. the card network and dzpay agree to the centime',
    checked: ledger.length,
    violations,
  };
}

/**
 * 3. Every decided attempt's outcome webhook reached the partner (duplicates only with
 * the same event id), and its status record shows it.
 */
async function outcomesDelivered(evidence: Evidence): Promise<Verdict> {
  const violations: string[] = [];
  const outcomes = await evidence.sql<{ id: string; type: string; payment_id: string }[]>`
    select id, payload->>'type' as type, payload->'data'->>'paymentId' as payment_id
    from payments.outbox
    where payload->>'type' in ('payment.succeeded', 'payment.failed')`;
  const received = new Map<string, ReceivedWebhook[]>();
  for (const webhook of evidence.webhooks) {
    received.set(webhook.event.id, [...(received.get(webhook.event.id) ?? []), webhook]);
  }
  const idsByPayment = new Map<string, Set<string>>();
  const outcomeTypes = new Set(['payment.success', 'payment.fail']);
  for (const webhook of evidence.webhooks.filter((w) => outcomeTypes.has(w.event.type))) {
    const ids = idsByPayment.get(webhook.event.data.paymentId) ?? new Set();
    idsByPayment.set(webhook.event.data.paymentId, ids.add(webhook.event.id));
  }
  for (const outcome of outcomes) {
    const expected = outcome.type === 'payment.succeeded' ? 'payment.success' : 'payment.fail';
    const got = received.get(outcome.id);
    if (!got)
      violations.push(
        `${outcome.payment_id}: ${outcome.type} (${outcome.id}) never reached the partner`,
      );
    else if (got.some((w) => w.event.type !== expected)) {
      violations.push(`${outcome.payment_id}: event ${outcome.id} arrived as another type`);
    }
  }
  for (const [paymentId, ids] of idsByPayment) {
    if (ids.size > 1)
      violations.push(`${paymentId}: ${ids.size} different outcome events reached the partner`);
  }
  const pending = await evidence.sql<{ payment_id: string; state: string }[]>`
    select payment_id, state from webhooks.deliveries where state <> 'success'`;
  for (const row of pending) violations.push(`${row.payment_id}: delivery ${row.state}`);
  const shown = await evidence.sql<{ payment_id: string; webhook_delivery: string | null }[]>`
    select payment_id, webhook_delivery from status.attempts
    where status in ('success', 'failed') and reference_kind = 'product'
      and webhook_delivery is distinct from 'success'`;
  for (const row of shown) {
    violations.push(
      `${row.payment_id}: status record shows webhookDelivery ${row.webhook_delivery}`,
    );
  }
  return {
    name: '3. every outcome reached the partner, and the status shows it',
    checked: outcomes.length,
    violations,
  };
}

/** 5. Nothing pending or processing past its window and the settle grace; no money left owed. */
async function nothingLeftOpen(payments: PaymentRow[], evidence: Evidence): Promise<Verdict> {
  const violations: string[] = [];
  const deadline = Date.now() - evidence.settleGraceMs;
  // Where the sweeper stands with a payment: what a stuck one needs to be read.
  const sweep = (p: PaymentRow) =>
    `(sweep failures ${p.sweep_failures}, next sweep ${p.next_sweep_at?.toISOString() ?? 'when due'}` +
    `, lease until ${p.settle_lease_until?.toISOString() ?? 'none'})`;
  for (const p of payments) {
    const open = p.status === 'pending' || p.status === 'processing';
    if (open && p.expires_at.getTime() < deadline) {
      violations.push(`${p.id}: still ${p.status} ${sweep(p)}`);
    }
    if (p.refund_due) violations.push(`${p.id}: a refund is still due ${sweep(p)}`);
  }
  const intents = await evidence.sql<{ payment_id: string }[]>`
    select payment_id from payments.refunds where state = 'requested'`;
  for (const intent of intents)
    violations.push(`${intent.payment_id}: a refund's outcome is still unknown`);
  const unpublished = await evidence.sql<{ n: number }[]>`
    select (select count(*) from payments.outbox where published_at is null)
         + (select count(*) from webhooks.outbox where published_at is null) as n`;
  if (Number(unpublished[0]!.n) > 0) violations.push(`${unpublished[0]!.n} events never published`);
  return {
    name: '5. nothing left open past its window and the settle grace',
    checked: payments.length,
    violations,
  };
}

/**
 * 6. No 5xx (or no answer) outside an injected fault's window and its grace; every
 * acknowledged write is there; no ready service died on its own.
 */
function answersAndWrites(payments: PaymentRow[], evidence: Evidence): Verdict {
  const violations: string[] = [];
  // A request in flight while a fault was in force (or in its grace) is the fault's,
  // even one sent just before it began.
  const inFault = (e: Exchange) =>
    evidence.windows.some((w) => e.at >= w.start && e.sentAt <= w.end + evidence.faultGraceMs);
  const unexplained = evidence.exchanges.filter(
    (e) => (e.status === 0 || e.status >= 500) && !inFault(e),
  );
  for (const e of unexplained.slice(0, 20)) {
    violations.push(
      `${new Date(e.at).toISOString()} ${e.method} ${e.route} answered ${e.status || 'nothing'}${e.errorCode ? ` ${e.errorCode}` : ''}`,
    );
  }
  if (unexplained.length > 20) violations.push(`… and ${unexplained.length - 20} more`);

  const byId = new Map(payments.map((p) => [p.id, p]));
  const paymentOfKey = new Map<string, string>();
  for (const ack of evidence.acks.registrations) {
    const p = byId.get(ack.paymentId);
    if (!p || p.reference !== ack.reference)
      violations.push(`registration ${ack.paymentId} (201) is missing`);
    const keyed = `${ack.merchant}/${ack.key}`;
    const first = paymentOfKey.get(keyed);
    if (first && first !== ack.paymentId)
      violations.push(`Idempotency-Key ${ack.key} made two payments`);
    paymentOfKey.set(keyed, ack.paymentId);
  }
  for (const refused of evidence.acks.keyRefusedOwnReference) {
    violations.push(
      `Idempotency-Key ${refused.key} answered 409 DUPLICATE_REFERENCE for its own reference ${refused.reference}: its payment is lost to the merchant`,
    );
  }
  for (const ack of evidence.acks.refunds) {
    const p = byId.get(ack.paymentId);
    if (!p || p.refunded_amount < ack.refundedAmount) {
      violations.push(
        `refund of ${ack.paymentId} acknowledged ${ack.refundedAmount}, dzpay has ${p?.refunded_amount}`,
      );
    }
  }
  for (const ack of evidence.acks.cancels) {
    const p = byId.get(ack.paymentId);
    if (!p || p.status !== 'failed') {
      violations.push(`cancel of ${ack.paymentId} acknowledged, dzpay has it ${p?.status}`);
    }
  }
  const mailed = evidence.mail.messages.map((m) => `${m.subject ?? ''} ${m.text ?? ''}`);
  for (const ack of evidence.acks.receipts) {
    if (!mailed.some((text) => text.includes(ack.reference))) {
      violations.push(`receipt of ${ack.paymentId} acknowledged, never reached the mail server`);
    }
  }
  for (const exit of evidence.unexpectedExits) {
    violations.push(
      `${exit.service} exited by itself at ${new Date(exit.at).toISOString()} (${exit.signal ?? exit.code})`,
    );
  }
  return {
    name: '6. no 5xx outside a fault window; every acknowledged write is there',
    checked:
      evidence.exchanges.length +
      evidence.acks.registrations.length +
      evidence.acks.refunds.length +
      evidence.acks.receipts.length +
      evidence.acks.cancels.length,
    violations,
  };
}
