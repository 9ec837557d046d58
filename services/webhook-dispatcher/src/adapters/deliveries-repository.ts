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
import type { Sql, Tx } from '@dzpay/platform';
import type { AttemptResult } from '../domain/attempt.ts';
import type { NextStep } from '../domain/retry.ts';
import type { WebhookOf, WebhookType } from '../domain/webhook-body.ts';

/** A delivery claimed for one attempt. */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  merchantId: string;
  mode: Mode;
  paymentId: string;
  reference: string;
  channel: 'CHECKOUT' | 'AGENCY';
  eventType: WebhookType;
  body: string;
  /** Attempts made before this one. */
  attempts: number;
  /** The attempt count when the delivery was last replayed (0 if never): its schedule counts from there. */
  scheduleBase: number;
}

interface DeliveryRow {
  id: string;
  event_id: string;
  merchant_id: string;
  mode: Mode;
  payment_id: string;
  reference: string;
  channel: 'CHECKOUT' | 'AGENCY';
  event_type: WebhookType;
  body: string;
  attempts: number;
  schedule_base: number;
}

interface ViewRow {
  id: string;
  event_id: string;
  event_type: WebhookType;
  payment_id: string;
  reference: string;
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
    paymentId: row.payment_id,
    reference: row.reference,
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
  async function addEvent(
    tx: Tx,
    delivery: Omit<ClaimedDelivery, 'body' | 'eventType' | 'scheduleBase'>,
    state: WebhookDeliveryEvent['data']['state'],
    attempts: number,
  ): Promise<void> {
    const type =
      state === 'success'
        ? WebhookDeliveryEventTypes.succeeded
        : state === 'fail'
          ? WebhookDeliveryEventTypes.failed
          : WebhookDeliveryEventTypes.pending;
    const event: WebhookDeliveryEvent = {
      id: randomUUID(),
      type,
      version: 1,
      occurredAt: clock().toISOString(),
      merchantId: delivery.merchantId,
      mode: delivery.mode,
      data: {
        deliveryId: delivery.id,
        eventId: delivery.eventId,
        paymentId: delivery.paymentId,
        reference: delivery.reference,
        channel: delivery.channel,
        state,
        attempts,
      },
    };
    await tx`insert into outbox (id, subject, payload)
             values (${event.id}, ${webhookEventSubject(type)}, ${tx.json(event)})`;
  }

  return {
    /**
     * Records the delivery a payment outcome calls for, due at once, with its pending
     * event; a second delivery of the same payment event changes nothing.
     */
    async enqueue(event: PaymentEvent, webhook: WebhookOf): Promise<'created' | 'duplicate'> {
      return sql.begin(async (tx) => {
        const delivery = {
          id: randomUUID(),
          eventId: event.id,
          merchantId: event.merchantId,
          mode: event.mode,
          paymentId: event.data.paymentId,
          reference: event.data.reference,
          channel: event.data.channel,
          attempts: 0,
        };
        const inserted = await tx`
          insert into deliveries (id, event_id, merchant_id, mode, payment_id, reference, channel,
            event_type, body, state, attempts, next_attempt_at)
          values (${delivery.id}, ${delivery.eventId}, ${delivery.merchantId}, ${delivery.mode},
            ${delivery.paymentId}, ${delivery.reference}, ${delivery.channel}, ${webhook.type},
            ${webhook.body}, 'pending', 0,
            now() + ${firstAttemptDelayMs}::int * interval '1 millisecond')
          on conflict (event_id) do nothing
          returning id`;
        if (inserted.length === 0) return 'duplicate';
        await addEvent(tx, delivery, 'pending', 0);
        return 'created';
      });
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
                  body, attempts, schedule_base`;
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
      }));
    },

    /**
     * Records an attempt and where the delivery goes next, with its WEBHOOKS event, in
     * one transaction. False when the delivery moved on meanwhile (the claim lapsed and
     * another replica recorded this attempt number): nothing is written then.
     */
    async record(
      delivery: ClaimedDelivery,
      result: AttemptResult,
      step: NextStep,
    ): Promise<boolean> {
      return sql.begin(async (tx) => {
        const attempts = delivery.attempts + 1;
        const nextAttemptAt = step.state === 'pending' ? step.nextAttemptAt : null;
        const updated = await tx`
          update deliveries
          set state = ${step.state}, attempts = ${attempts}, next_attempt_at = ${nextAttemptAt},
              updated_at = now()
          where id = ${delivery.id} and state = 'pending' and attempts = ${delivery.attempts}
            and schedule_base = ${delivery.scheduleBase}
          returning id`;
        if (updated.length === 0) return false;
        await tx`
          insert into delivery_attempts (delivery_id, number, started_at, status_code, latency_ms,
            response_excerpt, error)
          values (${delivery.id}, ${attempts}, ${result.startedAt}, ${result.statusCode},
            ${result.latencyMs}, ${result.responseExcerpt}, ${result.error})`;
        await addEvent(tx, delivery, step.state, attempts);
        return true;
      });
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
        const [row] = await tx<(ViewRow & { channel: 'CHECKOUT' | 'AGENCY' })[]>`
          update deliveries
          set state = 'pending', next_attempt_at = now(), schedule_base = attempts,
              updated_at = now()
          where id = ${deliveryId} and merchant_id = ${scope.merchantId} and mode = ${scope.mode}
          returning ${tx.unsafe(VIEW_COLUMNS)}, channel`;
        if (row === undefined) return null;
        await addEvent(
          tx,
          {
            id: row.id,
            eventId: row.event_id,
            merchantId: scope.merchantId,
            mode: scope.mode,
            paymentId: row.payment_id,
            reference: row.reference,
            channel: row.channel,
            attempts: row.attempts,
          },
          'pending',
          row.attempts,
        );
        const [view] = await views(tx, [row]);
        return view!;
      });
    },

    /** Hands a claimed delivery back, due now, when its attempt was abandoned unsent or unjudged (shutdown). */
    async release(delivery: ClaimedDelivery): Promise<void> {
      await sql`
        update deliveries set next_attempt_at = now(), updated_at = now()
        where id = ${delivery.id} and state = 'pending' and attempts = ${delivery.attempts}`;
    },
  };
}

export type DeliveriesRepository = ReturnType<typeof deliveriesRepository>;
