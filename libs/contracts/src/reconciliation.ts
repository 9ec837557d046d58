import { z } from 'zod';
import { Mode } from './scope.ts';

/**
 * `payments.reconcile`: payments compares every order the card networks hold for dzpay,
 * registered since a moment, with its own records, fixes what is safe to fix (a refund
 * due) and reports the rest as alarms (docs/runbook.md, Reconciliation). The admin CLI
 * (`pnpm dzpay reconcile`) asks it; payments also runs it on a schedule.
 */

/** Longest look back: the network lists orders 200 to a page. */
const MAX_WINDOW_MS = 90 * 86_400_000;

export const ReconcileRequest = z.union([
  /** Orders registered since this instant. */
  z.strictObject({
    since: z.iso
      .datetime({ offset: true })
      .refine((since) => Date.now() - Date.parse(since) <= MAX_WINDOW_MS, {
        error: 'since: at most 90 days back',
      }),
  }),
  /** Orders registered in the last `windowMs` milliseconds. */
  z.strictObject({ windowMs: z.number().int().positive().max(MAX_WINDOW_MS) }),
]);

/** What differs; docs/runbook.md says what each kind means and what to do. */
export const DiscrepancyKind = z.enum([
  /** A failed payment whose order holds captured money, and no refund is due. Fixed. */
  'captured-for-failed',
  /** A failed payment whose order can still be paid, past the late-payment grace. Fixed. */
  'payable-after-failure',
  /** The network refunded more of the order than dzpay's refund intents account for. */
  'refunded-beyond-intents',
  /** dzpay recorded more refunded than the network shows for the order. */
  'refunded-less-than-recorded',
  /** A success (or refunded) payment whose order was never deposited, or is unknown. */
  'success-without-deposit',
  /** A paid payment whose order is for another amount than the payment's total. */
  'amount-mismatch',
  /** An order holding money for no dzpay payment (or for one that names another order). */
  'orphan-order',
  /** An attempt still open past its window and the grace: settlement cannot decide it. */
  'undecided-attempt',
  /** The card network could not be read (credentials refused, errors, no answer). */
  'network-unreadable',
]);
export type DiscrepancyKind = z.infer<typeof DiscrepancyKind>;

const Centimes = z.number().int();

const ReconciliationDiscrepancy = z.object({
  kind: DiscrepancyKind,
  mode: Mode,
  paymentId: z.uuid().nullable(),
  /** The card network's order id. */
  orderId: z.string().nullable(),
  /** Money at stake, centimes. */
  amount: Centimes.nonnegative(),
  /** The quantity compared as dzpay records it, and as the network shows it (centimes). */
  dzpayAmount: Centimes.nullable(),
  networkAmount: Centimes.nullable(),
  /**
   * fixed: dzpay set the payment's refund due (its sweeper returns the money); alarm: an
   * operator must act; busy: a fix applies but the payment was being settled (the next
   * run tries again).
   */
  outcome: z.enum(['fixed', 'alarm', 'busy']),
  detail: z.string(),
});

const Counts = z.object({
  /** Orders the networks listed. */
  ordersSeen: z.number().int().nonnegative(),
  /** Payments compared with their order (listed, or read one by one). */
  paymentsMatched: z.number().int().nonnegative(),
  /** Legitimately undecided (open attempts, refunds not known yet): not compared. */
  inFlight: z.number().int().nonnegative(),
  fixed: z.number().int().nonnegative(),
  alarms: z.number().int().nonnegative(),
  busy: z.number().int().nonnegative(),
});

export const ReconciliationReport = z.object({
  /** false: another reconciliation was running (one replica at a time); nothing was done. */
  ran: z.boolean(),
  /** Why it did not run. */
  reason: z.string().nullable(),
  since: z.iso.datetime({ offset: true }),
  until: z.iso.datetime({ offset: true }),
  modes: z.array(
    z.object({
      mode: Mode,
      /** skipped: no card network configured for the mode; failed: it could not be read. */
      outcome: z.enum(['checked', 'skipped', 'failed']),
      reason: z.string().nullable(),
      ordersSeen: z.number().int().nonnegative(),
    }),
  ),
  counts: Counts,
  discrepancies: z.array(ReconciliationDiscrepancy),
  /** Discrepancies left out of the list to keep the reply small; each one is logged. */
  omitted: z.number().int().nonnegative(),
});
