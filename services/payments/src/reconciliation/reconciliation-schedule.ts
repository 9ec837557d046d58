import type { Logger } from '@dzpay/platform';
import type { Reconciler } from './reconciler.ts';

/**
 * Runs the reconciliation every `intervalMs` over the last `windowMs`. Every replica
 * keeps the schedule; the reconciliation's lock lets one of them run at a time, and a
 * replica that finds it taken waits for its next turn. The first run comes one interval
 * after start, so a crash-looping replica never hammers the card network.
 */
export function startReconciliationSchedule(deps: {
  reconciler: Reconciler;
  intervalMs: number;
  windowMs: number;
  logger: Logger;
  clock?: () => Date;
}): { stop(): Promise<void> } {
  const clock = deps.clock ?? (() => new Date());
  const abort = new AbortController();
  let running: Promise<void> | null = null;

  const timer = setInterval(() => {
    // A run still going (a slow card network) is not doubled.
    if (running || abort.signal.aborted) return;
    const since = new Date(clock().getTime() - deps.windowMs);
    running = deps.reconciler
      .run(since, { signal: abort.signal })
      .then(() => undefined)
      .catch((err: unknown) => {
        if (abort.signal.aborted) return;
        deps.logger.error({ err }, 'reconciliation failed; the next one runs at its time');
      })
      .finally(() => {
        running = null;
      });
  }, deps.intervalMs);
  timer.unref();

  return {
    /** Stops between two pages of a run under way: the next start reconciles again. */
    async stop() {
      clearInterval(timer);
      abort.abort();
      await running;
    },
  };
}
