import {
  algiersDay,
  monthDays,
  REPORT_TIME_ZONE,
  Rpc,
  type MerchantScope,
  type PayoutRecordReply,
  type PayoutRecordRequest,
} from '@dzpay/contracts';
import { AppError, serveRpc, type RpcServer, type Tx } from '@dzpay/platform';
import { balanceRepository } from './balance-repository.ts';
import { payoutRepository } from './payout-repository.ts';
import { balanceReply } from './balance.ts';
import { decodeCursor, encodeCursor } from '../domain/payments-cursor.ts';
import { decidePayout } from './payout.ts';
import { payoutView, statementOf } from './statement.ts';
import type { ReadingContext } from '../context.ts';

/** A unique index's refusal: two references raced past the check (other merchants' locks). */
const isReferenceTaken = (error: unknown) =>
  (error as { code?: string; constraint_name?: string }).code === '23505' &&
  (error as { constraint_name?: string }).constraint_name === 'payouts_reference';

/** payments.balance.get, payments.payouts.*, payments.statement.get. */
export async function serveBalanceHandlers(ctx: ReadingContext): Promise<RpcServer[]> {
  const { nats, prefix, sql, logger, clock } = ctx;
  const sums = balanceRepository();
  const payouts = payoutRepository(sql);

  /**
   * The balance of a range and overall, from one snapshot (or under a lock). A payout's
   * transaction is read committed (a repeatable read snapshot would be taken before its
   * lock is granted and miss the payout it waited behind): the refunds confirmed and
   * still open come from one statement, so a refund confirmed meanwhile is counted once.
   */
  async function balanceIn(tx: Tx, scope: MerchantScope, range: { from: string; to: string }) {
    const { buckets, openRefunds } = await sums.read(tx, scope, range);
    return balanceReply(range, buckets, openRefunds, clock());
  }
  const snapshot = <T>(work: (tx: Tx) => Promise<T>) =>
    sql.begin('isolation level repeatable read read only', work) as Promise<T>;

  async function recordOnce(request: PayoutRecordRequest): Promise<PayoutRecordReply> {
    const scope = { merchantId: request.merchantId, mode: request.mode };
    return sql.begin<PayoutRecordReply>(async (tx) => {
      await payouts.lock(tx, scope);
      const existing = await payouts.byReference(tx, request.mode, request.reference);
      const today = algiersDay(clock());
      const { overall, pendingRefunds, available } = await balanceIn(tx, scope, {
        from: today,
        to: today,
      });
      const decision = decidePayout(request, existing, {
        balance: overall.balance,
        pendingRefunds,
        available,
      });
      switch (decision.kind) {
        case 'replay':
          return { payout: payoutView(decision.payout), replayed: true, balance: overall.balance };
        case 'reference-taken':
          throw new AppError('PAYOUT409_REFERENCE_TAKEN', decision.message, {
            details: { field: 'reference' },
          });
        case 'over-balance':
          throw new AppError('PAYOUT422_OVER_BALANCE', decision.message, {
            details: {
              field: 'amount',
              amount: request.amount,
              balance: overall.balance,
              pendingRefunds,
              available,
            },
          });
        case 'record': {
          const payout = await payouts.insert(tx, request);
          logger.info(
            { merchantId: scope.merchantId, mode: scope.mode, payoutId: payout.id },
            'payout recorded',
          );
          return {
            payout: payoutView(payout),
            replayed: false,
            balance: overall.balance - request.amount,
          };
        }
      }
    });
  }

  return [
    await serveRpc(
      nats,
      prefix,
      Rpc.balanceGet,
      ({ merchantId, mode, from, to }) =>
        snapshot((tx) => balanceIn(tx, { merchantId, mode }, { from, to })),
      logger,
    ),
    await serveRpc(
      nats,
      prefix,
      Rpc.payoutRecord,
      async (request) => {
        try {
          return await recordOnce(request);
        } catch (error) {
          // Another merchant's record took the reference between our check and insert:
          // once more, and the check now sees it and refuses.
          if (isReferenceTaken(error)) return recordOnce(request);
          throw error;
        }
      },
      logger,
    ),
    await serveRpc(
      nats,
      prefix,
      Rpc.payoutsList,
      async ({ merchantId, mode, limit, cursor }) => {
        const after = cursor === undefined ? null : decodeCursor(cursor);
        if (cursor !== undefined && !after) {
          throw new AppError('VALIDATION400_BAD_REQUEST', 'request validation failed', {
            details: {
              failures: [{ field: 'cursor', message: 'cursor is not one this API gave out' }],
            },
          });
        }
        // One more than asked: whether a next page exists, without counting.
        const rows = await payouts.page({ merchantId, mode }, after, limit + 1);
        const page = rows.slice(0, limit);
        const last = page.at(-1);
        return {
          payouts: page.map(payoutView),
          nextCursor: rows.length > limit && last ? encodeCursor(last.cursor) : null,
        };
      },
      logger,
    ),
    await serveRpc(
      nats,
      prefix,
      Rpc.statementGet,
      ({ merchantId, mode, month }) =>
        snapshot(async (tx) => {
          const scope = { merchantId, mode };
          const range = monthDays(month);
          const [balance, recorded] = await Promise.all([
            balanceIn(tx, scope, range),
            payouts.between(tx, scope, range.from, range.to, REPORT_TIME_ZONE),
          ]);
          return statementOf(month, balance, recorded);
        }),
      logger,
    ),
  ];
}
