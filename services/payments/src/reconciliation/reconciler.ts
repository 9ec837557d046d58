import type { Mode, Rpc } from '@dzpay/contracts';
import type { Logger } from '@dzpay/platform';
import type { z } from 'zod';
import {
  CardNetworkError,
  isOrderUnknown,
  type CardNetwork,
  type CardOrderStatus,
} from '../card-network/card-network.ts';
import type { PaymentsRepository } from '../store/payments-repository.ts';
import type { IntentSummary, ReconciliationRepository } from './reconciliation-repository.ts';
import type { PaymentRecord } from '../domain/payment-record.ts';
import { compareOrder, type Discrepancy } from './discrepancies.ts';
import { LeaseLost, type WithSettlement } from '../lifecycle/settlement-lease.ts';

export type ReconciliationReport = z.infer<(typeof Rpc)['paymentsReconcile']['reply']>;
type Entry = ReconciliationReport['discrepancies'][number];

const MODES: readonly Mode[] = ['test', 'live'];
/** BPC's largest page of getLastOrdersForMerchants.do. */
const PAGE_SIZE = 200;
/** Payments the network did not list, read from Postgres this many at a time. */
const READ_BATCH = 200;

export interface ReconcilerDeps {
  store: ReconciliationRepository;
  repository: PaymentsRepository;
  withSettlement: WithSettlement;
  /** The card network of each mode that has one configured; a mode without is skipped. */
  cardNetworks: Partial<Record<Mode, CardNetwork>>;
  logger: Logger;
  clock: () => Date;
  /** Told of the report of every run that ran (the metrics). */
  onReport?: (report: ReconciliationReport) => void;
  /** Orders per page (tests page small). */
  pageSize?: number;
}

export interface Reconciler {
  /**
   * Compares every order the networks hold that was registered in [since, now] with
   * dzpay's records, and dzpay's paid payments of the window with their orders; sets a
   * refund due where that is the fix, and raises the rest. A run that another replica's
   * run keeps from starting answers `ran: false`. `signal` stops it between two pages.
   */
  run(since: Date, options?: { signal?: AbortSignal }): Promise<ReconciliationReport>;
}

/** One run's findings as they come. */
interface Tally {
  report: ReconciliationReport;
  signal: AbortSignal | undefined;
}

/**
 * The reconciler: walks the orders of each mode's network page by page, loads the
 * matching payments and their refund intents once per page, and compares each order
 * with its payment (domain/reconciliation.ts). A safe fix (refund due) is made under the
 * payment's settlement lease, after comparing again with the row as it is then; a
 * payment being settled is left for the next run. Every alarm is logged at error level,
 * with ids and amounts only (a masked card number is never logged either).
 */
