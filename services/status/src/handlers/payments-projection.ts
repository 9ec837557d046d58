import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { PaymentEvent } from '@dzpay/contracts';
import type { Logger } from '@dzpay/platform';
import type { StatusRepository } from '../adapters/status-repository.ts';
import { attemptUpdateOf } from '../domain/attempt-event.ts';

export interface Projection {
  /** Stops pulling, finishes the message in hand, hands buffered ones back to the stream. */
  stop(): Promise<void>;
}

/**
 * Projects PAYMENTS into the attempts table, one message at a time, each in one
 * transaction that commits before the ack. A failure (the database away) is nak'ed with
 * a delay and redelivered; a message no version of this reader can parse is terminated,
 * because redelivering it cannot help.
 */
export function startPaymentsProjection(deps: {
  consumer: Consumer;
  durable: string;
  repository: StatusRepository;
  logger: Logger;
  retryDelayMs: number;
}): Projection {
  const { consumer, durable, repository, logger, retryDelayMs } = deps;
  let stopping = false;
  let messages: ConsumerMessages | undefined;
  // Cuts the pause before a restart short when stop() comes.
  const pause = new AbortController();

  async function handle(msg: JsMsg): Promise<void> {
    const event = PaymentEvent.safeParse(jsonOf(msg));
    try {
      if (!event.success) {
        await repository.apply(durable, msg.seq, null);
        logger.error({ seq: msg.seq, subject: msg.subject }, 'unreadable payment event dropped');
        msg.term();
        return;
      }
      const update = attemptUpdateOf(event.data);
      const change = update ? { eventId: event.data.id, update } : null;
      const outcome = await repository.apply(durable, msg.seq, change);
      logger.debug({ seq: msg.seq, eventId: event.data.id, outcome }, 'payment event projected');
      msg.ack();
    } catch (err) {
      logger.warn({ err, seq: msg.seq }, 'projecting a payment event failed, retrying later');
      msg.nak(retryDelayMs);
    }
  }

  async function run(): Promise<void> {
    // consume() rides out NATS reconnects by itself; this loop only covers the iterator
    // ending anyway (an error, a closed connection), so the projection never silently stops.
    while (!stopping) {
      try {
        messages = await consumer.consume({ max_messages: 64 });
        if (stopping) await messages.close();
        for await (const msg of messages) {
          // Messages already buffered when stop() began go straight back to the stream,
          // so another replica takes them now instead of after the ack wait.
          if (stopping) msg.nak();
          else await handle(msg);
        }
        if (!stopping) logger.warn('payment events consumer ended, restarting');
      } catch (err) {
        if (!stopping) logger.error({ err }, 'payment events consumer failed, restarting');
      }
      await sleep(retryDelayMs, undefined, { signal: pause.signal }).catch(() => {});
    }
  }

  const running = run();
  return {
    async stop() {
      stopping = true;
      pause.abort();
      await messages?.close();
      await running;
    },
  };
}

function jsonOf(msg: JsMsg): unknown {
  try {
    return msg.json();
  } catch {
    return undefined;
  }
}
