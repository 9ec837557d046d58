import type { Consumer, JsMsg } from '@nats-io/jetstream';
import { PaymentEvent, RefundEventExtra, type Mode } from '@dzpay/contracts';
import {
  consumeStream,
  inSpan,
  jsonOf,
  natsContextOf,
  SpanKind,
  type Logger,
  type StreamConsumer,
} from '@dzpay/platform';
import type { DeliveryIntake } from '../adapters/deliveries/intake.ts';
import { wants, webhookOf } from '../domain/webhook-body.ts';

export type Intake = StreamConsumer;

/**
 * Stores each payment event that maps to a webhook type, and a delivery when the
 * merchant's endpoint wants that kind (read from the partner directory as the event
 * comes, so a change of kinds applies to the next event), acknowledged only once both
 * and the delivery's pending event are committed: a crash in between redelivers the
 * message, and the event id makes the second enqueue a no-op. A failure (the database
 * or the directory away) is nak'ed with a delay; a message no version of this reader can
 * parse is terminated.
 */
export function startPaymentIntake(deps: {
  consumer: Consumer;
  deliveries: DeliveryIntake;
  /** Told after each new delivery, so its first attempt goes out at once. */
  enqueued: () => void;
  /** The kinds the merchant's endpoint wants (undefined: no endpoint yet, the defaults). */
  wantedKinds: (merchantId: string, mode: Mode) => Promise<readonly string[] | undefined>;
  logger: Logger;
  retryDelayMs: number;
}): Intake {
  const { consumer, deliveries, logger, retryDelayMs } = deps;

  // In the trace of the payment outcome (its context came in the message headers).
  const handle = (msg: JsMsg) =>
    inSpan('webhook enqueue', { kind: SpanKind.CONSUMER, parent: natsContextOf(msg.headers) }, () =>
      enqueueOutcome(msg),
    );

  async function enqueueOutcome(msg: JsMsg): Promise<void> {
    const raw = jsonOf(msg);
    const event = PaymentEvent.safeParse(raw);
    if (!event.success) {
      logger.error({ seq: msg.seq, subject: msg.subject }, 'unreadable payment event dropped');
      msg.term();
      return;
    }
    const extra = RefundEventExtra.safeParse(raw);
    const webhook = webhookOf(event.data, extra.success ? extra.data.data.refundAmount : undefined);
    if (webhook === null) {
      msg.ack();
      return;
    }
    try {
      const kinds = await deps.wantedKinds(event.data.merchantId, event.data.mode);
      const outcome = await deliveries.enqueue(event.data, webhook, wants(kinds, webhook.type));
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
  return consumeStream({
    name: 'payment outcomes',
    consumer,
    handle,
    logger,
    retryDelayMs,
    concurrency: INTAKE_CONCURRENCY,
  });
}

/** Outcomes enqueued at once: enough for Postgres to commit them in groups. */
const INTAKE_CONCURRENCY = 32;
