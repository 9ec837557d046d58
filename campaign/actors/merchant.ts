import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Rng } from '../rng.ts';
import type { CampaignMerchant } from '../world.ts';
import type { ActorContext } from './context.ts';

const ACTIONS = {
  refund: 4,
  receipt: 2,
  'set-qr': 3,
  'unset-qr': 1,
  status: 2,
  cancel: 2,
} as const;

/**
 * A merchant at work: refunds paid orders (whole, or part), retrying with the same
 * Idempotency-Key when the answer says to or never comes, sometimes twice at once; sends
 * receipts; sets and removes QR configurations (each set is a new version, a new sale);
 * asks the status of products; and cancels recent checkouts, whose payers may be paying
 * them at that very moment.
 */
export async function runMerchant(context: ActorContext, rng: Rng, index: number): Promise<void> {
  const merchant = context.merchants[index]!;
  while (Date.now() < context.until) {
    const action = rng.weighted(ACTIONS);
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
  action: keyof typeof ACTIONS,
): Promise<string> {
  const { http, gatewayUrl } = context;
  const headers = { 'x-api-key': merchant.testKey };
  switch (action) {
    case 'refund': {
      const paid = await somePaid(context, rng, merchant);
      if (!paid) return 'nothing paid yet';
      return refund(context, rng, merchant, paid);
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
      const { paymentId } = rng.pick(mine.slice(-5));
      const answer = await http(`${gatewayUrl}/api/v1/payments/${paymentId}/cancel`, {
        headers,
        body: '{}',
      });
      if (answer.status === 200) context.acks.cancels.push({ paymentId });
      return `cancel ${answer.status}`;
    }
    case 'status': {
      const references = [
        ...context.partner.available(merchant.index),
        ...context.partner.sold(merchant.index),
      ];
      const reference = rng.pick(references);
      const answer = await http(
        `${gatewayUrl}/partner/payments/v1/${encodeURIComponent(reference)}/status`,
        { headers },
      );
      return `status ${answer.status}`;
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
  const { paymentId } = rng.pick(mine);
  const answer = await context.http(`${context.gatewayUrl}/api/v1/payments/${paymentId}`, {
    headers: { 'x-api-key': merchant.testKey },
  });
  if (answer.status !== 200) return null;
  const view = (answer.json() as { data: PaidPayment & { status: string } }).data;
  return view.status === 'success' ? view : null;
}

/**
 * A refund of all that is left or a part of it, under one Idempotency-Key: retried with
 * the same key while dzpay says retry (503) or does not answer, sometimes sent twice at
 * once, sometimes sent again after it succeeded (a replay).
 */
async function refund(
  context: ActorContext,
  rng: Rng,
  merchant: CampaignMerchant,
  paid: PaidPayment,
): Promise<string> {
  const key = randomUUID();
  const left = paid.total - paid.refundedAmount;
  const amount = rng.chance(0.5) ? undefined : Math.max(1, Math.floor(left * rng.float() * 0.6));
  const send = () =>
    context.http(`${context.gatewayUrl}/api/v1/payments/${paid.id}/refund`, {
      headers: { 'x-api-key': merchant.testKey, 'idempotency-key': key },
      body: JSON.stringify(amount === undefined ? {} : { amount }),
    });
  let last = 0;
  for (let attempt = 0; attempt < 8; attempt++) {
    const answers = rng.chance(0.15) ? await Promise.all([send(), send()]) : [await send()];
    for (const answer of answers) {
      if (answer.status !== 200) continue;
      const { refundedAmount } = (answer.json() as { data: { refundedAmount: number } }).data;
      context.acks.refunds.push({
        merchant: merchant.index,
        paymentId: paid.id,
        key,
        refundedAmount,
      });
    }
    last = answers.find((a) => a.status === 200)?.status ?? answers[0]!.status;
    const retry = answers.every((a) => a.status === 0 || a.status >= 500 || a.status === 409);
    if (!retry) {
      if (last === 200 && rng.chance(0.1)) await send();
      return `refund ${last}`;
    }
    await sleep(rng.int(500, 3_000));
  }
  return `refund gave up (${last})`;
}
