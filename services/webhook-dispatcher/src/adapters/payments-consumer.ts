import type { Consumer } from '@nats-io/jetstream';
import { durableConsumer, type NatsConnection, type StreamSpec } from '@dzpay/platform';

/**
 * The durable pull consumer of the payment outcomes on PAYMENTS, creating the stream
 * when payments has not started yet, so the start order of services does not matter.
 * It starts at the beginning of the stream: an outcome published before the dispatcher
 * ever ran is still delivered (the deliveries table drops what was already enqueued).
 * It reads every payment event, and the intake acknowledges the ones that are no
 * outcome: filtering on the two subjects (filter_subjects) needs NATS 2.10.
 */
export function paymentOutcomesConsumer(options: {
  nats: NatsConnection;
  prefix: string;
  durable: string;
  ackWaitMs: number;
  /** How PAYMENTS is deployed (replicas, age): deployedStream(Streams.payments, config). */
  stream: StreamSpec;
}): Promise<Consumer> {
  return durableConsumer(options);
}
