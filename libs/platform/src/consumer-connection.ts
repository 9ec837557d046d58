import type { Consumer } from '@nats-io/jetstream';
import type { NatsConnection } from './nats.ts';

/**
 * The NATS connection each durable consumer was opened on, for the reader that has only
 * the consumer (consumeStream follows its reconnects).
 */
const byConsumer = new WeakMap<Consumer, NatsConnection>();

export function bindConnection(consumer: Consumer, connection: NatsConnection): void {
  byConsumer.set(consumer, connection);
}

export function connectionOf(consumer: Consumer): NatsConnection | undefined {
  return byConsumer.get(consumer);
}
