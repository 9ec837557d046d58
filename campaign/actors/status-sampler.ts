import { setTimeout as sleep } from 'node:timers/promises';
import type { Stage, StatusSample } from '../oracle/evidence.ts';
import type { Rng } from '../rng.ts';
import type { ActorContext } from './context.ts';

interface StatusData {
  stage: Stage;
  locked: boolean;
  paid: boolean;
  paymentId: string | null;
  payment: { status: string } | null;
}

/**
 * A partner checking its products all through the run, as the spec invites it to before
 * releasing one: every read is kept (when it was sent, when it came back, what it said),
 * so the oracle can tell a status that showed paid before the network deposited, or
 * flipped back, or said released while an attempt could still succeed. Reads references
 * both in stock and sold, of either merchant; about every `everyMs`.
 */
export async function runStatusSampler(
  context: ActorContext,
  rng: Rng,
  everyMs: number,
): Promise<void> {
  while (Date.now() < context.until) {
    const merchant = rng.pick(context.merchants);
    const references = [
      ...context.partner.available(merchant.index),
      ...context.partner.sold(merchant.index),
    ];
    if (references.length > 0) {
      const outcome = await sampleStatus(context, merchant.index, rng.pick(references));
      context.tally('partner/status', outcome);
    }
    await sleep(rng.int(everyMs / 2, everyMs * 1.5));
  }
}

/** One status read, recorded as a sample when it answered 200. */
export async function sampleStatus(
  context: ActorContext,
  merchantIndex: number,
  reference: string,
): Promise<string> {
  const merchant = context.merchants[merchantIndex]!;
  const sentAt = Date.now();
  const answer = await context.http(
    `${context.gatewayUrl}/partner/payments/v1/${encodeURIComponent(reference)}/status`,
    { headers: { 'x-api-key': merchant.testKey } },
  );
  if (answer.status !== 200) return `status ${answer.status}`;
  const data = (answer.json() as { data: StatusData }).data;
  const sample: StatusSample = {
    sentAt,
    at: Date.now(),
    merchantIndex,
    reference,
    stage: data.stage,
    paymentId: data.paymentId,
    paymentStatus: data.payment?.status ?? null,
    locked: data.locked,
    paid: data.paid,
  };
  context.samples.push(sample);
  context.count('statusSamples');
  if (data.stage === 'paid') context.count('paidSamples');
  return `status ${data.stage}`;
}
