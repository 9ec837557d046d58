import { randomUUID } from 'node:crypto';
import type { MerchantScope } from '@dzpay/contracts';
import type { Sql } from '@dzpay/platform';
import type { WebhookOf } from '../../domain/webhook-body.ts';
import type { ClaimedDelivery } from './claimed-delivery.ts';

/** The `webhook.test` events merchants send to try their endpoint. */
export function testDeliveries(sql: Sql) {
  return {
    /**
     * Stores a test event and its delivery, already claimed for `leaseMs` (the caller
     * attempts it at once and records the outcome; the scheduler leaves it alone).
     */
    async create(
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
  };
}

export type TestDeliveries = ReturnType<typeof testDeliveries>;
