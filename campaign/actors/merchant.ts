import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Rng } from '../rng.ts';
import type { CampaignMerchant } from '../world.ts';
import { cancelPayment } from './cancel.ts';
import { focused, type ActorContext } from './context.ts';
import { sampleStatus } from './status-sampler.ts';

const ACTIONS = {
  refund: 4,
  'refund-agency': 2,
  'refunds-at-once': 1,
  receipt: 2,
  'set-qr': 3,
  'unset-qr': 1,
  status: 2,
  cancel: 2,
} as const;
type Action = keyof typeof ACTIONS;

/**
 * A merchant at work: refunds paid orders and paid products (whole, or part), retrying
 * with the same Idempotency-Key when the answer says to, is pending or never comes,
 * sometimes twice at once, sometimes two refunds of one payment at once under different
 * keys or none; sends receipts; sets and removes QR configurations (each set is a new
 * version, a new sale); asks the status of products; and cancels recent checkouts, whose
 * payers may be paying them at that very moment.
 */
export async function runMerchant(context: ActorContext, rng: Rng, index: number): Promise<void> {
  const merchant = context.merchants[index]!;
  const actions = focused(ACTIONS, context.focus, {
    refunds: ['refund', 'refund-agency', 'refunds-at-once'],
    cancels: ['cancel'],
    agency: ['refund-agency', 'set-qr'],
    status: ['status'],
  });
  while (Date.now() < context.until) {
    const action = rng.weighted(actions);
    const outcome = await act(context, rng, merchant, action).catch(
      (error: unknown) => `error: ${String(error)}`,
    );
    context.tally(`merchant/${action}`, outcome);
    await sleep(rng.int(200, 1_500));
  }
}

async function act(
  context: ActorContext,
  rng: Rng,
  merchant: CampaignMerchant,
  action: Action,
): Promise<string> {
  const { http, gatewayUrl } = context;
  const headers = { 'x-api-key': merchant.testKey };
  switch (action) {
    case 'refund': {
      const paid = await somePaid(context, rng, merchant);
      if (!paid) return 'nothing paid yet';
      return refund(context, rng, merchant, paid);
    }
    case 'refund-agency': {
      // A product or QR payment the partner heard succeed: the merchant's too.
      const sold = context.partner.webhooks.filter(
        (w) =>
          w.merchant === merchant.index &&
          w.event.type === 'payment.success' &&
          w.event.data.channel === 'AGENCY',
      );
      if (sold.length === 0) return 'nothing sold yet';
      const paid = await paymentOf(context, merchant, rng.pick(sold).event.data.paymentId);
      if (!paid) return 'not refundable';
      return refund(context, rng, merchant, paid, 'agency');
    }
    case 'refunds-at-once': {
      const paid = await somePaid(context, rng, merchant);
      if (!paid) return 'nothing paid yet';
      // Two refunds of one payment at the same moment: under two keys, or none at all.
      const keyed = rng.chance(0.5);
      const outcomes = await Promise.all([
        refund(context, rng, merchant, paid, keyed ? 'keyed' : 'unkeyed'),
        refund(context, rng, merchant, paid, keyed ? 'keyed' : 'unkeyed'),
      ]);
      return `${keyed ? 'two keys' : 'no keys'}: ${outcomes.join(', ')}`;
    }
    case 'receipt': {
      const paid = await somePaid(context, rng, merchant);
      if (!paid) return 'nothing paid yet';
      const answer = await http(`${gatewayUrl}/api/v1/payments/${paid.id}/receipt/email`, {
        headers,
        body: JSON.stringify({ email: 'payer@example.dz' }),
      });
      if (answer.status === 200) {
        context.acks.receipts.push({ paymentId: paid.id, reference: paid.reference });
      }
      return `receipt ${answer.status}`;
    }
    case 'set-qr': {
      const singleUse = rng.chance(0.5);
      const token = rng.pick(singleUse ? merchant.qr.singleUse : merchant.qr.multiUse);
      const amounts = Array.from(
        { length: rng.int(1, 3) },
        () => rng.int(60, 4_000) + rng.int(0, 99) / 100,
      );
      const answer = await http(`${gatewayUrl}/set-qr-config`, {
        headers,
        body: JSON.stringify({ token, amounts, singleUse }),
      });
      return `set ${answer.status}`;
    }
    case 'unset-qr': {
      const token = rng.pick([...merchant.qr.singleUse, ...merchant.qr.multiUse]);
      const answer = await http(`${gatewayUrl}/un-set-qr-config`, {
        headers,
        body: JSON.stringify({ token }),
      });
      return `unset ${answer.status}`;
    }
    case 'cancel': {
      // The newest registrations: the ones a payer may still be on the card form of.
      const mine = context.acks.registrations.filter((r) => r.merchant === merchant.index);
      if (mine.length === 0) return 'nothing registered yet';
      return cancelPayment(context, merchant.index, rng.pick(mine.slice(-5)).paymentId);
    }
    case 'status': {
      const references = [
        ...context.partner.available(merchant.index),
        ...context.partner.sold(merchant.index),
      ];
      return sampleStatus(context, merchant.index, rng.pick(references));
    }
  }
}

