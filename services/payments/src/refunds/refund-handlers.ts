import { PaymentsRefundReply, Rpc } from '@dzpay/contracts';
import { serveRpc, type RpcServer } from '@dzpay/platform';
import type { ServedContext } from '../context.ts';
import { idempotent } from '../store/idempotency.ts';
import { refunder, RefundPending } from './refunder.ts';

/** payments.refund: a succeeded payment refunded, in whole or in part, under its key. */
export async function serveRefundHandlers(ctx: ServedContext): Promise<RpcServer[]> {
  const refund = refunder(ctx);
  return [
    await serveRpc(
      ctx.nats,
      ctx.prefix,
      Rpc.paymentsRefund,
      async ({ idempotency, ...request }) => {
        const run = () => refund({ ...request, idempotencyKey: idempotency?.key ?? null });
        try {
          const { value, replayed } = await idempotent(
            ctx.idempotency,
            request,
            idempotency,
            PaymentsRefundReply,
            run,
          );
          return replayed ? { ...value, replayed } : value;
        } catch (error) {
          // Pending at the card network: answered (202), never stored for its key, so
          // the key's retry learns the outcome.
          if (error instanceof RefundPending) return error.reply;
          throw error;
        }
      },
      ctx.logger,
    ),
  ];
}
