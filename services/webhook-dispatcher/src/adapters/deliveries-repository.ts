import { randomUUID } from 'node:crypto';
import {
  WebhookDeliveryEventTypes,
  webhookEventSubject,
  type DeliveryView,
  type MerchantScope,
  type Mode,
  type PaymentEvent,
  type WebhookDeliveryEvent,
} from '@dzpay/contracts';
import { batcher, traceCarrier, type Sql, type Tx } from '@dzpay/platform';
import type { AttemptResult } from '../domain/attempt.ts';
import type { NextStep } from '../domain/retry.ts';
import type { WebhookOf, WebhookType } from '../domain/webhook-body.ts';

/** A delivery claimed for one attempt. */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  merchantId: string;
  mode: Mode;
  /** Null for a test event, which tells of no payment. */
  paymentId: string | null;
  reference: string | null;
  channel: 'CHECKOUT' | 'AGENCY' | null;
  eventType: WebhookType;
  body: string;
  /** Attempts made before this one. */
  attempts: number;
  /** The attempt count when the delivery was last replayed (0 if never): its schedule counts from there. */
  scheduleBase: number;
  /** The trace context of the payment outcome this delivery reports. */
  traceCarrier: Record<string, string>;
}

interface DeliveryRow {
  id: string;
  event_id: string;
  merchant_id: string;
  mode: Mode;
  payment_id: string | null;
  reference: string | null;
  channel: 'CHECKOUT' | 'AGENCY' | null;
  event_type: WebhookType;
  body: string;
  attempts: number;
  schedule_base: number;
  trace_carrier: Record<string, string> | null;
}

