import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { progressOf, type ConsumerProgress } from './consumer-progress.ts';
import type { Logger } from './logger.ts';
import { natsUnavailableReason } from './nats-weather.ts';

/**
 * How long one pull request waits at the consumer's leader. When that leader's node
 * dies, the request is lost without an error; a short expiry sends a new one, to the new
 * leader, within seconds (the default of 30 s, with its heartbeats, was seen never to
 * recover).
 */
const PULL_EXPIRES_MS = 5_000;

/**
 * How often the consumer's leader says it still holds the pull. Two missed, and the
 * leader is taken for lost: 2 s, where the default (half the expiry, reset by each new
 * pull) noticed a dead leader only after about 10 s.
 */
const IDLE_HEARTBEAT_MS = 1_000;

export interface StreamConsumer {
  /** Stops pulling, finishes the messages in hand, hands buffered ones back to the stream. */
  stop(): Promise<void>;
}

/** The reader of a consumer that its owner may tell to pull anew (the consumer was remade). */
export interface ReattachableConsumer extends StreamConsumer {
  reattach(): void;
}

/**
 * Feeds every message of a durable consumer to `handle`, which acks, naks or terms it,
 * up to `concurrency` at once. consume() rides out NATS reconnects by itself; this loop
 * only covers the iterator ending anyway (an error, a closed connection), restarting
 * after `retryDelayMs` so the consumer never silently stops.
 */
export function consumeStream(deps: {
  /** Names the consumer in logs, e.g. 'payment events'. */
  name: string;
  consumer: Consumer;
  handle: (msg: JsMsg) => Promise<void>;
  logger: Logger;
  retryDelayMs: number;
  concurrency?: number;
}): ReattachableConsumer {
  const { name, consumer, logger, retryDelayMs } = deps;
  const concurrency = deps.concurrency ?? 1;
  let stopping = false;
  let messages: ConsumerMessages | undefined;
  // Cuts the pause before a restart short when stop() comes.
  const pause = new AbortController();
  const inFlight = new Set<Promise<void>>();
  const progress = progressOf(deps.consumer);
  // The watch found it stalled: end this pull loop, the loop below attaches anew.
  progress?.onStall(() => void messages?.close());

  // Told to pull anew (reattach()): the pull loop ends and the next starts at once.
  let reattaching = false;

  async function run(): Promise<void> {
    while (!stopping) {
      let leaderLost = false;
      try {
        const current = (messages = await consumer.consume({
          max_messages: 64,
          expires: PULL_EXPIRES_MS,
          idle_heartbeat: IDLE_HEARTBEAT_MS,
        }));
        if (stopping) await messages.close();
        void followStatus(messages, progress, () => {
          // The library's own recovery waits out another pull expiry after this; a new
          // consume() a moment later asks whoever leads now (measured: 5 to 13 s sooner).
          leaderLost = true;
          void current.close();
        });
        for await (const msg of messages) {
          // Messages already buffered when stop() began go straight back to the stream,
          // so another replica takes them now instead of after the ack wait.
          if (stopping) {
            msg.nak();
            continue;
          }
          progress?.delivered();
          const work: Promise<void> = deps.handle(msg).finally(() => inFlight.delete(work));
          inFlight.add(work);
          if (inFlight.size >= concurrency) await Promise.race(inFlight);
        }
        await Promise.allSettled(inFlight);
        // A lost leader was logged when it was noticed (consumer-progress.ts).
        if (!stopping && !leaderLost && !reattaching)
          logger.warn(`${name} consumer ended, restarting`);
      } catch (err) {
        const reason = natsUnavailableReason(err);
        if (stopping) {
          // stopping: the error is the closing connection's
        } else if (reason)
          logger.warn({ reason }, `${name} consumer waits for JetStream, restarting`);
        else logger.error({ err }, `${name} consumer failed, restarting`);
      }
      const delayMs = leaderLost || reattaching ? LEADER_LOST_RETRY_MS : retryDelayMs;
      reattaching = false;
      await sleep(delayMs, undefined, { signal: pause.signal }).catch(() => {});
    }
  }

  const running = run();
  return {
    reattach() {
      reattaching = true;
      void messages?.close();
    },
    async stop() {
      stopping = true;
      pause.abort();
      await messages?.close();
      await running;
      await Promise.allSettled(inFlight);
    },
  };
}

/** What a pull loop reports when it cannot reach the consumer's leader. */
const OUT_OF_TOUCH = new Set([
  'heartbeats_missed',
  'no_responders',
  'consumer_not_found',
  'stream_not_found',
  'consumer_deleted',
]);

/** Of those, what a leader's loss or an election says: pull anew, soon. */
const LEADER_LOST = new Set(['heartbeats_missed', 'no_responders']);

/** The pause before pulling anew after a lost leader (an election takes 4 to 9 s). */
const LEADER_LOST_RETRY_MS = 250;

/**
 * Follows what the pull loop hears: losing the consumer's leader (a node's loss, an
 * election) shows in /readyz at once, and hearing it again clears it; a lost leader
 * also ends this pull loop (`leaderLost`), so the next one asks the leader of the moment.
 */
async function followStatus(
  messages: ConsumerMessages,
  progress: ConsumerProgress | undefined,
  leaderLost: () => void,
) {
  try {
    for await (const status of messages.status()) {
      if (status.type === 'heartbeat') progress?.heard();
      else if (OUT_OF_TOUCH.has(status.type)) progress?.troubled(status.type.replace(/_/g, ' '));
      if (LEADER_LOST.has(status.type)) leaderLost();
    }
  } catch {
    // the loop ended with the messages: the next consume() follows anew
  }
}

/** The message's JSON body, or undefined when it is not JSON. */
export function jsonOf(msg: JsMsg): unknown {
  try {
    return msg.json();
  } catch {
    return undefined;
  }
}
