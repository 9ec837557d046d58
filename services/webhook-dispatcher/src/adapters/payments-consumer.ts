import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  JetStreamApiCodes,
  JetStreamApiError,
  type Consumer,
} from '@nats-io/jetstream';
import { Streams } from '@dzpay/contracts';
import { ensureStream, metricsOf, type NatsConnection, streamName } from '@dzpay/platform';

/**
 * The durable pull consumer of the payment outcomes on PAYMENTS, creating the stream
 * when payments has not started yet, so the start order of services does not matter.
 * It starts at the beginning of the stream: an outcome published before the dispatcher
 * ever ran is still delivered (the deliveries table drops what was already enqueued).
 * It reads every payment event, and the intake acknowledges the ones that are no
 * outcome: filtering on the two subjects (filter_subjects) needs NATS 2.10.
 */
export async function paymentOutcomesConsumer(options: {
  nats: NatsConnection;
  prefix: string;
  durable: string;
  ackWaitMs: number;
  streamReplicas: number;
}): Promise<Consumer> {
  const { nats, prefix, durable } = options;
  await ensureStream(nats, prefix, { ...Streams.payments, replicas: options.streamReplicas });
  const stream = streamName(prefix, Streams.payments.name);
  const jsm = await jetstreamManager(nats);
  const existing = await jsm.consumers.info(stream, durable).catch((error: unknown) => {
    if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound) {
      return null;
    }
    throw error;
  });
  if (existing === null) {
    await jsm.consumers.add(stream, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: options.ackWaitMs * 1_000_000,
    });
  }
  const consumer = await jetstream(nats).consumers.get(stream, durable);
  metricsOf(nats)?.watchConsumer(stream, durable, consumer);
  return consumer;
}
