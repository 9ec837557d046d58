import { PaymentEvent } from '@dzpay/contracts';
import { batcher, jsonOf } from '@dzpay/platform';
import type { StatusRepository } from '../adapters/status-repository.ts';
import { attemptUpdateOf } from '../domain/attempt-event.ts';
import { PROJECTION_BATCH, type MessageHandler } from './projection.ts';

/**
 * PAYMENTS into the attempts table: each event carries its whole attempt. Messages that
 * arrive while a batch is being written go into the next one (one transaction each).
 */
export function paymentsHandler(repository: StatusRepository, durable: string): MessageHandler {
  const apply = batcher(
    (messages: Parameters<StatusRepository['applyAll']>[1]) =>
      repository.applyAll(durable, messages),
    PROJECTION_BATCH,
  );
  return async (msg) => {
    const event = PaymentEvent.safeParse(jsonOf(msg));
    if (!event.success) {
      await apply({ streamSeq: msg.seq, change: null });
      return 'unreadable';
    }
    const update = attemptUpdateOf(event.data);
    return apply({
      streamSeq: msg.seq,
      change: update ? { eventId: event.data.id, update } : null,
    });
  };
}
