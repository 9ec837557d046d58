// A merchant's balance and payouts: schemas and NATS subjects.
import { z } from 'zod';
import { rpc } from './rpc-definition.ts';

/** The balance's and payouts' NATS subjects, spread into Rpc (rpc.ts). */
export const BalanceRpc = {
  balanceGet: rpc('payments.balance.get', z.unknown(), z.unknown()),
  payoutsList: rpc('payments.payouts.list', z.unknown(), z.unknown()),
  /** An operator records a payout (the admin CLI): never more than the balance. */
  payoutRecord: rpc('payments.payouts.record', z.unknown(), z.unknown()),
  /** A month's statement: the figures the PDF, CSV and XLSX are drawn from. */
  statementGet: rpc('payments.statement.get', z.unknown(), z.unknown()),
} as const;
