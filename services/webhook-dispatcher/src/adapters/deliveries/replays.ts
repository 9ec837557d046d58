import { randomUUID } from 'node:crypto';
import type { DeliveryView, MerchantScope } from '@dzpay/contracts';
import type { Sql } from '@dzpay/platform';
import { isUuid } from '../../domain/uuid.ts';
import { CLAIMED_COLUMNS, toClaimedDelivery, type DeliveryRow } from './claimed-delivery.ts';
import { deliveryEventWriter } from './delivery-events.ts';
import { VIEW_COLUMNS, viewsOf, type ViewRow } from './views.ts';

/** Deliveries a merchant asks for again: one replayed, or a stored event's first. */
export function deliveryReplays(sql: Sql, options: { clock?: () => Date } = {}) {
  const writeEvents = deliveryEventWriter(options.clock ?? (() => new Date()));

  return {
    /**
     * Schedules a delivery again, whatever its state: pending, due now, its attempts
     * numbered on from where they were and its retry schedule started over from its
     * current attempt count (schedule_base), with its pending event. An attempt of the
     * previous round still in flight then records nothing (schedule_base moved on). Null
     * when the merchant has no such delivery.
     */
    async replay(scope: MerchantScope, deliveryId: string): Promise<DeliveryView | null> {
      if (!isUuid(deliveryId)) return null;
      return sql.begin(async (tx) => {
        const [row] = await tx<(ViewRow & { channel: 'CHECKOUT' | 'AGENCY' | null })[]>`
          update deliveries
          set state = 'pending', next_attempt_at = now(), schedule_base = attempts,
              updated_at = now()
          where id = ${deliveryId} and merchant_id = ${scope.merchantId} and mode = ${scope.mode}
          returning ${tx.unsafe(VIEW_COLUMNS)}, channel`;
        if (row === undefined) return null;
        const delivery = {
          id: row.id,
          eventId: row.event_id,
          ...scope,
          paymentId: row.payment_id,
          reference: row.reference,
          channel: row.channel,
          eventType: row.event_type,
        };
        await writeEvents(tx, [{ delivery, state: 'pending', attempts: row.attempts }]);
        const [view] = await viewsOf(tx, [row]);
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
          returning ${tx.unsafe(CLAIMED_COLUMNS)}`;
        if (row === undefined) return null;
        const delivery = { ...toClaimedDelivery(row), ...scope };
        await writeEvents(tx, [{ delivery, state: 'pending', attempts: 0 }]);
        return row.id;
      });
    },
  };
}

export type DeliveryReplays = ReturnType<typeof deliveryReplays>;