export function reconciler(deps: ReconcilerDeps): Reconciler {
  const { store, logger, clock } = deps;
  const pageSize = deps.pageSize ?? PAGE_SIZE;

  function record(tally: Tally, entry: Entry): void {
    const { counts, discrepancies } = tally.report;
    discrepancies.push(entry);
    if (entry.outcome === 'fixed') {
      counts.fixed++;
      logger.warn({ reconciliation: entry }, `reconciliation fixed ${entry.kind}: refund due`);
    } else if (entry.outcome === 'busy') {
      counts.busy++;
      logger.info({ reconciliation: entry }, `reconciliation: ${entry.kind} left to the next run`);
    } else {
      counts.alarms++;
      logger.error({ reconciliation: entry }, `reconciliation alarm: ${entry.kind}`);
    }
  }

  function entryOf(
    mode: Mode,
    payment: PaymentRecord | null,
    orderId: string | null,
    found: Discrepancy,
    outcome: Entry['outcome'],
  ): Entry {
    return {
      kind: found.kind,
      mode,
      paymentId: payment?.id ?? null,
      orderId,
      amount: found.amount,
      dzpayAmount: found.dzpayAmount,
      networkAmount: found.networkAmount,
      outcome,
      detail: found.detail,
    };
  }

  /**
   * Sets the payment's refund due under its settlement lease, if the row, as it is once
   * the lease is held, still calls for it. `resolved`: it no longer does.
   */
  async function applyFix(
    payment: PaymentRecord,
    order: CardOrderStatus | null,
    found: Discrepancy,
  ): Promise<'fixed' | 'busy' | 'resolved'> {
    const fixed = await deps
      .withSettlement(payment.id, async (claimed) => {
        const intents = (await store.intentsOf([payment.id])).get(payment.id) ?? [];
        const again = compareOrder({ order, payment: claimed.record, intents, now: clock() });
        const still =
          again.kind === 'compared' &&
          again.discrepancies.some((d) => d.kind === found.kind && d.fix !== null);
        if (!still) return 'resolved' as const;
        const set = await deps.repository.annotate(payment.id, { refundDue: true }, claimed.lease);
        if (!set) return 'busy' as const;
        // Its turn at the sweeper comes at once, whatever backoff it had.
        await deps.repository.scheduleSweep(payment.id, 0, null);
        return 'fixed' as const;
      })
      .catch((error: unknown) => {
        if (error instanceof LeaseLost) return 'busy' as const;
        throw error;
      });
    return fixed ?? 'busy';
  }

  async function compare(
    tally: Tally,
    mode: Mode,
    order: CardOrderStatus | null,
    payment: PaymentRecord | null,
    intents: readonly IntentSummary[],
  ): Promise<void> {
    const { counts } = tally.report;
    if (payment && (order === null || payment.cardnetOrderId === order.orderId)) {
      counts.paymentsMatched++;
    }
    const comparison = compareOrder({ order, payment, intents, now: clock() });
    if (comparison.kind === 'in-flight') {
      counts.inFlight++;
      return;
    }
    const orderId = order?.orderId ?? payment?.cardnetOrderId ?? null;
    for (const found of comparison.discrepancies) {
      if (!found.fix || !payment) {
        record(tally, entryOf(mode, payment, orderId, found, 'alarm'));
        continue;
      }
      const outcome = await applyFix(payment, order, found);
      if (outcome === 'resolved') counts.inFlight++;
      else record(tally, entryOf(mode, payment, orderId, found, outcome));
    }
  }

  /** One page of listed orders against their payments: two queries for the whole page. */
  async function compareListed(tally: Tally, mode: Mode, orders: CardOrderStatus[]) {
    const payments = await store.paymentsOf(
      mode,
      orders.map((order) => order.orderId),
      orders.map((order) => order.udf1),
    );
    const byOrder = new Map(payments.map((payment) => [payment.cardnetOrderId, payment]));
    const byId = new Map(payments.map((payment) => [payment.id, payment]));
    const intents = await store.intentsOf(payments.map((payment) => payment.id));
    for (const order of orders) {
      const byUdf1 = order.udf1 ? byId.get(order.udf1) : undefined;
      const payment = byOrder.get(order.orderId) ?? byUdf1 ?? null;
      await compare(tally, mode, order, payment, payment ? (intents.get(payment.id) ?? []) : []);
    }
  }

  /** dzpay's paid payments of the window whose order the network did not list. */
  async function compareUnlisted(
    tally: Tally,
    mode: Mode,
    network: CardNetwork,
    listed: ReadonlySet<string>,
  ) {
    const { since, until } = tally.report;
    const paid = await store.paidBetween(mode, new Date(since), new Date(until));
    const unlisted = paid
      .filter((payment) => !payment.cardnetOrderId || !listed.has(payment.cardnetOrderId))
      .map((payment) => payment.id);
    for (let start = 0; start < unlisted.length; start += READ_BATCH) {
      tally.signal?.throwIfAborted();
      const ids = unlisted.slice(start, start + READ_BATCH);
      const [payments, intents] = await Promise.all([
        store.paymentsById(ids),
        store.intentsOf(ids),
      ]);
      for (const payment of payments) {
        let order: CardOrderStatus | null = null;
        if (payment.cardnetOrderId) {
          try {
            order = await network.status(payment.cardnetOrderId);
          } catch (error) {
            if (!(error instanceof CardNetworkError)) throw error;
            if (!isOrderUnknown(error)) {
              record(tally, unreadable(mode, payment, error));
              continue;
            }
          }
        }
        await compare(tally, mode, order, payment, intents.get(payment.id) ?? []);
      }
    }
  }

  function unreadable(mode: Mode, payment: PaymentRecord | null, error: CardNetworkError): Entry {
    const found: Discrepancy = {
      kind: 'network-unreadable',
      amount: payment ? payment.total - payment.refundedAmount : 0,
      dzpayAmount: payment?.total ?? null,
      networkAmount: null,
      fix: null,
      // The client's messages carry the operation and the network's code, never credentials.
      detail: `the card network could not be read: ${error.message}`,
    };
    return entryOf(mode, payment, payment?.cardnetOrderId ?? null, found, 'alarm');
  }

  async function reconcileMode(tally: Tally, mode: Mode): Promise<void> {
    const { report } = tally;
    const network = deps.cardNetworks[mode];
    if (!network) {
      const reason = 'no card network configured';
      report.modes.push({ mode, outcome: 'skipped', reason, ordersSeen: 0 });
      return;
    }
    const listed = new Set<string>();
    const window = { from: new Date(report.since), to: new Date(report.until) };
    try {
      for (let page = 0; ; page++) {
        tally.signal?.throwIfAborted();
        const { orders, totalCount } = await network.orders({ ...window, page, size: pageSize });
        for (const order of orders) listed.add(order.orderId);
        report.counts.ordersSeen += orders.length;
        await compareListed(tally, mode, orders);
        if (orders.length === 0 || (page + 1) * pageSize >= totalCount) break;
      }
      await compareUnlisted(tally, mode, network, listed);
      report.modes.push({ mode, outcome: 'checked', reason: null, ordersSeen: listed.size });
    } catch (error) {
      if (!(error instanceof CardNetworkError)) throw error;
      report.modes.push({
        mode,
        outcome: 'failed',
        reason: error.message,
        ordersSeen: listed.size,
      });
      record(tally, unreadable(mode, null, error));
    }
  }

  return {
    async run(since, options = {}) {
      const until = clock();
      const report: ReconciliationReport = {
        ran: false,
        reason: null,
        since: since.toISOString(),
        until: until.toISOString(),
        modes: [],
        counts: { ordersSeen: 0, paymentsMatched: 0, inFlight: 0, fixed: 0, alarms: 0, busy: 0 },
        discrepancies: [],
        omitted: 0,
      };
      const lock = await store.tryLock();
      if (!lock) {
        report.reason =
          'another reconciliation is running (one replica at a time); try again later';
        logger.info('reconciliation not run: another one is running');
        return report;
      }
      try {
        const tally: Tally = { report, signal: options.signal };
        for (const mode of MODES) await reconcileMode(tally, mode);
        report.ran = true;
      } finally {
        await lock
          .release()
          .catch((err: unknown) =>
            logger.warn({ err }, 'reconciliation lock not released; it goes with its connection'),
          );
      }
      deps.onReport?.(report);
      logger[report.counts.alarms > 0 ? 'error' : 'info'](
        { since: report.since, until: report.until, counts: report.counts },
        'reconciliation done',
      );
      return report;
    },
  };
}
