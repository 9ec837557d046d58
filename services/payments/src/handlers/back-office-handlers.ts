import { Rpc, type PaymentsListRequest, type PaymentsPage } from '@dzpay/contracts';
import { AppError, serveRpc, type RpcServer } from '@dzpay/platform';
import type { CardNetwork } from '../adapters/cardnet/card-network.ts';
import { paymentsList } from '../adapters/payments-list.ts';
import type { PaymentsCore } from '../core.ts';
import { decodeCursor, encodeCursor } from '../domain/payments-cursor.ts';
import { paymentView } from '../domain/payment-record.ts';
import { paymentCanceller } from './cancel-payment.ts';
import type { ServiceWiring } from './service-wiring.ts';

/** The core with the card networks it was built over (cancel reverses card orders). */
type BackOfficeCore = PaymentsCore & { cardNetworks?: Record<'test' | 'live', CardNetwork> };

/** payments.list and payments.cancel: the back office's operations (issue 14). */
export async function serveBackOfficeHandlers(
  wiring: ServiceWiring,
  core: BackOfficeCore,
): Promise<RpcServer[]> {
  const { nats, prefix, sql, logger } = wiring;
  const list = paymentsList(sql);
  if (!core.cardNetworks) logger.error('payments.cancel has no card networks: it answers 503');
  const cancel = paymentCanceller({
    repository: core.repository,
    withSettlement: core.withSettlement,
    settle: core.settle,
    cardNetworks: core.cardNetworks,
    logger,
  });

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
    serveRpc(nats, prefix, Rpc.paymentsList, page, logger),
    serveRpc(
      nats,
      prefix,
      Rpc.paymentsCancel,
      async ({ merchantId, mode, id }) => paymentView(await cancel({ merchantId, mode }, id)),
      logger,
    ),
  ]);
}
