import { PaymentsCancelReply, Rpc } from '@dzpay/contracts';
import { serveRpc, type RpcServer } from '@dzpay/platform';
import type { ServedContext } from '../context.ts';
import { paymentView } from '../domain/payment-record.ts';
import { idempotent, markedReplay } from '../store/idempotency.ts';
import { paymentCanceller } from './cancel-payment.ts';

/**
 * payments.cancel: the merchant cancels a hosted-checkout payment not paid yet, once per
 * Idempotency-Key; the reply says whether this cancel did it (AnsweredAgain).
 */
export async function serveCancelHandlers(ctx: ServedContext): Promise<RpcServer[]> {
  const cancel = paymentCanceller(ctx);
  return [
    await serveRpc(
      ctx.nats,
      ctx.prefix,
      Rpc.paymentsCancel,
      async ({ idempotency, ...request }) => {
        const scope = { merchantId: request.merchantId, mode: request.mode };
        const run = async () => {
          const { record, unchanged } = await cancel(scope, request.id);
          return { ...paymentView(record), ...(unchanged ? { unchanged } : {}) };
        };
        const answer = await idempotent(
          ctx.idempotency,
          scope,
          idempotency,
          PaymentsCancelReply,
          run,
        );
        return markedReplay(answer);
      },
      ctx.logger,
    ),
  ];
}
