import { randomUUID } from 'node:crypto';
import { connectPostgres, migrate, type Sql } from '@dzpay/platform';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  statusRepository,
  type Message,
  type StatusRepository,
} from '../src/adapters/status-repository.ts';
import type { AttemptUpdate } from '../src/domain/attempt-event.ts';
import type { Attempt } from '../src/domain/stage.ts';

// Both projections write in batches, concurrently, and the stream hands messages over
// at least once and not always in order (a nak'ed message comes back later). Whatever
// the batches, the order and the repeats, each attempt must end as its newest payment
// event says, with its newest delivery state, nothing left parked, and every message
// counted once. Seeded: a failure names the seed and the shrunk case to replay.

let infra: IsolatedInfra;
let sql: Sql;
let repository: StatusRepository;

beforeAll(async () => {
  infra = await isolatedInfra('status-batches');
  sql = connectPostgres(infra.databaseUrl, 'status', 4);
  await migrate(sql, 'status', new URL('../migrations/', import.meta.url));
  repository = statusRepository(sql);
});
afterAll(async () => {
  await sql?.end();
  await infra?.cleanup();
});

const STATUSES: Attempt['status'][] = ['pending', 'processing', 'success', 'failed', 'refunded'];
const STATES = ['pending', 'success', 'fail'] as const;

type PaymentChange = { eventId: string; update: AttemptUpdate };
type DeliveryChange = {
  eventId: string;
  delivery: { paymentId: string; state: (typeof STATES)[number] };
};

/** A stream's messages as the projection may receive them: reordered, some twice. */
function deliveredAs<C>(
  messages: Message<C>[],
  order: number[],
  repeats: number[],
  cuts: number[],
): Message<C>[][] {
  const shuffled = order.slice(0, messages.length).map((i) => messages[i % messages.length]!);
  for (const i of repeats) if (messages.length > 0) shuffled.push(messages[i % messages.length]!);
  const batches: Message<C>[][] = [];
  let at = 0;
  for (const cut of cuts) {
    if (at >= shuffled.length) break;
    batches.push(shuffled.slice(at, at + cut));
    at += cut;
  }
  if (at < shuffled.length) batches.push(shuffled.slice(at));
  return batches;
}

describe('batched projections', () => {
  it('end in the newest state of every attempt, whatever the batches and their order', async () => {
    const scenario = fc.record({
      payments: fc.array(
        fc.record({
          statuses: fc.array(fc.constantFrom(...STATUSES), { minLength: 1, maxLength: 4 }),
          deliveries: fc.array(fc.constantFrom(...STATES), { maxLength: 3 }),
        }),
        { minLength: 1, maxLength: 5 },
      ),
      order: fc.array(fc.nat(100), { minLength: 30, maxLength: 30 }),
      repeats: fc.array(fc.nat(100), { maxLength: 5 }),
      cuts: fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 10 }),
      ignored: fc.nat(3),
    });
    await fc.assert(
      fc.asyncProperty(scenario, async ({ payments, order, repeats, cuts, ignored }) => {
        const scope = { merchantId: randomUUID(), mode: 'test' as const };
        const run = randomUUID().slice(0, 8);
        const paymentMessages: Message<PaymentChange>[] = [];
        const deliveryMessages: Message<DeliveryChange>[] = [];
        const expected = new Map<string, { status: string; delivery: string | null }>();
        let paymentSeq = 0;
        let webhookSeq = 0;
        payments.forEach(({ statuses, deliveries }, n) => {
          const paymentId = randomUUID();
          const reference = `REF-${run}-${n}`;
          statuses.forEach((status, k) => {
            const update: AttemptUpdate = {
              paymentId,
              ...scope,
              reference,
              referenceKind: 'product',
              locksReference: true,
              status,
              amount: 100_00,
              currency: 'DZD',
              orderId: null,
              paidAt: null,
              lockExpiresAt: null,
              lockHasExpiry: false,
              createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, k)),
              updatedAt: new Date(Date.UTC(2030, 0, 1, 0, 0, k)),
              paymentVersion: null,
            };
            paymentMessages.push({
              streamSeq: ++paymentSeq,
              change: { eventId: randomUUID(), update },
            });
          });
          deliveries.forEach((state) => {
            deliveryMessages.push({
              streamSeq: ++webhookSeq,
              change: { eventId: randomUUID(), delivery: { paymentId, state } },
            });
          });
          expected.set(reference, {
            status: statuses.at(-1)!,
            delivery: deliveries.at(-1) ?? null,
          });
        });
        // Messages that build nothing (hosted-checkout events) are counted, never written.
        for (let i = 0; i < ignored; i++)
          paymentMessages.push({ streamSeq: ++paymentSeq, change: null });

        const outcomes = { applied: 0, duplicate: 0 };
        const project = async <C>(
          batches: Message<C>[][],
          apply: (batch: Message<C>[]) => Promise<string[]>,
        ) => {
          for (const batch of batches) {
            for (const outcome of await apply(batch)) {
              if (outcome === 'applied' || outcome === 'duplicate') outcomes[outcome]++;
            }
          }
        };
        const paymentsBatches = deliveredAs(
          paymentMessages,
          identityThen(order, paymentMessages.length),
          repeats,
          cuts,
        );
        const deliveryBatches = deliveredAs(
          deliveryMessages,
          identityThen(order.slice().reverse(), deliveryMessages.length),
          repeats,
          cuts.slice().reverse(),
        );
        await Promise.all([
          project(paymentsBatches, (batch) => repository.applyAll(`p-${run}`, batch)),
          project(deliveryBatches, (batch) => repository.applyDeliveries(`w-${run}`, batch)),
        ]);

        for (const [reference, want] of expected) {
          const [attempt, ...others] = await repository.attemptsOf(scope, reference);
          expect(others).toEqual([]);
          expect({ status: attempt?.status, delivery: attempt?.webhookDelivery }).toEqual(want);
        }
        const written = [...paymentMessages, ...deliveryMessages].filter((m) => m.change).length;
        expect(outcomes.applied).toBe(written);
        const parked = await sql`
          select 1 from pending_webhook_deliveries p join attempts a using (payment_id)
          where a.merchant_id = ${scope.merchantId}`;
        expect(parked).toHaveLength(0);
        expect(await repository.positionOf(`p-${run}`)).toBe(paymentSeq);
      }),
      { seed: 20261124, numRuns: 40 },
    );
  });
});

/**
 * A permutation of 0..length-1 drawn from `draws`: each draw swaps one position, so
 * the first attempts may be written after later ones (a redelivery after a nak).
 */
function identityThen(draws: number[], length: number): number[] {
  const order = Array.from({ length }, (_, i) => i);
  if (length < 2) return order;
  draws.forEach((draw, i) => {
    const a = i % length;
    const b = draw % length;
    [order[a], order[b]] = [order[b]!, order[a]!];
  });
  return order;
}
