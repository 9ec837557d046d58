import type { PayoutRecordRequest, PayoutView } from '@dzpay/contracts';

/** A payout row as payments keeps it (payouts table, migration 016). */
export interface PayoutRecord extends PayoutView {
  merchantId: string;
  recordedBy: string;
}

export type PayoutDecision =
  /** The reference recorded this very payout: answer it again, record nothing. */
  | { kind: 'replay'; payout: PayoutRecord }
  /** The reference recorded another payout (or another merchant's): refuse. */
  | { kind: 'reference-taken'; message: string }
  /** More than a payout may take now: refuse, saying how much it may. */
  | { kind: 'over-balance'; message: string }
  | { kind: 'record' };

const dzd = (centimes: number) =>
  `${centimes < 0 ? '-' : ''}${Math.trunc(Math.abs(centimes) / 100)}.${String(Math.abs(centimes) % 100).padStart(2, '0')} DZD`;

/**
 * Whether a payout is recorded, decided under the merchant and mode's lock: the bank
 * reference first (a retry of a recorded payout gets it back, whatever the balance has
 * become since), then the amount against what a payout may take (`available`: the
 * balance less the merchant refunds still open).
 */
export function decidePayout(
  request: PayoutRecordRequest,
  existing: PayoutRecord | null,
  money: { balance: number; pendingRefunds: number; available: number },
): PayoutDecision {
  if (existing) {
    const same =
      existing.merchantId === request.merchantId &&
      existing.mode === request.mode &&
      existing.amount === request.amount &&
      existing.wallet === request.wallet;
    if (same) return { kind: 'replay', payout: existing };
    const whose =
      existing.merchantId === request.merchantId
        ? `${dzd(existing.amount)} to wallet ${existing.wallet}`
        : 'a payout of another merchant';
    return {
      kind: 'reference-taken',
      message: `bank reference ${request.reference} already records ${whose} (payout ${existing.id}, ${existing.recordedAt})`,
    };
  }
  if (request.amount > money.available) {
    const pending =
      money.pendingRefunds > 0
        ? ` (balance ${dzd(money.balance)}, less ${dzd(money.pendingRefunds)} of refunds still open)`
        : '';
    return {
      kind: 'over-balance',
      message: `payout of ${dzd(request.amount)} is more than the available balance of ${dzd(money.available)}${pending}`,
    };
  }
  return { kind: 'record' };
}
