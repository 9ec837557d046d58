import { isDatabaseUnavailable } from './db.ts';
import type { Logger } from './logger.ts';

/**
 * What a NATS or JetStream error says about the cluster, when it says it is briefly
 * unavailable (a stream or consumer leader lost and an election under way, a node lost,
 * the connection re-established): a short description, or null for any other error.
 * Callers log these at warn and wait: in a cluster they are the normal sound of failover.
 */
export function natsUnavailableReason(error: unknown): string | null {
  const text = errorText(error);
  if (/jetstream is not enabled|temporarily unavailable|\b503\b/i.test(text))
    return 'JetStream has no leader here (an election, or this node cut from its peers)';
  if (/no responders/i.test(text)) return 'nobody answers the subject (a leader being elected)';
  if (/timeout|timed out/i.test(text)) return 'JetStream did not answer in time (a leader lost)';
  // The NATS client's own words (its error names and messages), not any "connection":
  // a Redis or HTTP connection error is a failure of its own, logged as one.
  if (
    /\b(?:ClosedConnectionError|DrainingConnectionError|ConnectionError)\b|closed connection|connection draining|disconnect|reconnect/i.test(
      text,
    )
  )
    return 'the NATS connection is down (reconnecting)';
  return null;
}

/** The message of the error and of its causes, which the NATS client nests. */
function errorText(error: unknown, depth = 0): string {
  if (!(error instanceof Error) || depth > 3) return String(error);
  const name = `${error.name} ${error.message}`;
  return error.cause === undefined ? name : `${name} ${errorText(error.cause, depth + 1)}`;
}

/**
 * A loop that cannot do its work because JetStream or the database is briefly away (a
 * failover) warns once, with what is happening, and once more when it works again with
 * how long it was out: nothing is lost meanwhile (an outbox keeps its events). Anything
 * else is logged as the error it is, each time.
 */
export function outageLog(
  logger: Logger,
  messages: { waits: string; back: string; failed: string },
  clock: () => number = Date.now,
) {
  let since: number | null = null;
  let attempts = 0;
  return {
    failed: (err: unknown): void => {
      // The database first: its "connection refused" would read as a NATS reason.
      const reason = isDatabaseUnavailable(err)
        ? 'the database is away'
        : natsUnavailableReason(err);
      if (reason === null) {
        logger.error({ err }, messages.failed);
        return;
      }
      attempts++;
      if (since !== null) return;
      since = clock();
      logger.warn(
        { reason, err: err instanceof Error ? err.message : String(err) },
        messages.waits,
      );
    },
    cleared: (): void => {
      if (since === null) return;
      logger.warn({ outMs: clock() - since, attempts }, messages.back);
      since = null;
      attempts = 0;
    },
  };
}
