import { WebhookDeliveryEvent } from '@dzpay/contracts';
import { batcher, jsonOf } from '@dzpay/platform';
import type { StatusRepository } from '../adapters/status-repository.ts';
import { PROJECTION_BATCH, UNCHANGED_GATHER_MS, type MessageHandler } from './projection.ts';

/**
 * WEBHOOKS into `payment.webhookDelivery`: each delivery event carries the delivery's
 * current state. Only product-reference (AGENCY) payments have a status record, so
 * hosted-checkout deliveries are only counted. Batched like the payments projection.
 */
export function webhooksHandler(repository: StatusRepository, durable: string): MessageHandler {
  const apply = batcher(
    (messages: Parameters<StatusRepository['applyDeliveries']>[1]) =>
      repository.applyDeliveries(durable, messages),
    PROJECTION_BATCH,
  );
  // Hosted-checkout deliveries change nothing: positions recorded a window at a time.
  const pass = batcher(
    (messages: Parameters<StatusRepository['applyDeliveries']>[1]) =>
      repository.applyDeliveries(durable, messages),
    PROJECTION_BATCH,
    UNCHANGED_GATHER_MS,
  );
  return async (msg) => {
    const event = WebhookDeliveryEvent.safeParse(jsonOf(msg));
    if (!event.success) {
      await pass({ streamSeq: msg.seq, change: null });
      return 'unreadable';
    }
    const { id, data } = event.data;
    if (data.channel !== 'AGENCY') return pass({ streamSeq: msg.seq, change: null });
    return apply({
      streamSeq: msg.seq,
      change: { eventId: id, delivery: { paymentId: data.paymentId, state: data.state } },
    });
  };
}
