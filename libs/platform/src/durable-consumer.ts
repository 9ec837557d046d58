import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  JetStreamApiCodes,
  JetStreamApiError,
  type Consumer,
  type ConsumerInfo,
} from '@nats-io/jetstream';
import { metricsOf } from './metrics.ts';
import { ensureStream, streamName, type NatsConnection, type StreamSpec } from './nats.ts';

/**
 * A durable pull consumer (explicit ack, from the start of the stream) of one stream,
 * creating the stream when its producer has not started yet, so the start order of
 * services does not matter. `recreateIf` may ask for an existing consumer to be deleted
 * and made again from the start (a projection whose database is behind it). Its lag is
 * reported in the service's metrics.
 */
export async function durableConsumer(options: {
  nats: NatsConnection;
  prefix: string;
  stream: StreamSpec;
  /** Durable consumer name; replicas sharing it share the work. */
  durable: string;
  /** How long a delivered message may stay unacknowledged before redelivery. */
  ackWaitMs: number;
  recreateIf?: (existing: ConsumerInfo) => Promise<boolean>;
}): Promise<Consumer> {
  const { nats, prefix, durable } = options;
  await ensureStream(nats, prefix, options.stream);
  const stream = streamName(prefix, options.stream.name);
  const jsm = await jetstreamManager(nats);
  const existing = await jsm.consumers.info(stream, durable).catch((error: unknown) => {
    const missing =
      error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound;
    if (missing) return null;
    throw error;
  });
  const recreate = existing !== null && (await options.recreateIf?.(existing)) === true;
  if (recreate) await jsm.consumers.delete(stream, durable);
  if (existing === null || recreate) {
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
