import { randomUUID } from 'node:crypto';
import type { PaymentEvent } from '@dzpay/contracts';
import { batcher, traceCarrier, type Sql } from '@dzpay/platform';
import type { WebhookOf } from '../../domain/webhook-body.ts';
import { deliveryEventWriter } from './delivery-events.ts';

/**
 * What taking in an event did: a delivery `created`, the event `stored` without one (the
 * endpoint does not want its kind), or nothing (`duplicate`: the event was there).
 */
export type EnqueueOutcome = 'created' | 'stored' | 'duplicate';

/** Outcomes enqueued in one transaction at most. */
const MAX_BATCH = 64;

/**
 * Payment outcomes taken in: each stored as an event, with a delivery when the endpoint
 * wants its kind. `firstAttemptDelayMs` is the schedule's first entry: how long a new
 * delivery waits before its first attempt.
 */
export function deliveryIntake(
  sql: Sql,
  options: { firstAttemptDelayMs?: number; clock?: () => Date } = {},
) {
  const firstAttemptDelayMs = options.firstAttemptDelayMs ?? 0;
  const writeEvents = deliveryEventWriter(options.clock ?? (() => new Date()));

  /**
   * Records the deliveries a batch of payment outcomes calls for, due after the first
   * step of the schedule, with their pending events, in one transaction. An outcome whose
   * delivery exists already (the same event handed over again) changes nothing.
   */
  async function enqueueAll(
    items: readonly {
      event: PaymentEvent;
      webhook: WebhookOf;
      wanted: boolean;
      trace: Record<string, string>;
    }[],
  ): Promise<EnqueueOutcome[]> {
    const stored = items.map(({ event, webhook }) => ({
      id: event.id,
      merchantId: event.merchantId,
      mode: event.mode,
      type: webhook.type,
      paymentId: event.data.paymentId,
      body: webhook.body,
      createdAt: event.occurredAt,
    }));
    const deliveries = items
      .filter((item) => item.wanted)
      .map(({ event, webhook, trace }) => ({
        id: randomUUID(),
        eventId: event.id,
        merchantId: event.merchantId,
        mode: event.mode,
        paymentId: event.data.paymentId,
        reference: event.data.reference,
        channel: event.data.channel,
        eventType: webhook.type,
        body: webhook.body,
        traceCarrier: trace,
      }));
    return sql.begin(async (tx) => {
      const newEvents = await tx<{ id: string }[]>`
        insert into events (id, merchant_id, mode, type, payment_id, body, created_at)
        select id, "merchantId", mode, type, "paymentId", body, "createdAt"
        from jsonb_to_recordset(${tx.json(stored)}) as x(id uuid, "merchantId" uuid, mode text,
          type text, "paymentId" uuid, body text, "createdAt" timestamptz)
        on conflict (id) do nothing
        returning id`;
      const newEvent = new Set(newEvents.map((row) => row.id));
      const inserted = await tx<{ id: string }[]>`
        insert into deliveries (id, event_id, merchant_id, mode, payment_id, reference, channel,
          event_type, body, state, attempts, next_attempt_at, trace_carrier)
        select id, "eventId", "merchantId", mode, "paymentId", reference, channel, "eventType",
          body, 'pending', 0, now() + ${firstAttemptDelayMs}::int * interval '1 millisecond',
          "traceCarrier"
        from jsonb_to_recordset(${tx.json(deliveries)}) as x(id uuid, "eventId" uuid,
          "merchantId" uuid, mode text, "paymentId" uuid, reference text, channel text,
          "eventType" text, body text, "traceCarrier" jsonb)
        on conflict (event_id) do nothing
        returning id`;
      const created = new Set(inserted.map((row) => row.id));
      await writeEvents(
        tx,
        deliveries
          .filter((delivery) => created.has(delivery.id))
          .map((delivery) => ({ delivery, state: 'pending', attempts: 0 })),
      );
      const deliveryOf = new Map(deliveries.map((delivery) => [delivery.eventId, delivery.id]));
      return items.map(({ event }): EnqueueOutcome => {
        const delivery = deliveryOf.get(event.id);
        if (delivery !== undefined) return created.has(delivery) ? 'created' : 'duplicate';
        return newEvent.has(event.id) ? 'stored' : 'duplicate';
      });
    });
  }

  // Concurrent calls share one transaction per batch: a burst of outcomes commits in a
  // few transactions instead of one each.
  const enqueueOne = batcher(enqueueAll, MAX_BATCH);

  return {
    /**
     * Records the delivery a payment outcome calls for, with its pending event; a second
     * delivery of the same payment event changes nothing. Committed with the other
     * outcomes enqueued meanwhile.
     */
    enqueue(event: PaymentEvent, webhook: WebhookOf, wanted = true): Promise<EnqueueOutcome> {
      // The caller's trace context: each attempt of the delivery will join it.
      return enqueueOne({ event, webhook, wanted, trace: traceCarrier() });
    },
  };
}

export type DeliveryIntake = ReturnType<typeof deliveryIntake>;
