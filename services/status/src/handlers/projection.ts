import type { JsMsg } from '@nats-io/jetstream';
import {
  consumeEvents,
  type Logger,
  type NatsConnection,
  type StreamConsumer,
  type StreamSpec,
} from '@dzpay/platform';
import { replayWhenBehind } from '../adapters/replay-check.ts';
import type { Applied } from '../adapters/status-repository.ts';

export type Projection = StreamConsumer;

/**
 * Messages in one projection transaction at most, and in flight per projection: a
 * burst of events costs one commit per batch instead of one per event, so the lag of
 * the event behind a burst is a few commits, not the burst's length in commits.
 */
export const PROJECTION_BATCH = 256;

/**
 * How long a message that changes nothing waits for others before its position is
 * written: nobody reads it sooner, and the consumer waits for its acknowledgement.
 */
export const UNCHANGED_GATHER_MS = 25;

/**
 * Applies one message in a transaction that commits before the ack (messages that
 * arrive together share one: handlers batch); 'unreadable' when no version of this
 * reader can parse it (the position is still recorded).
 */
export type MessageHandler = (msg: JsMsg) => Promise<Applied | 'unreadable'>;

/**
 * Projects one stream into the status schema through `handle`, which may hold
 * PROJECTION_BATCH messages at once (in stream order) to write them together, from the
 * durable consumer `consumer` (DurableConsumers in libs/contracts). A failure (the
 * database away) is delivered again after `retryDelayMs`; an unreadable message is
 * terminated. A consumer ahead of the database is made again from the stream's start.
 */
export function startProjection(deps: {
  /** Names the stream's events in logs, e.g. 'payment'. */
  name: string;
  nats: NatsConnection;
  prefix: string;
  stream: StreamSpec;
  consumer: { durable: string; filterSubject: string; description: string };
  handle: MessageHandler;
  /** Highest stream sequence the database has applied for this durable. */
  appliedUpTo: () => Promise<number>;
  ackWaitMs: number;
  retryDelayMs: number;
  logger: Logger;
}): Promise<Projection> {
  const { name, nats, prefix, stream, consumer, logger } = deps;
  return consumeEvents({
    nats,
    prefix,
    logger,
    stream,
    consumer,
    name,
    ackWaitMs: deps.ackWaitMs,
    retryDelayMs: deps.retryDelayMs,
    concurrency: PROJECTION_BATCH,
    recreateIf: replayWhenBehind({
      nats,
      prefix,
      stream,
      durable: consumer.durable,
      appliedUpTo: deps.appliedUpTo,
      logger,
    }),
    async handle(msg) {
      const outcome = await deps.handle(msg);
      if (outcome === 'unreadable') return 'unreadable';
      logger.debug({ seq: msg.seq, outcome }, `${name} event projected`);
      return 'handled';
    },
  });
}
