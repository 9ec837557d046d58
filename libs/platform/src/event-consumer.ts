import { jetstream, type ConsumerInfo, type JsMsg } from '@nats-io/jetstream';
import { isDatabaseUnavailable } from './db.ts';
import { ensureDurableConsumer, type DurableConsumerSpec } from './durable-consumer.ts';
import { FORMER_QUIET_MS } from './former-events.ts';
import type { Logger } from './logger.ts';
import { metricsOf } from './metrics.ts';
import { natsUnavailableReason } from './nats-weather.ts';
import { ensureStream, streamName, type NatsConnection, type StreamSpec } from './nats.ts';
import { consumeStream, type StreamConsumer } from './stream-consumer.ts';

/** What a handler made of an event: handled (or not its concern), or unreadable. */
export type Handled = 'handled' | 'unreadable';

export interface EventConsumerOptions {
  nats: NatsConnection;
  prefix: string;
  logger: Logger;
  /** The stream as deployed: deployedStream(Streams.payments, config). */
  stream: StreamSpec;
  /** Its entry of DurableConsumers (libs/contracts), renamed if the deployment says so. */
  consumer: DurableConsumerSpec;
  /** Names the events in logs, e.g. 'payment' ('payment event failed, retrying later'). */
  name: string;
  /**
   * Applies one event, idempotently (a redelivered one changes nothing), and resolves
   * once what it did is committed: the event is acknowledged then. 'unreadable' when no
   * version of this reader can parse it: terminated, as redelivering cannot help. A
   * rejection (the database away) delivers the event again later.
   */
  handle: (msg: JsMsg) => Promise<Handled>;
  /** Events handled at once. */
  concurrency?: number;
  /** How long a delivered event may stay unacknowledged before redelivery (30 s). */
  ackWaitMs?: number;
  /** The wait before a failed event comes again, doubled at each failure up to maxRetryDelayMs. */
  retryDelayMs: number;
  maxRetryDelayMs?: number;
  /** Asks for an existing consumer to be deleted and made again from the stream's start. */
  recreateIf?: (existing: ConsumerInfo) => Promise<boolean>;
  /** Tests: see FORMER_QUIET_MS, and how often a consumer not yet narrowed looks again. */
  formerQuietMs?: number;
  narrowCheckMs?: number;
}

/**
 * Reads a stream through one durable pull consumer shared by a service's replicas
 * (durable-consumer.ts), creating the stream when its producer has not started yet, so
 * the start order of services does not matter. Each event is acknowledged after its
 * handler committed, delivered again after a failure, and the consumer's lag and
 * progress are watched (metrics, the stall watch that re-attaches a stuck reader).
 */
export async function consumeEvents(options: EventConsumerOptions): Promise<StreamConsumer> {
  const { nats, prefix, logger, name, consumer: spec } = options;
  await ensureStream(nats, prefix, options.stream);
  const stream = streamName(prefix, options.stream.name);
  const declaration = {
    nats,
    prefix,
    stream: options.stream,
    consumer: spec,
    ackWaitMs: options.ackWaitMs ?? 30_000,
    logger,
    formerQuietMs: options.formerQuietMs ?? FORMER_QUIET_MS,
  };
  const { narrowed } = await ensureDurableConsumer({
    ...declaration,
    ...(options.recreateIf ? { recreateIf: options.recreateIf } : {}),
  });
  const consumer = await jetstream(nats).consumers.get(stream, spec.durable);
  metricsOf(nats)?.watchConsumer(stream, spec.durable, consumer);

  /** Until it may narrow, the consumer reads the whole stream; it looks again now and then. */
  function narrowLater(): NodeJS.Timeout {
    logger.info(
      { stream, consumer: spec.durable, filter: spec.filterSubject },
      'durable consumer reads the whole stream for now: events under its former subjects may still reach it',
    );
    let looking = false;
    const timer = setInterval(() => {
      if (looking) return;
      looking = true;
      ensureDurableConsumer(declaration)
        .then(({ narrowed: now }) => {
          if (!now) return;
          clearInterval(timer);
          // Remade: the pull parked at the consumer that was is answered no more.
          reader.reattach();
          logger.info(
            { stream, consumer: spec.durable },
            'durable consumer narrowed to its filter',
          );
        })
        .catch((err: unknown) =>
          logger.warn({ err, stream, consumer: spec.durable }, 'narrowing a consumer failed'),
        )
        .finally(() => {
          looking = false;
        });
    }, options.narrowCheckMs ?? 60_000);
    return timer.unref();
  }

  const delayOf = (msg: JsMsg) =>
    Math.min(
      options.retryDelayMs * 2 ** Math.max(0, msg.info.deliveryCount - 1),
      options.maxRetryDelayMs ?? options.retryDelayMs,
    );

  async function handle(msg: JsMsg): Promise<void> {
    try {
      if ((await options.handle(msg)) === 'unreadable') {
        logger.error(
          { seq: msg.seq, subject: msg.subject, consumer: spec.durable },
          `unreadable ${name} event dropped`,
        );
        msg.term();
        return;
      }
      msg.ack();
    } catch (err) {
      const delayMs = delayOf(msg);
      const away = isDatabaseUnavailable(err) || natsUnavailableReason(err) !== null;
      logger[away ? 'warn' : 'error'](
        { err, seq: msg.seq, consumer: spec.durable, delayMs },
        `${name} event failed, retrying later`,
      );
      msg.nak(delayMs);
    }
  }

  const reader = consumeStream({
    name: `${name} events (${spec.durable})`,
    consumer,
    handle,
    logger,
    retryDelayMs: options.retryDelayMs,
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
  });
  const narrowing = narrowed ? undefined : narrowLater();
  return {
    async stop() {
      clearInterval(narrowing);
      await reader.stop();
    },
  };
}
