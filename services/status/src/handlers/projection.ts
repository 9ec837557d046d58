import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import type { Logger } from '@dzpay/platform';
import type { Applied } from '../adapters/status-repository.ts';

export interface Projection {
  /** Stops pulling, finishes the message in hand, hands buffered ones back to the stream. */
  stop(): Promise<void>;
}

/**
 * Applies one message in one transaction that commits before the ack; 'unreadable' when
 * no version of this reader can parse it (the position is still recorded).
 */
export type MessageHandler = (msg: JsMsg) => Promise<Applied | 'unreadable'>;

/**
 * Projects one stream into the status schema, one message at a time through `handle`.
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
  let stopping = false;
  let messages: ConsumerMessages | undefined;
  // Cuts the pause before a restart short when stop() comes.
  const pause = new AbortController();

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

  async function run(): Promise<void> {
    // consume() rides out NATS reconnects by itself; this loop only covers the iterator
    // ending anyway (an error, a closed connection), so the projection never silently stops.
    while (!stopping) {
      try {
        messages = await consumer.consume({ max_messages: 64 });
        if (stopping) await messages.close();
        for await (const msg of messages) {
          // Messages already buffered when stop() began go straight back to the stream,
          // so another replica takes them now instead of after the ack wait.
          if (stopping) msg.nak();
          else await handle(msg);
        }
        if (!stopping) logger.warn(`${name} events consumer ended, restarting`);
      } catch (err) {
        if (!stopping) logger.error({ err }, `${name} events consumer failed, restarting`);
      }
      await sleep(retryDelayMs, undefined, { signal: pause.signal }).catch(() => {});
    }
  }

  const running = run();
  return {
    async stop() {
      stopping = true;
      pause.abort();
      await messages?.close();
      await running;
    },
  };
}

/** The message's JSON body, or undefined when it is not JSON. */
export function jsonOf(msg: JsMsg): unknown {
  try {
    return msg.json();
  } catch {
    return undefined;
  }
}
