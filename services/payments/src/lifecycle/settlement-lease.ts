import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@dzpay/platform';
import type { Lease, PaymentsRepository } from '../store/payments-repository.ts';
import type { PaymentRecord } from '../domain/payment-record.ts';
import { renewWhileRunning } from '../store/lease-renewal.ts';

export interface SettlementDeps {
  repository: PaymentsRepository;
  logger: Logger;
  /** How long a claim lasts without renewal: a settlement that dies lets go this late. */
  leaseMs: number;
  /** Longest a card network call may take: the lease must outlast it when it starts. */
  callMs: number;
  /** A clock that never jumps and counts a paused process's pause (tests set their own). */
  monotonic?: () => number;
}

/** An attempt claimed for one settlement: its fresh state and the lease its writes carry. */
export interface Claimed {
  record: PaymentRecord;
  lease: Lease;
  /**
   * Called right before a call that moves money at the card network (refund, reverse,
   * confirm): resolves only while this process surely holds the lease for longer than
   * the call may take, renewing it first when too little is left; otherwise throws
   * LeaseLost and the call is not made. A process paused past its lease (SIGSTOP, a
   * long collection) learns it here rather than calling beside the new holder: its
   * database writes were already refused by the lease, this stops its network calls.
   */
  fence(): Promise<void>;
}

/** The settlement lease ran out or was taken over: this process must not act for the payment. */
export class LeaseLost extends Error {
  constructor(paymentId: string) {
    super(`settlement lease of payment ${paymentId} lost`);
    this.name = 'LeaseLost';
  }
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
export function settlementLeases(deps: SettlementDeps) {
  const { repository, logger, leaseMs } = deps;
  const monotonic = deps.monotonic ?? (() => performance.now());
  // A call must find at least this much of the lease left when it starts.
  const callMargin = Math.min(deps.callMs, leaseMs / 2);

  /** The lease as this process knows it: held until `until` on the monotonic clock. */
  function leaseKeeper(id: string, lease: Lease, heldFrom: number) {
    let until = heldFrom + leaseMs;
    const renew = async (): Promise<boolean> => {
      const started = monotonic();
      const held = await repository.renewSettlement(id, lease, leaseMs);
      until = held ? Math.max(until, started + leaseMs) : -Infinity;
      return held;
    };
    const fence = async (): Promise<void> => {
      if (monotonic() + callMargin <= until) return;
      if (until !== -Infinity && (await renew()) && monotonic() + callMargin <= until) return;
      throw new LeaseLost(id);
    };
    return { renew, fence };
  }

  async function claim(
    id: string,
    waitMs: number,
  ): Promise<{ claimed: Claimed; renew: () => Promise<boolean> } | null> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const started = monotonic();
      const claimed = await repository.claimSettlement(id, leaseMs);
      if (claimed) {
        const { fence, renew } = leaseKeeper(id, claimed.lease, started);
        return { claimed: { ...claimed, fence }, renew };
      }
      if (Date.now() >= deadline) return null;
      await sleep(CLAIM_RETRY_MS);
    }
  }

  return async function withSettlement<T>(
    id: string,
    work: (claimed: Claimed) => Promise<T>,
    options: { waitMs?: number } = {},
  ): Promise<T | null> {
    const held = await claim(id, options.waitMs ?? 0);
    if (!held) return null;
    const { claimed } = held;
    const renewal = renewWhileRunning({
      leaseMs,
      maxHoldMs: MAX_HOLD_MS,
      renew: held.renew,
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

export type WithSettlement = ReturnType<typeof settlementLeases>;
