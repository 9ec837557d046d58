import {
  isUuid,
  PAYMENT_WINDOW_MS,
  PaymentsRefundReply,
  Rpc,
  type PaymentsListRequest,
  type PaymentsPage,
} from '@dzpay/contracts';
import { AppError, serveRpc, type RpcServer } from '@dzpay/platform';
import { paymentsList } from '../adapters/payments-list.ts';
import type { PaymentsCore } from '../core.ts';
import { paymentView } from '../domain/payment-record.ts';
import { decodeCursor, encodeCursor } from '../domain/payments-cursor.ts';
import { paymentCanceller } from './cancel-payment.ts';
import { idempotent } from './idempotency.ts';
import { paymentRegistration } from './register-payment.ts';
import { RefundPending } from './refund.ts';
import type { ServiceWiring } from './service-wiring.ts';
import { settlementRunner } from './settlement.ts';

/**
 * The payments resource: payments.register, payments.get and payments.refund (one
 * payment), payments.list (the merchant's payments, newest first, page by page) and
 * payments.cancel (a hosted-checkout payment not paid yet).
 */
export function servePaymentsHandlers(
  wiring: ServiceWiring,
  core: PaymentsCore,
  options: {
    /** Base URL of the gateway's pages: the card network sends payers back there. */
    publicBaseUrl: string;
    windowMs?: number;
  },
): Promise<RpcServer[]> {
  const { nats, prefix, sql, logger, clock } = wiring;
  const { repository, cardNetworks } = core;
  const windowMs = options.windowMs ?? PAYMENT_WINDOW_MS;
  // A registration holds its payment's settlement lease as long as its key's lease: a
  // retry that takes the key over from a dead (or paused) try takes the payment over too.
  const leaseMs = core.idempotency.leaseMs;
  const open = {
    repository,
    cardNetworks,
    health: core.health,
    logger,
    publicBaseUrl: options.publicBaseUrl,
    windowMs,
    clock,
    leaseMs,
  };
  // Registering an order moves no money: nothing here fences a call on `callMs`.
  const withSettlement = settlementRunner({ repository, logger, leaseMs, callMs: leaseMs });
  const list = paymentsList(sql);
  const cancel = paymentCanceller({
    repository,
    withSettlement: core.withSettlement,
    settle: core.settle,
    cardNetworks,
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
    serveRpc(
      nats,
      prefix,
      Rpc.paymentsRegister,
      paymentRegistration({ core, open, withSettlement, writer: core.registrations }),
      logger,
    ),

    serveRpc(
      nats,
      prefix,
      Rpc.paymentsGet,
      async ({ merchantId, mode, id }) => {
        const record = isUuid(id)
          ? await repository.findForMerchant({ merchantId, mode }, id)
          : null;
        if (!record) throw notFound(id);
        return paymentView(record);
      },
      logger,
    ),

    serveRpc(
      nats,
      prefix,
      Rpc.paymentsRefund,
      async ({ idempotency, ...request }) => {
        const refund = () => core.refund({ ...request, idempotencyKey: idempotency?.key ?? null });
        try {
          return (
            await idempotent(core.idempotency, request, idempotency, PaymentsRefundReply, refund)
          ).value;
        } catch (error) {
          // Pending at the card network: answered (202), never stored for its key, so
          // the key's retry learns the outcome.
          if (error instanceof RefundPending) return error.reply;
          throw error;
        }
      },
      logger,
    ),

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

function notFound(id: string): AppError {
  return new AppError('PAYMENT_INSTANCE404_NOT_FOUND', 'payment not found', { details: { id } });
}
