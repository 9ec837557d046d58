import {
  AckPolicy,
  DeliverPolicy,
  jetstreamManager,
  JetStreamApiCodes,
  JetStreamApiError,
  type ConsumerConfig,
  type ConsumerInfo,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { formerEventsAhead } from './former-events.ts';
import type { Logger } from './logger.ts';
import { prefixed, streamName, type NatsConnection, type StreamSpec } from './nats.ts';

/** A durable consumer as its service declares it (DurableConsumers in libs/contracts). */
export interface DurableConsumerSpec {
  /** Its name; replicas sharing it share the work. */
  durable: string;
  /** The events it reads, without the prefix; unset: all of the stream. */
  filterSubject?: string;
  description?: string;
}

export interface DurableConsumerOptions {
  nats: NatsConnection;
  prefix: string;
  stream: StreamSpec;
  consumer: DurableConsumerSpec;
  /** How long a delivered message may stay unacknowledged before redelivery. */
  ackWaitMs: number;
  logger: Logger;
  /** Asks for an existing consumer to be deleted and made again from the stream's start. */
  recreateIf?: (existing: ConsumerInfo) => Promise<boolean>;
  /** See FORMER_QUIET_MS. */
  formerQuietMs: number;
}

/**
 * Brings a durable pull consumer to its declaration: explicit acks, delivered again
 * until handled (no max_deliver: a message no reader can parse is terminated by its
 * handler instead), as many copies as its stream (STREAM_REPLICAS: the consumer's own
 * count is left to the stream), and its filter subject. A new one starts at the
 * beginning of the stream, so events published before its service first ran are read.
 *
 * It narrows to its filter only once no event under the stream's former subjects can
 * still reach it (former-events.ts); until then it reads the whole stream, which its
 * handler sorts as it always did. Answers whether it is narrowed.
 */
export async function ensureDurableConsumer(
  options: DurableConsumerOptions,
): Promise<{ narrowed: boolean }> {
  const jsm = await jetstreamManager(options.nats);
  // Replicas starting together race to make or remake it: the loser looks again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await bringToDeclaration(jsm, options);
    } catch (error) {
      if (attempt === 3 || !(error instanceof JetStreamApiError)) throw error;
    }
  }
}

async function bringToDeclaration(
  jsm: JetStreamManager,
  options: DurableConsumerOptions,
): Promise<{ narrowed: boolean }> {
  const { prefix, consumer, logger } = options;
  const stream = streamName(prefix, options.stream.name);
  const { durable } = consumer;
  let existing = await infoOf(jsm, stream, durable);
  if (existing !== null && (await options.recreateIf?.(existing)) === true) {
    await deleteConsumer(jsm, stream, durable);
    existing = null;
  }
  const position = existing?.ack_floor.stream_seq ?? 0;
  const filter =
    consumer.filterSubject === undefined ? undefined : prefixed(prefix, consumer.filterSubject);
  const narrowed =
    filter === undefined ||
    !(await formerEventsAhead({
      jsm,
      stream,
      prefix,
      formerSubjects: options.stream.formerSubjects ?? [],
      position,
      quietMs: options.formerQuietMs,
    }));
  const settings: Partial<ConsumerConfig> = {
    ack_wait: options.ackWaitMs * 1_000_000,
    max_deliver: -1,
    ...(consumer.description ? { description: consumer.description } : {}),
  };
  const wanted = { ...settings, ...(narrowed && filter ? { filter_subject: filter } : {}) };
  const create = { ...wanted, durable_name: durable, ack_policy: AckPolicy.Explicit };

  if (existing === null) {
    await jsm.consumers.add(stream, { ...create, deliver_policy: DeliverPolicy.All });
  } else if ((existing.config.filter_subject || undefined) !== wanted.filter_subject) {
    // nats-server 2.9 takes a new filter in place, but a wildcard one put where there was
    // none (or a literal one) matches nothing until the server restarts: every event
    // after it would be skipped. So it is made again from its first unacknowledged
    // event; the ones after that it had delivered come again, and handlers drop repeats.
    await deleteConsumer(jsm, stream, durable);
    await jsm.consumers.add(stream, { ...create, ...startingAfter(position) });
    logger.info(
      { stream, consumer: durable, filter: wanted.filter_subject ?? null, from: position + 1 },
      'durable consumer made again with its filter, from its first unacknowledged event',
    );
  } else if (
    existing.config.ack_wait !== settings.ack_wait ||
    existing.config.max_deliver !== settings.max_deliver ||
    (existing.config.description ?? undefined) !== settings.description
  ) {
    await jsm.consumers.update(stream, durable, settings);
  }
  return { narrowed };
}

function startingAfter(position: number): Partial<ConsumerConfig> {
  return position === 0
    ? { deliver_policy: DeliverPolicy.All }
    : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: position + 1 };
}

async function infoOf(
  jsm: JetStreamManager,
  stream: string,
  durable: string,
): Promise<ConsumerInfo | null> {
  return jsm.consumers.info(stream, durable).catch((error: unknown) => {
    if (isConsumerNotFound(error)) return null;
    throw error;
  });
}

async function deleteConsumer(jsm: JetStreamManager, stream: string, durable: string) {
  await jsm.consumers.delete(stream, durable).catch((error: unknown) => {
    // Another replica deleted it first.
    if (!isConsumerNotFound(error)) throw error;
  });
}

const isConsumerNotFound = (error: unknown) =>
  error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound;
