import { jetstreamManager } from '@nats-io/jetstream';
import type { Logger } from './logger.ts';
import type { NatsConnection } from './nats.ts';
import { natsUnavailableReason } from './nats-weather.ts';

/** How one look at JetStream went, and what to do about a server without it. */
export interface JetStreamLook {
  /** Asks JetStream something every server of a healthy cluster answers (account info). */
  ask(): Promise<void>;
  /** Leaves this NATS server for the next of NATS_URL's. */
  move(): Promise<void>;
}

/**
 * Watches whether JetStream answers through the server this process is connected to.
 * A NATS node cut from its peers keeps its clients, and gives them no JetStream for as
 * long as the cut lasts (the cluster campaign's partition-nats-node): a process that
 * stays there publishes and reads nothing. After `moveAfterMs` without an answer (longer
 * than a Raft election, 4 to 9 s, so a failover alone does not move anyone) it moves to
 * another server. Meanwhile /readyz says degraded.
 */
export function jetStreamWatch(options: {
  look: JetStreamLook;
  logger: Logger;
  moveAfterMs: number;
  /** Servers in NATS_URL: with one, there is nowhere to move. */
  servers: number;
  clock?: () => number;
}) {
  const clock = options.clock ?? Date.now;
  let failingSince: number | null = null;
  let reason = '';

  return {
    /** One look: the runtime calls it every second. */
    async check(): Promise<void> {
      try {
        await options.look.ask();
      } catch (err) {
        const why = natsUnavailableReason(err);
        // Anything else (a permission, a bug) is not this watch's to act on.
        if (why === null) return;
        reason = why;
        const now = clock();
        if (failingSince === null) {
          failingSince = now;
          options.logger.warn({ reason }, 'JetStream does not answer through this NATS server');
        }
        if (options.servers > 1 && now - failingSince >= options.moveAfterMs) {
          options.logger.warn(
            { reason, withoutMs: now - failingSince },
            'no JetStream through this NATS server for too long (cut from its peers?): moving to another',
          );
          failingSince = now;
          await options.look.move().catch(() => undefined);
        }
        return;
      }
      if (failingSince !== null)
        options.logger.warn(
          { withoutMs: clock() - failingSince },
          'JetStream answers again through this NATS server',
        );
      failingSince = null;
    },
    /** Rejects while JetStream does not answer: a degradable /readyz check. */
    assertAnswering(): Promise<void> {
      if (failingSince === null) return Promise.resolve();
      return Promise.reject(
        new Error(`no JetStream answer for ${clock() - failingSince} ms (${reason})`),
      );
    },
  };
}

/** The look of a live connection: account info, one second at most; a forced reconnect. */
export function connectionLook(nats: NatsConnection): JetStreamLook {
  const manager = jetstreamManager(nats, { timeout: 1_000, checkAPI: false });
  return {
    async ask() {
      await (await manager).getAccountInfo();
    },
    move: () => nats.reconnect(),
  };
}