interface ViewRow {
  id: string;
  event_id: string;
  event_type: WebhookType;
  payment_id: string | null;
  reference: string | null;
  state: DeliveryView['state'];
  attempts: number;
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

interface AttemptRow {
  delivery_id: string;
  number: number;
  started_at: Date;
  status_code: number | null;
  latency_ms: number;
  response_excerpt: string;
  error: string | null;
}

const VIEW_COLUMNS =
  'id, event_id, event_type, payment_id, reference, state, attempts, next_attempt_at, created_at, updated_at';

/** Outcomes enqueued, or attempts recorded, in one transaction at most. */
const MAX_BATCH = 64;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Deliveries as the merchant API shows them, each with its attempts in order. */
async function views(sql: Sql | Tx, rows: ViewRow[]): Promise<DeliveryView[]> {
  if (rows.length === 0) return [];
  const attempts = await sql<AttemptRow[]>`
    select delivery_id, number, started_at, status_code, latency_ms, response_excerpt, error
    from delivery_attempts
    where delivery_id in ${sql(rows.map((row) => row.id))}
    order by delivery_id, number`;
  return rows.map((row) => ({
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    // Views are of a payment's deliveries (test events, without one, are never asked here).
    paymentId: row.payment_id ?? '',
    reference: row.reference ?? '',
    state: row.state,
    attempts: attempts
      .filter((attempt) => attempt.delivery_id === row.id)
      .map((attempt) => ({
        number: attempt.number,
        startedAt: attempt.started_at.toISOString(),
        statusCode: attempt.status_code,
        latencyMs: attempt.latency_ms,
        responseExcerpt: attempt.response_excerpt,
        error: attempt.error,
      })),
    nextAttemptAt: row.next_attempt_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }));
}

/**
 * What taking in an event did: a delivery `created`, the event `stored` without one (the
 * endpoint does not want its kind), or nothing (`duplicate`: the event was there).
 */
export type EnqueueOutcome = 'created' | 'stored' | 'duplicate';

const isOutcome = (type: WebhookType) => type === 'payment.success' || type === 'payment.fail';

/** The key of an endpoint, for per-endpoint limits: one merchant in one mode. */
export const endpointKey = (delivery: { merchantId: string; mode: Mode }) =>
  `${delivery.merchantId}.${delivery.mode}`;

/**
 * The webhooks schema. Every state change writes its WEBHOOKS event to the outbox in the
 * same transaction. `firstAttemptDelayMs` is the schedule's first entry: how long a new
 * delivery waits before its first attempt.
 */
export function deliveriesRepository(
  sql: Sql,
  options: { firstAttemptDelayMs?: number; clock?: () => Date } = {},
) {
  const clock = options.clock ?? (() => new Date());
  const firstAttemptDelayMs = options.firstAttemptDelayMs ?? 0;
  /**
   * The WEBHOOKS event of a delivery's new state, or null: only the webhook of a
   * payment's outcome is the status record's `payment.webhookDelivery`; a refund's or a
   * test event's delivery tells the status service nothing.
   */
  function eventOf(
    delivery: Omit<ClaimedDelivery, 'body' | 'scheduleBase' | 'traceCarrier'>,
    state: WebhookDeliveryEvent['data']['state'],
    attempts: number,
  ): WebhookDeliveryEvent | null {
    const { paymentId, reference, channel } = delivery;
    if (!isOutcome(delivery.eventType) || paymentId === null || reference === null || !channel)
      return null;
    const type =
      state === 'success'
        ? WebhookDeliveryEventTypes.succeeded
        : state === 'fail'
          ? WebhookDeliveryEventTypes.failed
          : WebhookDeliveryEventTypes.pending;
    return {
      id: randomUUID(),
      type,
      version: 1,
      occurredAt: clock().toISOString(),
      merchantId: delivery.merchantId,
      mode: delivery.mode,
      data: {
        deliveryId: delivery.id,
        eventId: delivery.eventId,
        paymentId,
        reference,
        channel,
        state,
        attempts,
      },
    };
  }

  async function insertEvents(tx: Tx, all: (WebhookDeliveryEvent | null)[]): Promise<void> {
    const events = all.filter((event) => event !== null);
    if (events.length === 0) return;
    const rows = events.map((event) => ({
      id: event.id,
      subject: webhookEventSubject(event.type),
      payload: event,
      traceCarrier: traceCarrier(),
    }));
    await tx`insert into outbox (id, subject, payload, trace_carrier)
             select id, subject, payload, "traceCarrier"
             from jsonb_to_recordset(${tx.json(rows)})
               as x(id uuid, subject text, payload jsonb, "traceCarrier" jsonb)`;
  }

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
        attempts: 0,
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
      const fresh = deliveries.filter((delivery) => created.has(delivery.id));
      await insertEvents(
        tx,
        fresh.map((delivery) => eventOf(delivery, 'pending', 0)),
      );
      const deliveryOf = new Map(deliveries.map((delivery) => [delivery.eventId, delivery.id]));
      return items.map(({ event }): EnqueueOutcome => {
        const delivery = deliveryOf.get(event.id);
        if (delivery !== undefined) return created.has(delivery) ? 'created' : 'duplicate';
        return newEvent.has(event.id) ? 'stored' : 'duplicate';
      });
    });
  }

  /**
   * Records a batch of attempts and where each delivery goes next, with their WEBHOOKS
   * events, in one transaction. False for a delivery that moved on meanwhile (its claim
   * lapsed and another replica recorded this attempt number): nothing is written for it.
   */
  async function recordAll(
    items: readonly { delivery: ClaimedDelivery; result: AttemptResult; step: NextStep }[],
  ): Promise<boolean[]> {
    const rows = items.map(({ delivery, step }) => ({
      id: delivery.id,
      attempts: delivery.attempts,
      scheduleBase: delivery.scheduleBase,
      state: step.state,
      nextAttemptAt: step.state === 'pending' ? step.nextAttemptAt : null,
    }));
    return sql.begin(async (tx) => {
      const updated = await tx<{ id: string }[]>`
        update deliveries d
        set state = x.state, attempts = x.attempts + 1, next_attempt_at = x."nextAttemptAt",
            updated_at = now()
        from jsonb_to_recordset(${tx.json(rows)}) as x(id uuid, attempts int,
          "scheduleBase" int, state text, "nextAttemptAt" timestamptz)
        where d.id = x.id and d.state = 'pending' and d.attempts = x.attempts
          and d.schedule_base = x."scheduleBase"
        returning d.id`;
      const moved = new Set(updated.map((row) => row.id));
      const recorded = items.filter(({ delivery }) => moved.has(delivery.id));
      if (recorded.length > 0) {
        const attempts = recorded.map(({ delivery, result }) => ({
          deliveryId: delivery.id,
          number: delivery.attempts + 1,
          startedAt: result.startedAt,
          statusCode: result.statusCode,
          latencyMs: result.latencyMs,
          responseExcerpt: result.responseExcerpt,
          error: result.error,
        }));
        await tx`
          insert into delivery_attempts (delivery_id, number, started_at, status_code, latency_ms,
            response_excerpt, error)
          select "deliveryId", number, "startedAt", "statusCode", "latencyMs", "responseExcerpt",
            error
          from jsonb_to_recordset(${tx.json(attempts)}) as x("deliveryId" uuid, number int,
            "startedAt" timestamptz, "statusCode" int, "latencyMs" int, "responseExcerpt" text,
            error text)`;
      }
      await insertEvents(
        tx,
        recorded.map(({ delivery, step }) => eventOf(delivery, step.state, delivery.attempts + 1)),
      );
      return items.map(({ delivery }) => moved.has(delivery.id));
    });
  }

  // Concurrent calls share one transaction per batch: a burst of outcomes or attempts
  // commits in a few transactions instead of one each.
  const enqueueOne = batcher(enqueueAll, MAX_BATCH);
  const recordOne = batcher(recordAll, MAX_BATCH);

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

    /**
     * Claims due deliveries for one attempt each, by moving their next_attempt_at past
     * the attempt's deadline (`leaseMs`): no other replica takes them meanwhile, and one
     * that dies mid-attempt hands them back when the lease ends. At most `slots(endpoint)`
     * per endpoint, oldest first, so an endpoint's backlog never crowds out the others.
     */
    async claimDue(options: {
      limit: number;
      perEndpoint: number;
      /** Attempts this replica has in flight, per endpointKey. */
      busy: Record<string, number>;
      leaseMs: number;
    }): Promise<ClaimedDelivery[]> {
      const rows = await sql<DeliveryRow[]>`
        with ranked as (
          select id, merchant_id, mode, next_attempt_at,
                 row_number() over (partition by merchant_id, mode
                                    order by next_attempt_at, id) as rank
          from deliveries
          where state = 'pending' and next_attempt_at <= now()
        ), picked as (
          select id from ranked
          where rank <= ${options.perEndpoint}::int
                 - coalesce((${sql.json(options.busy)}::jsonb
                             ->> (merchant_id::text || '.' || mode))::int, 0)
          order by next_attempt_at
          limit ${options.limit}::int
        ), locked as (
          select id from deliveries
          where id in (select id from picked) and state = 'pending' and next_attempt_at <= now()
          for update skip locked
        )
        update deliveries
        set next_attempt_at = now() + ${options.leaseMs}::int * interval '1 millisecond',
            updated_at = now()
        where id in (select id from locked)
        returning id, event_id, merchant_id, mode, payment_id, reference, channel, event_type,
                  body, attempts, schedule_base, trace_carrier`;
      return rows.map((row) => ({
        id: row.id,
        eventId: row.event_id,
        merchantId: row.merchant_id,
        mode: row.mode,
        paymentId: row.payment_id,
        reference: row.reference,
        channel: row.channel,
        eventType: row.event_type,
        body: row.body,
        attempts: row.attempts,
        scheduleBase: row.schedule_base,
        traceCarrier: row.trace_carrier ?? {},
      }));
    },

    /**
     * Records an attempt and where the delivery goes next, with its WEBHOOKS event,
     * committed with the other attempts recorded meanwhile. False when the delivery moved
     * on meanwhile (the claim lapsed and another replica recorded this attempt number):
     * nothing is written then.
     */
    record(delivery: ClaimedDelivery, result: AttemptResult, step: NextStep): Promise<boolean> {
      return recordOne({ delivery, result, step });
    },

    /**
     * Every delivery of one payment with all its attempts, oldest first, within the
     * merchant's scope: another merchant's payment, or a paymentId that is no UUID, has none.
     */
    async ofPayment(scope: MerchantScope, paymentId: string): Promise<DeliveryView[]> {
      if (!UUID.test(paymentId)) return [];
      const rows = await sql<ViewRow[]>`
        select ${sql.unsafe(VIEW_COLUMNS)} from deliveries
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode}
          and payment_id = ${paymentId}
        order by created_at, id`;
      return views(sql, rows);
    },

    /**
     * Schedules a delivery again, whatever its state: pending, due now, its attempts
     * numbered on from where they were and its retry schedule started over from its
     * current attempt count (schedule_base), with its pending event. An attempt of the
     * previous round still in flight then records nothing (schedule_base moved on). Null
     * when the merchant has no such delivery.
     */
    async replay(scope: MerchantScope, deliveryId: string): Promise<DeliveryView | null> {
      if (!UUID.test(deliveryId)) return null;
      return sql.begin(async (tx) => {
        const [row] = await tx<(ViewRow & { channel: 'CHECKOUT' | 'AGENCY' | null })[]>`
          update deliveries
          set state = 'pending', next_attempt_at = now(), schedule_base = attempts,
              updated_at = now()
          where id = ${deliveryId} and merchant_id = ${scope.merchantId} and mode = ${scope.mode}
          returning ${tx.unsafe(VIEW_COLUMNS)}, channel`;
        if (row === undefined) return null;
        await insertEvents(tx, [
          eventOf(
            {
              id: row.id,
              eventId: row.event_id,
              merchantId: scope.merchantId,
              mode: scope.mode,
              paymentId: row.payment_id,
              reference: row.reference,
              channel: row.channel,
              eventType: row.event_type,
              attempts: row.attempts,
            },
            'pending',
            row.attempts,
          ),
        ]);
        const [view] = await views(tx, [row]);
        return view!;
      });
    },

    /**
     * Makes the first delivery of a stored event that had none (its kind was not wanted
     * when it came), due now, with its pending event. Null when the merchant has no such
     * event or it has a delivery already (replay that one).
     */
    async deliverEvent(scope: MerchantScope, eventId: string): Promise<string | null> {
      return sql.begin(async (tx) => {
        const [row] = await tx<DeliveryRow[]>`
          insert into deliveries (id, event_id, merchant_id, mode, payment_id, reference, channel,
            event_type, body, state, attempts, next_attempt_at)
          select ${randomUUID()}, e.id, e.merchant_id, e.mode, e.payment_id,
                 e.body::jsonb -> 'data' ->> 'reference', e.body::jsonb -> 'data' ->> 'channel',
                 e.type, e.body, 'pending', 0, now()
          from events e
          where e.id = ${eventId} and e.merchant_id = ${scope.merchantId} and e.mode = ${scope.mode}
          on conflict (event_id) do nothing
          returning id, event_id, merchant_id, mode, payment_id, reference, channel, event_type,
                    body, attempts, schedule_base, trace_carrier`;
        if (row === undefined) return null;
        await insertEvents(tx, [
          eventOf(
            {
              id: row.id,
              eventId: row.event_id,
              merchantId: scope.merchantId,
              mode: scope.mode,
              paymentId: row.payment_id,
              reference: row.reference,
              channel: row.channel,
              eventType: row.event_type,
              attempts: 0,
            },
            'pending',
            0,
          ),
        ]);
        return row.id;
      });
    },

    /**
     * Stores a test event and its delivery, already claimed for `leaseMs` (the caller
     * attempts it at once and records the outcome; the scheduler leaves it alone).
     */
    async createTestDelivery(
      scope: MerchantScope,
      eventId: string,
      webhook: WebhookOf,
      createdAt: Date,
      leaseMs: number,
    ): Promise<ClaimedDelivery> {
      const id = randomUUID();
      await sql.begin(async (tx) => {
        await tx`
          insert into events (id, merchant_id, mode, type, payment_id, body, created_at)
          values (${eventId}, ${scope.merchantId}, ${scope.mode}, ${webhook.type}, null,
            ${webhook.body}, ${createdAt})`;
        await tx`
          insert into deliveries (id, event_id, merchant_id, mode, event_type, body, state,
            attempts, next_attempt_at)
          values (${id}, ${eventId}, ${scope.merchantId}, ${scope.mode}, ${webhook.type},
            ${webhook.body}, 'pending', 0, now() + ${leaseMs}::int * interval '1 millisecond')`;
      });
      return {
        id,
        eventId,
        merchantId: scope.merchantId,
        mode: scope.mode,
        paymentId: null,
        reference: null,
        channel: null,
        eventType: webhook.type,
        body: webhook.body,
        attempts: 0,
        scheduleBase: 0,
        traceCarrier: {},
      };
    },

    /** Hands a claimed delivery back, due now, when its attempt was abandoned unsent or unjudged (shutdown). */
    async release(delivery: ClaimedDelivery): Promise<void> {
      await sql`
        update deliveries set next_attempt_at = now(), updated_at = now()
        where id = ${delivery.id} and state = 'pending' and attempts = ${delivery.attempts}`;
    },

    /**
     * Finished deliveries (and their attempts) last changed more than `keepMs` ago, at
     * most `limit` of them. A delivery also makes a redelivered outcome change nothing,
     * so `keepMs` (DEDUP_RETENTION_MS) exceeds how long PAYMENTS keeps an event.
     */
    async pruneFinished(keepMs: number, limit: number): Promise<number> {
      return sql.begin(async (tx) => {
        const ids = (
          await tx<{ id: string }[]>`
            select id from deliveries
            where state <> 'pending' and updated_at < now() - ${keepMs} * interval '1 millisecond'
            order by updated_at
            limit ${limit}
            for update skip locked`
        ).map((row) => row.id);
        if (ids.length === 0) return 0;
        await tx`delete from delivery_attempts where delivery_id in ${tx(ids)}`;
        const events = await tx<{ event_id: string }[]>`
          delete from deliveries where id in ${tx(ids)} returning event_id`;
        // Their events go with them (an event without a delivery is pruned by pruneEvents).
        await tx`delete from events where id in ${tx(events.map((row) => row.event_id))}`;
        return ids.length;
      });
    },
  };
}

export type DeliveriesRepository = ReturnType<typeof deliveriesRepository>;
