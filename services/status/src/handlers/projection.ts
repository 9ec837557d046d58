import type { Consumer, JsMsg } from '@nats-io/jetstream';
import { consumeStream, type Logger, type StreamConsumer } from '@dzpay/platform';
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
 * PROJECTION_BATCH messages at once (in stream order) to write them together.
 * A failure (the database away) is nak'ed with a delay and redelivered; an unreadable
 * message is terminated, because redelivering it cannot help.
 */
export function startProjection(deps: {
  /** Names the stream in logs, e.g. 'payment'. */
  name: string;
  consumer: Consumer;
  handle: MessageHandler;
  logger: Logger;
  retryDelayMs: number;
}): Projection {
  const { name, consumer, logger, retryDelayMs } = deps;

  async function handle(msg: JsMsg): Promise<void> {
    try {
      const outcome = await deps.handle(msg);
      if (outcome === 'unreadable') {
        logger.error({ seq: msg.seq, subject: msg.subject }, `unreadable ${name} event dropped`);
        msg.term();
        return;
      }
      logger.debug({ seq: msg.seq, outcome }, `${name} event projected`);
      msg.ack();
    } catch (err) {
      logger.warn({ err, seq: msg.seq }, `projecting a ${name} event failed, retrying later`);
      msg.nak(retryDelayMs);
    }
  }

  return consumeStream({
    name: `${name} events`,
    consumer,
    handle,
    logger,
    retryDelayMs,
    concurrency: PROJECTION_BATCH,
  });
}
