import type { Logger } from '@dzpay/platform';
import type { PaymentsRepository } from '../store/payments-repository.ts';
import type { RefundsRepository } from '../store/refunds-repository.ts';
import type { PaymentRecord } from '../domain/payment-record.ts';
import { nextLookAt, sweepBackoffMs } from './sweep-backoff.ts';
import type { Settler } from '../lifecycle/settler.ts';

export interface Sweeper {
  /** One pass: every open attempt past its window or waiting too long gets decided if it can. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

/** Attempts looked at per pass, and refund checks per pass. */
const ATTEMPTS_PER_PASS = 100;
const REFUNDS_PER_PASS = 50;

/**
 * Decides attempts nobody else will: windows that closed while the payer never came
 * back, outcomes lost to a crash between the card network's approval and our commit,
 * money the card network took for attempts we reported failed, and refunds whose answer
 * was lost. It asks the card network; it never guesses. Each attempt it fails to decide
 * backs off on its own (sweep-backoff.ts), so a few that keep failing never hold up the
 * rest.
 */
export function startSweeper(deps: {
  repository: PaymentsRepository;
  refunds: RefundsRepository;
  settle: Settler;
  logger: Logger;
  intervalMs: number;
  /** A processing attempt untouched this long is asked about even inside its window. */
  staleAfterMs: number;
  /** An open refund intent untouched this long is looked at again. */
  refundQuietMs: number;
  /** Failing to settle an attempt this long after its window closed is logged as an error. */
  overdueMs?: number;
  clock?: () => Date;
}): Sweeper {
  const { repository, settle, logger } = deps;
  const clock = deps.clock ?? (() => new Date());
  let stopped = false;
  let pass: Promise<number> = Promise.resolve(0);

  /** Runs one settlement step for an attempt and schedules its next look, or its backoff. */
  async function visit(
    record: PaymentRecord,
    step: (record: PaymentRecord) => Promise<PaymentRecord>,
    what: string,
  ): Promise<PaymentRecord | null> {
    try {
      const after = await step(record);
      await repository.scheduleSweep(record.id, 0, nextLookAt(after, clock(), deps.staleAfterMs));
      return after;
    } catch (err) {
      const failures = record.sweepFailures + 1;
      const now = clock().getTime();
      const retryAt = new Date(now + sweepBackoffMs(failures));
      // Held, never guessed: past the overdue time an operator must look (the network's
      // credentials, its availability); dzpay_settlement_overdue alerts on it too.
      const overdue = now - record.expiresAt.getTime() > (deps.overdueMs ?? Infinity);
      logger[overdue ? 'error' : 'warn'](
        { err, paymentId: record.id, failures, retryAt, overdue },
        `sweeper could not ${what} yet`,
      );
      await repository
        .scheduleSweep(record.id, failures, retryAt)
        .catch((error: unknown) => logger.warn({ err: error }, 'sweeper backoff not recorded'));
      return null;
    }
  }

  async function runOnce(): Promise<number> {
    let decided = 0;
    const due = await repository.needingAttention(clock(), deps.staleAfterMs, ATTEMPTS_PER_PASS);
    for (const record of due) {
      const after = await visit(record, (r) => settle.reconcile(r), 'decide an attempt');
      if (after && after.status !== record.status) decided++;
    }
    for (const record of await repository.refundsDue(clock(), REFUNDS_PER_PASS)) {
      await visit(record, (r) => settle.settleRefundDue(r), 'check a refund due');
    }
    for (const intent of await deps.refunds.stale(clock(), deps.refundQuietMs, REFUNDS_PER_PASS)) {
      const record = await repository.findById(intent.paymentId);
      if (record) await visit(record, (r) => settle.completeRefund(r), 'complete a refund');
    }
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
        logger.error({ err }, 'sweeper pass failed');
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
