import { AppError, serveRpc, type RpcServer } from '@dzpay/platform';
import { isUuid, Rpc, type PaymentsListRequest, type PaymentsPage } from '@dzpay/contracts';
import type { ServedContext } from '../context.ts';
import { paymentView } from '../domain/payment-record.ts';
import { decodeCursor, encodeCursor } from '../domain/payments-cursor.ts';
import { paymentsList } from './payments-list.ts';

/**
 * Reading payments: payments.get (one payment) and payments.list (the merchant's
 * payments, newest first, page by page by a keyset cursor).
 */
export function serveListingHandlers(ctx: ServedContext): Promise<RpcServer[]> {
  const { nats, prefix, logger, repository } = ctx;
  const list = paymentsList(ctx.sql);

  async function page(request: PaymentsListRequest): Promise<PaymentsPage> {
    const { merchantId, mode, limit, cursor, ...filter } = request;
    const after = cursor === undefined ? null : decodeCursor(cursor);
    if (cursor !== undefined && !after) {
      throw new AppError('VALIDATION400_BAD_REQUEST', 'request validation failed', {
        details: {
          failures: [{ field: 'cursor', message: 'cursor is not one this API gave out' }],
        },
      });
    }
    // One more than asked: whether a next page exists, without counting.
    const rows = await list({ merchantId, mode }, filter, after, limit + 1);
    const shown = rows.slice(0, limit);
    return {
      payments: shown.map(({ record }) => ({ ...paymentView(record), channel: record.channel })),
      nextCursor: rows.length > limit ? encodeCursor(shown.at(-1)!.cursor) : null,
    };
  }

  return Promise.all([
    serveRpc(
      nats,
      prefix,
      Rpc.paymentsGet,
      async ({ merchantId, mode, id }) => {
        const record = isUuid(id)
          ? await repository.findForMerchant({ merchantId, mode }, id)
          : null;
        if (!record) {
          throw new AppError('PAYMENT_INSTANCE404_NOT_FOUND', 'payment not found', {
            details: { id },
          });
        }
        return paymentView(record);
      },
      logger,
    ),
    serveRpc(nats, prefix, Rpc.paymentsList, page, logger),
  ]);
}
