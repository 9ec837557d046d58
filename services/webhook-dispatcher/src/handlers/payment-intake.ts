import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { PaymentEvent } from '@dzpay/contracts';
import type { Logger } from '@dzpay/platform';
import type { DeliveriesRepository } from '../adapters/deliveries-repository.ts';
import { webhookOf } from '../domain/webhook-body.ts';

export interface Intake {
  /** Stops pulling, finishes the message in hand, hands buffered ones back to the stream. */
  stop(): Promise<void>;
}

/**
 * Turns each payment outcome into one delivery, acknowledged only once the delivery and
 * its pending event are committed: a crash in between redelivers the message, and the
 * event id makes the second enqueue a no-op. A failure (the database away) is nak'ed
 * with a delay; a message no version of this reader can parse is terminated.
 */
export function startPaymentIntake(deps: {
  consumer: Consumer;
  repository: DeliveriesRepository;
  /** Told after each new delivery, so its first attempt goes out at once. */
  enqueued: () => void;
  logger: Logger;
  retryDelayMs: number;
}): Intake {
  const { consumer, repository, logger, retryDelayMs } = deps;
  let stopping = false;
  let messages: ConsumerMessages | undefined;
  const pause = new AbortController();

  async function handle(msg: JsMsg): Promise<void> {
    const event = PaymentEvent.safeParse(jsonOf(msg));
    if (!event.success) {
      logger.error({ seq: msg.seq, subject: msg.subject }, 'unreadable payment event dropped');
      msg.term();
      return;
    }
    const webhook = webhookOf(event.data);
    if (webhook === null) {
      msg.ack();
      return;
    }
    try {
      const outcome = await repository.enqueue(event.data, webhook);
      logger.debug({ eventId: event.data.id, outcome }, 'payment outcome enqueued');
      msg.ack();
      if (outcome === 'created') deps.enqueued();
    } catch (err) {
      logger.warn({ err, seq: msg.seq }, 'enqueuing a webhook failed, retrying later');
      msg.nak(retryDelayMs);
    }
  }

  // Outcomes are enqueued several at a time: each is its own transaction (idempotent by
  // event id, order does not matter), and Postgres commits concurrent transactions
  // together, so a burst is not one fsync per event.
  const inFlight = new Set<Promise<void>>();

  async function run(): Promise<void> {
    while (!stopping) {
      try {
        messages = await consumer.consume({ max_messages: 64 });
        if (stopping) await messages.close();
        for await (const msg of messages) {
          if (stopping) {
            msg.nak();
            continue;
          }
          const work: Promise<void> = handle(msg).finally(() => inFlight.delete(work));
          inFlight.add(work);
          if (inFlight.size >= INTAKE_CONCURRENCY) await Promise.race(inFlight);
        }
        await Promise.allSettled(inFlight);
        if (!stopping) logger.warn('payment outcomes consumer ended, restarting');
      } catch (err) {
        if (!stopping) logger.error({ err }, 'payment outcomes consumer failed, restarting');
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
      await Promise.allSettled(inFlight);
    },
  };
}

/** Outcomes enqueued at once: enough for Postgres to commit them in groups. */
const INTAKE_CONCURRENCY = 32;

function jsonOf(msg: JsMsg): unknown {
  try {
    return msg.json();
  } catch {
    return undefined;
  }
}
