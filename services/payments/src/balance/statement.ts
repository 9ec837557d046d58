import type { BalanceReply, PayoutView, StatementReply } from '@dzpay/contracts';
import type { PayoutRecord } from './payout.ts';

/** What a merchant sees of a payout: not who recorded it (that is in the audit log). */
export function payoutView(record: PayoutRecord): PayoutView {
  return {
    id: record.id,
    mode: record.mode,
    amount: record.amount,
    wallet: record.wallet,
    reference: record.reference,
    recordedAt: record.recordedAt,
  };
}

/** A month's statement: its days' balance (opening, each day, closing) and its payouts. */
export function statementOf(
  month: string,
  balance: BalanceReply,
  payouts: readonly PayoutRecord[],
): StatementReply {
  return {
    month,
    from: balance.from,
    to: balance.to,
    asOf: balance.asOf,
    openingBalance: balance.openingBalance,
    days: balance.days,
    totals: balance.totals,
    payouts: payouts.map(payoutView),
  };
}
