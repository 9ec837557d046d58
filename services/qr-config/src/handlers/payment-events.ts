import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstream,
  jetstreamManager,
  type ConsumerUpdateConfig,
  type JsMsg,
} from '@nats-io/jetstream';
import { PaymentEvent, PaymentEventTypes, Streams, paymentEventSubject } from '@dzpay/contracts';
import {
  consumeStream,
  ensureStream,
  isDatabaseUnavailable,
  jsonOf,
  type Logger,
  metricsOf,
  type NatsConnection,
  prefixed,
  streamName,
  type StreamSpec,
} from '@dzpay/platform';
import type { QrRepository } from '../adapters/qr-repository.ts';
import { singleUseClearing } from '../domain/single-use.ts';

/** Durable name of qr-config's consumer; the stream's name already carries the prefix. */
export const SINGLE_USE_CONSUMER = 'qr-config-single-use';

export interface PaymentEventConsumer {
  /** Stops pulling, then waits for the event in hand to be committed and acked. */
  stop(): Promise<void>;
}

/**
 * Clears single-use QR configurations after their first successful payment, from the
 * PAYMENTS stream. Replicas share one durable consumer, so each event is handled by
 * one of them; a redelivery is dropped by event id (repository). The stream is ensured
 * here too, so qr-config may start before payments.
 */
export async function consumePaymentEvents(deps: {
  nats: NatsConnection;
  prefix: string;
  repository: QrRepository;
  logger: Logger;
  /** How PAYMENTS is deployed (replicas, age): deployedStream(Streams.payments, config). */
  stream: StreamSpec;
}): Promise<PaymentEventConsumer> {
  const { nats, prefix, repository, logger } = deps;
  await ensureStream(nats, prefix, deps.stream);
  const stream = streamName(prefix, Streams.payments.name);
  await ensureConsumer(nats, stream, {
    description: 'qr-config: clears single-use QR configurations after a successful payment',
    filter_subject: prefixed(prefix, paymentEventSubject(PaymentEventTypes.succeeded)),
    ack_wait: 30_000 * 1_000_000,
    max_ack_pending: 100,
  });
  const consumer = await jetstream(nats).consumers.get(stream, SINGLE_USE_CONSUMER);
  metricsOf(nats)?.watchConsumer(stream, SINGLE_USE_CONSUMER, consumer);

  async function handle(msg: JsMsg): Promise<void> {
    const parsed = PaymentEvent.safeParse(jsonOf(msg));
    if (!parsed.success) {
      // Retrying cannot repair it; keep it out of the way and loud in the logs.
      logger.error(
        { seq: msg.seq, subject: msg.subject, issues: parsed.error.issues },
        'malformed payment event dropped',
      );
      msg.term('malformed payment event');
      return;
    }
    const event = parsed.data;
    const clearing = singleUseClearing(event);
    try {
      if (clearing) {
        const outcome = await repository.clearSingleUse(clearing);
        logger[outcome === 'cleared' ? 'info' : 'debug'](
          { eventId: event.id, paymentId: event.data.paymentId, token: clearing.token, outcome },
          'single-use QR configuration checked',
        );
      }
      // Only after the commit: a crash before this line redelivers the event.
      msg.ack();
    } catch (err) {
      const delayMs = retryDelayMs(msg.info.deliveryCount);
      const level = isDatabaseUnavailable(err) ? 'warn' : 'error';
      logger[level]({ err, eventId: event.id, delayMs }, 'payment event failed, retrying later');
      msg.nak(delayMs);
    }
  }

  // One event at a time; the shared loop restarts the consumer if its iterator ever
  // ends (an error, a closed connection) instead of leaving qr-config deaf.
  return consumeStream({
    name: 'payment events (single-use QR)',
    consumer,
    handle,
    logger,
    retryDelayMs: 1_000,
  });
}

/**
 * Brings the durable consumer to the given settings, creating it on first start. It
 * starts at the beginning of the stream, so events published while qr-config was not
 * yet running are handled too.
 */
async function ensureConsumer(
  nats: NatsConnection,
  stream: string,
  settings: ConsumerUpdateConfig,
): Promise<void> {
  const jsm = await jetstreamManager(nats);
  try {
    await jsm.consumers.update(stream, SINGLE_USE_CONSUMER, settings);
  } catch (error) {
    const missing =
      error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound;
    if (!missing) throw error;
    // Replicas starting together may both get here; creating the same config twice is
    // accepted by the server.
    await jsm.consumers.add(stream, {
      ...settings,
      durable_name: SINGLE_USE_CONSUMER,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
    });
  }
}

/** 1 s, 2 s, 4 s … up to a minute: a database outage is waited out, not hammered. */
function retryDelayMs(deliveryCount: number): number {
  return Math.min(1_000 * 2 ** Math.max(0, deliveryCount - 1), 60_000);
}
