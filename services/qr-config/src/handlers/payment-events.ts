import type { JsMsg } from '@nats-io/jetstream';
import { DurableConsumers, PaymentEvent, Streams } from '@dzpay/contracts';
import {
  consumeEvents,
  deployedStream,
  jsonOf,
  type Handled,
  type Logger,
  type NatsConnection,
  type StreamConsumer,
} from '@dzpay/platform';
import type { QrRepository } from '../adapters/qr-repository.ts';
import { singleUseClearing } from '../domain/single-use.ts';

export type PaymentEventConsumer = StreamConsumer;

/**
 * Clears single-use QR configurations after their first successful payment, from the
 * PAYMENTS stream, through DurableConsumers.qrConfigSingleUse: the server gives it only
 * QR codes' successful payments. Replicas share the consumer, so each event is handled
 * by one of them; a redelivery is dropped by event id (repository). One event at a time;
 * a failure comes back after 1 s, then 2 s, 4 s… up to a minute, so a database outage
 * is waited out, not hammered.
 */
export function consumePaymentEvents(deps: {
  nats: NatsConnection;
  prefix: string;
  repository: QrRepository;
  logger: Logger;
  /** How this deployment runs its streams (deployedStream): STREAM_REPLICAS, STREAM_MAX_AGE_MS. */
  deployment: { STREAM_REPLICAS: number; STREAM_MAX_AGE_MS: number };
}): Promise<PaymentEventConsumer> {
  const { repository, logger } = deps;

  async function handle(msg: JsMsg): Promise<Handled> {
    const parsed = PaymentEvent.safeParse(jsonOf(msg));
    if (!parsed.success) return 'unreadable';
    const event = parsed.data;
    const clearing = singleUseClearing(event);
    if (clearing) {
      const outcome = await repository.clearSingleUse(clearing);
      logger[outcome === 'cleared' ? 'info' : 'debug'](
        { eventId: event.id, paymentId: event.data.paymentId, token: clearing.token, outcome },
        'single-use QR configuration checked',
      );
    }
    return 'handled';
  }

  const consumer = DurableConsumers.qrConfigSingleUse;
  return consumeEvents({
    nats: deps.nats,
    prefix: deps.prefix,
    logger,
    stream: deployedStream(Streams[consumer.stream], deps.deployment),
    consumer,
    name: 'payment',
    handle,
    retryDelayMs: 1_000,
    maxRetryDelayMs: 60_000,
  });
}
