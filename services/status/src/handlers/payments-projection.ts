import { PaymentEvent } from '@dzpay/contracts';
import type { StatusRepository } from '../adapters/status-repository.ts';
import { attemptUpdateOf } from '../domain/attempt-event.ts';
import { jsonOf } from '@dzpay/platform';
import type { MessageHandler } from './projection.ts';

/** PAYMENTS into the attempts table: each event carries its whole attempt. */
export function paymentsHandler(repository: StatusRepository, durable: string): MessageHandler {
  return async (msg) => {
    const event = PaymentEvent.safeParse(jsonOf(msg));
    if (!event.success) {
      await repository.apply(durable, msg.seq, null);
      return 'unreadable';
    }
    const update = attemptUpdateOf(event.data);
    return repository.apply(durable, msg.seq, update ? { eventId: event.data.id, update } : null);
  };
}
