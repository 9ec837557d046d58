import type { Logger } from '@dzpay/platform';
import type { PaymentsRepository } from '../adapters/payments-repository.ts';
import type { Settler } from '../handlers/settle.ts';

export interface Sweeper {
  /** One pass: every open attempt past its window or waiting too long gets decided if it can. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Decides attempts nobody else will: windows that closed while the payer never came
 * back, outcomes lost to a crash between the card network's approval and our commit,
 * and money the card network took for attempts we reported failed. It asks the card
 * network; it never guesses.
 */
export function startSweeper(deps: {
  repository: PaymentsRepository;
  settle: Settler;
  logger: Logger;
  intervalMs: number;
  /** A processing attempt untouched this long is asked about even inside its window. */
  staleAfterMs: number;
  clock?: () => Date;
}): Sweeper {
  const clock = deps.clock ?? (() => new Date());
  let stopped = false;
  let pass: Promise<number> = Promise.resolve(0);

  async function runOnce(): Promise<number> {
    const due = await deps.repository.needingAttention(clock(), deps.staleAfterMs, 100);
    let decided = 0;
    for (const record of due) {
      try {
        const after = await deps.settle.reconcile(record);
        if (after.status !== record.status) decided++;
      } catch (err) {
        deps.logger.warn({ err, paymentId: record.id }, 'sweeper could not decide an attempt yet');
      }
    }
    for (const record of await deps.repository.refundsDue(50)) {
      await deps.settle
        .settleRefundDue(record)
        .catch((err: unknown) =>
          deps.logger.warn({ err, paymentId: record.id }, 'refund check failed'),
        );
    }
    await deps.repository.forgetIdempotencyKeys(new Date(clock().getTime() - 24 * 3600 * 1000));
    return decided;
  }

  // A tick while a pass still runs (a slow card network) is skipped, not queued: passes
  // must not pile up behind an outage.
  let running = false;
  const timer = setInterval(() => {
    if (stopped || running) return;
    running = true;
    pass = pass
      .then(runOnce)
      .catch((err: unknown) => {
        deps.logger.error({ err }, 'sweeper pass failed');
        return 0;
      })
      .finally(() => {
        running = false;
      });
  }, deps.intervalMs);

  return {
    runOnce: () => (pass = pass.then(runOnce)),
    async stop() {
      stopped = true;
      clearInterval(timer);
      await pass.catch(() => 0);
    },
  };
}
