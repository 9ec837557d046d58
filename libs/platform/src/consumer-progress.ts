import type { Consumer, ConsumerInfo } from '@nats-io/jetstream';
import type { Logger } from './logger.ts';

/** What the watch knows of one durable consumer, and how its reader re-attaches. */
export interface ConsumerProgress {
  /** The reader handed a message to its handler. */
  delivered(): void;
  /** Called each time the consumer is found stalled: the reader re-attaches. */
  onStall(reattach: () => void): void;
  /**
   * The reader lost touch with the consumer's leader (heartbeats missed, no responders,
   * consumer not found): degraded at once, however briefly, until it hears from it again.
   */
  troubled(what: string): void;
  /** The reader heard from the consumer's leader (a heartbeat, a message). */
  heard(): void;
}

export interface ConsumerState {
  stream: string;
  consumer: string;
  /** Messages not yet handled (not delivered, or delivered and not acknowledged), as last seen. */
  waiting: number;
  /** Since when nothing moved while messages waited; null while it progresses or idles. */
  stalledSince: number | null;
  sinceProgressMs: number;
}

interface Entry {
  stream: string;
  name: string;
  consumer: Consumer;
  lastProgress: number;
  ackFloor: number | undefined;
  waiting: number;
  deliveredSinceCheck: boolean;
  stalledSince: number | null;
  /** Since when the reader has lost touch with the leader, and how it noticed. */
  troubledSince: number | null;
  trouble: string;
  reattach: (() => void)[];
}

/**
 * Notices a durable consumer that stopped moving while messages wait for it: after a
 * NATS node dies, a pull request parked at a consumer leader that is gone is never
 * answered and nothing errors, so the reader would wait for good. A consumer whose ack
 * floor has not moved and whose reader got nothing for `stallAfterMs`, with messages
 * waiting (or no answer about it at all), is stalled: it is logged, its reader is told to
 * re-attach, and it shows in /readyz (degraded) and in the metrics until it moves again.
 */
export function consumerProgressWatch(options: {
  stallAfterMs: number;
  checkEveryMs: number;
  logger?: Logger;
  clock?: () => number;
}) {
  const clock = options.clock ?? Date.now;
  const entries = new Map<string, Entry>();
  let timer: NodeJS.Timeout | undefined;
  let checking: Promise<void> | undefined;

  async function checkOne(entry: Entry): Promise<void> {
    const info: ConsumerInfo | null = await entry.consumer.info().catch(() => null);
    const now = clock();
    const ackFloor = info?.ack_floor.stream_seq;
    if (info) entry.waiting = info.num_pending + info.num_ack_pending;
    const moved =
      entry.deliveredSinceCheck || (ackFloor !== undefined && ackFloor !== entry.ackFloor);
    entry.deliveredSinceCheck = false;
    if (ackFloor !== undefined) entry.ackFloor = ackFloor;
    // Idle is not stalled; without an answer the consumer cannot be told idle.
    if (moved || (info && entry.waiting === 0)) {
      if (entry.stalledSince !== null)
        options.logger?.info(
          { stream: entry.stream, consumer: entry.name },
          'stream consumer moves again',
        );
      entry.lastProgress = now;
      entry.stalledSince = null;
      return;
    }
    if (now - entry.lastProgress < options.stallAfterMs) return;
    entry.stalledSince ??= now;
    options.logger?.warn(
      {
        stream: entry.stream,
        consumer: entry.name,
        waiting: entry.waiting,
        sinceProgressMs: now - entry.lastProgress,
        answered: info !== null,
      },
      'stream consumer made no progress while messages wait; re-attaching',
    );
    // Counted again from here: the re-attached reader gets a full period to move.
    entry.lastProgress = now;
    for (const reattach of entry.reattach) reattach();
  }

  function checkAll(): Promise<void> {
    checking ??= Promise.all([...entries.values()].map(checkOne)).then(
      () => {
        checking = undefined;
      },
      () => {
        checking = undefined;
      },
    );
    return checking;
  }

  return {
    watch(stream: string, name: string, consumer: Consumer): ConsumerProgress {
      const entry: Entry = {
        stream,
        name,
        consumer,
        lastProgress: clock(),
        ackFloor: undefined,
        waiting: 0,
        deliveredSinceCheck: false,
        stalledSince: null,
        troubledSince: null,
        trouble: '',
        reattach: [],
      };
      const heard = () => {
        if (entry.troubledSince === null) return;
        options.logger?.warn(
          { stream, consumer: name, outOfTouchMs: clock() - entry.troubledSince },
          'stream consumer hears its leader again',
        );
        entry.troubledSince = null;
      };
      entries.set(`${stream}/${name}`, entry);
      timer ??= setInterval(() => void checkAll(), options.checkEveryMs).unref();
      return {
        delivered: () => {
          entry.deliveredSinceCheck = true;
          heard();
        },
        onStall: (reattach) => entry.reattach.push(reattach),
        troubled(what) {
          entry.trouble = what;
          if (entry.troubledSince !== null) return;
          entry.troubledSince = clock();
          // A leader's election after a node's loss reads like this: warn, not error.
          options.logger?.warn(
            { stream, consumer: name, what },
            'stream consumer lost touch with its leader (a node lost or an election); pulling again',
          );
        },
        heard,
      };
    },
    /** Every consumer watched, as registered. */
    watched(): { stream: string; name: string; consumer: Consumer }[] {
      return [...entries.values()];
    },
    /** Checks every consumer now (the timer does it every `checkEveryMs`). */
    check: checkAll,
    states(): ConsumerState[] {
      const now = clock();
      return [...entries.values()].map((entry) => ({
        stream: entry.stream,
        consumer: entry.name,
        waiting: entry.waiting,
        stalledSince: entry.stalledSince,
        sinceProgressMs: now - entry.lastProgress,
      }));
    },
    /** Rejects while a consumer is stalled or its reader is out of touch: the /readyz check. */
    assertMoving(): Promise<void> {
      const now = clock();
      const what = [...entries.values()].flatMap((entry) => [
        ...(entry.stalledSince !== null
          ? [
              `${entry.stream}/${entry.name} stalled for ${Math.round((now - entry.stalledSince) / 1000)} s with ${entry.waiting} waiting`,
            ]
          : []),
        ...(entry.troubledSince !== null
          ? [
              `${entry.stream}/${entry.name} out of touch with its leader for ${now - entry.troubledSince} ms (${entry.trouble})`,
            ]
          : []),
      ]);
      return what.length === 0 ? Promise.resolve() : Promise.reject(new Error(what.join('; ')));
    },
    stop(): void {
      clearInterval(timer);
      timer = undefined;
    },
  };
}

/** The progress of each consumer a service reads, for the reader that has only the consumer. */
const byConsumer = new WeakMap<Consumer, ConsumerProgress>();

export function bindProgress(consumer: Consumer, progress: ConsumerProgress): void {
  byConsumer.set(consumer, progress);
}

export function progressOf(consumer: Consumer): ConsumerProgress | undefined {
  return byConsumer.get(consumer);
}
