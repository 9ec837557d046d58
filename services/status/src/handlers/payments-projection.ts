import { PaymentEvent } from '@dzpay/contracts';
import { batcher, jsonOf } from '@dzpay/platform';
import type { StatusRepository } from '../adapters/status-repository.ts';
import { attemptUpdateOf } from '../domain/attempt-event.ts';
import { PROJECTION_BATCH, UNCHANGED_GATHER_MS, type MessageHandler } from './projection.ts';

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
  // Hosted-checkout events (most of the stream) change nothing here: their positions are
  // recorded together, a window at a time, and each is acknowledged only after that.
  const pass = batcher(
    (messages: Parameters<StatusRepository['applyAll']>[1]) =>
      repository.applyAll(durable, messages),
    PROJECTION_BATCH,
    UNCHANGED_GATHER_MS,
  );
  return async (msg) => {
    const event = PaymentEvent.safeParse(jsonOf(msg));
    if (!event.success) {
      await pass({ streamSeq: msg.seq, change: null });
      return 'unreadable';
    }
    const update = attemptUpdateOf(event.data);
    if (!update) return pass({ streamSeq: msg.seq, change: null });
    return apply({ streamSeq: msg.seq, change: { eventId: event.data.id, update } });
  };
}
