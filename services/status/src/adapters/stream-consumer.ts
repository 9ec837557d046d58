import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  JetStreamApiCodes,
  JetStreamApiError,
  type Consumer,
} from '@nats-io/jetstream';
import {
  ensureStream,
  type Logger,
  metricsOf,
  type NatsConnection,
  streamName,
  type StreamSpec,
} from '@dzpay/platform';

export interface StreamConsumerOptions {
  nats: NatsConnection;
  prefix: string;
  /** The stream to read (e.g. Streams.payments), created when its producer has not yet. */
  stream: StreamSpec;
  /** Durable consumer name; replicas sharing it share the work. */
  durable: string;
  /** Highest stream sequence the database has applied for this durable. */
  appliedUpTo: () => Promise<number>;
  /** How long a delivered message may stay unacknowledged before redelivery. */
  ackWaitMs: number;
  logger: Logger;
}

/**
 * A durable pull consumer (explicit ack) of one stream, creating the stream when its
 * producer has not started yet, so the start order of services does not matter.
 *
 * The database, not the consumer, is the truth of what was applied: if the consumer
 * acknowledged beyond what the database holds (a fresh or restored database), it is
 * recreated from the start of the stream and the projection is rebuilt by replay. Events
 * applied twice change nothing (event ids, stream sequences), so replicas racing here
 * are harmless.
 */
export async function streamConsumer(options: StreamConsumerOptions): Promise<Consumer> {
  const { nats, prefix, durable, logger } = options;
  await ensureStream(nats, prefix, options.stream);
  const stream = streamName(prefix, options.stream.name);
  const jsm = await jetstreamManager(nats);

  const existing = await jsm.consumers.info(stream, durable).catch((error: unknown) => {
    if (isConsumerNotFound(error)) return null;
    throw error;
  });
  const applied = await options.appliedUpTo();
  const behind = existing !== null && existing.ack_floor.stream_seq > applied;
  if (behind) {
    logger.warn(
      { stream, durable, acknowledged: existing.ack_floor.stream_seq, applied },
      'projection is behind its consumer: replaying the stream',
    );
    await jsm.consumers.delete(stream, durable);
  }
  if (existing === null || behind) {
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

function isConsumerNotFound(error: unknown): boolean {
  return error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound;
}
