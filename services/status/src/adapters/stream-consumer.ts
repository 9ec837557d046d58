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
import { ensureStream, streamName, type Logger, type NatsConnection } from '@dzpay/platform';

export interface PaymentsConsumerOptions {
  nats: NatsConnection;
  prefix: string;
  /** Durable consumer name; replicas sharing it share the work. */
  durable: string;
  /** Highest stream sequence the database has applied for this durable. */
  appliedUpTo: () => Promise<number>;
  /** How long a delivered message may stay unacknowledged before redelivery. */
  ackWaitMs: number;
  logger: Logger;
}

/**
 * The durable pull consumer of PAYMENTS, creating the stream when payments has not
 * started yet, so the start order of services does not matter.
 *
 * The database, not the consumer, is the truth of what was applied: if the consumer
 * acknowledged beyond what the database holds (a fresh or restored database), it is
 * recreated from the start of the stream and the projection is rebuilt by replay. Events
 * applied twice change nothing (event ids, stream sequences), so replicas racing here
 * are harmless.
 */
export async function paymentsConsumer(options: PaymentsConsumerOptions): Promise<Consumer> {
  const { nats, prefix, durable, logger } = options;
  await ensureStream(nats, prefix, Streams.payments);
  const stream = streamName(prefix, Streams.payments.name);
  const jsm = await jetstreamManager(nats);

  const existing = await jsm.consumers.info(stream, durable).catch((error: unknown) => {
    if (isConsumerNotFound(error)) return null;
    throw error;
  });
  const applied = await options.appliedUpTo();
  const behind = existing !== null && existing.ack_floor.stream_seq > applied;
  if (behind) {
    logger.warn(
      { durable, acknowledged: existing.ack_floor.stream_seq, applied },
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
  return jetstream(nats).consumers.get(stream, durable);
}

function isConsumerNotFound(error: unknown): boolean {
  return error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound;
}
