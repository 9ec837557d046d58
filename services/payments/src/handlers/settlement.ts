import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@dzpay/platform';
import type { Lease, PaymentsRepository } from '../adapters/payments-repository.ts';
import type { PaymentRecord } from '../domain/payment-record.ts';
import { renewWhileRunning } from './lease-renewal.ts';

export interface SettlementDeps {
  repository: PaymentsRepository;
  logger: Logger;
  /** How long a claim lasts without renewal: a settlement that dies lets go this late. */
  leaseMs: number;
}

/** An attempt claimed for one settlement: its fresh state and the lease its writes carry. */
export interface Claimed {
  record: PaymentRecord;
  lease: Lease;
}

/** Between two tries to claim a payment another settlement holds. */
const CLAIM_RETRY_MS = 50;

/**
 * Longest a settlement keeps its lease: its card network calls time out long before
 * (a few calls of CARDNET_TIMEOUT_MS), so one still running then is hung.
 */
const MAX_HOLD_MS = 2 * 60 * 1000;

/**
 * Runs `work` while this process alone talks to the card network about the payment
 * (settling, expiring, refunding). The claim is a lease row, renewed while the work runs:
 * a settlement that waits on a slow card network holds no pooled connection, so any
 * number of them can wait without starving other requests, and one whose process dies
 * frees the payment when its lease runs out. Writes under the lease are refused once it
 * is lost (a process paused past it). Null when another settlement holds the payment
 * (after waiting up to `waitMs` for it).
 */
export function settlementRunner(deps: SettlementDeps) {
  const { repository, logger, leaseMs } = deps;

  async function claim(id: string, waitMs: number): Promise<Claimed | null> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const claimed = await repository.claimSettlement(id, leaseMs);
      if (claimed || Date.now() >= deadline) return claimed;
      await sleep(CLAIM_RETRY_MS);
    }
  }

  return async function withSettlement<T>(
    id: string,
    work: (claimed: Claimed) => Promise<T>,
    options: { waitMs?: number } = {},
  ): Promise<T | null> {
    const claimed = await claim(id, options.waitMs ?? 0);
    if (!claimed) return null;
    const renewal = renewWhileRunning({
      leaseMs,
      maxHoldMs: MAX_HOLD_MS,
      renew: () => repository.renewSettlement(id, claimed.lease, leaseMs),
      logger,
      subject: { paymentId: id },
    });
    try {
      return await work(claimed);
    } finally {
      renewal.stop();
      await repository
        .releaseSettlement(id, claimed.lease)
        .catch((err: unknown) =>
          logger.warn({ err, paymentId: id }, 'settlement lease not released; it runs out'),
        );
    }
  };
}

export type WithSettlement = ReturnType<typeof settlementRunner>;
