import type { JsMsg } from '@nats-io/jetstream';
import { PaymentEvent, RefundEventExtra, type Mode } from '@dzpay/contracts';
import {
  consumeEvents,
  inSpan,
  jsonOf,
  natsContextOf,
  SpanKind,
  type Handled,
  type Logger,
  type NatsConnection,
  type StreamConsumer,
  type StreamSpec,
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
 * or the directory away) is delivered again after a delay; a message no version of this
 * reader can parse is terminated.
 *
 * It reads through the durable consumer `consumer` (DurableConsumers.dispatcherPayments),
 * which the server gives only the events of decided payments, from the start of the
 * stream: an outcome published before the dispatcher ever ran is still delivered.
 */
export function startPaymentIntake(deps: {
  nats: NatsConnection;
  prefix: string;
  /** PAYMENTS as deployed: deployedStream(Streams.payments, config). */
  stream: StreamSpec;
  consumer: { durable: string; filterSubject: string; description: string };
  ackWaitMs: number;
  deliveries: DeliveryIntake;
  /** Told after each new delivery, so its first attempt goes out at once. */
  enqueued: () => void;
  /** The kinds the merchant's endpoint wants (undefined: no endpoint yet, the defaults). */
  wantedKinds: (merchantId: string, mode: Mode) => Promise<readonly string[] | undefined>;
  logger: Logger;
  retryDelayMs: number;
}): Promise<Intake> {
  const { deliveries, logger } = deps;

  // In the trace of the payment outcome (its context came in the message headers).
  const handle = (msg: JsMsg) =>
    inSpan('webhook enqueue', { kind: SpanKind.CONSUMER, parent: natsContextOf(msg.headers) }, () =>
      enqueueOutcome(msg),
    );

  async function enqueueOutcome(msg: JsMsg): Promise<Handled> {
    const raw = jsonOf(msg);
    const event = PaymentEvent.safeParse(raw);
    if (!event.success) return 'unreadable';
    const extra = RefundEventExtra.safeParse(raw);
    const webhook = webhookOf(event.data, extra.success ? extra.data.data.refundAmount : undefined);
    // None but decided payments' events reach here, unless the consumer still reads the
    // whole stream (consumeEvents: events under the former subjects ahead of it).
    if (webhook === null) return 'handled';
    const kinds = await deps.wantedKinds(event.data.merchantId, event.data.mode);
    const outcome = await deliveries.enqueue(event.data, webhook, wants(kinds, webhook.type));
    logger.debug({ eventId: event.data.id, outcome }, 'payment outcome enqueued');
    if (outcome === 'created') deps.enqueued();
    return 'handled';
  }

  // Outcomes are enqueued several at a time: each is its own transaction (idempotent by
  // event id, order does not matter), and Postgres commits concurrent transactions
  // together, so a burst is not one fsync per event.
  return consumeEvents({
    nats: deps.nats,
    prefix: deps.prefix,
    logger,
    stream: deps.stream,
    consumer: deps.consumer,
    name: 'payment',
    handle,
    ackWaitMs: deps.ackWaitMs,
    retryDelayMs: deps.retryDelayMs,
    concurrency: INTAKE_CONCURRENCY,
  });
}

/** Outcomes enqueued at once: enough for Postgres to commit them in groups. */
const INTAKE_CONCURRENCY = 32;