interface PaidPayment {
  id: string;
  reference: string;
  total: number;
  refundedAmount: number;
}

/** One of the merchant's registered payments, if it is (still) refundable. */
async function somePaid(
  context: ActorContext,
  rng: Rng,
  merchant: CampaignMerchant,
): Promise<PaidPayment | null> {
  const mine = context.acks.registrations.filter((r) => r.merchant === merchant.index);
  if (mine.length === 0) return null;
  return paymentOf(context, merchant, rng.pick(mine).paymentId);
}

/** The payment as the merchant API shows it, if it can be refunded. */
async function paymentOf(
  context: ActorContext,
  merchant: CampaignMerchant,
  paymentId: string,
): Promise<PaidPayment | null> {
  const answer = await context.http(`${context.gatewayUrl}/api/v1/payments/${paymentId}`, {
    headers: { 'x-api-key': merchant.testKey },
  });
  if (answer.status !== 200) return null;
  const view = (answer.json() as { data: PaidPayment & { status: string } }).data;
  return view.status === 'success' ? view : null;
}

interface RefundAnswer {
  refundedAmount: number;
  status: string;
  refund: { id: string; amount: number; status: 'succeeded' | 'pending' };
}

/**
 * A refund of all that is left or a part of it, under one Idempotency-Key (or, `unkeyed`,
 * none): retried with the same key while dzpay says retry (503, 409), pending (202) or
 * does not answer, sometimes sent twice at once, sometimes sent again after it succeeded
 * (a replay). Without a key a retry would be another refund: it is sent once.
 */
async function refund(
  context: ActorContext,
  rng: Rng,
  merchant: CampaignMerchant,
  paid: PaidPayment,
  kind: 'merchant' | 'agency' | 'keyed' | 'unkeyed' = 'merchant',
): Promise<string> {
  const key = kind === 'unkeyed' ? null : randomUUID();
  const left = paid.total - paid.refundedAmount;
  const partial = rng.chance(0.5);
  const amount = partial ? Math.max(1, Math.floor(left * rng.float() * 0.6)) : undefined;
  const send = () =>
    context.http(`${context.gatewayUrl}/api/v1/payments/${paid.id}/refund`, {
      headers: { 'x-api-key': merchant.testKey, ...(key ? { 'idempotency-key': key } : {}) },
      body: JSON.stringify(amount === undefined ? {} : { amount }),
    });
  let last = 0;
  let pending = false;
  for (let attempt = 0; attempt < 12; attempt++) {
    const twice = key !== null && rng.chance(0.15);
    const answers = twice ? await Promise.all([send(), send()]) : [await send()];
    for (const answer of answers) {
      if (answer.status !== 200 && answer.status !== 202) continue;
      const data = (answer.json() as { data: RefundAnswer }).data;
      context.acks.refunds.push({
        merchant: merchant.index,
        paymentId: paid.id,
        key,
        refundId: data.refund.id,
        amount: data.refund.amount,
        status: data.refund.status,
        refundedAmount: data.refundedAmount,
      });
      if (answer.status === 202) {
        context.count('lateRefunds');
        pending = true;
        continue;
      }
      if (pending) context.count('refundsPendingThenKnown');
      pending = false;
      context.count(
        data.status === 'refunded' ? 'fullRefundsAcknowledged' : 'partialRefundsAcknowledged',
      );
      if (kind === 'agency') context.count('agencyRefunds');
    }
    last = answers.find((a) => a.status === 200)?.status ?? answers[0]!.status;
    if (key === null) return `refund without a key ${last}`;
    const retry = answers.every(
      (a) => a.status === 0 || a.status >= 500 || a.status === 409 || a.status === 202,
    );
    if (!retry) {
      if (last === 200 && rng.chance(0.1)) await send();
      return `refund ${last}`;
    }
    await sleep(rng.int(500, 3_000));
  }
  return `refund gave up (${last})`;
}
