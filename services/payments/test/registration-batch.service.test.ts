import { randomUUID } from 'node:crypto';
import { Rpc, type PaymentsRegisterReply } from '@dzpay/contracts';
import { AppError, requestRpc } from '@dzpay/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAttempt } from '../src/lifecycle/open-attempt.ts';
import { registrationWriter } from '../src/registration/registration-writer.ts';
import { startPaymentsHarness, type PaymentsHarness } from './harness.ts';

/**
 * Registrations are group-committed: those that arrive while a batch is written go into
 * the next one, in one transaction. Each must still be answered with its own payment,
 * its key must replay that answer, and a refusal inside a batch must stay its own.
 */

let h: PaymentsHarness;

beforeAll(async () => {
  h = await startPaymentsHarness('payments-registration-batch');
});
afterAll(async () => {
  await h?.stop();
});

interface Sent {
  reference: string;
  amount: number;
  key: string | null;
}

/** One registration as the gateway sends it: its answer, or its error code. */
async function send(sent: Sent): Promise<PaymentsRegisterReply | string> {
  const payment = { amount: sent.amount, currency: 'DZD', reference: sent.reference };
  return requestRpc(h.runtime.nats, h.infra.natsPrefix, Rpc.paymentsRegister, {
    merchant: h.merchant,
    payment,
    ...(sent.key ? { idempotency: { key: sent.key, fingerprint: JSON.stringify(payment) } } : {}),
  }).catch((error: unknown) => {
    if (error instanceof AppError) return error.code;
    throw error;
  });
}

const batchOf = (n: number, keyed: (i: number) => boolean): Sent[] => {
  const run = randomUUID().slice(0, 8);
  return Array.from({ length: n }, (_, i) => ({
    reference: `BATCH-${run}-${i}`,
    amount: 100_000 + i * 101,
    key: keyed(i) ? `key-${run}-${i}` : null,
  }));
};

/**
 * Sends `sent` so that they are written in one batch: a first registration's transaction
 * is held at a lock on the payments table while the others queue behind it, then let go.
 */
async function inOneBatch(sent: Sent[]): Promise<(PaymentsRegisterReply | string)[]> {
  const locker = await h.db.reserve();
  await locker`begin`;
  await locker`lock table payments.payments in share row exclusive mode`;
  const blocker = send(batchOf(1, () => false)[0]!);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const answers = Promise.all(sent.map(send));
  await new Promise((resolve) => setTimeout(resolve, 200));
  await locker`commit`;
  locker.release();
  await blocker;
  return answers;
}

/** How many transactions wrote these payments (rows of one transaction share its xmin). */
async function transactionsOf(references: string[]): Promise<number> {
  const [row] = await h.db<{ n: number }[]>`
    select count(distinct xmin::text)::int as n from payments where reference in ${h.db(references)}`;
  return row!.n;
}

describe('registrations written together', () => {
  it('answer each request with its own payment, in fewer transactions than requests', async () => {
    const sent = batchOf(60, (i) => i % 3 !== 0);
    const answers = await Promise.all(sent.map(send));
    answers.forEach((answer, i) => {
      if (typeof answer === 'string') throw new Error(`registration ${i} refused: ${answer}`);
      expect(answer.payment).toMatchObject({
        reference: sent[i]!.reference,
        amount: sent[i]!.amount,
        status: 'created',
      });
      expect(answer.replayed).toBe(false);
    });
    expect(new Set(answers.map((a) => (a as PaymentsRegisterReply).payment.id)).size).toBe(60);
    expect(await transactionsOf(sent.map((s) => s.reference))).toBeLessThan(60);
    // Every key replays its own answer, checkout token included.
    for (const [i, s] of sent.entries()) {
      if (!s.key) continue;
      expect(await send(s)).toEqual({ ...(answers[i] as PaymentsRegisterReply), replayed: true });
    }
    // Each payment's event was written with it.
    const [events] = await h.db<{ n: number }[]>`
      select count(*)::int as n from outbox
      where payload->>'type' = 'payment.created'
        and payload->'data'->>'reference' in ${h.db(sent.map((s) => s.reference))}`;
    expect(events!.n).toBe(60);
  });

  it('keep a refusal to its own request: a reference twice, a key twice, in the same batch', async () => {
    const fillers = batchOf(20, () => true);
    const run = randomUUID().slice(0, 8);
    const taken: Sent[] = [
      { reference: `TWICE-${run}`, amount: 150_000, key: `a-${run}` },
      { reference: `TWICE-${run}`, amount: 150_000, key: `b-${run}` },
    ];
    const sameKey: Sent = { reference: `ONCE-${run}`, amount: 170_000, key: `c-${run}` };
    const sent = [...fillers.slice(0, 10), ...taken, sameKey, sameKey, ...fillers.slice(10)];
    const answers = await inOneBatch(sent);
    // All of them written by one transaction (the refused ones write no payment).
    expect(
      await transactionsOf(sent.filter((_, i) => i < 10 || i > 13).map((s) => s.reference)),
    ).toBe(1);

    const [first, second] = [answers[10], answers[11]];
    const outcomes = [first, second].map((a) => (typeof a === 'string' ? a : 'created'));
    expect(outcomes.sort()).toEqual(['PAYMENT_INSTANCE409_DUPLICATE_REFERENCE', 'created']);
    // The refused key keeps its refusal; the other its payment.
    for (const [i, s] of taken.entries()) {
      const again = await send(s);
      if (typeof answers[10 + i] === 'string') expect(again).toBe(answers[10 + i]);
      else
        expect((again as PaymentsRegisterReply).payment.id).toBe(
          (answers[10 + i] as PaymentsRegisterReply).payment.id,
        );
    }
    // One key sent twice made one payment, answered to both.
    const [once, onceAgain] = [answers[12], answers[13]] as PaymentsRegisterReply[];
    expect(onceAgain!.payment.id).toBe(once!.payment.id);
    expect(await h.db`select 1 from payments where reference = ${sameKey.reference}`).toHaveLength(
      1,
    );
    // The fillers around them each got their own payment.
    for (const [i, s] of sent.entries()) {
      if (i >= 10 && i < 14) continue;
      expect((answers[i] as PaymentsRegisterReply).payment.reference).toBe(s.reference);
    }
  });

  it('answers a registration written again after its batch committed unacknowledged with its own payment', async () => {
    const core = h.core();
    const registrations = registrationWriter(core.sql, core.keys.seal, core.clock);
    const { payment, checkoutToken } = newAttempt(
      { clock: () => new Date(), windowMs: 60_000 },
      {
        terms: h.merchant,
        channel: 'CHECKOUT',
        reference: `AGAIN-${randomUUID().slice(0, 8)}`,
        referenceKind: 'order',
        epoch: 0,
        amount: 120_000,
        language: 'fr',
      },
    );
    const registration = {
      payment,
      key: null,
      answerOf: () => ({ ok: true as const, value: { checkoutToken } }),
    };
    const first = await registrations(registration);
    // What the batcher does when a batch's commit is not acknowledged: each alone again.
    const again = await registrations(registration);
    expect(first).toMatchObject({ kind: 'registered', record: { id: payment.id } });
    expect(again).toEqual(first);
    const [events] = await h.db<{ n: number }[]>`
      select count(*)::int as n from outbox where payload->'data'->>'paymentId' = ${payment.id}`;
    expect(events!.n).toBe(1);
  });
});
