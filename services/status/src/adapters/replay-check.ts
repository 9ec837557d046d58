import { jetstreamManager, type ConsumerInfo } from '@nats-io/jetstream';
import { streamName, type Logger, type NatsConnection, type StreamSpec } from '@dzpay/platform';

export interface ReplayCheckOptions {
  nats: NatsConnection;
  prefix: string;
  stream: StreamSpec;
  durable: string;
  /** Highest stream sequence the database has applied for this durable. */
  appliedUpTo: () => Promise<number>;
  logger: Logger;
}

/**
 * Whether a projection's existing consumer must be made again from the start of its
 * stream. The database, not the consumer, is the truth of what was applied: if the
 * consumer acknowledged beyond what the database holds (a fresh or restored database),
 * the projection is rebuilt by replay. Events applied twice change nothing (event ids,
 * stream sequences), so replicas racing here are harmless.
 */
export function replayWhenBehind(
  options: ReplayCheckOptions,
): (existing: ConsumerInfo) => Promise<boolean> {
  return async (existing) => {
    const applied = await options.appliedUpTo();
    const behind = existing.ack_floor.stream_seq > applied;
    if (behind) {
      options.logger.warn(
        {
          stream: existing.stream_name,
          durable: options.durable,
          acknowledged: existing.ack_floor.stream_seq,
          applied,
        },
        'projection is behind its consumer: replaying the stream',
      );
      await warnOfAgedOut(options, applied);
    }
    return behind;
  };
}

/**
 * The stream keeps STREAM_MAX_AGE_MS of events: a replay rebuilds only what it still
 * holds. When events the database never applied are gone, say which, and from where a
 * rebuild must start (a backup of status newer than the stream's first event).
 */
async function warnOfAgedOut(options: ReplayCheckOptions, applied: number): Promise<void> {
  const jsm = await jetstreamManager(options.nats);
  const { state } = await jsm.streams.info(streamName(options.prefix, options.stream.name));
  if (state.first_seq <= applied + 1) return;
  options.logger.error(
    {
      stream: streamName(options.prefix, options.stream.name),
      durable: options.durable,
      applied,
      firstKeptSeq: state.first_seq,
      firstKeptAt: state.first_ts,
    },
    'the stream no longer holds every event the projection lacks: records last changed before ' +
      'firstKeptAt are not rebuilt; restore status from a backup newer than firstKeptAt first ' +
      '(docs/status.md, "Rebuilding")',
  );
}
