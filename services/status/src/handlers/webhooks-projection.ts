import { WebhookDeliveryEvent } from '@dzpay/contracts';
import type { StatusRepository } from '../adapters/status-repository.ts';
import { jsonOf } from '@dzpay/platform';
import type { MessageHandler } from './projection.ts';

/**
 * WEBHOOKS into `payment.webhookDelivery`: each delivery event carries the delivery's
 * current state. Only product-reference (AGENCY) payments have a status record, so
 * hosted-checkout deliveries are only counted.
 */
export function webhooksHandler(repository: StatusRepository, durable: string): MessageHandler {
  return async (msg) => {
    const event = WebhookDeliveryEvent.safeParse(jsonOf(msg));
    if (!event.success) {
      await repository.applyDelivery(durable, msg.seq, null);
      return 'unreadable';
    }
    const { id, data } = event.data;
    const change =
      data.channel === 'AGENCY'
        ? { eventId: id, delivery: { paymentId: data.paymentId, state: data.state } }
        : null;
    return repository.applyDelivery(durable, msg.seq, change);
  };
}
